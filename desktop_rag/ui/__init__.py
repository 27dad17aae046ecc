"""The desktop app: the only package that imports PySide6. It drives `desktop_rag.core.library.library.Library` from
worker threads (tasks.py) and never blocks the event loop."""

"""desktop-rag: offline search over your own files, with contextual retrieval.

`desktop_rag.core` and `desktop_rag.storage` never import Qt; `desktop_rag.ui` is the only Qt layer.
"""

from desktop_rag import offline as _offline

_offline.enforce()

__version__ = "0.1.0"

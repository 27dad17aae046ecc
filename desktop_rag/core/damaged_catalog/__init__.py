"""A catalog SQLite finds damaged: found (health.py, before anything opens the library) and made anew from the
person's folders, keeping what can still be read of it (rebuild.py)."""

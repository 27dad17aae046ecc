"""Notes of what was searched and opened (storage/use_notes.py) go to one writer thread, whichever threads note."""

from __future__ import annotations

import threading
import time

from desktop_rag.storage import use_notes
from desktop_rag.storage.catalog import Catalog
from desktop_rag.storage.use_notes import UseNotes
from waiting import eventually


RealThread = threading.Thread


class SlowToMakeThread(RealThread):
    """A thread slow to make, which widens the window between checking for the writer and keeping it."""

    made: list[SlowToMakeThread] = []

    def __init__(self, *args, **kwargs):
        time.sleep(0.05)
        super().__init__(*args, **kwargs)
        SlowToMakeThread.made.append(self)


def test_threads_noting_at_once_start_one_writer_and_every_note_is_written(tmp_path, monkeypatch):
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    monkeypatch.setattr(use_notes.threading, "Thread", SlowToMakeThread)  # the threading module's own
    SlowToMakeThread.made.clear()
    notes, written = UseNotes(path), []
    ready = threading.Barrier(8)

    def search(number: int) -> None:
        ready.wait()
        notes._submit(lambda catalog: written.append(number))

    searches = [RealThread(target=search, args=(n,)) for n in range(8)]
    for thread in searches:
        thread.start()
    for thread in searches:
        thread.join()
    monkeypatch.undo()
    writers = [t for t in SlowToMakeThread.made if t.name == "use-notes"]
    notes.close(wait=False)  # a second writer would never be told to end
    assert len(writers) == 1
    eventually(lambda: len(written) == 8)
    assert sorted(written) == list(range(8))

"""Notes of what was searched and opened (storage/use_notes.py) wait in memory, whichever threads note, and the
writer's connection writes them all, in the order noted, with the time each was noted."""

from __future__ import annotations

import threading

from desktop_rag.storage.use_notes import NOTES_KEPT, UseNotes


class FakeCatalogRecordingNotes:
    def __init__(self, failing: int | None = None):
        self.upgrade_order = self
        self.noted: list[tuple] = []
        self.failing = failing

    def note_hits(self, chunk_ids, at):
        if chunk_ids == [self.failing]:
            raise OSError("disk I/O error")
        self.noted.append(("hits", chunk_ids, at))

    def note_opened(self, chunk_id, at):
        self.noted.append(("opened", chunk_id, at))


def test_threads_noting_at_once_lose_no_note_and_the_writer_writes_them_all():
    notes, ready = UseNotes(), threading.Barrier(8)

    def search(number: int) -> None:
        ready.wait()
        for n in range(50):
            notes.hits([number * 100 + n])

    searches = [threading.Thread(target=search, args=(n,)) for n in range(8)]
    for thread in searches:
        thread.start()
    for thread in searches:
        thread.join()
    notes.opened(7)
    catalog = FakeCatalogRecordingNotes()
    assert notes.write_waiting(catalog) == 401
    assert sorted(ids[0] for kind, ids, _ in catalog.noted if kind == "hits") == sorted(
        n * 100 + i for n in range(8) for i in range(50))
    assert catalog.noted[-1][:2] == ("opened", 7)
    assert [at for *_, at in catalog.noted] == sorted(at for *_, at in catalog.noted)  # noted at, not written at
    assert notes.write_waiting(catalog) == 0


def test_a_note_that_cannot_be_written_is_dropped_and_the_rest_are_written_and_at_most_so_many_wait():
    notes, catalog = UseNotes(), FakeCatalogRecordingNotes(failing=2)
    for chunk in (1, 2, 3):
        notes.hits([chunk])
    assert notes.write_waiting(catalog) == 2 and [n[1] for n in catalog.noted] == [[1], [3]]
    for chunk in range(NOTES_KEPT + 10):
        notes.hits([chunk])
    catalog.noted.clear()
    assert notes.write_waiting(catalog) == NOTES_KEPT and catalog.noted[0][1] == [10]  # the oldest dropped

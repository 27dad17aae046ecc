"""Folder watching's events, before any work: which paths count, and how a storm of events becomes one batch (the
watcher at work on real folders is in end2end/test_watch.py)."""

from desktop_rag.config import Settings
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.core.watching.watch import FolderWatcher


def test_only_indexable_paths_under_no_ignored_name_are_relevant(tmp_path):
    watcher = FolderWatcher([tmp_path], Settings().ignore_patterns, lambda batch: None, exclude=[tmp_path / "data"])
    assert watcher.relevant(str(tmp_path / "notes" / "a.md"), is_directory=False)
    assert watcher.relevant(str(tmp_path / "notes"), is_directory=True)
    assert not watcher.relevant(str(tmp_path / ".git" / "objects" / "ab.md"), is_directory=False)
    assert not watcher.relevant(str(tmp_path / "node_modules" / "x" / "README.md"), is_directory=False)
    assert not watcher.relevant(str(tmp_path / "~$report.docx"), is_directory=False)
    assert not watcher.relevant(str(tmp_path / "a.md.tmp"), is_directory=False)
    assert not watcher.relevant(str(tmp_path / "song.mp3"), is_directory=False)
    assert not watcher.relevant(str(tmp_path.parent / "elsewhere.md"), is_directory=False)
    assert not watcher.relevant(str(tmp_path / "data" / "notes.md"), is_directory=False)  # our own data folder


def test_events_are_coalesced_and_filtered_before_any_work(tmp_path):
    from watchdog.events import DirModifiedEvent, FileCreatedEvent, FileModifiedEvent, FileMovedEvent

    watcher = FolderWatcher([tmp_path], Settings().ignore_patterns, lambda batch: None)
    a, b = str(tmp_path / "a.md"), str(tmp_path / "b.md")
    watcher._retries[a] = 20  # a's retries were used up while it was being written…
    for event in (FileCreatedEvent(a), FileModifiedEvent(a), FileModifiedEvent(a),  # one dirty path
                  DirModifiedEvent(str(tmp_path)),  # a folder "modified" by its files: no work of its own
                  FileMovedEvent(str(tmp_path / ".a.md.swp"), b),  # temp file renamed over b: b is dirty
                  FileMovedEvent(a, str(tmp_path / "sub" / "a.md")),  # a real move: recorded as a move
                  FileMovedEvent(str(tmp_path / "x.md"), str(tmp_path / "y.md"), is_synthetic=True)):
        watcher.on_event(event)
    pending = watcher._pending
    assert pending.moves == [(a, str(tmp_path / "sub" / "a.md"))]
    assert pending.dirty == {a, b, str(tmp_path / "sub" / "a.md")}
    assert a not in watcher._retries  # …and a real event for it starts them afresh
    assert ChangeBatch(dirty={str(tmp_path), a, str(tmp_path / "sub")}).outermost_dirty() == [str(tmp_path)]

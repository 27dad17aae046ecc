"""Watch folders with watchdog and hand coalesced batches of changes to a callback.

Events are not acted on one by one: an editor's save (write a temp file, rename it over the original) or a
`git checkout` fires many, so they are collected until the folders have been quiet for `quiet_seconds` (or
`max_delay_seconds` have passed since the first, so a long storm still makes progress), then handed over as
one ChangeBatch. The callback runs on the watcher's own thread; events that arrive meanwhile form the next
batch. When the kernel drops events (an inotify queue overflow during a huge unzip), every watched folder is
rescanned: the scan finds what the lost events would have said.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from contextlib import contextmanager
from collections.abc import Callable, Iterable, Iterator

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from desktop_rag.core.files.parsers import is_supported
from desktop_rag.core.files.scan import is_ignored
from desktop_rag.core.watching.changes import ChangeBatch

log = logging.getLogger(__name__)

_CONTENT_EVENTS = {"created", "modified", "deleted", "closed"}  # not opened, attrib, closed_no_write
_MAX_RETRIES = 20


class FolderWatcher:
    def __init__(self, folders: Iterable[Path], ignore_patterns: Iterable[str],
                 on_changes: Callable[[ChangeBatch], None], quiet_seconds: float = 0.3,
                 max_delay_seconds: float = 2.0, exclude: Iterable[Path] = (),
                 on_first_change: Callable[[], None] | None = None):
        """`exclude`: folders whose events never count (the data folder: our own writes must not trigger work).
        `on_first_change()`: called as a change comes with none waiting, on the thread that saw it (quickly:
        events wait for it) — the work the batch will need made ready during the quiet wait."""
        self._patterns = tuple(ignore_patterns)
        self._exclude = [Path(e).resolve() for e in exclude]
        self._on_changes = on_changes
        self._on_first_change = on_first_change
        self._quiet = quiet_seconds
        self._max_delay = max_delay_seconds
        self._folders: list[Path] = []
        self._pending = ChangeBatch()
        self._first_event = self._last_event = 0.0
        self._retries: dict[str, int] = {}
        self._cond = threading.Condition()
        self._stopped = False
        self._observer = Observer()
        self._handler = _Handler(self)
        self._overflow = _OverflowListener(self.rescan)
        self._thread = threading.Thread(target=self._dispatch, name="folder-watcher", daemon=True)
        self.set_folders(folders)

    # -- control --------------------------------------------------------------------------------------------

    def start(self) -> None:
        logging.getLogger("watchdog.observers").addHandler(self._overflow)
        self._observer.start()
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._observer.stop()
        self._observer.join(timeout=5)
        self._thread.join(timeout=60)  # a batch being applied finishes first
        logging.getLogger("watchdog.observers").removeHandler(self._overflow)

    @property
    def folders(self) -> list[Path]:
        return list(self._folders)

    def set_folders(self, folders: Iterable[Path]) -> None:
        """Watch exactly these folders (recursively); folders that do not exist (yet) are skipped."""
        self._folders = sorted({Path(f).resolve() for f in folders if Path(f).is_dir()})
        self._observer.unschedule_all()
        for folder in self._folders:
            self._observer.schedule(self._handler, str(folder), recursive=True)

    def rescan(self) -> None:
        """Check every watched folder against the catalog (after lost events)."""
        batch = ChangeBatch(dirty={str(f) for f in self._folders})
        self._add(batch)

    def retry_later(self, paths: Iterable[str], delay_seconds: float = 1.0) -> None:
        """Look at these paths again after a while: files that were still being written, or locked."""
        wanted = []
        for path in paths:
            self._retries[path] = self._retries.get(path, 0) + 1
            if self._retries[path] <= _MAX_RETRIES:
                wanted.append(path)
            else:
                log.warning("%s kept changing while being read; left for the next change or scan", path)
        if wanted:
            timer = threading.Timer(delay_seconds, self._add, [ChangeBatch(dirty=set(wanted))])
            timer.daemon = True
            timer.start()

    # -- events ---------------------------------------------------------------------------------------------

    def relevant(self, path: str, is_directory: bool) -> bool:
        """Inside a watched folder, under no ignored name, and (for a file) of a type we index."""
        p = Path(path)
        root = next((f for f in self._folders if p == f or f in p.parents), None)
        if any(p == e or e in p.parents for e in self._exclude):
            return False
        if root is None or any(is_ignored(part, self._patterns) for part in p.relative_to(root).parts):
            return False
        return is_directory or is_supported(p)

    def on_event(self, event: FileSystemEvent) -> None:
        source, destination = _text(event.src_path), _text(event.dest_path)
        batch = ChangeBatch()
        if event.event_type == "moved":
            if event.is_synthetic:
                return  # a moved folder's contents: the folder's own move covers them
            moved_from = self.relevant(source, event.is_directory)
            moved_to = self.relevant(destination, event.is_directory)
            if moved_from and moved_to:
                batch.moves.append((source, destination))
            # Either end may be a path we do not index (a temp file renamed over the original: the save dance),
            # and either end may have changed too: both are checked against the disk.
            batch.dirty.update(p for p, ok in ((source, moved_from), (destination, moved_to)) if ok)
        elif event.event_type in _CONTENT_EVENTS:
            if event.is_directory and event.event_type in ("modified", "closed"):
                return  # a folder is "modified" whenever a file in it changes: that file has its own event
            if event.is_synthetic and event.event_type == "created":
                return  # the contents of a folder moved in: the folder's scan finds them
            if self.relevant(source, event.is_directory):
                batch.dirty.add(source)
        if batch:
            for path in batch.dirty:
                self._retries.pop(path, None)  # a real event: the file is alive, its retries start afresh
            self._add(batch)

    def _add(self, batch: ChangeBatch) -> None:
        with self._cond:
            now = time.monotonic()
            first = not self._pending
            if first:
                self._first_event = now
            self._last_event = now
            self._pending.merge(batch)
            self._cond.notify_all()
        if first and self._on_first_change is not None:
            try:
                self._on_first_change()
            except Exception:  # only a head start lost: the batch does the work anyway
                log.exception("preparing for a change failed")

    def _dispatch(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    if self._pending:
                        now = time.monotonic()
                        due = min(self._last_event + self._quiet, self._first_event + self._max_delay)
                        if now >= due:
                            break
                        self._cond.wait(due - now)
                    else:
                        self._cond.wait()
                if self._stopped:
                    return
                batch, self._pending = self._pending, ChangeBatch()
            try:
                self._on_changes(batch)
            except Exception:  # a failing batch must not stop watching; its files are reported by the indexer
                log.exception("applying %d changes failed", len(batch))


def library_watcher(library, folders: Iterable[Path], on_changes: Callable[[ChangeBatch], None]) -> FolderWatcher:
    """A watcher over a library's folders, with its ignore patterns and never its own data folder; a change after
    a quiet while starts the document reader's child at once, if it reads in one and that ended (unused a minute,
    pacing.RELEASE_MODEL_AFTER_S). Its start, ~0.55 s on 2 cores (SentencePiece's vocabulary 0.33 s of it), came
    after the quiet wait: the first file saved after a rest was found by its words in 1.1 s, the next in 0.4 s
    (bench/million_library.py at 110k passages)."""
    def wake_reader() -> None:
        if library.read_in_child:
            library.document_reader.wake()

    return FolderWatcher(folders, library.settings.ignore_patterns, on_changes, exclude=[library.data_dir],
                         on_first_change=wake_reader)


def watching_for(lane, folders: Iterable[Path]) -> FolderWatcher:
    """A watcher of `folders`, started, handing its batches to a WriteLane (core/runs/lane.py), which tells it
    which files were still being written (the app's folder follower stops it; `feeding` does for a block)."""
    watcher = library_watcher(lane.library, folders, lane.add_changes)
    lane.watcher = watcher
    watcher.start()
    return watcher


@contextmanager
def feeding(lane, folders: Iterable[Path]) -> Iterator[FolderWatcher]:
    """Watch `folders` for as long as the block runs, handing batches to a WriteLane (core/runs/lane.py), which
    tells the watcher which files were still being written."""
    watcher = watching_for(lane, folders)
    try:
        yield watcher
    finally:
        watcher.stop()
        lane.watcher = None


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher):
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        self._watcher.on_event(event)


class _OverflowListener(logging.Handler):
    """watchdog only logs a warning when the kernel drops events; that warning is our cue to rescan."""

    def __init__(self, on_overflow: Callable[[], None]):
        super().__init__(logging.WARNING)
        self._on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self._on_overflow()


def _text(path: bytes | str) -> str:
    return path.decode() if isinstance(path, bytes) else path

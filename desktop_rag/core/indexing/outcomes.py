"""A file (or a document inside one) that is not stored as read: failed, with a reason the person can act on, or
skipped (not a document, not text); both remembered in the catalog and counted in the run's summary. And a read
that may fail, run so that its failure is recorded for the file or the member rather than ending the run."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from desktop_rag import child_process
from desktop_rag.child_process import CallAbandoned, ChildClosed, ChildDidNotStart, ChildFailed
from desktop_rag.core.files import parsers
from desktop_rag.core.files.scan import FoundFile
from desktop_rag.core.indexing.report import FileFailure
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.storage.catalog import Member

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Target:
    """Where a document read goes in the catalog: a file on disk, or a document inside one (`member`)."""

    path: str
    size: int
    mtime_ns: int
    member: Member | None = None

    @classmethod
    def of(cls, where: FoundFile | Target) -> Target:
        return where if isinstance(where, Target) else cls(str(where.path), where.size, where.mtime_ns)


class FileOutcomes:
    def __init__(self, state: RunState):
        self.state = state

    def fail(self, where: FoundFile | Target, content_hash: str | None, reason: str, transient: bool = False,
             unread_scans: int = 0) -> None:
        target = Target.of(where)
        self.state.catalog.save_failure(
            path=target.path, size=target.size, mtime_ns=target.mtime_ns, content_hash=content_hash, error=reason,
            transient=transient, unread_scans=unread_scans, member=target.member,
        )
        self.state.summary.failed.append(FileFailure(target.path, reason))
        self.state.name_card_stored()  # found by its name: a passage, made searchable as any (catalog.save_failure)

    def reading(self, where: FoundFile | Target, content_hash: str, read: Callable[[], T]) -> T | None:
        """What `read()` returns, or None when it fails: the failure is recorded for the file or the member. A
        reader that did not start (a loaded machine: its imports took past its start's time) is waited for and
        started again once in a run, the file read then; should it fail again, the files are recorded to read
        next time, at once (a run is slower on a loaded machine, never stuck)."""
        try:
            return read()
        except ChildDidNotStart as exc:
            if self.state.reader_started_again:
                self._reader_could_not_run(where, content_hash, exc)
                return None
        except parsers.ParseError as exc:
            self.fail(where, content_hash, str(exc), transient=isinstance(exc, parsers.TransientReadError))
            return None
        except (ChildClosed, CallAbandoned):  # the app quits, or the run was paused or cancelled: not the file's
            raise  # fault, and it is read again (after the pause, or next run)
        except ChildFailed as exc:  # the reader died or could not start: no fault of the file's
            self._reader_could_not_run(where, content_hash, exc)
            return None
        except Exception:  # a parser bug or a library crash on odd input must not end the run
            log.exception("parsing %s failed", where.path)
            self.fail(where, content_hash, "could not be read: desktop-rag's reader failed on it (the details are "
                                           "in the log)")
            return None
        # Only the run's first reader that did not start comes here (every other way out returned or raised): it
        # is waited for outside the handler, where a cancel ends the run.
        self.state.reader_started_again = True
        log.warning("the document reader did not start; it is started again in %g s", child_process.START_AGAIN_AFTER_S)
        self._wait_for_the_reader()
        return self.reading(where, content_hash, read)

    def _reader_could_not_run(self, where: FoundFile | Target, content_hash: str, exc: Exception) -> None:
        self.fail(where, content_hash, f"the reader could not run ({exc}); it is tried again next time",
                  transient=True)

    def _wait_for_the_reader(self) -> None:
        """Until the reader may start again, the run's checkpoints served (a person's edit, a pause, a cancel)."""
        deadline = time.monotonic() + child_process.START_AGAIN_AFTER_S
        while time.monotonic() < deadline:
            self.state.control.checkpoint()
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))

    def unreadable(self, found: FoundFile, exc: OSError) -> None:
        """A file that could not be opened or read: gone since the scan (deleted during the run: it is forgotten,
        not a failure — issue 61 saw 72 rows "cannot read file: No such file or directory" stay after a first run
        from which 110 files were deleted), or unreadable for now (permissions, an I/O error: tried next time)."""
        if isinstance(exc, FileNotFoundError):
            catalog = self.state.catalog
            known = catalog.document(str(found.path))
            if known is not None:
                self.state.summary.removed += catalog.remove_documents([known.id])
            catalog.files.forget_skipped(str(found.path))
            return
        self.fail(found, None, f"cannot read file: {exc.strerror or exc}", transient=True)

    def skip(self, found: FoundFile, reason: str) -> None:
        """Skipped (an image while OCR may not read it), remembered unless it already is with this size and mtime."""
        if self.state.catalog.files.is_skipped(str(found.path), found.size, found.mtime_ns):
            self.state.summary.skipped += 1
        else:
            self.record_skip(found, reason)

    def record_skip(self, found: FoundFile, reason: str) -> None:
        self.state.catalog.files.save_skipped(str(found.path), found.size, found.mtime_ns, reason)
        self.state.summary.skipped += 1

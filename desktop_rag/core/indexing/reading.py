"""A file's bytes read within its size limit (a file still being written waits for the next look), and read by
the reader into a document and chunks; a file that cannot be read gets its failure recorded (outcomes.py)."""

from __future__ import annotations

from desktop_rag.child_process import CallAbandoned
from desktop_rag.core.files.scan import FileTooLarge, FoundFile, NotRegular, read_bounded
from desktop_rag.core.indexing.outcomes import FileOutcomes
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.core.indexing.storing import DocumentRead


class FileReading:
    def __init__(self, state: RunState, outcomes: FileOutcomes):
        self.state = state
        self.outcomes = outcomes

    def read_bytes(self, found: FoundFile) -> bytes | None:
        """The file's bytes, or None when it is not read now (its failure recorded, or busy: still being written)."""
        path, max_mb = str(found.path), self.state.settings.max_file_mb
        limit = int(max_mb * 1024 * 1024)
        if found.size > limit:
            self.outcomes.fail(found, None, f"too large: {found.size / 2**20:.1f} MB is over the "
                                            f"{max_mb:g} MB limit (setting max_file_mb)")
            return None
        try:
            data = read_bounded(found.path, limit)
        except FileTooLarge:  # it grew since the scan: the next run sees its new size
            self.state.summary.busy.append(path)
            return None
        except NotRegular as exc:
            self.outcomes.fail(found, None, str(exc))
            return None
        except OSError as exc:  # permission denied, an I/O error: the file may read fine next time
            self.outcomes.unreadable(found, exc)
            return None
        if not _unchanged_since(found, len(data)):  # still being written: index it once it is complete
            self.state.summary.busy.append(path)
            return None
        return data

    def read(self, found: FoundFile, data: bytes, content_hash: str,
             recognised: dict | None = None) -> DocumentRead | None:
        """(document, chunks) read by the reader, with the OCR text of scanned pages in `recognised`; None when the
        file cannot be read (its failure is recorded)."""
        settings, control = self.state.settings, self.state.control
        while True:
            try:
                return self.outcomes.reading(found, content_hash, lambda: self.state.lib.document_reader.read(
                    found.path, data, settings.chunk_tokens, settings.chunk_overlap_tokens, recognised,
                    abandon=lambda: control.stopping))
            except CallAbandoned:  # paused (held here, then read again) or cancelled (Cancelled): not the file's
                control.checkpoint()


def _unchanged_since(found: FoundFile, bytes_read: int) -> bool:
    """The file still has the size and mtime the scan saw, and we read all of it."""
    try:
        st = found.path.stat()
    except OSError:
        return False
    return (st.st_size, st.st_mtime_ns) == (found.size, found.mtime_ns) and bytes_read == found.size

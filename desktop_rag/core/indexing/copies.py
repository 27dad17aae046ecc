"""Identical documents stored once: a file with the bytes of another indexed file (a download saved twice, a backup
folder, "report (1).pdf"), and a member with the bytes of another in the same file (an archive of 72 identical
members was embedded 72 times, issue 38). A copy is kept by its name and says where its text is found; it is not
read, chunked or embedded again.

A file's copy stands while its original does: when the original is removed or changes, the copy is read as the
document it is, in the same run (run.py, after the run's files). Files under MIN_COPY_BYTES are read each: a small
file costs a chunk or two, and where it lies is what a hit on it tells (the same `__init__.py` in ten projects).
"""

from __future__ import annotations

import os
from pathlib import Path

from desktop_rag.core.files.scan import FoundFile
from desktop_rag.core.indexing.outcomes import Target
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.documents import COPY, ContextResult, folder_and_name, name_card, name_chunk

MIN_COPY_BYTES = 16 * 1024


class CopyStore:
    """Documents whose bytes another holds."""

    def __init__(self, state: RunState):
        self.state = state

    def file_copy(self, found: FoundFile, content_hash: str) -> bool:
        """A file with the content of another indexed file: stored as its copy (True), or not (False)."""
        if found.size < MIN_COPY_BYTES:
            return False
        original = next((path for path in self.state.catalog.files.originals_of(content_hash, str(found.path))
                         if os.path.exists(path)), None)
        if original is None:
            return False
        self.store_copy(Target.of(found), content_hash, original)
        return True

    def store_copy(self, target: Target, content_hash: str, original: str) -> None:
        """A document with the bytes of `original`: stored by its name and where its text is."""
        folder, name = folder_and_name(original)
        where = name if target.member else f"{name} in {folder}"
        card = f"{name_card(target.path)}\nThe same content as {where}, where its text is found."
        self.state.catalog.save_document(
            path=target.path, size=target.size, mtime_ns=target.mtime_ns, content_hash=content_hash, parser=COPY,
            title=target.member.chain[-1] if target.member else Path(target.path).name, text=card,
            page_count=None, chunks=[name_chunk(card)], contexts=[ContextResult("", "none")], member=target.member)
        summary = self.state.summary
        if target.member:
            summary.inside += 1
        else:
            summary.indexed += 1
        summary.copies += 1
        self.state.name_card_stored()

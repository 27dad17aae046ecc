"""The revision of each reader that has learnt to read more of its files: a library that read them with an older one
reads them again, once, in the background (core/library/index_upkeep.py marks them; the next run reads them). Without
it a file that failed stayed failed ("unchanged since the last attempt") and a deck kept the text an older reader gave,
until the person happened to save it again — as GNOME's localsearch re-extracts a file when its extractor changes.

Raise a reader's revision (its format's entry in formats.py) with the change that makes it read more, and say what
in the comment: the files whose names end so are read again, those inside archives and mail too. Text that comes
out the same keeps its chunks, contexts (a hand edit too) and vectors (Catalog.save_document), so a file read again
costs its parse."""

from __future__ import annotations

from collections.abc import Mapping

from desktop_rag.core.files.parsers.formats import revised

# name (said to the person) → (revision, the suffixes its reader reads): the formats whose reader has learnt more
# (formats.py, where each revision says what it learnt).
READERS: Mapping[str, tuple[int, tuple[str, ...]]] = revised()
# Not a revision: mail's 8-bit headers read in their charset (mail_headers.py). Reading every mailbox again costs
# more than the few senders' names it mends; a message is read by it when its mailbox next changes.


def revisions() -> dict[str, int]:
    """What the catalog records as the readers its files were read with."""
    return {name: revision for name, (revision, _suffixes) in READERS.items()}


def outgrown(recorded: Mapping[str, int]) -> dict[str, tuple[str, ...]]:
    """The readers newer than those `recorded` (a reader not recorded: revision 1), with their suffixes."""
    return {name: suffixes for name, (revision, suffixes) in READERS.items() if recorded.get(name, 1) < revision}

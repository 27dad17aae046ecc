"""The revision of each reader that has learnt to read more of its files: a library that read them with an older one
reads them again, once, in the background (core/index_upkeep.py marks them; the next run reads them). Without it a
file that failed stayed failed ("unchanged since the last attempt") and a deck kept the text an older reader gave,
until the person happened to save it again — as GNOME's localsearch re-extracts a file when its extractor changes.

Raise a reader's revision with the change that makes it read more (and say what in the comment): the files whose
names end so are read again, those inside archives and mail too. Text that comes out the same keeps its chunks,
contexts (a hand edit too) and vectors (Catalog.save_document), so a file read again costs its parse."""

from __future__ import annotations

from collections.abc import Mapping

# name (said to the person) → (revision, the suffixes its reader reads: parsers._BY_EXTENSION's for it)
READERS: Mapping[str, tuple[int, tuple[str, ...]]] = {
    # 2: Strict Open XML files and odd part names (package_forms.py), SmartArt diagrams (smartart.py).
    "Word": (2, (".docx", ".docm", ".dotx", ".dotm")),
    "PowerPoint": (2, (".pptx", ".pptm", ".ppsx", ".ppsm", ".potx", ".potm")),
    # 2: Strict Open XML files and odd part names; a sheet whose saved size is the whole sheet.
    "Excel": (2, (".xlsx", ".xlsm", ".xltx", ".xltm")),
    # 2: a picture's \bin without a byte count no longer fails the file.
    "RTF": (2, (".rtf",)),
    # 2: read as sheets, each row with its columns' labels (delimited.py); plain text before. 3: UTF-32 without a
    # byte-order mark read (decoding.py), refused as binary before (issue 60).
    "CSV": (3, (".csv", ".tsv")),
    # 2: read as the page they hold (web_archive.py); their MIME source as text before.
    "saved web page": (2, (".mht", ".mhtml")),
    # 2: their cells, headings and printed output (notebook.py); their JSON as text before.
    "Jupyter notebook": (2, (".ipynb",)),
}
# Not a revision: mail's 8-bit headers read in their charset (mail_headers.py). Reading every mailbox again costs
# more than the few senders' names it mends; a message is read by it when its mailbox next changes.


def revisions() -> dict[str, int]:
    """What the catalog records as the readers its files were read with."""
    return {name: revision for name, (revision, _suffixes) in READERS.items()}


def outgrown(recorded: Mapping[str, int]) -> dict[str, tuple[str, ...]]:
    """The readers newer than those `recorded` (a reader not recorded: revision 1), with their suffixes."""
    return {name: suffixes for name, (revision, suffixes) in READERS.items() if recorded.get(name, 1) < revision}

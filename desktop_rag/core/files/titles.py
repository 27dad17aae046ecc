"""A document's title worth its place: what a rules context opens with and what a hit is called.

A file's own title (PDF or Office metadata, an HTML <title>, its first line) is often no title at all: EDGAR's
filings carry their accession number ("0000764478-23-000006") or "UNITED STATES"; PDFs printed from Word carry
"Microsoft Word - draft3.docx"; templates leave "Document1", "Untitled", "PowerPoint Presentation". Such a title
tells a chunk from nothing, and the file's name, which the person chose ("bestbuy-10k-2023.pdf"), never reached
the context (issue 48: on SEC filings most wrong first hits were the same company's filing of another period).
Such a title gives way to the file's name in words ("Best Buy 10-K 2023", spelled as the text spells them), or,
where the name says nothing either ("scan0001"), to the first heading that is a real one.
"""

from __future__ import annotations

import re
from collections import Counter

from desktop_rag.documents import ParsedDocument

# Titles that templates, converters and forms leave: they name no document. Matched on the whole title, folded.
_BOILERPLATE = re.compile(
    r"(?:untitled(?: document)?|no title|title|document|presentation|book|workbook|sheet|slide|page|chapter|"
    r"powerpoint presentation|microsoft (?:word|powerpoint|excel)(?: document)?|word document|new document|"
    r"pdf|doc|docx|unknown|none|null|default|template|draft|final|copy|report|memo|letter|cover page|"
    r"united states|securities and exchange commission|united states securities and exchange commission|"
    r"washington,? d\.?c\.? \d{5}|form \d+-?[a-z]*|annual report|quarterly report|current report|"
    r"table of contents|contents|index|abstract|introduction|preface|confidential|"
    r"part [ivx]+|item \d+[a-z]?|section \d+|\d{1,3})"
    r"(?:\s*\d+)?",
    re.I)
# What PDF printers prefix to the document's own name: "Microsoft Word - draft3.docx", "Microsoft PowerPoint - x".
_PRINTER_PREFIX = re.compile(r"^(?:microsoft\s+(?:word|powerpoint|excel)|libreoffice|openoffice)\s*[-–:]\s*", re.I)
_FILE_EXTENSION = re.compile(r"\.(?:docx?|docm|rtf|odt|pptx?|xlsx?|ods|odp|pdf|txt|md|html?|tex|indd|pages)$", re.I)
# File names that say nothing of their document: a scanner's or camera's counter, a download's default.
_GENERIC_NAME_WORDS = frozenset(
    "scan scanned img image photo picture pic dsc document doc file download downloads untitled new copy final "
    "draft version ver rev temp tmp test print printout output export attachment page screenshot".split())
_LETTER_RUN = re.compile(r"[^\W\d_]+")
_NAME_PARTS = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")  # quarterlyReport, PDFFile; not utf8, MP3
_SPACES = re.compile(r"\s+")
# How far into a document the spelling of a file name's words is looked for: a filing's name and period sit on its
# first pages; scanning a whole book for each word would cost more than it finds.
_SPELLING_WINDOW = 200_000


def fitting_title(document: ParsedDocument, stem: str) -> str:
    """The document's title if it names it; else the file's name in the text's spelling when that says something;
    else the first heading that is a real one; else the file's name all the same."""
    printed = _PRINTER_PREFIX.sub("", document.title or "")
    if printed != document.title:  # "Microsoft Word - draft3.docx": the printed file's name is the title
        printed = _FILE_EXTENSION.sub("", printed)
    title = _SPACES.sub(" ", printed).strip()
    if names_something(title):
        return title
    if _name_says_something(stem):
        return name_in_words(stem, document.text)
    heading = next((h.title for h in document.headings if names_something(h.title)), "")
    return heading or name_in_words(stem, document.text)


def names_something(title: str) -> bool:
    """False for an identifier ("0000764478-23-000006", a hash), a form's or a template's heading ("UNITED
    STATES", "Document1", "Table of Contents") and a file's name ("report_v2.docx")."""
    folded = _SPACES.sub(" ", title).strip()
    if not folded or _BOILERPLATE.fullmatch(folded):
        return False
    if _FILE_EXTENSION.search(folded) and " " not in folded:
        return False
    # An identifier has no word of two letters or more beside its digits (a hash's letters come one by one).
    words = [w for w in _LETTER_RUN.findall(folded) if len(w) >= 2 or not w.isascii()]
    return bool(words) and not (len(words) == 1 and len(words[0]) <= 3 and sum(c.isdigit() for c in folded) > 4)


def _name_says_something(stem: str) -> bool:
    """A name with a word of three letters or more that is not a scanner's, a camera's or a download's."""
    return any(len(w) >= 3 and w.lower() not in _GENERIC_NAME_WORDS for w in _LETTER_RUN.findall(stem))


def name_in_words(stem: str, text: str) -> str:
    """"bestbuy-10k-2023" → "Best Buy 10-K 2023": the name's parts (split at separators and case changes), each
    spelled as the text spells it where the text has it, else as it is."""
    parts = [piece for part in _NAME_PARTS.findall(stem) for piece in _CAMEL.split(part) if piece]
    head = text[:_SPELLING_WINDOW]
    return " ".join(_spelled_in(part, head) for part in parts) or stem


def _spelled_in(part: str, text: str) -> str:
    """The text's most frequent spelling of `part` with spaces or hyphens allowed between its characters
    ("bestbuy" → "Best Buy", "10k" → "10-K"), mixed case preferred to capitals; `part` when the text lacks it."""
    if len(part) < 2 or part.isdigit():
        return part
    joints = r"[ \-]?"
    pattern = re.compile(r"(?<![^\W_])" + joints.join(re.escape(c) for c in part) + r"(?![^\W_])", re.I)
    found = Counter(m.group(0) for m in pattern.finditer(text))
    if not found:
        return part
    # Mixed case is how a name is written in running text; capitals are a heading's; lower case is a common word.
    return max(found, key=lambda s: (s != s.upper() and s != s.lower(), found[s], s != s.lower()))

"""Narrowing a search the way people remember a file: where it is, what kind it is, when it is from, who sent it.

Filters are applied inside retrieval (storage/catalog_filters.py gives the chunks they allow; both retrievers look
only at those), never by cutting a top-k afterwards: a filter that leaves 3 chunks among 100,000 finds those 3.

A document's date is the one a person remembers: a mail's (and its attachments') sent date, any other file's
modification time. Dates in filters are local days; both ends include the period they name: `after:2025-03`
starts on 1 March, `before:2025-06` ends with 30 June, so `after:2025-03 before:2025-03` is March.
"""

from __future__ import annotations

import calendar
import datetime as dt
import os
import re
from dataclasses import asdict, dataclass, fields, replace

from desktop_rag.documents import local_day
from desktop_rag.errors import BadInput


@dataclass(frozen=True)
class Family:
    """A family of formats: which formats are in it is each format's to say (core/files/parsers/formats.py)."""
    name: str  # what `type:` takes, and what the catalog stores for each document of it
    label: str  # what the window shows
    aliases: tuple[str, ...] = ()  # other words people type: extensions, program names


FAMILIES = (
    Family("pdf", "PDF"),
    Family("word", "Documents", ("doc", "docx", "odt", "rtf", "sxw", "document", "documents")),
    Family("slides", "Slides", ("ppt", "pptx", "odp", "slide", "presentation", "powerpoint")),
    Family("spreadsheet", "Spreadsheets",
           ("xls", "xlsx", "xlsm", "ods", "sxc", "sheet", "sheets", "spreadsheets", "excel", "csv", "tsv")),
    Family("mail", "Mail", ("email", "e-mail", "eml", "msg", "mbox", "pst", "message")),
    Family("image", "Images & scans", ("images", "scan", "scans", "photo", "png", "jpg", "jpeg", "tiff")),
    Family("code", "Code",
           ("source", "py", "js", "ts", "java", "c", "cpp", "go", "rs", "ipynb", "notebook", "notebooks")),
    Family("ebook", "E-books", ("epub", "book", "books")),
    Family("text", "Text", ("txt", "md", "markdown", "rst", "html", "web")),
)
FAMILY_NAMES = tuple(f.name for f in FAMILIES)
_FAMILY_BY_WORD = {word: f.name for f in FAMILIES for word in (f.name, *f.aliases)}
LABELS = {f.name: f.label for f in FAMILIES}


def family_named(word: str) -> str:
    name = _FAMILY_BY_WORD.get(word.strip().lower().lstrip("."))
    if name is None:
        raise BadInput(f"unknown type {word!r}: pick one of {', '.join(FAMILY_NAMES)}")
    return name


@dataclass(frozen=True)
class SearchFilters:
    folders: tuple[str, ...] = ()  # absolute folders (their whole subtree), or a folder's name anywhere ("tax")
    types: tuple[str, ...] = ()  # FAMILY_NAMES
    after: float | None = None  # epoch seconds, inclusive
    before: float | None = None  # epoch seconds, exclusive
    sender: str = ""  # part of a mail's From (name or address), any case

    @property
    def empty(self) -> bool:
        return self == SearchFilters()

    def merged(self, other: SearchFilters) -> SearchFilters:
        """Both at once (a filter bar's and the query's own): folders and types add up, dates narrow."""
        return SearchFilters(
            folders=_unique(self.folders + other.folders), types=_unique(self.types + other.types),
            after=max((d for d in (self.after, other.after) if d is not None), default=None),
            before=min((d for d in (self.before, other.before) if d is not None), default=None),
            sender=other.sender or self.sender)

    def without_types(self) -> SearchFilters:
        return replace(self, types=())

    def describe(self) -> list[str]:
        """One short phrase per filter, as chips and messages show them."""
        parts = [f"in {folder_label(f)}" for f in self.folders]
        parts += [LABELS[t] for t in self.types]
        if self.after is not None:
            parts.append(f"from {local_day(self.after)}")
        if self.before is not None:
            parts.append(f"until {local_day(self.before - 1)}")
        if self.sender:
            parts.append(f"sent by {self.sender}")
        return parts

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict | None) -> SearchFilters:
        values = values or {}
        return cls(folders=tuple(values.get("folders") or ()), types=tuple(values.get("types") or ()),
                   after=values.get("after"), before=values.get("before"), sender=values.get("sender") or "")

    @classmethod
    def checked(cls, values: object) -> SearchFilters:
        """Filters a client sent (to_dict's form), their types checked; a ValueError says what to send."""
        wrong = ValueError("filters must be an object as SearchFilters.to_dict gives: folders, types, after, "
                           "before, sender")
        if not isinstance(values, dict) or set(values) - {f.name for f in fields(cls)}:
            raise wrong
        try:
            filters = cls.from_dict(values)
        except TypeError:
            raise wrong from None
        days_are_numbers = all(d is None or (isinstance(d, (int, float)) and not isinstance(d, bool))
                               for d in (filters.after, filters.before))
        if not days_are_numbers or not all(isinstance(x, str) for x in (*filters.folders, *filters.types,
                                                                          filters.sender)):
            raise wrong
        return filters


def make_filters(folders=(), types=(), after: str | None = None, before: str | None = None,
                 sender: str | None = None) -> SearchFilters:
    """Filters from what a person wrote (flags, tool arguments, the query's `type:` words): checked, normalised."""
    return SearchFilters(
        folders=_unique(tuple(normalise_folder(f) for f in folders if f and f.strip())),
        types=_unique(tuple(family_named(t) for t in types if t and t.strip())),
        after=parse_day(after, end=False) if after else None,
        before=parse_day(before, end=True) if before else None,
        sender=(sender or "").strip())


def normalise_folder(folder: str) -> str:
    """An absolute folder (with ~) as the catalog stores paths; any other word is a folder's name, kept as typed."""
    folder = folder.strip()
    expanded = os.path.expanduser(folder)
    if os.path.isabs(expanded):
        return os.path.normpath(os.path.abspath(expanded))
    return folder.strip("/\\")


def folder_label(folder: str) -> str:
    home = os.path.expanduser("~")
    if folder == home or folder.startswith(home + os.sep):
        return "~" + folder[len(home):]
    return folder


_RELATIVE = re.compile(r"^(\d+)\s*(d|w|m|y)$", re.IGNORECASE)
_DAY = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
# The presets the window offers, as `after:` values.
PRESETS = {"week": "7d", "month": "1m", "year": "1y"}


def parse_day(value: str, end: bool, today: dt.date | None = None) -> float:
    """Epoch seconds of the start of the day, month or year named (`end`: of the day after its last day), in local
    time. Also "7d", "2w", "3m", "1y" (that long ago) and the presets week, month and year."""
    text = PRESETS.get(value.strip().lower(), value.strip())
    today = today or dt.date.today()
    relative = _RELATIVE.match(text)
    if relative:
        count, unit = int(relative.group(1)), relative.group(2).lower()
        if unit in "dw":
            start = today - dt.timedelta(days=count * (7 if unit == "w" else 1))
        else:
            months = count * (12 if unit == "y" else 1)
            back_year, back_month = divmod(today.year * 12 + today.month - 1 - months, 12)
            start = dt.date(back_year, back_month + 1,
                            min(today.day, calendar.monthrange(back_year, back_month + 1)[1]))
        return _epoch(start + dt.timedelta(days=1) if end else start)
    match = _DAY.match(text)
    if not match:
        raise BadInput(f"{value!r} is not a date: write 2025, 2025-03, 2025-03-14, or 7d / 4w / 6m / 1y")
    year = int(match.group(1))
    month, day = match.group(2), match.group(3)  # digits, or None when not written
    try:
        if day:
            first, last = dt.date(year, int(month), int(day)), dt.date(year, int(month), int(day))
        elif month:
            first = dt.date(year, int(month), 1)
            last = dt.date(year, int(month), calendar.monthrange(year, int(month))[1])
        else:
            first, last = dt.date(year, 1, 1), dt.date(year, 12, 31)
    except ValueError as exc:
        raise BadInput(f"{value!r} is not a date: {exc}") from None
    return _epoch(last + dt.timedelta(days=1) if end else first)


def _epoch(day: dt.date) -> float:
    return dt.datetime(day.year, day.month, day.day).timestamp()  # local midnight



def _unique(values: tuple) -> tuple:
    return tuple(dict.fromkeys(values))


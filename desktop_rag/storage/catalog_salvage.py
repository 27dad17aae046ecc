"""What can still be read of a damaged catalog (issue 50, 6): its folders and the contexts that cost something —
a person's edits and the model's — by the document's path and the passage's text. A damaged page fails the
statements that touch it, so rows are read by ranges of their ids, and a range that fails is halved until the
unreadable rows alone are left out. Read from a file moved aside, through a read-only connection: nothing is
written to it, so `sqlite3`'s `.recover` may still be tried on it by hand."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

_FIRST_RANGE = 512  # rows asked for at once: halved down to one where a damaged page is in the way


@dataclass
class Salvaged:
    folders: list[str] = field(default_factory=list)
    contexts: list[tuple] = field(default_factory=list)  # rows of salvaged_contexts, in its columns' order
    unreadable: list[str] = field(default_factory=list)  # what could not be read, in words

    def count(self, source: str) -> int:
        return sum(1 for row in self.contexts if row[_SOURCE] == source)


# The columns of salvaged_contexts, in the order _CONTEXTS reads them and CatalogContexts.keep_salvaged writes them.
SALVAGED_COLUMNS = ("path", "chunk_text_hash", "text", "source", "model", "prompt_version", "quality",
                    "quality_detail", "questions")
_SOURCE = SALVAGED_COLUMNS.index("source")
_CONTEXTS = ("SELECT d.path, c.text_hash, x.text, x.source, x.model, x.prompt_version, x.quality, x.quality_detail,"
             " {questions} FROM contexts x JOIN chunks c ON c.id = x.chunk_id JOIN documents d ON d.id = c.document_id"
             " WHERE x.source IN ('llm', 'manual') AND x.chunk_id BETWEEN ? AND ?")


def salvage(damaged: Path) -> Salvaged:
    found = Salvaged()
    try:
        db = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True)
    except sqlite3.DatabaseError as exc:
        found.unreadable.append(f"the file ({exc})")
        return found
    try:
        found.folders = [row[0] for row in _rows(db, "SELECT path FROM folders", found, "the folders")]
        columns = {row[1] for row in _rows(db, "PRAGMA table_info(contexts)", found, "the contexts' columns")}
        statement = _CONTEXTS.format(questions="x.questions" if "questions" in columns else "''")
        highest = _rows(db, "SELECT max(chunk_id) FROM contexts", found, "the number of contexts")
        if highest and highest[0][0] is not None:
            found.contexts = _by_ranges(db, statement, 1, highest[0][0], found)
    finally:
        db.close()
    return found


def _rows(db: sqlite3.Connection, statement: str, found: Salvaged, what: str) -> list:
    try:
        return db.execute(statement).fetchall()
    except sqlite3.DatabaseError as exc:
        found.unreadable.append(f"{what} ({exc})")
        return []


def _by_ranges(db: sqlite3.Connection, statement: str, low: int, high: int, found: Salvaged) -> list:
    rows: list = []
    lost = 0
    pending = [(start, min(start + _FIRST_RANGE - 1, high)) for start in range(low, high + 1, _FIRST_RANGE)]
    while pending:
        start, end = pending.pop()
        try:
            rows += db.execute(statement, (start, end)).fetchall()
        except sqlite3.DatabaseError:
            if start == end:
                lost += 1
                continue
            middle = (start + end) // 2
            pending += [(start, middle), (middle + 1, end)]
    if lost:
        found.unreadable.append(f"{lost:,} passages' contexts (damaged pages)")
    return rows

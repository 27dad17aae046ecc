"""Structure-aware chunking bounded by the embedder's tokens.

Headings and pages are hard boundaries (a chunk belongs to one section and one page, so both are exact);
inside a section, sentences (prose) or lines (code) are packed up to `max_tokens`, breaking preferably at
paragraph ends, with a tail of the previous chunk repeated as overlap. A chunk is always a contiguous slice of
the extracted text, so `text[start_char:end_char]` gives it back.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

from desktop_rag.core.dense.tokens import TokenCounter
from desktop_rag.documents import Chunk, Heading, ParsedDocument, text_hash

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
# Japanese and Chinese end sentences with 。！？ and no space after them: a break there needs no whitespace.
_SENTENCE_END = re.compile(r"(?<=[.!?:;])[ \t\n]+(?=\S)|(?<=[。！？])[ \t\n]*(?=\S)")
_LINE_END = re.compile(r"\n")
# Breaking at a paragraph end is preferred once a chunk is this full; below it, packing wins.
_PARAGRAPH_BREAK_FILL = 0.6


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    tokens: int
    opens_paragraph: bool


def chunk_document(doc: ParsedDocument, counter: TokenCounter, max_tokens: int, overlap_tokens: int) -> list[Chunk]:
    spans = _units_by_section(doc, counter, max_tokens)
    paths = HeadingPaths(doc.headings)
    chunks: list[Chunk] = []
    for section_units in spans:
        for start, end in _pack(section_units, max_tokens, overlap_tokens):
            chunks.append(_make_chunk(doc, len(chunks), start, end, paths))
    counts = counter.count([c.text for c in chunks])
    return [
        Chunk(c.index, c.text, c.start_char, c.end_char, c.page, c.heading_path, n, c.text_hash)
        for c, n in zip(chunks, counts)
    ]


def _section_bounds(doc: ParsedDocument) -> list[tuple[int, int]]:
    cuts = sorted({0, len(doc.text), *(h.start_char for h in doc.headings), *doc.page_starts})
    return [(a, b) for a, b in itertools.pairwise(cuts) if doc.text[a:b].strip()]


def _units_by_section(doc: ParsedDocument, counter: TokenCounter, max_tokens: int) -> list[list[_Unit]]:
    split_lines = doc.parser == "code"
    raw: list[list[tuple[int, int, bool]]] = []
    for a, b in _section_bounds(doc):
        units: list = []
        for pa, pb in _spans(doc.text, a, b, _PARAGRAPH_BREAK):
            paragraph = doc.text[pa:pb]
            by_lines = split_lines or paragraph.count("\n") >= 3
            pieces = _spans(doc.text, pa, pb, _LINE_END if by_lines else _SENTENCE_END)
            units.extend((s, e, i == 0) for i, (s, e) in enumerate(pieces))
        raw.append(units)
    flat = [u for units in raw for u in units]
    counts = iter(counter.count([doc.text[s:e] for s, e, _ in flat]))
    result = []
    for units in raw:
        section = []
        for s, e, opens in units:
            n = next(counts)
            if n <= max_tokens:
                section.append(_Unit(s, e, n, opens))
                continue
            # A sentence or line longer than a whole chunk: cut it into token windows.
            for i, (ws, we) in enumerate(counter.windows(doc.text[s:e], max_tokens)):
                piece = doc.text[s + ws : s + we]
                stripped_start = s + ws + (len(piece) - len(piece.lstrip()))
                stripped_end = s + ws + len(piece.rstrip())
                if stripped_end > stripped_start:
                    section.append(_Unit(stripped_start, stripped_end, max_tokens, opens and i == 0))
        result.append(section)
    return result


def _spans(text: str, start: int, end: int, separator: re.Pattern) -> list[tuple[int, int]]:
    """Non-blank pieces of text[start:end] between separators, trimmed of surrounding whitespace."""
    spans, pos = [], start
    for m in separator.finditer(text, start, end):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, end))
    trimmed = []
    for a, b in spans:
        piece = text[a:b]
        lead = len(piece) - len(piece.lstrip())
        tail = len(piece) - len(piece.rstrip())
        if b - tail > a + lead:
            trimmed.append((a + lead, b - tail))
    return trimmed


def _pack(units: list[_Unit], max_tokens: int, overlap_tokens: int) -> list[tuple[int, int]]:
    packed: list[tuple[int, int]] = []
    current: list[_Unit] = []
    total = 0
    for i, unit in enumerate(units):
        if current and (total + unit.tokens > max_tokens or _paragraph_break_here(units, i, total, max_tokens)):
            packed.append((current[0].start, current[-1].end))
            current = _overlap_tail(current, overlap_tokens, max_tokens - unit.tokens)
            total = sum(u.tokens for u in current)
        current.append(unit)
        total += unit.tokens
    if current:
        packed.append((current[0].start, current[-1].end))
    return packed


def _paragraph_break_here(units: list[_Unit], i: int, total: int, max_tokens: int) -> bool:
    if not units[i].opens_paragraph or total < _PARAGRAPH_BREAK_FILL * max_tokens:
        return False
    paragraph_tokens = units[i].tokens
    for unit in units[i + 1 :]:
        if unit.opens_paragraph:
            break
        paragraph_tokens += unit.tokens
    return total + paragraph_tokens > max_tokens


def _overlap_tail(current: list[_Unit], overlap_tokens: int, room: int) -> list[_Unit]:
    tail: list[_Unit] = []
    budget = min(overlap_tokens, room)
    for unit in reversed(current[1:]):  # never the whole previous chunk
        if unit.tokens > budget:
            break
        tail.insert(0, unit)
        budget -= unit.tokens
    return tail


def _make_chunk(doc: ParsedDocument, index: int, start: int, end: int, paths: HeadingPaths) -> Chunk:
    text = doc.text[start:end]
    page = bisect.bisect_right(doc.page_starts, start) if doc.page_starts else None
    return Chunk(index, text, start, end, page, paths.at(start), 0, text_hash(text))


class HeadingPaths:
    """The headings enclosing any offset, outermost first, from one pass over the headings (asking each chunk's
    path from the start was chunks × headings: minutes for a 15 MB file with thousands of headings)."""

    def __init__(self, headings: list[Heading]):
        self._starts: list[int] = []
        self._paths: list[list[str]] = []
        stack: list[Heading] = []
        for h in headings:  # in document order
            while stack and stack[-1].level >= h.level:
                stack.pop()
            stack.append(h)
            self._starts.append(h.start_char)
            self._paths.append([s.title for s in stack])

    def at(self, offset: int) -> list[str]:
        i = bisect.bisect_right(self._starts, offset)
        return list(self._paths[i - 1]) if i else []

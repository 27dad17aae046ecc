"""Plain text, Markdown and reStructuredText: the extracted text is the file's own text, headings found in it."""

from __future__ import annotations

import bisect
import math
import re

from desktop_rag.core.files.parsers.decoding import decode_text
from desktop_rag.core.files.parsers.lines import line_matches
from desktop_rag.documents import Heading, ParsedDocument

# Each pattern matches within one line and cannot backtrack across it: the former `(.+?)[ \t#]*$` and
# `^([^\n]*\S[^\n]*)\n` took time quadratic in a line's length (a 260 KB one-line file: 193 s with the GIL held).
_ATX = re.compile(r"^(#{1,6})[ \t]+([^\n]*)$", re.M)
_ATX_CLOSING = re.compile(r"(?:^|[ \t])#+[ \t]*$")  # "## Title ##": the closing hashes are not the title
_SETEXT_UNDERLINE = re.compile(r"^(?:=+|-+)[ \t]*$", re.M)  # the line under a Setext heading's title
_FENCE = re.compile(r"^(```|~~~)", re.M)
_RST_UNDERLINE_CHARS = "=-~^\"'`#*+:._"


def parse_plain(data: bytes, stem: str) -> ParsedDocument:
    text = decode_text(data)
    return ParsedDocument(text=text, title=_first_line(text) or stem, parser="text")


def parse_markdown(data: bytes, stem: str) -> ParsedDocument:
    text = decode_text(data)
    fenced = _fenced_ranges(text)
    headings = []
    for m in line_matches(_ATX, text):
        title = _ATX_CLOSING.sub("", m.group(2)).strip()
        if title and not _inside(m.start(), fenced):
            headings.append(Heading(m.start(), len(m.group(1)), title))
    for m in line_matches(_SETEXT_UNDERLINE, text):
        if m.start() == 0:
            continue
        start = text.rfind("\n", 0, m.start() - 1) + 1
        line = text[start:m.start() - 1]
        if (line.strip() and not line.lstrip().startswith(("#", "-", "*", "|", "="))
                and not _inside(start, fenced)):
            headings.append(Heading(start, 1 if m.group(0)[0] == "=" else 2, line.strip()))
    headings.sort(key=lambda h: h.start_char)
    title = next((h.title for h in headings if h.level == 1), None) or _first_line(text) or stem
    return ParsedDocument(text=text, title=title, parser="markdown", headings=headings)


def parse_rst(data: bytes, stem: str) -> ParsedDocument:
    text = decode_text(data)
    lines = text.split("\n")
    offsets = _line_offsets(lines)
    levels: dict[str, int] = {}  # reST ranks heading styles by the order they first appear
    headings = []
    i = 0
    while i < len(lines) - 1:
        title, under = lines[i].rstrip(), lines[i + 1].rstrip()
        overline = i > 0 and _is_rst_rule(lines[i - 1].rstrip()) and lines[i - 1].strip()[0] == (under[:1] or " ")
        if title.strip() and _is_rst_rule(under) and len(under) >= len(title.strip()) and not _is_rst_rule(title):
            style = ("o" if overline else "") + under[0]
            level = levels.setdefault(style, len(levels) + 1)
            start = offsets[i - 1] if overline else offsets[i]
            headings.append(Heading(start, level, title.strip()))
            i += 2
            continue
        i += 1
    title = headings[0].title if headings else (_first_line(text) or stem)
    return ParsedDocument(text=text, title=title, parser="rst", headings=headings)


def _is_rst_rule(line: str) -> bool:
    return len(line) >= 3 and line[0] in _RST_UNDERLINE_CHARS and line == line[0] * len(line)


def _line_offsets(lines: list[str]) -> list[int]:
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    return offsets


def _fenced_ranges(text: str) -> list[tuple[int, int]]:
    marks = [m.start() for m in line_matches(_FENCE, text)]
    return [(marks[i], marks[i + 1]) for i in range(0, len(marks) - 1, 2)]


def _inside(pos: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether pos falls in one of the sorted, disjoint ranges (a bisection: a file may have thousands)."""
    i = bisect.bisect_right(ranges, (pos, math.inf)) - 1
    return i >= 0 and ranges[i][0] <= pos <= ranges[i][1]


def _first_line(text: str, max_chars: int = 120) -> str:
    for line in text.split("\n"):
        line = line.strip().strip("#=*-_ \t")
        if line:
            return line[:max_chars]
    return ""

"""HTML to text (no markup, no scripts), with h1–h6 as headings and <title> as the title."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from desktop_rag.core.files.parsers.decoding import SNIFF_BYTES, decode_text, declared_encoding
from desktop_rag.documents import Heading, ParsedDocument

_SKIP = {"script", "style", "noscript", "template", "svg", "head"}
_BLOCK = {
    "p", "div", "section", "article", "header", "footer", "nav", "aside", "main", "ul", "ol", "li", "table", "tr",
    "blockquote", "pre", "figure", "figcaption", "dl", "dt", "dd", "form", "fieldset", "address", "hr",
}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


class _TextExtractor(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.length = 0
        self.headings: list[Heading] = []
        self.title = ""
        self._skip_depth = 0
        self._in_title = False
        self._in_pre = 0
        self._heading: tuple[int, int, list[str]] | None = None  # (start, level, words)

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP:
            self._skip_depth += 1
        if tag == "title":
            self._in_title = True
        if tag == "pre":
            self._in_pre += 1
        if tag in _HEADINGS:
            self._break(2)
            self._heading = (self.length, _HEADINGS[tag], [])
        elif tag in _BLOCK:
            self._break(2 if tag in {"p", "div", "section", "article", "table", "pre", "blockquote"} else 1)
        elif tag == "br":
            self._break(1)

    def handle_endtag(self, tag):
        if tag in _SKIP and self._skip_depth:
            self._skip_depth -= 1
        if tag == "title":
            self._in_title = False
        if tag == "pre" and self._in_pre:
            self._in_pre -= 1
        if tag in _HEADINGS and self._heading:
            start, level, words = self._heading
            title = " ".join(" ".join(words).split())
            if title:
                self.headings.append(Heading(start, level, title))
            self._heading = None
            self._break(2)
        elif tag in _BLOCK:
            self._break(1)

    def handle_data(self, data):
        if self._in_title:
            self.title += data
            return
        if self._skip_depth:
            return
        text = data if self._in_pre else _SPACES.sub(" ", data)
        if not self._in_pre and (not self.parts or self.parts[-1].endswith("\n")):
            text = text.lstrip()
        if not text:
            return
        if self._heading:
            self._heading[2].append(text)
        self.parts.append(text)
        self.length += len(text)

    def _break(self, newlines: int):
        if not self.parts:
            return
        tail = self.parts[-1]
        if tail.endswith(" "):
            self.parts[-1] = tail.rstrip(" ")
            self.length -= len(tail) - len(self.parts[-1])
        have = len(self.parts[-1]) - len(self.parts[-1].rstrip("\n"))
        if have < newlines:
            self.parts.append("\n" * (newlines - have))
            self.length += newlines - have


def parse_html(data: bytes, stem: str) -> ParsedDocument:
    extractor = _TextExtractor()
    extractor.feed(decode_text(data, declared_encoding(data[:SNIFF_BYTES])))
    extractor.close()
    text = "".join(extractor.parts)
    title = " ".join(extractor.title.split()) or next((h.title for h in extractor.headings), "") or stem
    return ParsedDocument(text=text, title=title, parser="html", headings=extractor.headings)

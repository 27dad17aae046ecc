"""Text assembled block by block, for formats whose structure comes as objects (slides, sheets, XML elements)
rather than as text: each block is a paragraph, a heading records where its section begins, a page where its
page (slide, sheet) begins. Every offset refers to the finished text."""

from __future__ import annotations

from desktop_rag.documents import Heading, ParsedDocument

BLOCK_SEPARATOR = "\n\n"


class StructuredText:
    def __init__(self, max_chars: int | None = None):
        self._parts: list[str] = []
        self.length = 0
        self.headings: list[Heading] = []
        self.page_starts: list[int] = []
        # The first heading, when it is a line of the text (not a made-up "Slide 1"): a title for a document that
        # has none of its own.
        self.first_title = ""
        # Past max_chars, blocks are refused (add returns False): a million-cell sheet stops here, not in memory.
        self.max_chars = max_chars

    @property
    def full(self) -> bool:
        return self.max_chars is not None and self.length >= self.max_chars

    def _position(self) -> int:
        return self.length + (len(BLOCK_SEPARATOR) if self._parts else 0)

    def page(self) -> None:
        """The next block opens a page (a slide, a sheet)."""
        self.page_starts.append(self._position())

    def heading(self, level: int, title: str, shown: bool = True) -> None:
        """A section begins here; `shown`: its title is a line of the text too (a slide's title is; a made-up
        "Slide 3" is not)."""
        title = " ".join(title.split())
        if not title:
            return
        if not self.headings:
            self.first_title = title if shown else ""
        self.headings.append(Heading(self._position(), level, title))
        if shown:
            self.add(title)

    def add(self, block: str) -> bool:
        block = block.strip("\n")
        if not block.strip():
            return True
        if self.full:
            return False
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
            self.length += len(BLOCK_SEPARATOR)
        self._parts.append(block)
        self.length += len(block)
        return True

    def document(self, title: str, parser: str, metadata: dict[str, str] | None = None) -> ParsedDocument:
        text = "".join(self._parts)
        # A page or heading recorded after the last block (an empty last slide) points past the end: dropped.
        page_starts = [start for start in self.page_starts if start < len(text)] if text else []
        headings = [h for h in self.headings if h.start_char < len(text)]
        return ParsedDocument(text=text, title=title, parser=parser, headings=headings, page_starts=page_starts,
                              metadata={k: v for k, v in (metadata or {}).items() if v})

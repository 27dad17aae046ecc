"""Source code: the file's own text; definitions (class, def, fn, struct…) act as headings for the chunker."""

from __future__ import annotations

import re

from desktop_rag.core.files.parsers.decoding import decode_text
from desktop_rag.core.files.parsers.lines import line_matches
from desktop_rag.documents import Heading, ParsedDocument

EXTENSIONS = frozenset(
    ".py .pyi .js .mjs .cjs .jsx .ts .tsx .vue .svelte .java .kt .kts .scala .go .rs .c .h .cc .cpp .cxx .hpp .hh"
    " .cs .fs .rb .php .swift .m .mm .sh .bash .zsh .ps1 .sql .r .lua .pl .pm .hs .ml .ex .exs .erl .clj .dart"
    " .jl .zig .nim .css .scss .toml .yaml .yml .ini .cfg".split()
)

# A definition line: optional visibility/modifiers, a defining keyword, a name. Deliberately loose: a missed
# heading only costs structure, never text.
_DEFINITION = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:pub(?:\([^)]*\))?|export|default|public|private|protected|internal|static|abstract"
    r"|final|async|unsafe|const|override|open|sealed|data|inline)\s+)*"
    r"(?P<kind>def|class|fn|struct|enum|trait|impl|func|function|interface|module|namespace|object|union)"
    r"\b[ \t]*(?P<name>[^\n{:(=;]{0,80})",
    re.M,
)


def parse_code(data: bytes, stem: str) -> ParsedDocument:
    text = decode_text(data)
    headings = []
    for m in line_matches(_DEFINITION, text):
        name = " ".join(m.group("name").split())
        level = 1 if not m.group("indent") else 2
        headings.append(Heading(m.start(), level, f"{m.group('kind')} {name}".strip()))
    return ParsedDocument(text=text, title=stem, parser="code", headings=headings)

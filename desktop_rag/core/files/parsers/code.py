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
# A method or function of the C family (Java, C#, C++, C, Kotlin's Java neighbours): words before the name (its
# return type, modifiers; none before `Class::Class`), the name, its parameters, then the body's brace or a `throws`
# clause ending the line.
# Without it a Java file's only heading was its class, so a chunk that starts inside `testExecute_dockerClient()`
# carried no trace of the method's name (codebase set, docs/benchmarks.md "Signals").
_METHOD = re.compile(
    r"^(?P<indent>[ \t]*)(?P<before>(?:[A-Za-z_$][\w$.:<>,?\[\]*&~]*[ \t]+)*)[*&]*(?P<name>[A-Za-z_$~][\w$:~]*)[ \t]*"
    r"\((?P<parameters>[^;{}()\n]*(?:\([^;{}()\n]*\)[^;{}()\n]*)*)(?:\)[ \t]*(?:const|noexcept|override|final"
    r"|throws[ \t]+[\w., \t]+|->[^{;\n]+|[ \t])*[{]?[ \t]*$|,?[ \t]*$)",
    re.M,
)
# Statements that look like `word word(`: never a definition.
_NOT_A_TYPE = frozenset(
    "return new else throw delete case goto await yield if for while switch catch import from".split())


def parse_code(data: bytes, stem: str) -> ParsedDocument:
    text = decode_text(data)
    headings = []
    for m in line_matches(_DEFINITION, text):
        name = " ".join(m.group("name").split())
        level = 1 if not m.group("indent") else 2
        headings.append(Heading(m.start(), level, f"{m.group('kind')} {name}".strip()))
    defined = {h.start_char for h in headings}
    for m in line_matches(_METHOD, text):
        words = m.group("before").split()
        # No word before the name: only `Class::Class(` (a C++ definition outside its class) is one.
        if (m.start() in defined or _NOT_A_TYPE.intersection(words) or m.group("name") in _NOT_A_TYPE
                or not (words or "::" in m.group("name"))):
            continue
        level = 1 if not m.group("indent") else 2
        headings.append(Heading(m.start(), level, f"{m.group('name')}()"))
    headings.sort(key=lambda h: h.start_char)
    return ParsedDocument(text=text, title=stem, parser="code", headings=headings)

"""Jupyter notebooks (.ipynb): the words of their cells, in order — a markdown cell as prose, its "#" lines the
notebook's headings; a code cell's code; the text its run printed (a value, a table as text, an error), each
output up to OUTPUT_CHARS. Read as text before, a notebook was its JSON ("cell_type": "code", "source": [...], "\\n"
in every line), and pictures of plots as base64 (dropped since, but not the markup around them)."""

from __future__ import annotations

import json

from desktop_rag.core.files.parsers import markup
from desktop_rag.core.files.parsers.decoding import decode_text
from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.core.files.parsers.structured import StructuredText
from desktop_rag.documents import ParsedDocument

# What one output may add: a printed DataFrame or a training log runs to megabytes; its start says what it is.
OUTPUT_CHARS = 2000


def parse_notebook(data: bytes, stem: str) -> ParsedDocument:
    try:
        notebook = json.loads(decode_text(data))
    except ValueError as exc:
        raise ParseError(f"not a readable Jupyter notebook: its JSON is damaged ({exc})") from None
    if not isinstance(notebook, dict):
        raise ParseError("not a Jupyter notebook: its JSON holds no cells")
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3: the cells in worksheets
        cells = [cell for sheet in notebook.get("worksheets") or [] for cell in sheet.get("cells") or []]
    text = StructuredText()
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _joined(cell.get("source", cell.get("input", "")))
        if cell.get("cell_type") == "markdown":
            _markdown(text, source)
            continue
        text.add(source)
        for output in cell.get("outputs") or ():
            if isinstance(output, dict) and (said := _output_text(output)):
                text.add(said if len(said) <= OUTPUT_CHARS else said[:OUTPUT_CHARS].rstrip() + " …")
    metadata = notebook.get("metadata")
    named = str(metadata.get("title") or "") if isinstance(metadata, dict) else ""
    title = named or next((h.title for h in text.headings if h.level == 1), "") or stem
    return text.document(title, "notebook")


def _joined(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def _markdown(text: StructuredText, source: str) -> None:
    """A markdown cell: its headings ("#" lines, or a line underlined with "=" or "-") the notebook's, the rest its
    paragraphs (markup.parse_markdown finds them, as in a .md file)."""
    cell = markup.parse_markdown(source.encode("utf-8"), "")
    position = 0
    for heading in cell.headings:
        text.add(cell.text[position:heading.start_char])
        text.heading(heading.level, heading.title)
        lines = cell.text[heading.start_char:].split("\n", 2)
        underlined = len(lines) > 1 and lines[1].strip() and set(lines[1].strip()) <= {"=", "-"}
        position = heading.start_char + len(lines[0]) + (len(lines[1]) + 1 if underlined else 0)
    text.add(cell.text[position:])


def _output_text(output: dict) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return _joined(output.get("text")).strip()
    if kind == "error":
        return f"{output.get('ename', '')}: {output.get('evalue', '')}".strip(": ")
    data = output.get("data") or {}
    return _joined(data.get("text/plain", output.get("text", ""))).strip() if isinstance(data, dict) else ""

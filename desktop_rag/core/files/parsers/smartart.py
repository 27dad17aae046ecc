"""SmartArt (a process, a cycle, an org chart drawn in Word or PowerPoint): its words live in a diagram data part
of their own, beside the slide or document, and python-pptx and python-docx read none of them. A slide deck's
process diagram ("Collect → Review → Approve") said nothing to search (pandoc's test decks, 2026-11-29).

The data part lists points (the boxes, and the connectors between them as points without words) and connections;
the boxes are read as the outline the diagram draws: each box after its parent, siblings in their order."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from xml.etree import ElementTree

DIAGRAM_URI = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_DGM = "{" + DIAGRAM_URI + "}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_NOT_BOXES = {"doc", "parTrans", "sibTrans", "pres"}  # the diagram itself, connectors, layout helpers


def diagram_text(data_part: bytes) -> str:
    """The words of a diagram data part, a box a line, in outline order; "" for one that cannot be read."""
    try:
        root = ElementTree.fromstring(data_part)
    except ElementTree.ParseError:
        return ""
    texts: dict[str, str] = {}
    order: list[str] = []
    top: list[str] = []
    for point in root.iter(f"{_DGM}pt"):
        kind, key = point.get("type", "node"), point.get("modelId", "")
        if kind == "doc":
            top.append(key)
        if kind in _NOT_BOXES:
            continue
        body = point.find(f"{_DGM}t")
        lines = ["".join(run.text or "" for run in paragraph.iter(f"{_A}t")).strip()
                 for paragraph in (body.iter(f"{_A}p") if body is not None else ())]
        texts[key] = "\n".join(line for line in lines if line)
        order.append(key)
    children: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for link in root.iter(f"{_DGM}cxn"):
        if link.get("type", "parOf") == "parOf":
            children[link.get("srcId", "")].append((int(link.get("srcOrd", "0") or 0), link.get("destId", "")))
    outline: list[str] = []
    seen: set[str] = set()

    def visit(key: str) -> None:
        for _, child in sorted(children.get(key, ())):
            if child not in seen:
                seen.add(child)
                outline.append(child)
                visit(child)

    for key in top:
        visit(key)
    outline += [key for key in order if key not in seen]  # boxes no connection reaches, as listed
    return "\n".join(texts[key] for key in outline if texts.get(key))


def diagrams_in(element, related_blob: Callable[[str], bytes | None]) -> list[str]:
    """The text of each SmartArt diagram drawn in `element` (a slide's graphic frame, a Word paragraph), its data
    part found by relationship id through `related_blob`."""
    texts = []
    for ids in element.iter(f"{_DGM}relIds"):
        blob = related_blob(ids.get(f"{_R}dm", ""))
        if blob and (text := diagram_text(blob)):
            texts.append(text)
    return texts

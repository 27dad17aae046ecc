"""SmartArt diagrams put into a Word document and a slide deck made in the test: a diagram data part as Office
writes it (ECMA-376 Part 1, 21.4: points, connector points, parent-of connections with their order), related from a
graphic frame (PowerPoint) or an inline drawing (Word). python-pptx and python-docx write no SmartArt themselves."""

from __future__ import annotations

from pathlib import Path

DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
DATA_TYPE = "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml"
DATA_RELATIONSHIP = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData"

Tree = list[tuple[str, "Tree"]]  # each box's words and the boxes under it, in the order drawn


def diagram_data(tree: Tree) -> bytes:
    """A data part whose points are listed last box first (Office lists them as they were added, not as drawn)."""
    points = ['<dgm:pt modelId="doc" type="doc"><dgm:t><a:bodyPr/><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>']
    links: list[str] = []

    def add(parent: str, boxes: Tree, path: str) -> None:
        for order, (words, under) in enumerate(boxes):
            key = f"box{path}{order}"
            runs = "".join(f"<a:p><a:r><a:t>{line}</a:t></a:r></a:p>" for line in words.split("\n"))
            points.append(f'<dgm:pt modelId="{key}"><dgm:prSet phldrT="[Text]"/><dgm:t><a:bodyPr/>{runs}</dgm:t>'
                          f'</dgm:pt>')
            points.append(f'<dgm:pt modelId="par{key}" type="parTrans" cxnId="c{key}"><dgm:t><a:bodyPr/><a:p>'
                          f'<a:endParaRPr/></a:p></dgm:t></dgm:pt>')
            points.append(f'<dgm:pt modelId="sib{key}" type="sibTrans" cxnId="c{key}"/>')
            links.append(f'<dgm:cxn modelId="c{key}" srcId="{parent}" destId="{key}" srcOrd="{order}" destOrd="0" '
                         f'parTransId="par{key}" sibTransId="sib{key}"/>')
            links.append(f'<dgm:cxn modelId="p{key}" type="presOf" srcId="{key}" destId="shape{key}" srcOrd="0" '
                         f'destOrd="0"/>')
            add(key, under, f"{path}{order}.")

    add("doc", tree, "")
    listed = points[:1] + points[:0:-1]
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><dgm:dataModel xmlns:dgm="{DGM}" '
            f'xmlns:a="{A}"><dgm:ptLst>{"".join(listed)}</dgm:ptLst><dgm:cxnLst>{"".join(links)}</dgm:cxnLst>'
            f'<dgm:bg/><dgm:whole/></dgm:dataModel>').encode()


def _relation_ids(key: str) -> str:
    return f'<dgm:relIds xmlns:dgm="{DGM}" xmlns:r="{R}" r:dm="{key}" r:lo="" r:qs="" r:cs=""/>'


def add_smartart_slide(path: Path, title: str, tree: Tree) -> Path:
    """A slide titled `title` with the diagram below the title, added to the deck at `path`."""
    from pptx import Presentation
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI
    from pptx.oxml import parse_xml

    deck = Presentation(str(path))
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = title
    number = len(deck.slides)
    part = Part(PackURI(f"/ppt/diagrams/data{number}.xml"), DATA_TYPE, slide.part.package, diagram_data(tree))
    key = slide.part.relate_to(part, DATA_RELATIONSHIP)
    frame = (f'<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="{A}">'
             '<p:nvGraphicFramePr><p:cNvPr id="40" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/>'
             '</p:nvGraphicFramePr><p:xfrm><a:off x="457200" y="1600200"/><a:ext cx="8229600" cy="4525963"/>'
             f'</p:xfrm><a:graphic><a:graphicData uri="{DGM}">{_relation_ids(key)}</a:graphicData></a:graphic>'
             '</p:graphicFrame>')
    slide.shapes._spTree.append(parse_xml(frame))
    deck.save(str(path))
    return path


def add_smartart_paragraph(path: Path, before: str, tree: Tree) -> Path:
    """A paragraph saying `before` with the diagram drawn inline in it, added to the Word document at `path`."""
    import docx
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import parse_xml

    document = docx.Document(str(path))
    part = Part(PackURI("/word/diagrams/data1.xml"), DATA_TYPE, diagram_data(tree), document.part.package)
    key = document.part.relate_to(part, DATA_RELATIONSHIP)
    paragraph = document.add_paragraph(before)
    drawing = (f'<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:a="{A}" '
               'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><w:drawing>'
               '<wp:inline><wp:extent cx="5486400" cy="3200400"/><wp:docPr id="7" name="Diagram 1"/><a:graphic>'
               f'<a:graphicData uri="{DGM}">{_relation_ids(key)}</a:graphicData></a:graphic></wp:inline></w:drawing>'
               '</w:r>')
    paragraph._p.append(parse_xml(drawing))
    document.save(str(path))
    return path

"""Real documents made inside the tests: PDFs, EPUBs and DOCX files built with the same libraries users' tools
produce them with, so the parsers meet the real formats. And a cross-encoder folder of random weights, since no
package ships a real one (also used by bench/index_search.py)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path


def write_pdf(path: Path, pages: list[str], toc: list[tuple[int, str, int]] | None = None,
              title: str = "", user_password: str = "") -> Path:
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=10)
    if toc:
        doc.set_toc([list(entry) for entry in toc])
    if title:
        doc.set_metadata({"title": title})
    if user_password:
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=user_password, owner_pw=user_password + "x")
    else:
        doc.save(path)
    doc.close()
    return path


def write_docx(path: Path, blocks: list[tuple[str, str]], title: str = "") -> Path:
    """blocks: ("h1".."h3", text) for headings, ("p", text) for paragraphs, ("table", "a|b;c|d") for a table."""
    import docx

    document = docx.Document()
    if title:
        document.core_properties.title = title
    for kind, text in blocks:
        if kind.startswith("h"):
            document.add_heading(text, level=int(kind[1:]))
        elif kind == "table":
            rows = [r.split("|") for r in text.split(";")]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for i, row in enumerate(rows):
                for j, cell in enumerate(row):
                    table.cell(i, j).text = cell
        else:
            document.add_paragraph(text)
    document.save(path)
    return path


def write_epub(path: Path, chapters: list[tuple[str, str]], title: str = "Book") -> Path:
    """A minimal valid EPUB 3: mimetype first and stored, container, package document, one XHTML per chapter."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml",
                   '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                   '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                   "</rootfiles></container>")
        items = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
                        for i in range(len(chapters)))
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
        z.writestr("OEBPS/content.opf",
                   '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
                   '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
                   f'<dc:identifier id="id">test-book</dc:identifier><dc:title>{title}</dc:title><dc:language>en</dc:language>'
                   f"</metadata><manifest>{items}</manifest><spine>{spine}</spine></package>")
        for i, (heading, body) in enumerate(chapters):
            z.writestr(f"OEBPS/c{i}.xhtml",
                       '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                       f"<head><title>{heading}</title></head><body><h1>{heading}</h1><p>{body}</p></body></html>")
    return path


def write_random_cross_encoder(folder: Path, hidden: int = 64, layers: int = 2) -> Path:
    """A cross-encoder folder in the format users supply, with random weights: its scores mean nothing, but
    computing them costs what a real model of that shape costs (the ms-marco-MiniLM-L-6 shape: 384 wide, 6
    layers)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from desktop_rag.core.dense.tokens import ENGLISH_EMBEDDING_MODEL, embedding_model_path

    # A BERT WordPiece tokenizer, as the ms-marco cross-encoders people use have.
    tokenizer = AutoTokenizer.from_pretrained(str(embedding_model_path(ENGLISH_EMBEDDING_MODEL)))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=hidden, num_hidden_layers=layers,
                        num_attention_heads=max(1, hidden // 32), intermediate_size=hidden * 4, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def scanned_image(text: str, japanese: bool = False, dpi: int = 200, width_pt: float = 595, height_pt: float = 842,
                  fontsize: float = 12, noise: float = 12.0, seed: int = 0):
    """A page as a scanner gives it back: `text` set on a page, rendered at `dpi`, turned a little, with grey noise.
    A Pillow image; it carries no text layer, so only OCR can read it."""
    import numpy as np
    import pymupdf
    from PIL import Image

    doc = pymupdf.open()
    page = doc.new_page(width=width_pt, height=height_pt)
    margin = min(50, width_pt / 10)
    page.insert_textbox(pymupdf.Rect(margin, margin, width_pt - margin, height_pt - margin), text,
                        fontname="japan" if japanese else "helv", fontsize=fontsize)
    pix = page.get_pixmap(dpi=dpi)
    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    image = image.rotate(0.8, expand=False, fillcolor=(255, 255, 255), resample=Image.BICUBIC)
    pixels = np.asarray(image).astype(np.int16)
    grain = np.random.default_rng(seed).normal(0, noise, pixels.shape[:2])[..., None]
    return Image.fromarray(np.clip(pixels + grain, 0, 255).astype(np.uint8))


def write_scanned_pdf(path: Path, pages: list[tuple[str, bool]], dpi: int = 200) -> Path:
    """A PDF made of page images only, as a scanner writes one (JPEG pages): pages are (text, japanese)."""
    import io

    import pymupdf

    doc = pymupdf.open()
    for number, (text, japanese) in enumerate(pages):
        jpeg = io.BytesIO()
        scanned_image(text, japanese, dpi=dpi, seed=number).save(jpeg, format="JPEG", quality=80)
        page = doc.new_page(width=595, height=842)
        page.insert_image(page.rect, stream=jpeg.getvalue())
    doc.save(path)
    doc.close()
    return path


# -- known text on scans -----------------------------------------------------------------------------------------

LEASE = ("Lease agreement between Harbor Lofts and Mina Okafor. The monthly rent is 1,450 euros, due on the first "
         "day of each month. The tenant may keep one bicycle in the cellar.")
LEASE_JA = "第二条 賃借人は、毎月末日までに翌月分の家賃を支払うものとする。ペットの飼育は禁止する。"
RECEIPT = "CORNER BAKERY\nSourdough loaf 4.20\nCroissant x2 3.60\nOat latte 3.90\nTOTAL 11.70\nThank you!"


def png_bytes(image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def recognise(image, languages: str = "eng+jpn"):
    """What OCR reads on an image (an ocr.OcrPage)."""
    from desktop_rag.core.files import ocr

    grey = image.convert("L")
    return ocr.PageRecognizer(languages).recognize(grey.tobytes(), grey.width, grey.height, grey.width)


# -- text in languages without spaces between words ----------------------------------------------------------

MEETING = ("# 物流会議メモ\n\n2025年10月の定例会議では、物流コストの削減が主な議題となった。倉庫の統合により、"
           "配送費を年間で一割減らす計画である。来月までに運送会社三社から見積もりを集める。\n")
TRAVEL = ("# 出張旅費規程\n\n社員が出張する場合、新幹線の普通車指定席を利用できる。宿泊費は一泊一万二千円を上限とし、"
          "領収書を経理部に提出すること。海外出張の日当は別に定める。\n")
CHINESE = ("# 年度预算\n\n公司明年的研发预算增加百分之十五，主要用于人工智能项目。财务部将在三月审核各部门的支出。\n")


def fits_like_image() -> bytes:
    """A FITS image as an observatory writes one: 80-character ASCII header cards in 2,880-byte blocks (here 4,
    more than the first bytes judged), then 16-bit pixels of a smooth sky."""
    import math
    import struct

    cards = ["SIMPLE  =                    T", "BITPIX  =                   16", "NAXIS   =                    2",
             "NAXIS1  =                  600", "NAXIS2  =                  600", "OBJECT  = 'NGC 1300'",
             *(f"COMMENT observation log line {n:03d} of the night's calibration" for n in range(130)), "END"]
    header = "".join(card.ljust(80) for card in cards).encode("ascii")
    header += b" " * (-len(header) % 2880)
    pixels = b"".join(struct.pack(">h", int(900 + 600 * math.sin(x / 37) * math.cos(y / 53)))
                      for y in range(600) for x in range(600))
    return header + pixels

"""Web pages saved as one file (core/files/parsers/web_archive.py), written in the test as Chrome's "Save as MHTML"
and Internet Explorer's web archive write them."""

from pathlib import Path

import pytest

from desktop_rag.core.files.parsers import ParseError, parse

CHROME = b"""From: <Saved by Blink>
Snapshot-Content-Location: https://example.org/harbour
Subject: Harbour fees 2025
Date: Sat, 1 Mar 2025 10:00:00 -0000
MIME-Version: 1.0
Content-Type: multipart/related;
\ttype="text/html";
\tboundary="----MultipartBoundary--x1----"

------MultipartBoundary--x1----
Content-Type: text/html
Content-ID: <frame-1@mhtml.blink>
Content-Transfer-Encoding: quoted-printable
Content-Location: https://example.org/harbour

<!DOCTYPE html><html><head><meta http-equiv=3D"Content-Type" content=3D"tex=
t/html; charset=3DUTF-8"><title>Harbour fees 2025</title></head><body><h1>M=
ooring</h1><p class=3D"fee">Visiting yachts pay =E2=82=AC2 per metre.</p></=
body></html>
------MultipartBoundary--x1----
Content-Type: image/png
Content-Transfer-Encoding: base64
Content-Location: https://example.org/logo.png

iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==
------MultipartBoundary--x1------
"""

EXPLORER = (b"From: <Saved by Windows Internet Explorer 8>\r\nSubject: Club news\r\nMIME-Version: 1.0\r\n"
            b'Content-Type: multipart/related; type="text/html"; boundary="----=_NextPart_000_0000"\r\n\r\n'
            b"------=_NextPart_000_0000\r\nContent-Type: text/html; charset=\"Windows-1252\"\r\n"
            b"Content-Transfer-Encoding: quoted-printable\r\nContent-Location: http://club.example/news.htm\r\n\r\n"
            b"<HTML><BODY><P>Caf=E9 opens at nine.</P></BODY></HTML>\r\n------=_NextPart_000_0000--\r\n")


def test_a_page_saved_by_chrome_is_read_as_the_page_with_its_address():
    document = parse(Path("Harbour fees.mhtml"), CHROME)
    assert "Visiting yachts pay €2 per metre." in document.text
    assert "=3D" not in document.text and "iVBOR" not in document.text and "class" not in document.text
    assert document.title == "Harbour fees 2025" and [h.title for h in document.headings] == ["Mooring"]
    assert document.metadata == {"address": "https://example.org/harbour"}


def test_a_page_saved_by_internet_explorer_in_its_code_page_is_read():
    document = parse(Path("news.mht"), EXPLORER)
    assert "Café opens at nine." in document.text and document.title == "Club news"
    assert document.metadata == {"address": "http://club.example/news.htm"}


def test_a_file_named_mht_that_holds_no_page_says_so():
    with pytest.raises(ParseError, match="holds no HTML page"):
        parse(Path("odd.mht"), b"From: a@example.com\nSubject: x\n\nplain words\n")

"""Web pages saved as one file (.mht, .mhtml: Chrome's and Edge's "Save as… Webpage, single file", Internet
Explorer's web archive, Word's "Single File Web Page"): a MIME message whose first HTML part is the page, the
pictures and styles beside it. Read as text before, a saved page was its quoted-printable markup ("=3D", "<div
class=3D…"). The page is read as a web page is (html.py); the address it was saved from is kept with it."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from desktop_rag.core.files.parsers import html
from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.core.files.parsers.mail import decoded_payload, header, text_of_part
from desktop_rag.documents import ParsedDocument

_ADDRESS_HEADERS = ("snapshot-content-location", "content-location")


def parse_web_archive(data: bytes, stem: str) -> ParsedDocument:
    message = email.message_from_bytes(data, policy=email.policy.default, _class=EmailMessage)
    page = next((part for part in message.walk() if part.get_content_type() == "text/html"), None)
    if page is None:
        raise ParseError("not a saved web page: it holds no HTML page")
    # In the charset its part declares (Internet Explorer's); else as a page's bytes, by its <meta charset> or its
    # bytes (Chrome declares none: read as ASCII, "€" was three U+FFFD).
    source = text_of_part(page).encode("utf-8") if page.get_param("charset") else decoded_payload(page)
    document = html.parse_html(source, "")
    address = next((value for name in _ADDRESS_HEADERS if (value := header(message, name) or header(page, name))), "")
    title = document.title or header(message, "subject") or stem
    return ParsedDocument(text=document.text, title=title, parser="html", headings=document.headings,
                          metadata={"address": address} if address else {})

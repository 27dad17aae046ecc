"""A mail's body: every text part it shows, each once.

The standard library's `get_body` gives one part: a mail holding a plain part, a picture and an XHTML part (a
phone's reply: "Sent from…", the photo, the reply itself) lost the XHTML part, its words unsearchable (issue 51).
Here the parts are walked as a mail client shows them: the parts of a mixed or related multipart one after
another, attachments left to the container reader; of the alternatives of a multipart/alternative one, the HTML
(or XHTML) one when it holds the plain one's words — it is the one a person saw — else the plain one, and both when
each holds words the other lacks (a client that wrote two different bodies), so that no word of the mail is lost.
"""

from __future__ import annotations

import re

from email.message import EmailMessage, Message

from desktop_rag.core.files.parsers import html

_RICH = ("text/html", "application/xhtml+xml")
# The share of the plain part's distinct words an HTML alternative must hold to stand for it: not all, as the two
# spell links and lists differently ("<https://…>", "* item").
_HOLDS_WORDS = 0.95
_WORD = re.compile(r"\w+")


def body_text(message: EmailMessage, text_of, payload_of) -> str:
    """`text_of(part)`: a text part's str in its charset; `payload_of(part)`: a part's decoded bytes."""
    if message.get_content_maintype() == "multipart" and not isinstance(message.get_payload(), list):
        payload = message.get_payload()  # a malformed container (no boundary): its text as it came
        return payload.strip() if isinstance(payload, str) else ""
    return "\n\n".join(text for text in _texts(message, text_of, payload_of, top=True) if text.strip())


def _texts(part: Message, text_of, payload_of, top: bool = False) -> list[str]:
    if not top and _attached(part):
        return []
    kind = part.get_content_type()
    if kind == "multipart/alternative":
        return _one_of(part, text_of, payload_of)
    if part.get_content_maintype() == "multipart":
        return [text for sub in _parts(part) for text in _texts(sub, text_of, payload_of)]
    if kind == "text/plain":
        return [text_of(part)]
    if kind in _RICH:
        return [html.parse_html(payload_of(part), "").text]
    return []


def _one_of(alternative: Message, text_of, payload_of) -> list[str]:
    plain: list[str] = []
    rich: list[str] = []
    for sub in _parts(alternative):
        texts = [t for t in _texts(sub, text_of, payload_of) if t.strip()]
        if texts:
            (plain if sub.get_content_type() == "text/plain" else rich).append("\n\n".join(texts))
    if not plain or not rich:
        return (rich or plain)[-1:]
    plain_words, rich_words = _words(plain[0]), _words(rich[-1])
    if _holds(rich_words, plain_words):
        return rich[-1:]
    if _holds(plain_words, rich_words):
        return plain[:1]
    return [plain[0], rich[-1]]


def _holds(words: set[str], others: set[str]) -> bool:
    return not others or len(others & words) >= _HOLDS_WORDS * len(others)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def _parts(part: Message) -> list[Message]:
    payload = part.get_payload()
    return [sub for sub in payload if isinstance(sub, Message)] if isinstance(payload, list) else []


def _attached(part: Message) -> bool:
    """A file attached (named, or marked so): the container reader indexes it as a document of its own."""
    return bool(part.get_filename()) or part.get_content_disposition() == "attachment" \
        or part.get_content_type() == "message/rfc822"

"""Files that hold documents: archives (.zip, .tar, .tar.gz…), mailboxes (.mbox, Thunderbird's files without an
extension, Outlook's .pst and .ost) and e-mail messages (.eml) with their attachments. A container is flattened into
members, each a document of its own with a path a person can read ("photos.zip › 2023/receipt.pdf"); a message is
itself a member (the empty chain for an .eml file) whose attachments follow it.

Limits keep a hostile or broken file from taking the machine: members, inflated bytes, nesting depth and the
compression ratio of each member (archives.py; a zip bomb is an error for its archive, the rest of the folder is
indexed).
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from desktop_rag.core.files import archives, embedded, mailbox_stream, outlook_store, parsers, tnef
from desktop_rag.core.files.archives import MAX_DEPTH, Budget
from desktop_rag.core.files.parsers import mail, outlook
from desktop_rag.core.files.parsers.mail import attachment_name
from desktop_rag.core.files.parsers.decoding import SNIFF_BYTES, looks_like_text_throughout
from desktop_rag.core.files.parsers.packages import OLE_MAGIC
from desktop_rag.core.files.parsers.errors import ParseError, unreadable
from desktop_rag.documents import ParsedDocument

# The kinds of parsers.CONTAINER_SUFFIXES (archives, mailboxes), and messages, which hold attachments.
ZIP, TAR, MBOX, PST, MESSAGE, OUTLOOK = "zip", "tar", "mbox", "pst", "message", "outlook"
COMPRESSED = "compressed"  # one file compressed alone: notes.txt.gz, a log's .bz2
TNEF = "tnef"  # Outlook's winmail.dat: the files of a mail sent in Outlook's own format (tnef.py)
_MAILBOXES = {MBOX, PST}
# A document holding files (a workbook embedded in a Word file, a PDF's attachments: embedded.py): the document
# itself, a member as an .eml's message is, then those files.
WITH_FILES = "document with files"
# A mailbox's entry: mail by its place, read whatever headers it lacks (a file named .eml holding no headers is not).
MAILBOX_MESSAGE = "mailbox message"
_MESSAGE_SUFFIXES = {".eml": MESSAGE, ".emlx": MESSAGE, ".msg": OUTLOOK}
_MESSAGE_READERS = {MESSAGE: mail.read_message, OUTLOOK: outlook.read_msg,
                    MAILBOX_MESSAGE: lambda data, stem: mail.read_message(data, stem, headers_required=False)}
_HEADER_LINE = re.compile(rb"^[A-Za-z][A-Za-z0-9-]*:[ \t]", re.M)


def container_format(name: str, head: bytes = b"") -> str | None:
    """ZIP, TAR, MBOX or MESSAGE for a file that holds documents; None for any other. A file without a known
    extension is a mailbox when it opens like one (Thunderbird's "Inbox")."""
    if tnef.looks_like_tnef(head):  # by its signature, whatever it is called (winmail.dat, ATT00001.dat)
        return TNEF
    lower = name.lower()
    kind = next((kind for suffix, kind in parsers.CONTAINER_SUFFIXES.items() if lower.endswith(suffix)), None)
    if kind is not None:
        return kind
    if (suffix := PurePosixPath(lower).suffix) in _MESSAGE_SUFFIXES:
        if head.startswith(OLE_MAGIC):  # an Outlook item saved as .eml
            return OUTLOOK
        return MESSAGE if looks_like_message(head) else _MESSAGE_SUFFIXES[suffix]  # .msg: a mail saved so
    if parsers.file_kind(PurePosixPath(name)) == parsers.MAYBE_TEXT:
        if looks_like_mbox(head):
            return MBOX
        if looks_like_message(head):  # Maildir's cur/ and new/ hold one message a file, named by no extension
            return MESSAGE
    return None


def container_of(name: str, data: bytes) -> str | None:
    """As container_format, from the whole file: a zip without a known extension is an archive unless it is an
    Office, OpenDocument or EPUB package (told by its members, which its first bytes do not say); an OLE file
    without one is an Outlook message when its streams say so."""
    kind = container_format(name, data[:SNIFF_BYTES])
    if kind is None and embedded.may_hold_files(name, data):
        return WITH_FILES
    if kind is not None or parsers.file_kind(PurePosixPath(name)) != parsers.MAYBE_TEXT:
        return kind
    if data.startswith(b"PK\x03\x04") and parsers.sniffed_suffix(data) is None:
        return ZIP
    if data.startswith(OLE_MAGIC) and parsers.sniffed_suffix(data) == ".msg":
        return OUTLOOK
    return None


def looks_like_mbox(head: bytes) -> bool:
    if not head.startswith(b"From "):
        return False
    first_lines = head[:2048].split(b"\n", 6)[1:6]
    return sum(bool(_HEADER_LINE.match(line + b"\n")) for line in first_lines) >= 2


# Headers of mail that a file of other text rarely opens with: three of them, From or Date among them, in its header
# block, and it is a message (a Maildir file, a mail saved without extension).
_MAIL_HEADERS = frozenset(b"from to cc subject date message-id received return-path delivered-to mime-version "
                          b"reply-to x-mailer in-reply-to references content-type".split())


def looks_like_message(head: bytes) -> bool:
    block = re.split(rb"\r?\n\r?\n", head, maxsplit=1)[0]
    lines = block.splitlines()
    if not lines or not _HEADER_LINE.match(lines[0] + b"\n"):
        return False
    names = {line.split(b":", 1)[0].lower() for line in lines if _HEADER_LINE.match(line + b"\n")}
    return len(names & _MAIL_HEADERS) >= 3 and bool(names & {b"from", b"date"})


@dataclass
class Member:
    chain: tuple[str, ...]  # names from the file down to this member; () is the file's own message
    data: bytes = b""
    message: str | None = None  # MESSAGE, MAILBOX_MESSAGE or OUTLOOK: a mail, read as one
    problem: str | None = None  # why it cannot be read (encrypted, nested too deep…): a per-member error
    title: str | None = None  # an attachment: "mail subject › file.pdf"
    metadata: dict[str, str] = field(default_factory=dict)  # an attachment's: its mail's sender and date
    # A message as read to find its attachments, kept for reading it as a document: parsing a mail is most of the
    # reader's time for a mailbox (2 of ~3.5 ms a message), and it was parsed twice.
    document: ParsedDocument | None = None

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def members(name: str, data: bytes, kind: str | None = None) -> list[Member]:
    """Every document inside the file `name` with bytes `data`, in order; ParseError when the file as a whole cannot
    be read (corrupt, a bomb, too many members). `kind`: what it is when its name does not say (MAILBOX_MESSAGE)."""
    kind = kind or container_of(name, data)
    if kind is None:
        raise ParseError("not an archive, a mailbox or an e-mail message")
    found: list[Member] = []
    _expand(kind, (), data, 0, Budget(len(data)), found, name)
    return found


def _expand(kind: str, chain: tuple[str, ...], data: bytes, depth: int, budget: Budget, found: list[Member],
            name: str = "") -> None:
    """`name`: the file's, for the file itself (chain ()); below it, a member's name is its chain's last."""
    name = chain[-1] if chain else name
    if kind in _MESSAGE_READERS:
        _message(kind, chain, data, depth, budget, found)
        return
    if kind == WITH_FILES:
        _document_with_files(name, chain, data, depth, budget, found)
        return
    if depth >= MAX_DEPTH:
        found.append(Member(chain, problem=f"nested over {MAX_DEPTH} levels deep: not opened"))
        return
    if kind == COMPRESSED:
        entries = archives.compressed_entry(name, data, budget)
    elif kind == TNEF:
        entries = _tnef_entries(data, budget)
    else:
        entries = {ZIP: archives.zip_entries, TAR: archives.tar_entries, MBOX: _mbox_entries,
                   PST: _store_entries}[kind](data, budget)
    names: set[str] = set()
    for entry_name, entry_data, problem in entries:
        entry_chain = (*chain, unique_name(entry_name, names))
        if problem:
            found.append(Member(entry_chain, problem=problem))
        elif kind in _MAILBOXES:
            _message(MAILBOX_MESSAGE, entry_chain, entry_data, depth + 1, budget, found)
        else:
            _add(entry_chain, entry_data, depth + 1, budget, found)


def _add(chain: tuple[str, ...], data: bytes, depth: int, budget: Budget, found: list[Member],
         title: str | None = None, metadata: dict[str, str] | None = None) -> None:
    """A file inside a container: a container again (expanded), a document, or nothing to read (left out)."""
    name = chain[-1]
    kind = container_of(name, data)
    if kind is not None:
        opened = len(found)
        try:
            _expand(kind, chain, data, depth, budget, found)
        except ParseError as exc:  # a broken inner archive is that member's error, not its container's
            del found[opened:]  # what it gave before (a bomb's first members) goes with it
            found.append(Member(chain, problem=str(exc)))
        return
    path = PurePosixPath(name)
    file_kind = parsers.file_kind(path)
    if file_kind == parsers.NOT_READ:  # (a picture is read by OCR, when the run may: core/indexing/members.py)
        return
    if file_kind == parsers.MAYBE_TEXT and not (looks_like_text_throughout(data)
                                                 or parsers.may_be_document(data[:SNIFF_BYTES])):
        return
    found.append(Member(chain, data, title=title, metadata=dict(metadata or {})))


def _message(kind: str, chain: tuple[str, ...], data: bytes, depth: int, budget: Budget,
             found: list[Member]) -> None:
    """A message, then the documents attached to it, each titled "subject › file name"."""
    try:
        document, attached = _MESSAGE_READERS[kind](data, chain[-1] if chain else "message")
    except ParseError as exc:
        found.append(Member(chain, problem=str(exc)))
        return
    found.append(Member(chain, data, message=kind, document=document))
    if not attached:
        return
    if depth + 1 > MAX_DEPTH:
        found.append(Member((*chain, attached[0].name), problem=f"nested over {MAX_DEPTH} levels deep: not opened"))
        return
    inherited: dict[str, str] = {key: document.metadata[key] for key in ("from", "to", "date")
                                 if key in document.metadata}
    inherited["attached_to"] = document.title
    names: set[str] = set()
    for attachment in attached:
        budget.take(len(attachment.data))
        attachment_chain = (*chain, unique_name(attachment.name, names))
        _add(attachment_chain, attachment.data, depth + 1, budget, found,
             title=f"{document.title} › {attachment.name}", metadata=inherited)


def _document_with_files(name: str, chain: tuple[str, ...], data: bytes, depth: int, budget: Budget,
                         found: list[Member]) -> None:
    """The document `name` (read as any file of its format), then the files inside it."""
    found.append(Member(chain, data))
    inner = embedded.embedded_files(name, data)
    if inner and depth + 1 > MAX_DEPTH:
        found.append(Member((*chain, inner[0][0]), problem=f"nested over {MAX_DEPTH} levels deep: not opened"))
        return
    names: set[str] = set()
    for name, content in inner:
        budget.take(len(content))
        _add((*chain, unique_name(name, names)), content, depth + 1, budget, found)


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, or the first of "name (2)", "name (3)"… (before a suffix: "menu (2).pdf") that no member before it in
    the same container has ("Re: lunch" twice in a mailbox); the name chosen is added to `taken`."""
    chosen, number = name, 1
    stem, dot, suffix = name.rpartition(".") if "." in name.rsplit("/", 1)[-1] else (name, "", "")
    while chosen in taken:
        number += 1
        chosen = f"{stem} ({number}){dot}{suffix}"
    taken.add(chosen)
    return chosen


def _mbox_entries(data: bytes, budget: Budget):
    """A mailbox held in memory (inside an archive, attached to a mail): split as one on disk is
    (core/files/mailbox_stream.py)."""
    found = False
    for message in mailbox_stream.messages(io.BytesIO(data)):
        found = True
        budget.take(len(message.raw))
        try:
            yield mail.message_name(message.raw), message.raw, None
        except Exception as exc:  # a header the parser cannot take: that message's error
            yield f"message at byte {message.start}", b"", unreadable("not a readable message", exc).args[0]
    if not found:
        raise ParseError("not a readable mailbox: no message begins with a \"From \" line")


def _tnef_entries(data: bytes, budget: Budget):
    """The files of a winmail.dat (tnef.py)."""
    for name, content in tnef.tnef_files(data):
        budget.take(len(content))
        yield attachment_name(name, "attachment"), content, None


def _store_entries(data: bytes, budget: Budget):
    """An Outlook data file held in memory (inside an archive, attached to a mail), message by message."""
    for message in outlook_store.messages(io.BytesIO(data)):
        budget.take(len(message.raw))
        yield store_message_name(message), message.raw, None


def store_message_name(message: outlook_store.StoredMessage) -> str:
    """"Inbox/2025-03-14 Lunch on Friday": an Outlook data file's message by its folder, date and subject."""
    try:
        name = mail.message_name(message.raw)
    except Exception:  # a header the parser cannot take: the message is named by its place
        name = f"message {message.number + 1:,}"
    return f"{message.folder}/{name}" if message.folder else name

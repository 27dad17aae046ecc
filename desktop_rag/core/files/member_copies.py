"""A document inside a file opened by a person: its bytes are taken from the archive, the mailbox or the message
again and written to a folder of copies, which the system's viewer then opens (it cannot open "a.zip › b.pdf").
Copies older than a day are removed whenever another is made."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from desktop_rag.core.files import containers, mailbox_stream, outlook_store
from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.core.files.scan import read_bounded
from desktop_rag.errors import BadInput

COPIES_FOLDER = "desktop-rag-opened"
_KEEP_S = 24 * 3600
_UNSAFE = re.compile(r'[\x00-\x1f/\\:*?"<>|]')


def copies_folder() -> Path:
    """The person's own folder in the system's temporary folder (0700): on a shared machine another account could
    otherwise place a link where a copy is written. One that is not ours is not used: a new one is made."""
    if not hasattr(os, "getuid"):  # Windows: the temporary folder is the person's own already
        return Path(tempfile.gettempdir()) / COPIES_FOLDER
    folder = Path(tempfile.gettempdir()) / f"{COPIES_FOLDER}-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
        return folder
    return Path(tempfile.mkdtemp(prefix=f"{COPIES_FOLDER}-"))


def extract(container: str, chain: tuple[str, ...], max_bytes: int, span: tuple[int, int] | None = None,
            into: Path | None = None) -> Path:
    """The member `chain` of the file `container`, written to its own folder under `into`; BadInput when the file
    is gone or no longer holds it (it changed since it was indexed). `span`: where in a mailbox read as a stream
    the message holding it lies, read alone (the mailbox may be gigabytes)."""
    into = into or copies_folder()
    try:
        if span is None:
            data = read_bounded(Path(container), max_bytes)
            found = containers.members(Path(container).name, data)
        else:
            found = _message_members(Path(container), chain[0], span, max_bytes)
    except OSError as exc:
        raise BadInput(f"{container} cannot be read ({exc.strerror or exc}): re-scan its folder") from None
    member = next((m for m in found if m.chain == chain), None)
    if member is None or member.problem:
        raise BadInput(f"{' › '.join(chain)} is no longer in {container}: re-scan its folder")
    name = _UNSAFE.sub("_", chain[-1].rsplit("/", 1)[-1]).strip(" .") or "document"
    if member.message in (containers.MESSAGE, containers.MAILBOX_MESSAGE) and not name.lower().endswith(".eml"):
        name += ".eml"
    _forget_old_copies(into)
    folder = into / hashlib.sha256("\0".join((container, *chain)).encode()).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(member.data)
    return path


def _message_members(mailbox: Path, name: str, span: tuple[int, int], max_bytes: int) -> list[containers.Member]:
    """The message `name` of a mailbox and its attachments, from its bytes at `span` alone (in an Outlook data file,
    its number: outlook_store)."""
    message: outlook_store.StoredMessage | mailbox_stream.MailboxMessage | None
    if containers.container_format(mailbox.name) == containers.PST:
        try:
            message = next(outlook_store.messages(mailbox, max_bytes, span[0], span[1]), None)
        except ParseError:
            return []
    else:
        with mailbox.open("rb") as stream:
            message = next(mailbox_stream.messages(stream, span[0], span[1], max_bytes), None)
    if message is None or message.too_large:
        return []
    return [replace(m, chain=(name, *m.chain))
            for m in containers.members(f"{name}.eml", message.raw, containers.MAILBOX_MESSAGE)]


def _forget_old_copies(into: Path) -> None:
    if not into.is_dir():
        return
    limit = time.time() - _KEEP_S
    for folder in into.iterdir():
        try:
            if folder.stat().st_mtime < limit:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            pass

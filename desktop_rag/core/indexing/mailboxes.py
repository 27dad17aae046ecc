"""The part of an indexing run that reads a mailbox on disk (mbox: Thunderbird's Inbox, mutt's, an export) as a
stream (core/files/mailbox_stream.py), or an Outlook data file (.pst, .ost: core/files/outlook_store.py): message by
message, whatever its size — max_file_mb is for single documents; a message over it is that message's error. Each
message goes to the reader as an .eml of its own, so its attachments become documents too (members.py); it is
stored after them, so a stored message means a finished one.

A mailbox that grew since it was read (its first bytes and those before the point read to are unchanged) is read
from its last message on: messages appended to 100,000 are all that is parsed. Any other change (compacted, a
message deleted) streams it whole again and parses only the messages whose bytes changed. Where it was read to is
saved every few seconds, so a run killed halfway goes on from there.
"""

from __future__ import annotations

import hashlib
import time

from desktop_rag.core.files import containers, mailbox_stream, outlook_store, parsers
from desktop_rag.core.files.mailbox_stream import MailboxMessage
from desktop_rag.core.files.parsers import mail
from desktop_rag.core.files.parsers.decoding import SNIFF_BYTES
from desktop_rag.core.files.parsers.errors import ParseError
from desktop_rag.core.files.scan import FoundFile, read_bounded
from desktop_rag.core.indexing.index_sync import IndexSync
from desktop_rag.core.indexing.members import MemberIndexing
from desktop_rag.core.indexing.outcomes import FileOutcomes, Target
from desktop_rag.core.indexing.report import Progress
from desktop_rag.core.indexing.run_state import RunState
from desktop_rag.core.indexing.storing import DocumentStore
from desktop_rag.documents import member_path
from desktop_rag.storage.catalog import MAX_TRANSIENT_RETRIES, Member
from desktop_rag.storage.catalog_mailboxes import MailboxProgress

# How often a run saves where it has read to: a killed run re-reads at most this much (each message by its hash).
SAVE_EVERY_S = 2.0


def is_mailbox(found: FoundFile) -> bool:
    """A mailbox file: named so (.mbox, Outlook's .pst and .ost), or Thunderbird's (no extension, an .msf beside
    it), or opening like one."""
    if containers.container_format(found.path.name) in (containers.MBOX, containers.PST):
        return True
    if found.kind != parsers.MAYBE_TEXT:
        return False
    if not found.path.suffix and found.path.with_name(found.path.name + ".msf").exists():
        return True
    try:
        return containers.looks_like_mbox(read_bounded(found.path, SNIFF_BYTES, head_only=True))
    except OSError:
        return False  # the read that follows reports it


class MailboxIndexing:
    """Mailboxes on disk: each message read as an .eml, its attachments by the members step."""

    def __init__(self, state: RunState, outcomes: FileOutcomes, store: DocumentStore, members: MemberIndexing,
                 sync: IndexSync):
        self.state = state
        self.lib = state.lib
        self.summary = state.summary
        self.outcomes = outcomes
        self.store = store
        self.members = members
        self.sync = sync

    def index_mailbox(self, found: FoundFile, position: tuple[int, int]) -> None:
        if containers.container_format(found.path.name) == containers.PST:
            self._index_outlook_store(found, position)
            return
        catalog, path = self.lib.catalog, str(found.path)
        try:
            stream, checks = found.path.open("rb"), found.path.open("rb")
        except OSError as exc:
            self.outcomes.unreadable(found, exc)
            return
        with stream, checks:
            container_id = catalog.files.start_container(path, parser="mbox", title=found.path.name)
            progress = catalog.mailboxes.mailbox_progress(container_id)
            appended = progress is not None and mailbox_stream.appended_only(checks, found.size, progress.read_to,
                                                                           progress.check)
            start = progress.read_to if progress is not None and appended else 0
            names = catalog.mailboxes.message_names_before(container_id, start) if appended else set()
            limit = int(self.state.settings.max_file_mb * 2**20)
            saved, read_to, count = time.monotonic(), start, 0
            for message in mailbox_stream.messages(stream, start, found.size, limit):
                self.state.control.checkpoint()
                name = containers.unique_name(_message_name(message), names)
                count += 1
                self._mailbox_message(found, position, container_id, name, message, count,
                                      share=message.end / max(found.size, 1))
                read_to = message.start  # the last one is read again next time: it may have been half written
                if time.monotonic() - saved > SAVE_EVERY_S:
                    catalog.mailboxes.save_mailbox_progress(container_id,
                                                  MailboxProgress(read_to, mailbox_stream.check_of(checks, read_to)))
                    saved = time.monotonic()
            if count == 0 and start == 0:
                self.outcomes.fail(found, None, "not a readable mailbox: no message begins with a \"From \" line")
                return
            if not appended:
                self._forget_messages_not_in(container_id, names)
            retry = catalog.mailboxes.members_to_retry(container_id, MAX_TRANSIENT_RETRIES)
            # A message that failed for a cause outside it (a timeout) is tried again by streaming the whole again.
            catalog.mailboxes.save_mailbox_progress(
                container_id, None if retry else MailboxProgress(read_to, mailbox_stream.check_of(checks, read_to)))
            if not retry:
                self._mailbox_read(found, "mbox", mailbox_stream.fingerprint(checks, found.size))

    def _index_outlook_store(self, found: FoundFile, position: tuple[int, int]) -> None:
        """An Outlook data file: listed whole each time it changed (Outlook rewrites it in place, nothing says what
        was appended), parsing only the messages whose mail changed; a killed run passes over those it stored."""
        catalog = self.lib.catalog
        try:
            total = outlook_store.count(found.path)
            with found.path.open("rb") as checks:
                fingerprint = mailbox_stream.fingerprint(checks, found.size)
        except ParseError as exc:
            self.outcomes.fail(found, None, str(exc))
            return
        except OSError as exc:
            self.outcomes.unreadable(found, exc)
            return
        container_id = catalog.files.start_container(str(found.path), parser="pst", title=found.path.name)
        names: set[str] = set()
        limit = int(self.state.settings.max_file_mb * 2**20)
        try:
            for message in outlook_store.messages(found.path, limit):
                self.state.control.checkpoint()
                name = containers.unique_name(containers.store_message_name(message), names)
                # Its place is its number: a message is opened by walking to it (outlook_store.messages).
                placed = MailboxMessage(message.number, message.number + 1, message.raw, message.too_large)
                self._mailbox_message(found, position, container_id, name, placed, message.number + 1,
                                      share=(message.number + 1) / max(total, 1))
        except ParseError as exc:  # the file broke off while read: what was read stays, the rest next time
            self.outcomes.fail(found, None, str(exc))
            return
        self._forget_messages_not_in(container_id, names)
        if not catalog.mailboxes.members_to_retry(container_id, MAX_TRANSIENT_RETRIES):
            self._mailbox_read(found, "pst", fingerprint)

    def _forget_messages_not_in(self, container_id: int, names: set[str]) -> None:
        gone = self.lib.catalog.mailboxes.members_not_named(container_id, names)
        if gone:
            self.summary.removed += self.lib.catalog.remove_documents(gone)

    def _mailbox_read(self, found: FoundFile, parser: str, fingerprint: str) -> None:
        """The mailbox's own row, saved last: a stored mailbox means every message of it read."""
        self.lib.catalog.save_document(
            path=str(found.path), size=found.size, mtime_ns=found.mtime_ns, content_hash=fingerprint,
            parser=parser, title=found.path.name, text="", page_count=None, chunks=[], contexts=[])
        self.summary.indexed += 1

    def _mailbox_message(self, found: FoundFile, position: tuple[int, int], container_id: int, name: str,
                         message: MailboxMessage, count: int, share: float) -> None:
        """One message of the mailbox and its attachments: passed over when stored with these bytes. `share`: how
        much of the mailbox is read with it."""
        catalog, reader = self.lib.catalog, self.lib.document_reader
        target = Target(member_path(str(found.path), (name,)), len(message.raw), found.mtime_ns,
                        Member(container_id, (name,)))
        content_hash = hashlib.sha256(message.raw if not message.too_large
                                      else f"{message.end - message.start}".encode() + message.raw).hexdigest()
        stored = catalog.document(target.path)
        if stored and stored.content_hash == content_hash and (stored.status == "indexed" or not stored.retry_due):
            if catalog.mailboxes.message_span(target.path) != (message.start, message.end):  # the mailbox was compacted
                catalog.mailboxes.place_message(container_id, name, message.start, message.end)
            return

        def report(_index: int = 0, part: str = name) -> None:
            self.state.progress(Progress("parse", *position, str(found.path),
                                      note=f"{found.path.name}: message {count:,}, {share:.0%} read ({part})"))

        report()
        before = catalog.mailboxes.message_parts(container_id, name)
        wanted = {target.path}
        if message.too_large:
            megabytes = (message.end - message.start) / 2**20
            self.outcomes.fail(target, content_hash, f"too large: a message of {megabytes:.1f} MB is over the "
                               f"{self.state.settings.max_file_mb:g} MB limit (setting max_file_mb)")
        else:
            t0 = time.perf_counter()
            members = self.outcomes.reading(target, content_hash,
                                    lambda: reader.open_container(f"{name}.eml", content_hash, message.raw,
                                                                          containers.MAILBOX_MESSAGE))
            self.summary.phase_seconds["parse"] += time.perf_counter() - t0
            if members is not None:
                self._mailbox_message_parts(found, position, container_id, name, message.raw, target,
                                            content_hash, members, report)
                wanted |= {member_path(str(found.path), (name, *info.chain)) for info in members}
        gone = [doc_id for part_path, doc_id in before.items() if part_path not in wanted]
        if gone:
            self.summary.removed += catalog.remove_documents(gone)
        catalog.mailboxes.place_message(container_id, name, message.start, message.end)

    def _mailbox_message_parts(self, found, position, container_id, name, raw, target, content_hash, members, report):
        """The attachments, then the message itself (its problem, when it is no mail, is its failure)."""
        reader = self.lib.document_reader

        def reopen():
            reader.open_container(f"{name}.eml", content_hash, raw, containers.MAILBOX_MESSAGE)

        def read_member(index: int, ocr=None):
            return reader.read_member(content_hash, index, self.state.settings.chunk_tokens,
                                      self.state.settings.chunk_overlap_tokens, reopen=reopen, ocr=ocr)

        own = next(info for info in members if not info.chain)
        if own.problem:
            self.outcomes.fail(target, content_hash, own.problem)
            return
        self.members.read_members(found, container_id, members, (name,), self.lib.catalog.document, read_member,
                           lambda index: reader.member_bytes(content_hash, index, reopen=reopen), report, position)
        t0 = time.perf_counter()
        read = self.outcomes.reading(target, content_hash, lambda: read_member(members.index(own)))
        self.summary.phase_seconds["parse"] += time.perf_counter() - t0
        if read is not None:
            document, chunks = read
            self.store.store(target, content_hash, self.lib.catalog.document(target.path), document, chunks, position)
        self.sync.keyword_index_catch_up()


def _message_name(message: MailboxMessage) -> str:
    """"2025-03-14 Lunch on Friday", as containers names a mailbox's messages; its place when it has no headers."""
    try:
        return mail.message_name(message.raw)  # a message too large to read: its head
    except Exception:  # noqa: BLE001 — a header the parser cannot take: named by its place, and read still
        return f"message at byte {message.start:,}"

"""Mailboxes at the size people keep them (issue 38), with the real reader, embedding model, Chroma and bm25s: a
mailbox over the file limit read message by message; messages appended to it read alone; one compacted (a message
deleted) loses that message and reads no other again; a hit opens its message from its place in the mailbox."""

from email import message_from_bytes

from desktop_rag.config import Settings
from desktop_rag.core.files import mailbox_stream
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.documents import MEMBER_SEPARATOR
from office_documents import message, write_mbox
from reader_spies import count_member_reads

S = MEMBER_SEPARATOR
# Each message ~1.3 KB: 60 of them are over the 0.05 MB limit set below, which no single message is.
FILLER = "The harbour office keeps the ledger of moorings and visiting boats. " * 16


def mails(first: int, count: int) -> list[bytes]:
    return [message(f"Ledger {i}", f"Entry {i}: the keeper logged a vessel named Osprey{i}. {FILLER}",
                    sender=f"Keeper {i} <keeper{i}@example.org>", date=f"Mon, 1 Sep 2025 {i // 60:02}:{i % 60:02}:00 +0000")
            for i in range(first, first + count)]


def hit_paths(library, query: str) -> list[str]:
    """The documents found, each once (a message's chunks overlap)."""
    return list(dict.fromkeys(hit.path for hit in library.search(query, k=5, mode="bm25").hits))


def streamed_from(monkeypatch) -> list[int]:
    """A spy around the stream of messages: the offset each reading of a mailbox began at."""
    starts, real = [], mailbox_stream.messages

    def messages(stream, start=0, *args, **kwargs):
        starts.append(start)
        return real(stream, start, *args, **kwargs)

    monkeypatch.setattr(mailbox_stream, "messages", messages)
    return starts


def test_a_mailbox_over_the_file_limit_is_read_message_by_message_and_grows_by_what_is_appended(
        make_library, docs, tmp_path, monkeypatch):
    library = make_library(Settings(max_file_mb=0.05))
    starts = streamed_from(monkeypatch)
    inbox = write_mbox(docs / "Inbox", mails(0, 60))
    assert inbox.stat().st_size > 0.05 * 2**20
    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.inside == 60
    assert hit_paths(library, '"Osprey42"') == [f"{inbox}{S}2025-09-01 Ledger 42"]
    assert library.catalog.document(f"{inbox}{S}2025-09-01 Ledger 42").status == "indexed"

    last_start = library.catalog.mailboxes.message_span(f"{inbox}{S}2025-09-01 Ledger 59")[0]
    appended = write_mbox(tmp_path / "more", mails(60, 10))
    with inbox.open("ab") as box:  # as a mail program appends what arrives
        box.write(appended.read_bytes())
    asked = count_member_reads(library)
    grown = library.apply_changes(ChangeBatch(dirty={str(inbox)}))
    assert sorted(asked) == sorted(f"Ledger {i}" for i in range(60, 70)) and grown.inside == 10
    assert starts == [0, last_start]  # the box was read again from its last message on, not from its start
    assert hit_paths(library, '"Osprey65"') == [f"{inbox}{S}2025-09-01 Ledger 65"]

    copy = library.openable_path(f"{inbox}{S}2025-09-01 Ledger 65")  # read from its place, not the whole box
    assert copy.name == "2025-09-01 Ledger 65.eml"
    assert message_from_bytes(copy.read_bytes())["From"] == "Keeper 65 <keeper65@example.org>"


def test_a_compacted_mailbox_loses_the_deleted_message_and_reads_no_other_again(make_library, docs, monkeypatch):
    library = make_library()
    starts = streamed_from(monkeypatch)
    kept = mails(0, 5)
    inbox = write_mbox(docs / "Archive.mbox", kept)
    library.index([docs], contexts="rules")
    asked = count_member_reads(library)
    write_mbox(inbox, kept[:1] + kept[2:])  # "Ledger 1" deleted: the client rewrites the box without it
    library.apply_changes(ChangeBatch(dirty={str(inbox)}))
    assert asked == [] and starts == [0, 0]  # read again whole: what was before the point read to changed
    assert hit_paths(library, '"Osprey1"') == [] and library.catalog.document(f"{inbox}{S}2025-09-01 Ledger 1") is None
    copy = library.openable_path(f"{inbox}{S}2025-09-01 Ledger 4")  # its place moved up: still opened right
    assert message_from_bytes(copy.read_bytes())["Subject"] == "Ledger 4"


def test_a_message_over_the_limit_is_that_messages_error(make_library, docs):
    library = make_library(Settings(max_file_mb=0.01))
    big = message("Scans", "Big attachment follows.", attachments=[("scan.bin", b"x" * 20_000)])
    inbox = write_mbox(docs / "Inbox.mbox", mails(0, 2) + [big])
    summary = library.index([docs], contexts="rules")
    assert [f.path for f in summary.failed] == [f"{inbox}{S}2025-03-14 Scans"]
    assert "over the 0.01 MB limit" in summary.failed[0].reason
    assert hit_paths(library, '"Osprey1"') == [f"{inbox}{S}2025-09-01 Ledger 1"]


def test_a_maildir_message_is_a_mail_with_its_sender_and_its_attachment(library, docs):
    for folder in ("cur", "new", "tmp"):
        (docs / "Maildir" / folder).mkdir(parents=True)
    raw = message("Ferry times", "The 9:40 ferry leaves from pier three.", sender="Port Office <port@example.org>",
                  date="Mon, 1 Sep 2025 10:00:00 +0000", attachments=[("timetable.txt", b"Winter timetable: "
                                                                                        b"the lighthouse route")])
    path = docs / "Maildir" / "cur" / "1756720800.M1P2.mailhost:2,S"
    path.write_bytes(raw)
    summary = library.index([docs], contexts="rules")
    assert summary.failed == []
    hit = library.search('"pier three"', k=1, mode="bm25").hits[0]
    assert hit.path == str(path) and hit.title == "Ferry times"
    assert hit.metadata["from"] == "Port Office <port@example.org>" and hit.metadata["date"] == "2025-09-01T10:00:00"
    assert hit_paths(library, '"lighthouse route"') == [f"{path}{S}timetable.txt"]


def test_a_run_stopped_in_a_mailbox_goes_on_from_where_it_saved(make_library, docs, monkeypatch):
    from desktop_rag.core.indexing import mailboxes
    from desktop_rag.core.progress.control import RunControl

    monkeypatch.setattr(mailboxes, "SAVE_EVERY_S", 0.0)  # where it has read to, saved after every message
    starts = streamed_from(monkeypatch)
    library = make_library()
    inbox = write_mbox(docs / "Inbox", mails(0, 8))
    control = RunControl()

    def stop_at_the_fifth(progress):
        if progress.note and "message 5," in progress.note:
            control.cancel()

    assert library.index([docs], contexts="rules", on_progress=stop_at_the_fifth, control=control).cancelled
    asked = count_member_reads(library)
    library.index([docs], contexts="rules")
    fourth = library.catalog.mailboxes.message_span(f"{inbox}{S}2025-09-01 Ledger 4")[0]
    assert starts == [0, fourth] and sorted(asked) == ["Ledger 5", "Ledger 6", "Ledger 7"]
    assert hit_paths(library, '"Osprey7"') == [f"{inbox}{S}2025-09-01 Ledger 7"]
    assert len([d for d in library.catalog.documents_under(str(docs)) if d.container_id is not None]) == 8


def test_an_outlook_data_file_is_a_mailbox_found_by_a_messages_words_with_its_sender(make_library, docs):
    """A PST from Apache Tika's tests (tests/files/public), 2.3 MB: over the limit set here, read all the same."""
    import gzip
    from pathlib import Path

    public = Path(__file__).resolve().parents[1] / "files" / "public"
    library = make_library(Settings(max_file_mb=0.5))
    pst = docs / "Outlook archive.pst"
    pst.write_bytes(gzip.decompress((public / "testPST.pst.gz").read_bytes()))
    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.inside == 7
    hit = library.search('"remebers the last"', k=1, mode="bm25").hits[0]  # (its spelling)
    assert hit.path == f"{pst}{S}2014-02-26 Re: Feature Generators" and hit.title == "Re: Feature Generators"
    assert hit.metadata["from"] == "Jörn Kottmann <kottmann@gmail.com>"
    assert hit.metadata["date"].startswith("2014-02-26")
    copy = library.openable_path(f"{pst}{S}2014-02-24 [WEBINAR] - \"Introducing Couchbase Server 2.5\"")
    assert message_from_bytes(copy.read_bytes())["From"] == "Couchbase <couchbase@couchbase.com>"

    asked = count_member_reads(library)
    library.index([docs], contexts="rules")  # unchanged: nothing read again
    pst.write_bytes(gzip.decompress((public / "testPST_variousBodyTypes.pst.gz").read_bytes()))  # rewritten
    library.apply_changes(ChangeBatch(dirty={str(pst)}))
    assert asked == ["original email"] + ["FW: original email"] * 3
    assert hit_paths(library, '"PreviousMapFeatureGenerator"') == []  # its messages gone with it
    assert hit_paths(library, '"This is the original email"')[0] == f"{pst}{S}Inbox/tmp/2017-08-30 original email"
    asked.clear()
    pst.touch()  # saved again by Outlook, the same messages: listed, none read again
    library.apply_changes(ChangeBatch(dirty={str(pst)}))
    assert asked == []

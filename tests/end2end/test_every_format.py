"""A folder of every kind of file a person keeps — slides, spreadsheets, OpenDocument, RTF, e-mail with
attachments, a mailbox, archives — indexed with the real embedding model, Chroma and bm25s: each document found
by a phrase only it holds, by keywords and by meaning; a bad file of each family costs that file only."""

import datetime as dt
import gzip
from pathlib import Path

import pytest

from desktop_rag.core.progress.control import RunControl
from desktop_rag.documents import MEMBER_SEPARATOR
from documents import write_docx, write_pdf
from office_documents import (message, password_protect, write_mbox, write_odp, write_ods, write_odt, write_pptx,
                              write_rtf, write_tar_gz, write_xls, write_xlsx, write_zip, zip_bomb)
from outlook_files import write_msg
from reader_spies import count_member_reads

S = MEMBER_SEPARATOR
# (where the document is, relative to the folder; a phrase only it holds; a question about it in other words)
EXPECTED = [
    ("deck.pptx", "crocus stigmas", "collecting an expensive spice from flowers"),
    ("orchard.xlsx", "Conference pears", "when do pears become ripe"),
    ("volcanoes.xls", "Lava flows reached", "molten rock from a volcano"),
    ("dance.odt", "tango lessons", "dance classes in the evening"),
    ("planets.ods", "Ganymede", "the biggest satellite of a planet"),
    ("glacier.odp", "forty metres of ice", "melting ice caused by warm summers"),
    ("violin.rtf", "violin needs new strings", "repairing a string instrument before a performance"),
    ("training.eml", "twenty kilometres", "a plan for long distance running"),
    (f"training.eml{S}openings.pdf", "Sicilian defence", "how to begin a game of chess"),
    ("harbour.msg", "harbour fee rises", "paying for a boat's place in the port"),
    (f"harbour.msg{S}moorings.txt", "visitor moorings", "where guest boats can tie up"),
    (f"Inbox{S}2025-03-14 Sourdough", "sourdough starter", "baking bread at home"),
    (f"Inbox{S}2025-03-16 Fjord club", "paddles on the fjord", "a boating club on the water"),
    (f"receipts.zip{S}tax/plumber.txt", "leaking radiator", "a bill for repairing the heating"),
    (f"receipts.zip{S}pets.zip{S}parrot.docx", "parrot learned to whistle", "a bird that imitates music"),
    (f"notes.tar.gz{S}notes/astronomy.md", "telescope mirror", "looking at Saturn through a telescope"),
    (f"tides.txt.gz{S}tides.txt", "spring tides", "very high water when the moon is full"),
]


def make_every_format(docs: Path, scratch: Path) -> None:
    write_pptx(docs / "deck.pptx", [("Spices", "An overview of the spice trade.", ""),
                                    ("Saffron harvest", "Pickers gather crocus stigmas at sunrise.", "Say thanks.")],
               author="Kim Park")
    write_xlsx(docs / "orchard.xlsx", {"Orchard": [["Tree", "Note"], ["Pear", "Conference pears ripen in September"]]})
    write_xls(docs / "volcanoes.xls", {"Volcanoes": [
        ["Volcano", "Note", "Date"], ["Etna", "Lava flows reached the village road", dt.date(2021, 2, 16)]]})
    write_odt(docs / "dance.odt", [("h1", "Club news"), ("p", "The tango lessons start on Tuesday evenings in the old "
                                                             "ballroom.")])
    write_ods(docs / "planets.ods", {"Moons": [["Planet", "Note"], ["Jupiter", "Ganymede is the largest moon"]]})
    write_odp(docs / "glacier.odp", [("Glacier retreat", "The glacier lost forty metres of ice this summer.", "")])
    write_rtf(docs / "violin.rtf", ["The violin needs new strings before the concert."], title="Violin")
    openings = write_pdf(scratch / "openings.pdf", ["The chess tournament begins with the Sicilian defence."])
    (docs / "training.eml").write_bytes(message(
        "Marathon training", "Run twenty kilometres on Sunday at an easy pace.",
        attachments=[("openings.pdf", openings.read_bytes())]))
    write_msg(docs / "harbour.msg", "Harbour fees", "The harbour fee rises in April for every berth.",
              sender_name="Port Office", sender_email="port@example.org",
              attachments=[("moorings.txt", b"Visitor moorings are on the north pontoon, first come first served.")])
    write_mbox(docs / "Inbox", [
        message("Sourdough", "The sourdough starter needs feeding with rye flour.", sender="Carl <carl@example.org>"),
        message("Fjord club", "Our kayak club paddles on the fjord at dawn.", date="Sun, 16 Mar 2025 07:00:00 +0000")])
    parrot = write_docx(scratch / "parrot.docx", [("p", "The parrot learned to whistle the national anthem.")])
    pets = write_zip(scratch / "pets.zip", {"parrot.docx": parrot.read_bytes()})
    write_zip(docs / "receipts.zip", {"tax/plumber.txt": b"Receipt for the plumber who fixed the leaking radiator.",
                                      "pets.zip": pets.read_bytes()})
    write_tar_gz(docs / "notes.tar.gz", {"notes/astronomy.md": b"# Sky\n\nThe telescope mirror must cool before "
                                                               b"observing Saturn."})
    (docs / "tides.txt.gz").write_bytes(gzip.compress(b"The spring tides flood the lower quay twice a month."))


def make_bad_files(docs: Path, scratch: Path) -> dict[str, str]:
    """A broken file of each family, beside the good ones: path → what its error says."""
    password_protect(write_pptx(docs / "locked.pptx", [("Plans", "Secret plans", "")]))
    (docs / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096))  # damaged: no streams
    (docs / "cut.xlsx").write_bytes(write_xlsx(scratch / "c.xlsx", {"S": [["a", "b"]]}).read_bytes()[:2000])
    (docs / "cut.odt").write_bytes(write_odt(scratch / "c.odt", [("p", "x")]).read_bytes()[:1500])
    (docs / "cut.rtf").write_bytes(b"{\\rt")
    (docs / "notes.eml").write_bytes(b"just some words\nnot a mail\n")
    (docs / "cut.msg").write_bytes(write_msg(scratch / "c.msg", "Cut", "Body " * 2000).read_bytes()[:3000])
    zip_bomb(docs / "bomb.zip", inflated_mb=8)
    whole = write_tar_gz(scratch / "t.tar.gz", {"a.txt": b"alpha " * 5000}).read_bytes()
    (docs / "cut.tar.gz").write_bytes(whole[: len(whole) // 2])
    write_zip(docs / "locked.zip", {"secret.txt": b"hidden"}, password_protected={"secret.txt"})
    return {"locked.pptx": "password-protected", "old.doc": "not a readable Word 97–2003 document",
            "cut.xlsx": "not a readable Excel workbook", "cut.odt": "not a readable OpenDocument",
            "cut.rtf": "not an RTF document", "notes.eml": "not an e-mail message",
            "cut.msg": "not a readable Outlook message",
            "bomb.zip": "zip bomb",
            "cut.tar.gz": "not a readable tar archive", f"locked.zip{S}secret.txt": "password-protected"}


def relative(docs: Path, path: str) -> str:
    return path[len(str(docs)) + 1:]


@pytest.fixture
def every_format(library, docs, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    make_every_format(docs, scratch)
    bad = make_bad_files(docs, scratch)
    summary = library.index([docs], contexts="rules")
    return library, summary, bad


def test_each_format_is_found_by_its_own_words_and_by_meaning(every_format, docs):
    library, _summary, _bad = every_format
    for where, words, question in EXPECTED:
        keyword_hits = [relative(docs, h.path) for h in library.search(f'"{words}"', k=3, mode="bm25").hits]
        assert keyword_hits and keyword_hits[0] == where, (where, keyword_hits)
        meaning_hits = [relative(docs, h.path) for h in library.search(question, k=3, mode="dense").hits]
        assert where in meaning_hits, (where, question, meaning_hits)


def test_bad_files_of_each_family_are_per_file_errors_and_nothing_is_skipped(every_format, docs):
    library, summary, bad = every_format
    failed = {relative(docs, f.path): f.reason for f in summary.failed}
    assert set(failed) == set(bad), failed
    for where, expected in bad.items():
        assert expected in failed[where], (where, failed[where])
    assert summary.skipped == 0 and library.stats()["documents"]["skipped"] == 0
    assert library.catalog.folder_states()[0].skipped == 0
    # Files on disk are counted as files (locked.zip too: its other contents could be read), documents inside
    # them apart: two messages, four attachments or members, the file inside a .gz, and the parrot two archives deep.
    files_read = len({where.split(S)[0] for where, _, _ in EXPECTED}) + 1
    assert (summary.indexed, summary.inside) == (files_read, 8)
    assert library.catalog.folder_states()[0].indexed == files_read
    assert library.stats()["documents"]["inside_files"] == 8 and library.stats()["documents"]["failed"] == len(bad)
    assert {relative(docs, path) for path, _ in library.catalog.failures()} == set(bad)


def test_a_slide_hit_opens_at_its_slide_and_a_mail_hit_carries_its_sender_and_date(every_format, docs):
    library, _, _ = every_format
    slide = library.search('"crocus stigmas"', k=1, mode="bm25").hits[0]
    assert slide.page == 2 and slide.heading_path == ["Saffron harvest"] and slide.metadata["author"] == "Kim Park"
    mail = library.search('"sourdough starter"', k=1, mode="bm25").hits[0]
    assert mail.title == "Sourdough"
    assert mail.metadata == {"from": "Carl <carl@example.org>", "to": "Ben <ben@example.org>",
                             "date": "2025-03-14T09:30:00"}
    outlook = library.search('"harbour fee rises"', k=1, mode="bm25").hits[0]
    assert outlook.metadata == {"from": "Port Office <port@example.org>", "to": "Ben", "date": "2025-03-14T08:30:00"}
    attachment = library.search('"Sicilian defence"', k=1, mode="bm25").hits[0]
    assert attachment.title == "Marathon training › openings.pdf" and attachment.page == 1
    assert attachment.metadata["attached_to"] == "Marathon training"
    assert attachment.metadata["from"] == "Anna Berg <anna@example.org>"


def test_an_attachment_and_an_archive_member_open_as_copies_of_themselves(every_format, docs, tmp_path):
    library, _, _ = every_format
    attachment = library.search('"Sicilian defence"', k=1, mode="bm25").hits[0]
    copy = library.openable_path(attachment.path)
    assert copy.name == "openings.pdf" and copy.read_bytes() == (tmp_path / "scratch" / "openings.pdf").read_bytes()
    member = library.search('"parrot learned to whistle"', k=1, mode="bm25").hits[0]
    copy = library.openable_path(member.path)
    assert copy.name == "parrot.docx" and copy.read_bytes() == (tmp_path / "scratch" / "parrot.docx").read_bytes()
    message = library.openable_path(str(docs / f"Inbox{S}2025-03-16 Fjord club"))
    assert message.suffix == ".eml" and b"paddles on the fjord" in message.read_bytes()
    assert library.openable_path(str(docs / "deck.pptx")) == docs / "deck.pptx"  # a file on disk is itself


def test_a_changed_archive_reads_only_its_changed_members_and_forgets_removed_ones(library, docs):
    members = {f"m{i}.txt": f"Member number {i} talks about topic {i}.".encode() for i in range(5)}
    path = write_zip(docs / "box.zip", members)
    library.index([docs], contexts="rules")
    kept = library.catalog.document(f"{path}{S}m0.txt")
    asked = count_member_reads(library)
    members["m1.txt"] = b"Member one now talks about lighthouses."
    del members["m2.txt"]
    members["m9.txt"] = b"A new member about otters."
    write_zip(path, members)
    summary = library.index([docs], contexts="rules")
    assert sorted(asked) == ["A new member about otters.", "Member one now talks about lighthouses."]
    assert library.catalog.document(f"{path}{S}m2.txt") is None and summary.removed == 1
    assert library.catalog.document(f"{path}{S}m0.txt").id == kept.id  # unchanged: same row, same vectors
    assert [h.path for h in library.search('"lighthouses"', k=1, mode="bm25").hits] == [f"{path}{S}m1.txt"]
    assert library.search('"topic 2"', k=5, mode="bm25").hits == []
    path.unlink()
    library.index([docs], contexts="rules")
    assert library.catalog.documents_under(str(docs)) == []  # the archive and every member gone


def test_a_mailbox_cut_short_resumes_with_the_messages_not_stored(library, docs):
    write_mbox(docs / "Archive.mbox", [message(f"Note {i}", f"Body of note {i} about seabirds.",
                                               date=f"Mon, {i + 1} Sep 2025 10:00:00 +0000") for i in range(6)])
    control = RunControl()

    def cancel_at_the_third(progress):
        if progress.note and "message 3," in progress.note:
            control.cancel()

    first = library.index([docs], contexts="rules", on_progress=cancel_at_the_third, control=control)
    assert first.cancelled
    stored = [d for d in library.catalog.documents_under(str(docs)) if d.container_id is not None]
    assert len(stored) == 3  # the third was read before the cancel was seen, between messages
    asked = count_member_reads(library)
    second = library.index([docs], contexts="rules")
    assert not second.cancelled and sorted(asked) == ["Note 3", "Note 4", "Note 5"]
    assert len([d for d in library.catalog.documents_under(str(docs)) if d.container_id is not None]) == 6
    assert library.index([docs], contexts="rules").unchanged == 1  # the mailbox, now complete


def test_a_watcher_sees_a_mailbox_grow_move_and_go(library, docs):
    from desktop_rag.core.watching.changes import ChangeBatch

    mails = [message("Sourdough", "The sourdough starter needs rye flour.")]
    inbox = write_mbox(docs / "Inbox", mails)
    library.index([docs], contexts="rules")
    mails.append(message("Fjord club", "Our kayak club paddles on the fjord.", date="Sun, 16 Mar 2025 07:00:00 +0000"))
    write_mbox(inbox, mails)
    asked = count_member_reads(library)
    grown = library.apply_changes(ChangeBatch(dirty={str(inbox)}))
    assert asked == ["Fjord club"] and grown.inside == 1  # one new mail read, not the box again
    (docs / "Mail").mkdir()
    moved = docs / "Mail" / "Inbox"
    inbox.rename(moved)
    library.apply_changes(ChangeBatch(moves=[(str(inbox), str(moved))]))
    assert [h.path for h in library.search('"paddles"', k=1, mode="bm25").hits] == [f"{moved}{S}2025-03-16 Fjord club"]
    assert asked == ["Fjord club"]  # a move reads nothing
    moved.unlink()
    library.apply_changes(ChangeBatch(dirty={str(moved)}))
    assert library.catalog.documents_under(str(docs)) == [] and library.catalog.chunk_count() == 0


def test_identical_members_are_read_and_embedded_once_and_each_is_found_by_its_name(library, docs):
    page = b"The lighthouse keeper's log for the winter storms, copied into every backup."
    path = write_zip(docs / "backups.zip", {"2023/log.txt": page, "2024/log.txt": page, "2025/log.txt": page,
                                            "2025/notes.txt": b"A different note about the ferry."})
    asked = count_member_reads(library)
    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.inside == 4 and summary.copies == 2
    assert len(asked) == 2  # the log read once, and the note
    assert [h.path for h in library.search('"winter storms"', k=5, mode="bm25").hits] == [f"{path}{S}2023/log.txt"]
    copy = library.search("2025 log.txt", k=10, mode="bm25").hits
    assert any(h.path == f"{path}{S}2025/log.txt" and "same content as backups.zip › 2023/log.txt" in h.text
               for h in copy)
    assert library.catalog.chunk_count() == 4  # one passage each: the copies hold their name, not the text


def test_word_97_and_powerpoint_97_files_are_found_by_their_text(library, docs):
    import gzip

    public = Path(__file__).resolve().parents[1] / "files" / "public"
    (docs / "raw_text.doc").write_bytes(gzip.decompress((public / "raw_text.doc.gz").read_bytes()))
    (docs / "slides.ppt").write_bytes(gzip.decompress((public / "fake-power-point.ppt.gz").read_bytes()))
    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.indexed == 2
    assert [h.path for h in library.search('"lovely"', k=1, mode="bm25").hits] == [str(docs / "raw_text.doc")]
    assert [h.path for h in library.search('"text box"', k=1, mode="bm25").hits] == [str(docs / "slides.ppt")]


def test_a_file_without_its_extension_is_read_by_what_it_holds_and_an_unknown_binary_is_skipped(library, docs):
    write_pdf(docs / "INVOICE", ["Invoice for the winter storage of the sailing dinghy."])
    (docs / "cache").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096))  # OLE-like, no known streams
    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.indexed == 1 and summary.skipped == 1
    assert [h.path for h in library.search('"sailing dinghy"', k=1, mode="bm25").hits] == [str(docs / "INVOICE")]


def test_staroffice_text_and_spreadsheets_are_found_by_their_words_and_their_family(library, docs):
    """Issue 62's proof that a format is one entry and its reader: OpenOffice.org 1.x files (Tika reads them; the
    library named them "an Office package of a kind whose text is not read") indexed, searched and filtered."""
    from desktop_rag.core.search.filters import make_filters
    from office_documents import write_sxc, write_sxw

    write_sxw(docs / "minutes.sxw", [("h1", "Harbour board"), ("p", "The pier's pilings need a coat of tar.")],
              title="Minutes of May 2003")
    write_sxc(docs / "tides.sxc", {"May": [["day", "high water"], ["1", "halibut season opens at 06:42"]]})
    summary = library.index([docs], contexts="rules")
    assert summary.indexed == 2 and summary.failed == []
    hits = library.search("pilings tar", k=3).hits
    assert hits[0].path == str(docs / "minutes.sxw") and hits[0].title == "Minutes of May 2003"

    def found(query: str, family: str) -> list[str]:
        return [Path(h.path).name for h in library.search(query, k=3, filters=make_filters(types=[family])).hits]

    assert found("halibut season", "spreadsheet") == ["tides.sxc"] and found("pier pilings", "word") == ["minutes.sxw"]
    assert "tides.sxc" not in found("halibut season", "word")

"""Files a reader has learnt to read better are read again after an update (core/files/parsers/revisions.py), with
the real reader, embedding model, Chroma and bm25s: a Strict Open XML letter that an older version failed, and a
deck with SmartArt inside an archive, are read by the first run after the update; other files are not read again,
and the next run reads nothing."""

from __future__ import annotations

import time

from desktop_rag.storage.records import Member
from documents import write_docx
from office_documents import saved_as_strict, write_pptx, write_zip
from smartart_documents import add_smartart_slide


def failed_as_an_older_version_left_it(catalog, path, member: Member | None = None) -> None:
    """What the version before recorded for a file its reader could not read."""
    stat = path.stat() if member is None else None
    catalog.save_failure(path=str(path) if member is None else path, size=stat.st_size if stat else 0,
                         mtime_ns=stat.st_mtime_ns if stat else 0, content_hash=None,
                         error="not a readable DOCX: it is damaged or cut short", member=member)


def test_files_an_older_reader_failed_are_read_again_once_after_an_update(make_library, docs):
    letter = saved_as_strict(write_docx(docs / "mooring.docx", [("h1", "Mooring fees"),
                                                                ("p", "Visiting yachts pay by the metre.")]))
    deck = add_smartart_slide(write_pptx(docs / "deck.pptx", [("Budget", "Fees rise in April.", "")]),
                              "Expense claims", [("Collect receipts", []), ("Treasurer approves", [])])
    write_zip(docs / "club.zip", {"deck.pptx": deck.read_bytes()})
    deck.unlink()
    (docs / "notes.txt").write_text("The slipway is closed for repairs until May.")

    library = make_library()
    first = library.index([docs], contexts="rules")
    assert first.failed == [] and first.indexed == 3
    catalog = library.catalog
    # The version before: the strict letter failed, the deck's SmartArt boxes were not read (its member failed too,
    # which is what an older reader gives for some decks), and the catalog has no record of readers.
    failed_as_an_older_version_left_it(catalog, letter)
    zipped = catalog.document(str(docs / "club.zip"))
    [member_path] = catalog.members_of(zipped.id)
    failed_as_an_older_version_left_it(catalog, member_path, Member(zipped.id, ("deck.pptx",)))
    catalog._db.execute("DELETE FROM meta WHERE key = 'built_with:readers'")
    library.close()
    assert not [hit for hit in make_library().search('"visiting yachts"', mode="bm25").hits]

    updated = make_library()
    started = time.perf_counter()
    after = updated.index([docs], contexts="rules")
    assert after.failed == [], after.failed
    assert "this version reads more of Word and PowerPoint files: 2 are read again" in after.notices
    assert after.unchanged == 1  # notes.txt was not read again
    assert updated.search('"visiting yachts"', mode="bm25").hits[0].path == str(letter)
    hit = updated.search('"treasurer approves"', mode="bm25").hits[0]
    assert hit.path == member_path
    assert time.perf_counter() - started < 120
    updated.close()

    again = make_library().index([docs], contexts="rules")
    assert again.unchanged == 3 and again.indexed == 0 and not any("read again" in n for n in again.notices)

"""Identical files stored once (issue 38), with the real reader, embedding model, Chroma and bm25s: a file saved
twice is read, chunked and embedded once, the copy found by its name and saying where its text is; when the
original goes, the copy is read in the same pass; small files are read each."""

import shutil

from desktop_rag.core.watching.changes import ChangeBatch

def chunks_of(library, path: str) -> int:
    """The passages stored for one document (the catalog has no call for it: read the table)."""
    document = library.catalog.document(path)
    return library.catalog._db.execute("SELECT COUNT(*) FROM chunks WHERE document_id = ?", (document.id,)).fetchone()[0]


PROSE = "The lighthouse keeper logged the passing ships and the weather each morning. " * 300  # ~23 KB


def test_a_file_saved_twice_is_read_once_and_its_copy_takes_over_when_the_original_goes(library, docs):
    (docs / "reports").mkdir()
    (docs / "backup").mkdir()
    original = docs / "reports" / "harbour.txt"
    original.write_text("Harbour log of the Svolvaer lighthouse. " + PROSE)
    copy = docs / "backup" / "harbour (copy).txt"
    shutil.copyfile(original, copy)
    (docs / "reports" / "small.txt").write_text("A small note on the ferry pier.")
    (docs / "backup" / "small.txt").write_text("A small note on the ferry pier.")

    summary = library.index([docs], contexts="rules")
    assert summary.failed == [] and summary.copies == 1
    read = {hit.path for hit in library.search('"Svolvaer lighthouse"', k=10, mode="bm25").hits}
    assert len(read) == 1  # one of the two read; which, is the order of the run
    [kept] = read
    stored_copy = str(copy) if kept == str(original) else str(original)
    assert chunks_of(library, stored_copy) == 1  # its name card alone, not ~40 chunks again
    card = library.search('"harbour (copy)"' if stored_copy == str(copy) else "harbour reports", k=5,
                          mode="bm25").hits
    assert stored_copy in [hit.path for hit in card]
    found = library.search('"Svolvaer lighthouse"', k=10, mode="bm25").hits[0]
    assert found.copies == [stored_copy]  # "also at" on the original's hit (issue 51, 8)
    assert "same content as" in next(hit for hit in card if hit.path == stored_copy).text
    small = {hit.path for hit in library.search('"ferry pier"', k=10, mode="bm25").hits}
    assert small == {str(docs / "reports" / "small.txt"), str(docs / "backup" / "small.txt")}

    (docs / "reports" / "harbour.txt" if kept == str(original) else copy).unlink()
    library.apply_changes(ChangeBatch(dirty={kept}))
    assert [hit.path for hit in library.search('"Svolvaer lighthouse"', k=10, mode="bm25").hits][:1] == [stored_copy]
    assert chunks_of(library, stored_copy) > 1


def test_the_cli_and_agents_list_a_hits_copies(docs, data_dir):
    from cli_runner import cli, cli_json

    (docs / "reports").mkdir()
    (docs / "backup").mkdir()
    (docs / "reports" / "harbour.txt").write_text("Harbour log of the Svolvaer lighthouse. " + PROSE)
    shutil.copyfile(docs / "reports" / "harbour.txt", docs / "backup" / "harbour.txt")
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    hit = cli_json(data_dir, "search", '"Svolvaer lighthouse"', "--mode", "bm25", "--json")["results"][0]
    other = ({str(docs / "reports" / "harbour.txt"), str(docs / "backup" / "harbour.txt")} - {hit["path"]}).pop()
    assert hit["copies"] == [other]  # the JSON agents (MCP) and scripts read
    assert f"also at {other}" in cli(data_dir, "search", '"Svolvaer lighthouse"', "--mode", "bm25").stdout


def test_a_document_copied_into_an_archive_is_said_under_its_original_not_listed_beside_it(library, docs):
    """Issue 60, 8: a deck copied into a zip showed as a second hit beside its original; plain copies were folded."""
    import zipfile

    deck = "The Svolvaer harbour crane was serviced in March; its hoist rope was replaced. " * 40
    (docs / "crane report.txt").write_text(deck)
    with zipfile.ZipFile(docs / "sent.zip", "w") as archive:
        archive.writestr("crane report.txt", deck)
        archive.writestr("other.txt", "A different note on the ferry timetable.")
    assert library.index([docs], contexts="rules").failed == []
    hits = library.search("Svolvaer crane hoist rope", k=10, mode="bm25").hits
    assert len({hit.path for hit in hits}) == 1, [hit.path for hit in hits]  # one document, its copy under it
    assert any("sent.zip" in copy and copy.endswith("crane report.txt") for copy in hits[0].copies), hits[0].copies

"""The whole pipeline on real files, with the real embedding model, Chroma and bm25s."""

import os
from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.progress.control import RunControl
from documents import fits_like_image, write_docx, write_pdf

COFFEE = "# Coffee\n\nPour-over uses 15 grams of coffee for 250 grams of water at 94 degrees.\n"
BIKE_PAGES = ["Bicycle handbook introduction.", "Replace the chain when the checker shows half a percent of wear."]


def make_folder(docs: Path) -> None:
    (docs / "coffee.md").write_text(COFFEE)
    write_pdf(docs / "bike.pdf", BIKE_PAGES)
    write_docx(docs / "onboarding.docx", [("h1", "Onboarding"), ("p", "Ask IT for a laptop and VPN access.")])
    (docs / "sub").mkdir()
    (docs / "sub" / "invoice.py").write_text("def late_interest(amount, days):\n    return amount * 0.0005 * days\n")


def paths_in_results(library, query, mode="hybrid"):
    return [Path(h.path).name for h in library.search(query, k=3, mode=mode).hits]


def test_index_then_search_every_format(library, docs):
    make_folder(docs)
    summary = library.index([docs], contexts="rules")
    assert (summary.indexed, summary.unchanged, summary.failed) == (4, 0, [])
    assert summary.embedded == summary.chunks == library.catalog.chunk_count()
    assert library.vectors.count() == summary.chunks
    assert len(library.keywords) == summary.chunks
    assert paths_in_results(library, "how much coffee for pour-over")[0] == "coffee.md"
    assert paths_in_results(library, "chain wear")[0] == "bike.pdf"
    assert paths_in_results(library, "laptop and VPN for new people")[0] == "onboarding.docx"
    assert paths_in_results(library, "late_interest", mode="bm25")[0] == "invoice.py"

    hit = library.search("chain wear", k=1).hits[0]
    assert hit.page == 2 and hit.context_source == "rules" and "Bicycle handbook" in hit.context
    assert hit.scores.dense is not None and hit.scores.bm25 is not None and hit.scores.fused is not None
    record_text = library.catalog._db.execute("SELECT text FROM documents WHERE path = ?", (hit.path,)).fetchone()[0]
    assert record_text[hit.start_char:hit.end_char] == hit.text


def test_reindexing_skips_unchanged_files_and_follows_changes(library, docs):
    make_folder(docs)
    library.index([docs], contexts="rules")
    again = library.index([docs], contexts="rules")
    assert (again.indexed, again.unchanged, again.embedded, again.keyword_chunks) == (0, 4, 0, None)

    os.utime(docs / "coffee.md", ns=(1, 1))  # new mtime, same content: recognised by hash, not re-parsed
    touched = library.index([docs], contexts="rules")
    assert (touched.indexed, touched.unchanged) == (0, 4)

    (docs / "coffee.md").write_text("# Tea\n\nGreen tea steeps for two minutes at 80 degrees.\n")
    changed = library.index([docs], contexts="rules")
    assert (changed.indexed, changed.unchanged) == (1, 3)
    assert paths_in_results(library, "green tea steeping", mode="bm25") == ["coffee.md"]
    assert paths_in_results(library, "pour-over grams", mode="bm25") == []

    (docs / "bike.pdf").unlink()
    removed = library.index([docs], contexts="rules")
    assert removed.removed == 1
    assert library.catalog.document(str((docs / "bike.pdf").resolve())) is None
    assert all(Path(h.path).name != "bike.pdf" for h in library.search("chain wear", k=10).hits)
    assert library.vectors.count() == library.catalog.chunk_count() == len(library.keywords)


def test_bad_files_are_reported_and_everything_else_is_indexed(make_library, docs):
    library = make_library(Settings(max_file_mb=0.01))
    (docs / "good.md").write_text("# Good\n\nThe heron stands in the reeds.\n")
    (docs / "empty.txt").write_bytes(b"")
    (docs / "binary.txt").write_bytes(b"\x00\x01\x02 not text \x00" * 50)
    (docs / "latin.txt").write_bytes(bytes(range(128, 256)) * 4)
    (docs / "corrupt.pdf").write_bytes(b"%PDF-1.4\n garbage garbage")
    write_pdf(docs / "secret.pdf", ["classified"], user_password="pw")
    (docs / "corrupt.docx").write_bytes(b"PK\x03\x04 truncated")
    (docs / "huge.md").write_text("big " * 10_000)  # 40 kB, over the 10 kB limit set above
    summary = library.index([docs], contexts="rules")
    reasons = {Path(f.path).name: f.reason for f in summary.failed}
    assert set(reasons) == {"binary.txt", "latin.txt", "corrupt.pdf", "secret.pdf", "corrupt.docx", "huge.md"}
    assert "binary content" in reasons["binary.txt"]
    assert "undecodable" in reasons["latin.txt"]
    assert "corrupt" in reasons["corrupt.pdf"]
    assert "password" in reasons["secret.pdf"]
    assert "DOCX" in reasons["corrupt.docx"]
    assert "too large" in reasons["huge.md"] and "max_file_mb" in reasons["huge.md"]
    assert summary.indexed == 2 and summary.without_text == 1  # good.md, and empty.txt known by its name
    assert paths_in_results(library, "heron")[0] == "good.md"
    assert dict(library.catalog.failures()).keys() == {str((docs / n).resolve()) for n in reasons}
    # Every file is found by its name, a failed one saying why it has no text (issue 37).
    for name in ("empty.txt", *reasons):
        hit = library.search(name, k=3, mode="bm25").hits[0]
        assert Path(hit.path).name == name and hit.unread == reasons.get(name, ""), (name, hit)

    again = library.index([docs], contexts="rules")  # failures are remembered, not retried while the file is unchanged
    assert len(again.failed) == 6 and all("unchanged since the last attempt" in f.reason for f in again.failed)


def test_unreadable_file_injected_permission_error_is_tried_again_next_run(library, docs, monkeypatch):
    # Tests run as root here, where chmod 000 does not stop reading: inject the OS error instead.
    from desktop_rag.core.indexing import reading as indexing

    (docs / "ok.md").write_text("# Fine\n\nReadable content about otters.\n")
    (docs / "locked.md").write_text("# Locked\n\nThe vault holds walrus ivory.\n")
    real_read = indexing.read_bounded

    def read_failing_for_locked(path, limit, **kw):
        if path.name == "locked.md":
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path, limit, **kw)

    monkeypatch.setattr(indexing, "read_bounded", read_failing_for_locked)
    summary = library.index([docs], contexts="rules")
    assert [(Path(f.path).name, f.reason) for f in summary.failed] == [("locked.md", "cannot read file: Permission denied")]
    assert summary.indexed == 1
    # The cause was outside the file: once it may be read, the next run reads it although it did not change.
    monkeypatch.setattr(indexing, "read_bounded", real_read)
    again = library.index([docs], contexts="rules")
    assert (again.indexed, again.failed, again.unchanged) == (1, [], 1)
    assert library.search("walrus", k=1, mode="bm25").hits[0].path.endswith("locked.md")


def test_missing_path_is_reported_not_fatal(library, docs):
    (docs / "a.md").write_text("# A\n\nAardvarks dig burrows.\n")
    summary = library.index([docs, docs / "does-not-exist"], contexts="rules")
    assert summary.indexed == 1
    assert [f.reason for f in summary.failed] == ["no such file or folder"]


def test_ignored_folders_and_temp_files_are_skipped(library, docs):
    (docs / "keep.md").write_text("# Keep\n\nVisible notes.\n")
    for hidden in (".git", "node_modules", "__pycache__"):
        (docs / hidden).mkdir()
        (docs / hidden / "inside.md").write_text("# Hidden\n\nShould not be indexed.\n")
    (docs / "~$lock.docx").write_bytes(b"owner lock file")
    (docs / "draft.md.swp").write_text("swap")
    (docs / "notes.tmp").write_text("temp")
    summary = library.index([docs], contexts="rules")
    assert (summary.indexed, summary.failed) == (1, [])


def test_cancel_between_files_keeps_finished_work(library, docs):
    for i in range(6):
        (docs / f"n{i}.md").write_text(f"# Note {i}\n\nUnique word zebra{i}.\n")
    control = RunControl()

    def cancel_after_third_file(progress):
        if progress.phase == "parse" and progress.done == 3:
            control.cancel()

    first = library.index([docs], contexts="rules", on_progress=cancel_after_third_file, control=control)
    assert first.cancelled and first.indexed == 3
    second = library.index([docs], contexts="rules")
    assert (second.indexed, second.unchanged) == (3, 3)
    assert second.embedded == 6  # the 3 chunks committed but not yet embedded by the first run, plus 3 new
    assert library.vectors.count() == 6


def test_reindex_rebuilds_both_indexes_from_the_catalog(library, docs):
    make_folder(docs)
    library.index([docs], contexts="rules")
    chunks = library.catalog.chunk_count()
    library.vectors.reset()
    (library.data_dir / "bm25" / "CURRENT").unlink()
    summary = library.indexes.reindex()
    assert summary.embedded == chunks and summary.keyword_chunks == chunks
    assert paths_in_results(library, "chain wear")[0] == "bike.pdf"


def test_search_without_an_index_says_so(library):
    from desktop_rag.core.search.searcher import NoIndexError

    with pytest.raises(NoIndexError, match="nothing is indexed yet"):
        library.search("anything")


def test_a_changed_large_file_keeps_its_vectors_when_chunk_ids_are_reused(make_library, docs):
    # 600 chunks exceed the mid-run embedding flush; SQLite gives the new chunks the ids of the removed ones,
    # so the old vectors must be deleted before the new ones are written.
    library = make_library(Settings(chunk_tokens=24, chunk_overlap_tokens=0))
    note = docs / "log.md"
    note.write_text("\n\n".join(f"Entry {i}: the pump at the north station was checked by the crew." for i in range(600)))
    library.index([docs], contexts="rules")
    note.write_text("\n\n".join(f"Entry {i}: the valve at the south station was replaced by the crew." for i in range(600)))
    summary = library.index([docs], contexts="rules")
    assert summary.indexed == 1
    assert library.vectors.count() == library.catalog.chunk_count() == 600
    assert "valve" in library.search("valve replaced", k=1, mode="dense").hits[0].text


def test_cancelling_a_reindex_stops_cleanly_and_a_later_sync_finishes(library, docs):
    make_folder(docs)
    library.index([docs], contexts="rules")
    control = RunControl()
    control.cancel()
    summary = library.indexes.reindex(control=control)
    assert summary.cancelled and summary.embedded == 0
    assert library.catalog.count_pending_embeddings() == library.catalog.chunk_count()
    finished = library.indexes.sync()
    assert not finished.cancelled and finished.embedded == library.catalog.chunk_count()


def test_files_without_a_known_extension_are_indexed_when_text_and_the_rest_are_counted_as_skipped(
        library, docs, monkeypatch):
    from desktop_rag.core.indexing import files as indexing

    (docs / "LICENSE").write_text("Permission is hereby granted, free of charge, to any person obtaining a copy.\n")
    (docs / "Makefile").write_text("build:\n\tcc -o quokkatool main.c\n")
    (docs / "notes.log").write_text("2026-11-02 backup of the wombat archive finished\n")
    (docs / "blob").write_bytes(bytes(range(256)) * 4)  # no extension, binary
    (docs / "ngc1300.fits").write_bytes(fits_like_image())  # text for its first 11 KB, then binary (issue 61)
    (docs / "song.mp3").write_bytes(b"ID3\x04" + bytes(200))  # never opened
    (docs / "keep.md").write_text("# Keep\n\nA markdown note.\n")
    if hasattr(os, "mkfifo"):
        os.mkfifo(docs / "pipe")  # opening a FIFO would wait forever: never opened

    summary = library.index([docs], contexts="rules")
    assert (summary.indexed, summary.failed) == (4, [])
    assert summary.skipped == (4 if hasattr(os, "mkfifo") else 3)
    assert library.stats()["documents"]["skipped"] == summary.skipped
    assert paths_in_results(library, "permission granted free of charge", mode="bm25")[0] == "LICENSE"
    assert paths_in_results(library, "quokkatool", mode="bm25") == ["Makefile"]
    assert paths_in_results(library, "wombat", mode="bm25") == ["notes.log"]
    assert library.catalog.folder_states()[0].skipped == summary.skipped

    sniffed = []
    real_sniff = indexing.looks_like_text
    monkeypatch.setattr(indexing, "looks_like_text", lambda head: sniffed.append(head) or real_sniff(head))
    again = library.index([docs], contexts="rules")
    assert again.skipped == summary.skipped and again.unchanged == 4 and sniffed == []  # remembered, not reopened

    (docs / "blob").unlink()
    (docs / "song.mp3").write_text("now the name lies, but it is still not read")
    third = library.index([docs], contexts="rules")
    assert third.skipped == summary.skipped - 1 and library.stats()["documents"]["skipped"] == third.skipped


def test_a_file_name_that_is_not_utf8_is_reported_and_the_rest_indexed(library, docs):
    import os

    (docs / "good.md").write_text("# Good\n\nThe quokka lives on Rottnest Island.\n")
    bad = os.path.join(os.fsencode(docs), b"caf\xe9.md")  # a Latin-1 name, as old archives have
    with open(bad, "wb") as f:
        f.write(b"# Cafe\n\nEspresso.\n")
    for _ in range(2):  # and again: it never aborts a run
        summary = library.index([docs], contexts="rules")
        assert [(Path(f.path).name, f.reason) for f in summary.failed] == [
            ("caf\\xe9.md", "its name is not valid UTF-8 (rename the file to have it indexed)")]
    assert [Path(h.path).name for h in library.search("quokka", k=2, mode="bm25").hits] == ["good.md"]
    # Kept for `stats` and the app's list of failures, until a scan no longer finds it.
    assert [Path(p).name for p, _ in library.catalog.failures()] == ["caf\\xe9.md"]
    assert library.catalog.stats()["documents"]["failed"] == 1
    os.rename(bad, os.path.join(os.fsencode(docs), b"cafe.md"))
    assert library.index([docs], contexts="rules").indexed == 1
    assert library.catalog.failures() == []


def test_files_become_keyword_searchable_during_a_long_run_not_only_at_its_end(library, docs, monkeypatch):
    from desktop_rag.core.contexts.rules import RulesContextualizer
    from desktop_rag.core.indexing import index_sync
    from desktop_rag.core.indexing.run import Indexer

    monkeypatch.setattr(index_sync, "KEYWORD_CATCH_UP_S", 0.0)  # a long run, shortened
    for name, word, notes in (("a.md", "albatross", 1), ("b.md", "bittern", 2), ("c.md", "cormorant", 3)):
        (docs / name).write_text(f"# {word}\n\n" + f"Notes on the {word}. " * notes)  # read smallest first
    seen_during_run = []

    class ContextsThatLookAtSearch(RulesContextualizer):  # rules contexts; while writing them, asks the index
        def contextualize(self, document, chunks, only=None):
            if document.title == "cormorant":
                seen_during_run.append(bool(library.keywords.search("albatross", 5)))
            return super().contextualize(document, chunks, only)

    with library.writer.writing():
        summary = Indexer(library, ContextsThatLookAtSearch(), None, None).run([docs])
    assert summary.indexed == 3
    assert seen_during_run == [True]  # a.md was keyword-searchable before the run ended


def test_a_first_indexing_makes_every_file_keyword_searchable_before_the_embedding_ends(library, docs):
    """Keywords first: the embedder starts on the bulk after the last file is keyword-indexed (one batch before,
    to measure its pace), and a search meanwhile finds every file by its words and says how much meaning search
    covers."""
    from desktop_rag.core.progress.pacing import FIRST_EMBEDDED_CHUNKS

    birds = [f"bird{n:03d}" for n in range(40)]
    for n, bird in enumerate(birds):
        paragraphs = "\n\n".join(f"Paragraph {p} of the field notes on {bird}: wading, nesting, feeding and "
                                 "flight over the estuary at dawn." for p in range(12))
        (docs / f"{n:03d}.md").write_text(f"# {bird}\n\n{paragraphs}\n")
    seen, embedded_while_reading = [], []

    def watch(progress):
        if progress.phase == "embed" and progress.done == 0:  # the measuring batch, while files are still read
            embedded_while_reading.append(library.catalog.stats()["documents"]["indexed"])
        if progress.phase == "embed" and progress.done > 0 and not seen:  # the bulk is about to be embedded
            result = library.search(birds[-1], k=3)
            seen.append((library.catalog.count_pending_embeddings(), library.catalog.chunk_count(),
                         [Path(h.path).name for h in library.search(birds[-1], k=3, mode="bm25").hits],
                         result.meaning_covers, " ".join(result.notices)))

    library.load_embedding_model()  # loaded before the run, as the app does at start
    summary = library.index([docs], contexts="rules", on_progress=watch)
    assert len(embedded_while_reading) == 1 and embedded_while_reading[0] < 40  # one batch, early
    pending, chunks, keyword_hits, covers, notices = seen[0]
    assert chunks == summary.chunks > 40  # every chunk of every file catalogued
    assert pending == chunks - FIRST_EMBEDDED_CHUNKS  # all but the measuring batch wait for the embedder
    assert keyword_hits[0] == "039.md"  # the last file read is found by its words before the embedder starts
    covered = f"meaning search covers {FIRST_EMBEDDED_CHUNKS} of {chunks:,} passages so far"
    assert covers == (FIRST_EMBEDDED_CHUNKS, chunks) and covered in notices, notices
    assert library.catalog.count_pending_embeddings() == 0 and library.search(birds[0]).meaning_covers is None


def test_a_run_reads_the_smallest_files_first_and_passes_over_unchanged_ones_before_them(library, docs):
    """The most files searchable soonest (issue 37: a 3 MB book near the top of a folder held 500 files back)."""
    (docs / "a-book.md").write_text("# Book\n\n" + "A long chapter about herons. " * 4000)
    (docs / "b-note.md").write_text("# Note\n\nHerons.\n")
    (docs / "c-letter.md").write_text("# Letter\n\n" + "Dear heron watcher. " * 50)
    library.index([docs], contexts="rules")
    (docs / "d-new.md").write_text("# New\n\n" + "A heron again. " * 20)
    (docs / "a-book.md").write_text("# Book\n\n" + "A longer chapter about herons. " * 4000)
    read = []
    library.index([docs], contexts="rules",
                  on_progress=lambda p: p.phase == "parse" and p.path and read.append(Path(p.path).name))
    assert read == ["b-note.md", "c-letter.md", "d-new.md", "a-book.md"]

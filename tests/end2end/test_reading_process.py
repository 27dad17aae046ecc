"""The app reads files (parse + chunk) in a child process: the same documents as in-process, and a reader that
crashes or hangs on one file costs that file only (the crash and the hang are injected by a fault-injecting
reader, since no real file is known to do either)."""

import os
import signal
import time

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.dense.tokens import default_embedding_model_path
from desktop_rag.core.files.parsers import ParseError
from desktop_rag.core.files.reading import DocumentReader, ReaderProcess
from desktop_rag.core.library.library import Library
from documents import write_pdf
from office_documents import write_zip


class FaultInjectingReader(DocumentReader):
    """Reads like the real one, except: a file named crash.* kills its process, one named hang.* never ends."""

    def read(self, path, data, chunk_tokens, overlap_tokens, ocr=None):
        name = os.path.basename(path)
        if name.startswith("crash."):
            os.kill(os.getpid(), signal.SIGKILL)  # as a segfault in a C parser ends it (without a core file)
        if name.startswith("hang."):
            time.sleep(3600)
        return super().read(path, data, chunk_tokens, overlap_tokens, ocr)

    def read_member(self, content_hash, position, chunk_tokens, overlap_tokens, reopen=None, ocr=None):
        name = self._container[1][position].chain[-1] if self._container else ""
        if name.startswith("crash."):
            os.kill(os.getpid(), signal.SIGKILL)
        if name.startswith("hang."):
            time.sleep(3600)
        return super().read_member(content_hash, position, chunk_tokens, overlap_tokens, reopen, ocr)


def test_the_child_reads_as_in_process(tmp_path):
    pdf = write_pdf(tmp_path / "birds.pdf", ["Herons\n\nThe grey heron hunts fish.", "Swallows\n\nThey migrate."])
    model = default_embedding_model_path()
    reader = ReaderProcess(model)
    try:
        document, chunks = reader.read(pdf, pdf.read_bytes(), 190, 30)
        expected_document, expected_chunks = DocumentReader(model).read(pdf, pdf.read_bytes(), 190, 30)
        assert document == expected_document and chunks == expected_chunks and document.page_count == 2
        with pytest.raises(ParseError, match="corrupt or unreadable PDF"):  # the parser's own reason, as in-process
            reader.read(tmp_path / "broken.pdf", b"%PDF-1.7 not really", 190, 30)
    finally:
        reader.close()


def test_a_crash_or_a_hang_on_one_file_fails_that_file_and_the_next_is_read(tmp_path):
    reader = ReaderProcess(default_embedding_model_path(), timeout_s=3, reader=FaultInjectingReader)
    good = b"# Herons\n\nThe grey heron hunts fish in shallow water."
    try:
        with pytest.raises(ParseError, match="parser crashed on this file"):
            reader.read(tmp_path / "crash.md", good, 190, 30)
        assert reader.read(tmp_path / "herons.md", good, 190, 30)[0].title == "Herons"  # a new child
        started = time.monotonic()
        with pytest.raises(ParseError, match="took longer than 3 s"):
            reader.read(tmp_path / "hang.md", good, 190, 30)
        assert time.monotonic() - started < 60  # stopped, not waited for
        assert reader.read(tmp_path / "herons.md", good, 190, 30)[1][0].text.startswith("# Herons")
    finally:
        reader.close()


def test_the_app_library_indexes_through_the_child_reader_and_records_failures(data_dir, docs):
    (docs / "herons.md").write_text("# Herons\n\nThe grey heron hunts fish in shallow water.\n")
    (docs / "empty.txt").write_text("")
    library = Library(data_dir, Settings(contexts="rules", llm_upgrade_when_idle=False), child_processes=True)
    try:
        summary = library.index([docs])
        assert isinstance(library.document_reader, ReaderProcess)
        assert summary.indexed == 2 and summary.without_text == 1 and not summary.failed
        assert library.search("heron fish").hits[0].path.endswith("herons.md")
        empty = library.search("empty", mode="bm25").hits[0]
        assert empty.path.endswith("empty.txt") and empty.unread == ""  # found by its name: nothing in it
    finally:
        library.close()


def test_a_crash_on_one_member_of_an_archive_fails_that_member_and_the_others_are_read(tmp_path, data_dir, docs):
    """The child that crashed held the archive: the next member's call opens it again in the new child."""
    write_zip(docs / "box.zip", {"a.md": b"# Alpha\n\nAlpha talks of auks.", "crash.md": b"# Boom",
                                 "c.md": b"# Gamma\n\nGamma talks of gannets."})
    library = Library(data_dir, Settings(contexts="rules", llm_upgrade_when_idle=False), child_processes=True)
    try:
        library.__dict__["document_reader"] = ReaderProcess(default_embedding_model_path(), reader=FaultInjectingReader)
        summary = library.index([docs])
        assert [(f.path.rsplit(" › ", 1)[-1], f.reason.split(" (")[0]) for f in summary.failed] == [
            ("crash.md", "the parser crashed on this document")]
        assert library.search('"gannets"', mode="bm25").hits[0].path.endswith("box.zip › c.md")
        assert library.search('"auks"', mode="bm25").hits[0].path.endswith("box.zip › a.md")
    finally:
        library.close()


def test_a_member_that_timed_out_is_tried_again_by_the_next_run_alone(tmp_path, data_dir, docs):
    write_zip(docs / "box.zip", {"a.md": b"# Alpha\n\nAlpha talks of auks.",
                                 "hang.md": b"# Slow\n\nSlow talks of swifts."})
    library = Library(data_dir, Settings(contexts="rules", llm_upgrade_when_idle=False), child_processes=True)
    try:
        library.__dict__["document_reader"] = ReaderProcess(default_embedding_model_path(), timeout_s=3,
                                                            reader=FaultInjectingReader)
        first = library.index([docs])
        assert [f.reason.split(";")[0] for f in first.failed] == ["reading it took longer than 3 s and was stopped"]
        library.__dict__["document_reader"].close()
        library.__dict__["document_reader"] = ReaderProcess(default_embedding_model_path())  # the machine is idle now
        second = library.index([docs])
        assert second.failed == [] and second.inside == 1  # the slow member alone, read this time
        assert library.search('"swifts"', mode="bm25").hits[0].path.endswith("box.zip › hang.md")
        assert library.index([docs]).unchanged == 1
    finally:
        library.close()


def test_a_watched_folders_first_change_starts_the_readers_child_while_the_watcher_waits_for_quiet(data_dir, docs):
    """The reader's child ends after a minute unused; a file saved after that waited for its start (~0.55 s on 2
    cores) only after the watcher's quiet wait. Here the watcher hands its batches to nobody: only the first
    change's wake can start the child."""
    from desktop_rag.core.watching.watch import library_watcher

    library = Library(data_dir, Settings(contexts="rules", llm_upgrade_when_idle=False), read_in_child=True)
    batches: list = []
    watcher = library_watcher(library, [docs], batches.append)
    watcher.start()
    try:
        reader = library.document_reader
        assert isinstance(reader, ReaderProcess) and not reader._child.running
        (docs / "saved.md").write_text("# Saved\n\nA note saved into a watched folder.\n")
        deadline = time.monotonic() + 30
        while not reader._child.running and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reader._child.running
        assert reader.read("/x/saved.txt", b"a few words", 200, 20)[1][0].text == "a few words"  # the same child
    finally:
        watcher.stop()
        library.close()
    assert batches and batches[0].dirty == {str(docs / "saved.md")}

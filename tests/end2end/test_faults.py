"""Bad input and damaged data folders: a clear message, never a traceback, nothing lost, the rest still works."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import cli

from desktop_rag.cli import commands as cli_module
from desktop_rag.core import indexing
from desktop_rag.core.files.scan import LINK_OUTSIDE, NotRegular, read_bounded


def _index_one(docs, data_dir, word="quince"):
    (docs / f"{word}.md").write_text(f"# {word.title()}\n\nThe {word} tree fruits in autumn.\n")
    cli(data_dir, "index", str(docs), "--contexts", "rules")


def _clean_failure(result, *expected: str, code: int = 1) -> None:
    assert result.returncode == code, result
    assert "Traceback" not in result.stderr, result.stderr
    for text in expected:
        assert text in result.stderr, result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_and_links_to_devices_are_skipped_without_hanging(library, docs):
    (docs / "real.md").write_text("# Real\n\nAbout pelicans.\n")
    os.mkfifo(docs / "notes.txt")
    (docs / "zero.md").symlink_to("/dev/zero")
    (docs / "random.txt").symlink_to("/dev/urandom")
    summary = library.index([docs], contexts="rules")
    # The links lead out of the folder: not followed, said per file (issue 50); the FIFO is skipped unopened.
    assert (summary.indexed, summary.skipped) == (1, 1)
    assert sorted((Path(f.path).name, f.reason) for f in summary.failed) == [("random.txt", LINK_OUTSIDE),
                                                                              ("zero.md", LINK_OUTSIDE)]
    # And if a name turns into one between the scan and the read: refused at the read, not read without end.
    for name in ("notes.txt", "zero.md"):
        with pytest.raises(NotRegular):
            read_bounded(docs / name, 1000)


def test_a_damaged_catalog_is_named_with_what_to_do(docs, data_dir):
    _index_one(docs, data_dir)
    catalog = data_dir / "catalog.sqlite3"
    raw = bytearray(catalog.read_bytes())
    raw[0:16] = b"not sqlite here!"
    catalog.write_bytes(bytes(raw))
    for command in (["stats"], ["search", "quince"], ["index", str(docs)]):
        _clean_failure(cli(data_dir, *command, check=False), "is damaged", "`desktop-rag doctor --repair` makes a new")


def test_damaged_pages_inside_the_catalog_are_found_before_anything_is_written(docs, data_dir):
    _index_one(docs, data_dir)
    catalog = data_dir / "catalog.sqlite3"
    raw = bytearray(catalog.read_bytes())
    page = 4096
    for offset in range(page * 2 + 100, min(len(raw), page * 6), 7):  # the header stays; tables' pages do not
        raw[offset] ^= 0x5A
    catalog.write_bytes(bytes(raw))
    result = cli(data_dir, "index", str(docs), check=False)
    _clean_failure(result, "is damaged")
    doctor = cli(data_dir, "doctor", check=False)
    assert doctor.returncode == 1 and "the catalog is damaged" in doctor.stdout
    # Nothing counted in it is said (not "holds 0 passages"), and the one thing to do is the rebuild's.
    assert "holds" not in doctor.stdout and "rebuild the indexes" not in doctor.stdout
    assert "`desktop-rag doctor --repair` makes a new catalog" in doctor.stdout
    # What SQLite found (up to 20 lines of it) is said once: in the finding, not again in the advice.
    found = doctor.stdout.split("found: the catalog is damaged: ", 1)[1].split("\n", 1)[0]
    assert doctor.stdout.count(found[:60]) == 1, doctor.stdout


def test_a_data_folder_that_is_a_file_and_a_broken_settings_file(tmp_path, docs):
    (tmp_path / "afile").write_text("x")
    _clean_failure(cli(tmp_path / "afile", "stats", check=False), "is a file")
    data = tmp_path / "data"
    data.mkdir(mode=0o700)  # private, as every data folder must be
    (data / "settings.json").write_text("{not json")
    _clean_failure(cli(data, "stats", check=False), "not valid JSON")
    (data / "settings.json").write_text(json.dumps({"candidates": "many"}))
    _clean_failure(cli(data, "stats", check=False), "candidates", "should be int")


def test_a_read_only_data_folder_can_be_searched_not_written(make_library, docs, data_dir, monkeypatch):
    # Tests run as root, for whom no folder is read-only: the folder is made to say so (an injected fault).
    library = make_library()
    (docs / "otter.md").write_text("# Otters\n\nOtters hold hands while they sleep.\n")
    library.index([docs], contexts="rules")
    library.close()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if mode == os.W_OK else real_access(path, mode))
    reader = make_library()
    assert reader.catalog.read_only
    assert reader.search("otters", k=1, mode="bm25").hits[0].path.endswith("otter.md")
    with pytest.raises(Exception, match="cannot be written: searching works"):
        reader.index([docs], contexts="rules")


def test_queries_that_are_odd_get_answers_or_clear_messages(docs, data_dir, tmp_path):
    _index_one(docs, data_dir)
    # Bytes that are not UTF-8, as a terminal in another encoding sends them, in the modes that embed the query.
    for mode in ("hybrid", "dense"):
        result = subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "search",
                                 b"quince \xff\xfe tree", "--mode", mode, "--json"], capture_output=True)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["results"]
    _clean_failure(cli(data_dir, "search", "quince", "-k", "-1", check=False), "must be 1 or more",
                   code=2)  # argparse's code for a usage error
    queries = tmp_path / "q.jsonl"
    for line, expected in (('{"_id": "q1"}', 'line 1: expected an object with a "text"'), ("42", "line 1"),
                           ("{broken", "line 1 is not JSON")):
        queries.write_text(line + "\n")
        _clean_failure(cli(data_dir, "search", "--queries", str(queries), check=False), expected)


def test_output_cut_short_by_a_pipe_is_no_error_worth_a_traceback(docs, data_dir):
    _index_one(docs, data_dir)
    command = (f"{sys.executable} -m desktop_rag --data-dir '{data_dir}' stats --json | head -c 5; "
               "echo; exit ${PIPESTATUS[0]}")
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
    assert result.stdout.startswith("{")


def test_a_bug_is_an_internal_error_with_its_traceback_in_the_log(data_dir, capsys, monkeypatch):
    def stats_with_a_bug(args, data_dir):  # a fault injected where a bug would be
        raise KeyError("a bug")

    monkeypatch.setitem(cli_module._COMMANDS, "stats", stats_with_a_bug)
    assert cli_module.main(["--data-dir", str(data_dir), "stats"]) == 1
    err = capsys.readouterr().err
    log = data_dir / "logs" / "cli.log"
    assert "internal error (KeyError" in err and str(log) in err and "Traceback" not in err
    assert "Traceback" in log.read_text() and "stats_with_a_bug" in log.read_text()


def test_a_file_name_with_a_newline_is_shown_on_one_line(library, docs):
    from desktop_rag.cli.output import print_index_summary

    (docs / "two\nlines.pdf").write_bytes(b"%PDF-1.7 not really")  # reported as failed, with its name
    (docs / "fine.md").write_text("# Fine\n\nFine words.\n")
    summary = library.index([docs], contexts="rules")
    assert summary.failed and summary.indexed == 1
    import io

    out = io.StringIO()
    print_index_summary(summary, out)
    line = next(line for line in out.getvalue().splitlines() if "lines.pdf" in line)
    assert "two\\nlines.pdf" in line


def test_the_reader_that_cannot_start_is_not_the_file_s_fault(library, docs, monkeypatch):
    from desktop_rag.child_process import ChildFailed

    (docs / "a.md").write_text("# A\n\nAbout gannets.\n")

    class ReaderThatCannotStart:  # a fake reader: the child process failed to start (memory, a loaded machine)
        model_path = Path(".")

        def read(self, *args, **kwargs):
            raise ChildFailed("the document reader did not start")

    real_reader = library.document_reader
    library.__dict__["document_reader"] = ReaderThatCannotStart()
    library.document_reader.counter = real_reader.counter  # its counting is not what fails here
    first = library.index([docs], contexts="rules")
    assert "tried again next time" in first.failed[0].reason
    library.__dict__["document_reader"] = real_reader
    second = library.index([docs], contexts="rules")
    assert (second.indexed, second.failed) == (1, [])
    assert indexing  # the module whose reading these faults replace


def test_a_reader_that_did_not_start_is_started_again_once_and_the_file_read_in_the_same_run(library, docs,
                                                                                            monkeypatch):
    """Issue 61, 10: under load a reader that did not start in time left its file 'tried again next time' (and
    every file after it, for the 30 s its start is not tried again). Now the run waits that long once, starts it
    again, and reads the file; a reader that does not start the second time fails the rest at once."""
    from desktop_rag import child_process
    from desktop_rag.child_process import ChildDidNotStart

    monkeypatch.setattr(child_process, "START_AGAIN_AFTER_S", 0.3)
    for name in ("a", "b", "c"):
        (docs / f"{name}.md").write_text(f"# {name.upper()}\n\nAbout gannets, part {name}.\n")
    real_reader = library.document_reader
    starts: list[str] = []

    class ReaderThatDidNotStartOnce:  # a fake reader: its first start timed out, the next ones read as the real one
        model_path = Path(".")
        counter = real_reader.counter  # its counting is not what fails here

        def read(self, *args, **kwargs):
            starts.append("start")
            if len(starts) == 1:
                raise ChildDidNotStart("the document reader did not start")
            return real_reader.read(*args, **kwargs)

    library.__dict__["document_reader"] = ReaderThatDidNotStartOnce()
    summary = library.index([docs], contexts="rules")
    assert (summary.indexed, summary.failed) == (3, [])  # read in the same run, after one wait

    class ReaderThatNeverStarts(ReaderThatDidNotStartOnce):  # a fake reader: no start ever succeeds
        def read(self, *args, **kwargs):
            starts.append("start")
            raise ChildDidNotStart("the document reader did not start")

    for name in ("a", "b", "c"):
        (docs / f"{name}.md").write_text(f"# {name.upper()}\n\nAbout terns, part {name}.\n")
    library.__dict__["document_reader"] = ReaderThatNeverStarts()
    starts.clear()
    second = library.index([docs], contexts="rules")
    assert len(second.failed) == 3 and all("tried again next time" in f.reason for f in second.failed)
    assert len(starts) == 4  # waited for once (the first file's two tries), the rest failed at once
    library.__dict__["document_reader"] = real_reader

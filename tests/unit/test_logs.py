"""Where the log goes (desktop_rag/logs.py): a file per kind of process in the data folder's logs/, each rotated by
its only writer (or, shared by CLI commands, by the one starting when it has grown), one line per warning on the
terminal, nothing twice that a front end showed already."""

from __future__ import annotations

import logging

from desktop_rag import logs


def test_the_terminal_gets_one_timed_line_per_warning_and_not_what_was_shown_already(tmp_path, capsys):
    handlers = [logs.log_to_terminal(), logs.log_to_data_folder(tmp_path, "cli")]
    log = logging.getLogger("desktop_rag.some_part")
    try:
        try:
            raise OSError("the disk went away")
        except OSError as exc:
            log.error("applying 3 changes failed", exc_info=exc)
        log.error("a sentence the window showed", extra=logs.SHOWN)
        log.info("a detail for the file")
        logging.getLogger("chromadb.somewhere").warning("a library's own warning")
    finally:
        for handler in handlers:
            logs.stop_logging(handler)
    terminal = capsys.readouterr().err.splitlines()
    assert len(terminal) == 1 and terminal[0].endswith("applying 3 changes failed (OSError('the disk went away'))")
    file = logs.log_path(tmp_path, "cli").read_text()
    for line in ("Traceback", "a sentence the window showed", "a detail for the file", "a library's own warning"):
        assert line in file


def test_each_kind_of_process_has_its_file(tmp_path):
    for role in ("service", "window", "cli"):
        handler = logs.log_to_data_folder(tmp_path, role)
        try:
            logging.getLogger("desktop_rag.some_part").warning("said by the %s", role)
        finally:
            logs.stop_logging(handler)
    for role in ("service", "window", "cli"):
        assert logs.log_path(tmp_path, role).read_text().strip().endswith(f"said by the {role}")
    assert logs.ROLE_OF_COMMAND["watch"] == "service" and logs.ROLE_OF_COMMAND.get("mcp", "cli") == "cli"


def test_a_one_writer_log_is_rotated_as_it_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "MAX_LOG_BYTES", 2_000)
    handler = logs.log_to_data_folder(tmp_path, "service")
    try:
        for number in range(200):
            logging.getLogger("desktop_rag.some_part").warning("line %d of a long day", number)
    finally:
        logs.stop_logging(handler)
    files = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert files == ["service.log", "service.log.1", "service.log.2", "service.log.3"]
    assert all(p.stat().st_size <= 2_000 for p in (tmp_path / "logs").iterdir())


def test_no_data_folder_yet_no_file(tmp_path):
    assert logs.log_to_data_folder(tmp_path / "not made yet", "cli") is None

"""The service's mark taken before the CLI's imports (issue 61: a `stop` in a service's first 0.2 s at load 16 saw
nothing to stop), holding the process's id for a stop to end a service that does not answer yet."""

from __future__ import annotations

import os

import pytest

from desktop_rag.service import service_mark
from desktop_rag.service.service_mark import (hold_before_imports, hold_the_service_mark, service_starting,
                                              starting_pid)


@pytest.fixture
def folder_of_library(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    monkeypatch.setattr(service_mark, "_held_early", {})
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    return folder


@pytest.mark.parametrize("argv", [["--data-dir", "{d}", "service"], ["--data-dir={d}", "service", "--json"]])
def test_a_service_command_line_takes_the_mark_before_the_imports_with_its_process_id(folder_of_library, argv):
    assert not service_starting(folder_of_library) and starting_pid(folder_of_library) is None
    hold_before_imports([word.format(d=folder_of_library) for word in argv])
    assert service_starting(folder_of_library)
    assert starting_pid(folder_of_library) == os.getpid()
    mark = hold_the_service_mark(folder_of_library)  # the command's own call: the mark it already holds
    assert mark is not None
    mark.close()
    assert not service_starting(folder_of_library)


@pytest.mark.parametrize("argv", [["--data-dir", "{d}", "search", "service"], ["--data-dir", "{d}", "service", "-h"],
                                  ["--data-dir", "{d}", "stop"], ["--data-dir", "{d}"], []])
def test_other_command_lines_take_no_mark(folder_of_library, argv):
    hold_before_imports([word.format(d=folder_of_library) for word in argv])
    assert not service_starting(folder_of_library)


def test_a_second_service_does_not_get_the_mark(folder_of_library):
    first = hold_the_service_mark(folder_of_library)
    assert first is not None
    try:
        hold_before_imports(["--data-dir", str(folder_of_library), "service"])  # (the second service's early try)
        assert hold_the_service_mark(folder_of_library) is None
        assert starting_pid(folder_of_library) == os.getpid()  # the first one's id, not overwritten
    finally:
        first.close()


def test_a_mark_that_cannot_be_taken_is_left_to_the_command(folder_of_library, tmp_path):
    service_mark.mark_path(folder_of_library).symlink_to(tmp_path / "elsewhere")  # refused by the lock file's opening
    hold_before_imports(["--data-dir", str(folder_of_library), "service"])  # nothing raises here: the command says it
    assert service_mark._held_early == {} and not (tmp_path / "elsewhere").exists()

"""The local endpoint's folder where the person's environment names a wrong one: said once a process, however
often a command asks for it (issue 61, 9: the warning was printed 2-3 times per command)."""

from __future__ import annotations

import logging
import os

from desktop_rag.platform import local_socket


def test_a_shared_runtime_folder_is_passed_over_and_said_once(tmp_path, monkeypatch, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # everyone's, as /tmp is: not a place for a private endpoint
    own_tmp = tmp_path / "tmp"
    own_tmp.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    monkeypatch.setattr(local_socket.tempfile, "gettempdir", lambda: str(own_tmp))
    monkeypatch.setattr(local_socket, "_SAID", set())
    with caplog.at_level(logging.WARNING, logger=local_socket.__name__):
        folders = {local_socket.runtime_folder() for _ in range(3)}
    assert folders == {own_tmp / f"desktop-rag-{os.getuid()}"}
    said = [record.getMessage() for record in caplog.records]
    assert len(said) == 1 and "XDG_RUNTIME_DIR" in said[0], said

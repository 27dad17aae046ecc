"""Waiting for the service: a front end that finds one starting waits for it, and when that one ends without
answering (it met a damaged catalog), stops waiting at once instead of waiting out SERVICE_START_WAIT_S (its
starter starts the next one, counting those that end at once)."""

from __future__ import annotations

import threading
import time

from desktop_rag.service import background_process
from desktop_rag.platform.file_locks import hold_mark
from desktop_rag.service.background_process import answering_or_started
from desktop_rag.service.service_mark import mark_path


class _EndedAtOnceFake:
    """Stands in for a started service process that ended at once (poll() says so)."""

    def poll(self) -> int:
        return 1


def test_a_service_that_ends_while_waited_for_is_not_waited_for_past_its_end(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    monkeypatch.setattr(background_process, "SERVICE_START_WAIT_S", 20.0)
    started: list[bool] = []
    monkeypatch.setattr(background_process, "start_service",
                        lambda data_dir, rebuild: (started.append(rebuild), _EndedAtOnceFake())[1])
    mark = hold_mark(mark_path(data_dir))  # another process's service, starting: it holds its mark
    assert mark is not None
    threading.Timer(0.5, mark.close).start()  # ... and ends without answering

    began = time.monotonic()
    assert answering_or_started(data_dir) is None
    assert time.monotonic() - began < 5  # (it waited all 20 s before)
    assert started == []  # none started here: the window's own start counts the services that end at once

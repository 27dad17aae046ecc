"""The app answers for its library on the local endpoint (service/endpoint.py) while it runs: `desktop-rag
search`, `stats` and `mcp` get its loaded models' answers in milliseconds, and a re-indexing run an agent asks for
is handed to the window, which runs it as a person's (the one writer, the progress panel, Pause and Cancel)."""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal

from desktop_rag.service.host import LibraryHost
from desktop_rag.service.runs import RunRegistry


class AppEndpoint(QObject):
    # run id, paths, contexts: emitted on the endpoint's thread, received on the window's (a queued connection)
    run_requested = Signal(str, list, str)

    def __init__(self, library, parent: QObject | None = None):
        super().__init__(parent)
        self.runs = RunRegistry()
        self.host = LibraryHost(library, f"desktop-rag app (process {os.getpid()})", start_run=self._start_run,
                                runs=self.runs)
        self.host.start()  # False when another process answers for this data folder: the app works without it

    def _start_run(self, paths: list[str], contexts: str) -> str:
        run = self.runs.new(paths, contexts)
        self.run_requested.emit(run.run_id, paths, contexts)
        return run.run_id

    def stop(self) -> None:
        self.host.stop()

"""The app answers for its library on the local endpoint (service/endpoint.py) while it runs: `desktop-rag
search`, `stats` and `mcp` get its loaded models' answers in milliseconds, and a re-indexing run an agent asks for
is handed to the window, which runs it as a person's (the one writer, the progress panel, Pause and Cancel). The
tray (ui/tray.py) reads what the window is doing here, pauses its background work and quits it."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from desktop_rag.service.activity import Activity
from desktop_rag.service.background_process import APP_ROLE, note_the_end
from desktop_rag.service.host import LibraryHost
from desktop_rag.service.runs import RunRegistry


class AppEndpoint(QObject):
    # Emitted on the endpoint's threads, received on the window's (queued connections).
    run_requested = Signal(str, list, str)  # run id, paths, contexts
    pause_requested = Signal(bool)  # True: hold the background LLM work; False: resume it
    stop_requested = Signal()  # `desktop-rag stop`, the tray's Quit: the app ends, no service after it

    def __init__(self, library, activity: Callable[[], Activity], parent: QObject | None = None):
        """`activity()`: what the window is doing, read on an endpoint worker (plain attributes only)."""
        super().__init__(parent)
        self.runs = RunRegistry()
        self._activity = activity
        self.host = LibraryHost(library, f"desktop-rag app (process {os.getpid()})", start_run=self._start_run,
                                runs=self.runs, role=APP_ROLE, on_stop=self.stop_requested.emit)
        self.host.tools.activity = self
        # False when another process answers for this data folder: the app works without it. True: the window holds
        # the library, and says so until it closes in order (killed meanwhile, the tray starts the service).
        self._holds = self.host.start()
        if self._holds:
            note_the_end(library.data_dir, orderly=False)

    def _start_run(self, paths: list[str], contexts: str) -> str:
        run = self.runs.new(paths, contexts)
        self.run_requested.emit(run.run_id, paths, contexts)
        return run.run_id

    def now(self) -> Activity:
        return self._activity()

    def pause(self, paused: bool) -> None:
        self.pause_requested.emit(paused)

    def stop(self) -> None:
        """First thing as the window closes: the orderly end is noted before the endpoint goes quiet, so that the
        tray never takes a window closing for one killed."""
        if self._holds:
            note_the_end(self.host.library.data_dir, orderly=True)
        self.host.stop()


def window_activity(progress, background) -> Activity:
    """What the window is doing, from its progress panel and its background upgrade (read on an endpoint worker:
    attributes and a progress bar's value, nothing that changes them)."""
    control = progress.control
    if control is not None and control is background.control:
        return Activity("writing LLM contexts")
    if control is not None:
        return Activity("indexing", progress.overall_fraction)
    return Activity("paused" if background.library.settings.llm_upgrade_paused else "idle")

"""The service's runs in the window's progress panel (issue 49): every run it carries out — one the person asked
for here, one `desktop-rag index` or an agent asked for, the catch-up at its start — as its event stream tells its
state, with the panel's Pause and Cancel sent back to it. The bar and the estimate are the service's own (one bar
over the whole run, from its measured rates), and a reopened window shows the run where it stands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_rag.core.indexing.report import Progress
from desktop_rag.documents import share_words
from desktop_rag.service import wire
from desktop_rag.ui.errors import ended_text, sentences

# Each kind of run in a person's words, in one place: the Progress tab's title, and a folder's line in the Folders
# panel while the run holds it (a catch-up was "indexing…" there while the Progress tab said "Catching up…").
RUN_WORDS = {
    "index": ("", "indexing…"),  # (its title names its folders)
    "catch-up": ("Catching up with what changed while nothing watched the folders, and what was left to do…",
                 "catching up…"),
    "repair": ("Checking the indexes against the catalog…", "checking…"),
    "rebuild": ("Rebuilding the indexes from the catalog…", "rebuilding…"),
    "upgrade": ("Writing LLM contexts (asked from the command line)…", "writing LLM contexts…"),
}


def run_words(state: dict) -> tuple[str, str]:
    """(title, a folder's word) for a run's state, as RUN_WORDS says them."""
    return RUN_WORDS.get(state.get("kind", "index"), RUN_WORDS["index"])


class RemoteRunControl:
    """The panel's handle on a run the service carries out: what RunControl offers the panel, sent as calls."""

    def __init__(self, run_id: str, send: Callable[[wire.Request[Any]], None]):
        self.run_id = run_id
        self._send = send
        self.paused = False
        self.cancelled = False

    def pause(self) -> None:
        self.paused = True
        self._send(wire.PauseRun(run_id=self.run_id, paused=True))

    def resume(self) -> None:
        self.paused = False
        self._send(wire.PauseRun(run_id=self.run_id, paused=False))

    def cancel(self) -> None:
        self.cancelled = True
        self._send(wire.CancelRun(run_id=self.run_id))

    @property
    def stopping(self) -> bool:
        return self.paused or self.cancelled


class ServiceRuns(QObject):
    ended = Signal(dict)  # a run's last state (finished, cancelled, failed)

    def __init__(self, panel, send: Callable[[wire.Request[Any]], None], parent: QObject | None = None):
        """`send(request)`: a call to the service, off the window's thread."""
        super().__init__(parent)
        self.panel = panel
        self._send = send
        self._controls: dict[str, RemoteRunControl] = {}
        self.active: dict[str, dict] = {}  # runs queued or running, by id: their latest state
        self.seen = 0  # states shown so far: a view that asked for something before can tell one came between

    def show(self, state: dict) -> bool:
        """The run's state in the panel; True when it moved on (queued, begun, ended): the folders' marks change."""
        self.seen += 1
        run_id = state["run_id"]
        moved_on = self.active.get(run_id, {}).get("state") != state["state"]
        if state["state"] in ("queued", "running"):
            self.active[run_id] = state
        else:
            self.active.pop(run_id, None)
        if state["state"] == "running":
            self._show_running(state)
        elif state["state"] in ("finished", "cancelled", "failed"):
            self._show_end(state)
        return moved_on

    def _show_running(self, state: dict) -> None:
        control = self._controls.get(state["run_id"])
        if control is None or self.panel.control is not control:
            control = self._controls[state["run_id"]] = RemoteRunControl(state["run_id"], self._send)
            title = run_words(state)[0] or f"Indexing {', '.join(state['paths'])}"
            self.panel.start(title, control)
        control.paused = bool(state.get("paused"))  # the service's word, whoever paused it (the tray, an agent)
        self._show_phases(state)
        self.panel.show_paused(control.paused)
        if state.get("paused"):  # asked at once, held after the step in hand (seconds for a run's first document)
            self.panel.current.setText("Paused: nothing moves until you resume." if state.get("held")
                                       else "Pausing after the step in hand…")
        elif state.get("current"):
            self.panel.current.setText(state["current"])

    def _show_phases(self, state: dict) -> None:
        ended = state["state"] not in ("queued", "running")
        for phase, counts in state["phases"].items():
            total = counts["done"] if ended and counts["total"] is None else counts["total"]  # (no busy bar after)
            self.panel.on_progress(Progress(phase, counts["done"], total, overall=state["share_done"],
                                            seconds_left=state["seconds_left"]))

    def _show_end(self, state: dict) -> None:
        control = self._controls.pop(state["run_id"], None)
        shown = control is not None and self.panel.control is control
        notices = state.get("notices") or []
        # (or has something to tell: a repair the service ran itself, over before the panel saw it, says why)
        worth_telling = state["state"] != "finished" or state.get("indexed") or state.get("errors") or notices
        if state["state"] == "failed":
            message = sentences([state["error"]]) if state.get("error") else "The run failed."  # (window words)
        elif state.get("kind") == "catch-up" and not worth_telling:
            message = ended_text("Up to date", notices)
        else:
            message = ended_text(state.get("summary") or "Done", notices)
        # A run the panel showed ends there; one it did not (a catch-up that found nothing, a run that ended before
        # the window opened) is said only when it changed something and the panel is free. A catch-up's errors are
        # the files that failed before: the list shown from the start stays.
        errors = [(e["path"], e["reason"]) for e in state.get("errors") or []]
        if shown or (worth_telling and self.panel.control is None):
            # Its own last counts under its line: states are told twice a second, and the last before its end may
            # not be (the panel said "Done" above "Meaning search 0 / 33", the count of an earlier state: issue 60)
            self.panel.clear_phases()
            self._show_phases(state)
            self.panel.finish(message, errors if errors or state.get("kind") != "catch-up" else None)
        self.ended.emit(state)

    def service_gone(self) -> None:
        """The service stopped or died: its runs are over with it (the next one's catch-up does what they left). A
        killed service tells no run's end: its run stayed "running" here, and the folders' panel said "indexing…"
        after the new service's catch-up had done everything (issue 60)."""
        if self.panel.control is not None and self.panel.control in self._controls.values():
            self.panel.finish("Stopped with the background service: what it finished is kept, and the rest is done "
                              "when the service runs again.")
        self._controls.clear()
        self.active.clear()

    @property
    def folders_in_hand(self) -> tuple[set[str], dict[str, str]]:
        """(queued, running): the folders of the runs waiting, and those of the one running with its word for what
        it does ("indexing…", "catching up…")."""
        queued = {p for s in self.active.values() if s["state"] == "queued" for p in s["paths"]}
        running = {p: run_words(s)[1]
                   for s in self.active.values() if s["state"] == "running" for p in s["paths"]}
        return queued, running

    def building_note(self) -> str:
        """For a search while a run adds to the index: "The index is still being built (40% done)", or ""."""
        if not self.building:
            return ""
        fraction = self.panel.overall_fraction
        return "The index is still being built" + (f" ({share_words(fraction)} done)" if fraction is not None else "")

    @property
    def building(self) -> bool:
        return any(s["state"] == "running" for s in self.active.values())

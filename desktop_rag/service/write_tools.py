"""A person's writes through the door (issue 49): the window's and the CLI's — settings, a folder removed or marked,
a context written, approved, reverted or regenerated, a run paused or cancelled, "Write LLM contexts now". Each is
carried out where the process writes (its write lane: service/host.py), each takes its request (service/wire.py)
and answers with what it changed
(core/indexing/changes.py), and each Changes goes on the event stream every client follows (service/events.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TYPE_CHECKING
from collections.abc import Callable

from desktop_rag.core.library import doctor
from desktop_rag.core.indexing.changes import Changes
from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
from desktop_rag.core.progress.control import RunControl
from desktop_rag.errors import BadInput, UserError
from desktop_rag.service import run_kinds, wire
from desktop_rag.service.answers import (Cancelled, ChangesAnswer, Checkup, Regenerated, RunQueued, RunsPaused,
                                         Served, SettingsChanged)
from desktop_rag.service.events import EventLog
from desktop_rag.service.runs import RunState, RunWork

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library


class WriteTools:
    def __init__(self, library: Library, write: Callable[..., Any], event_log: EventLog,
                 served_by: str):
        self.library = library
        self._write = write
        self.event_log = event_log
        self.served_by = served_by
        # Told after a write that changed them: the folders (the watcher follows the new list), the settings (the
        # lane's schedule looks again). cancel_runs / pause_runs(run_id or None, …) -> ids: the run queue's.
        self.on_folders_changed: Callable[[], None] = lambda: None
        self.on_settings_changed: Callable[[Changes], None] = lambda changes: None
        self.cancel_runs: Callable[[str | None], list[str]] = lambda run_id: []
        self.pause_runs: Callable[[str | None, bool], list[str]] = lambda run_id, paused: []
        self.pause_runs_of_kind: Callable[[str, bool], list[str]] = lambda kind, paused: []
        self.lane: Any = None  # the process's WriteLane (core/runs/lane.py), where it has one
        # submit_work(kind, work) -> the run queued (service/runs.py RunQueue.submit_work), where runs are carried out
        self.submit_work: Callable[[str, RunWork], RunState] | None = None
        self._regenerations: dict[int, RunControl] = {}  # chunk id -> what cancels its regeneration

    def change_settings(self, r: wire.ChangeSettings) -> SettingsChanged:
        """Settings changed by the one writer (config.py checks each value); every client hears the Changes."""
        values = r.values
        changes = self._changed(lambda: self.library.set_settings(values))
        self.on_settings_changed(changes)
        if "llm_upgrade_paused" in values:  # (`desktop-rag settings llm_upgrade_paused …`: as the tray's Pause)
            self.pause_runs_of_kind("upgrade", bool(self.library.settings.llm_upgrade_paused))
        if changes.folders:
            self.on_folders_changed()
        return SettingsChanged(**self._answer(changes),
                               settings={name: getattr(self.library.settings, name) for name in values})

    def remove_folder(self, r: wire.RemoveFolder) -> ChangesAnswer:
        resolved = str(Path(os.path.expanduser(r.folder)).resolve())
        if resolved not in self.library.reads.folders():
            raise BadInput(f"{r.folder} is not an indexed folder (indexed: "
                           f"{', '.join(self.library.reads.folders()) or 'none yet'})")
        changes = self._changed(lambda: self.library.remove_folder(resolved))
        self.on_folders_changed()
        return self._answer(changes)

    def upgrade_first(self, r: wire.UpgradeFirst) -> ChangesAnswer:
        return self._answer(self._changed(lambda: self.library.mark_upgrade_first(r.folder, r.on)))

    def set_context(self, r: wire.SetContext) -> ChangesAnswer:
        if not r.text.strip():
            raise BadInput("the context is empty: write one, or revert to the generated one")
        return self._answer(self._changed(lambda: self.library.edits.set_context(r.chunk_id, r.text, r.questions)))

    def revert_context(self, r: wire.RevertContext) -> ChangesAnswer:
        return self._answer(self._changed(lambda: self.library.edits.revert_context(r.chunk_id)))

    def approve_context(self, r: wire.ApproveContext) -> ChangesAnswer:
        return self._answer(self._changed(lambda: self.library.edits.approve_context(r.chunk_id)))

    def regenerate_context(self, r: wire.RegenerateContext) -> Regenerated:
        """A new LLM context for the chunk (a hand edit included: the person asked); `cancel_regenerate` cuts the
        model's call short (a Regenerate during a run once showed "Asking the model…" for 9 minutes)."""
        regenerated = self.regenerated(r.chunk_id)
        if regenerated is None:
            return Regenerated(**self._answer(Changes()), cancelled=True)
        result = regenerated.result
        return Regenerated(**self._answer(regenerated.changes), context=result.text, source=result.source,
                           quality=result.quality, cancelled=False)

    def regenerated(self, chunk_id: int):
        """The chunk's context written anew by the model (core/library/context_edits.py Regenerated), told to every
        client; None when it was cancelled before anything was written."""
        control = self._regenerations.setdefault(chunk_id, RunControl())

        def work():
            try:
                if control.cancelled:  # cancelled while it waited for its turn
                    return None
                with calls_controlled_by(control):  # a cancel cuts the model's call short
                    return self.library.edits.regenerate_context(chunk_id)
            except Interrupted:
                if control.cancelled:
                    return None
                raise
            finally:  # (until it has run, it can be cancelled: issue 60, 4, a queued one no longer could)
                self._regenerations.pop(chunk_id, None)

        # Waited for as long as it takes: it reads the whole document (a long novel: minutes on 2 cores), and a
        # client told "busy… still queued" at 120 s could no longer take it back. Cancel takes it back at any time.
        regenerated = self._write(work, None)
        if regenerated is None or (control.cancelled and not regenerated.changes):
            return None
        self.event_log.changes(regenerated.changes)
        return regenerated

    def cancel_regenerate(self, r: wire.CancelRegenerate) -> Cancelled:
        """Stop regenerating the chunk's context (None: every one asked); nothing is written of it."""
        chosen = [c for c in list(self._regenerations) if r.chunk_id is None or c == r.chunk_id]
        for chosen_id in chosen:
            control = self._regenerations.get(chosen_id)
            if control is not None:
                control.cancel()
        return {"cancelled": chosen, "served_by": self.served_by}

    def cancel_run(self, r: wire.CancelRun) -> Cancelled:
        return {"cancelled": self.cancel_runs(r.run_id), "served_by": self.served_by}

    def pause_run(self, r: wire.PauseRun) -> RunsPaused:
        ids = self.pause_runs(r.run_id, r.paused)
        return RunsPaused(paused=ids, served_by=self.served_by) if r.paused else RunsPaused(resumed=ids,
                                                                                            served_by=self.served_by)

    def pause_llm_work(self, paused: bool) -> SettingsChanged:
        """Pause: the upgrade's call in hand is cut short and nothing of the model runs until Resume, `contextualize`
        runs included; Resume also turns the idle upgrade back on (as the window's Resume always did)."""
        values = {"llm_upgrade_paused": True} if paused else {"llm_upgrade_paused": False,
                                                               "llm_upgrade_when_idle": True}
        # (which holds or lets go the `contextualize` runs too)
        return self.change_settings(wire.ChangeSettings(values=values))

    def upgrade_now(self, r: wire.UpgradeNow) -> ChangesAnswer:
        """"Write LLM contexts now": not paused, and whatever the machine does, until nothing waits."""
        changes = self._changed(lambda: self.library.set_settings({"llm_upgrade_paused": False}))
        if self.lane is not None:
            self.lane.ask_now()
        return self._answer(changes)

    # -- runs that index no files (service/run_kinds.py): `desktop-rag rebuild`, `doctor --repair`, `contextualize`

    def rebuild(self, r: wire.Rebuild) -> RunQueued:
        """Both indexes made again from the catalog (no file read, no context written), as a run."""
        return self._run("rebuild", run_kinds.rebuild(self.library))

    def doctor(self, r: wire.Doctor) -> Checkup:
        """What disagrees between the catalog and the indexes (looked at on the lane: nothing writes meanwhile)."""
        checkup = self._write(lambda: doctor.examine(self.library))
        return {"found": checkup.findings(), "waiting": checkup.waiting(), "damage_advice": checkup.damage_advice,
                "holds": checkup.holdings(), "served_by": self.served_by}

    def repair(self, r: wire.Repair) -> RunQueued:
        """A run that rebuilds from the catalog what disagrees (its result says what is left)."""
        return self.repair_because(None)

    def repair_because(self, reason: str | None) -> RunQueued:
        """doctor --repair's run, asked by the service itself for `reason` (an index deleted under it): every front
        end shows the reason with the run's end. Not an operation: no client gives the service its reasons."""
        return self._run("repair", run_kinds.repair(self.library, reason))

    def contextualize(self, r: wire.Contextualize) -> RunQueued:
        """LLM contexts written now for documents with rules contexts (at most `limit` documents), as a run; held
        while the background LLM work is paused, as every use of the model is (Resume lets it go on)."""
        answer = self._run("upgrade", run_kinds.upgrade(self.library, r.limit))
        if self.library.settings.llm_upgrade_paused:
            self.pause_runs(answer["run_id"], True)
            answer["paused"] = True
        return answer

    def _run(self, kind: str, work: RunWork) -> RunQueued:
        if self.submit_work is None:
            raise UserError(f"{self.served_by} carries out no runs of its own")
        run = self.submit_work(kind, work)
        return {"run_id": run.run_id, "kind": kind, "state": run.state, "served_by": self.served_by}

    def note_input(self, r: wire.NoteInput) -> Served:
        if self.lane is not None:
            self.lane.note_input()
        return {"served_by": self.served_by}

    def _changed(self, work: Callable[[], Changes]) -> Changes:
        changes = self._write(work)
        self.event_log.changes(changes)
        return changes

    def _answer(self, changes: Changes) -> ChangesAnswer:
        return {"changes": changes.to_dict(), "served_by": self.served_by}

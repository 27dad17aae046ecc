"""The main window: folders on the left, search / context review / stats in tabs, the progress panel below.

Every operation goes through the task runner; the window only shows what comes back. On start it tells the
truth about the library: failures from earlier runs, and work a killed run left (it resumes that at once). The
background LLM upgrade (ui/background.py) makes way for everything the person does and every file change."""

from __future__ import annotations

import weakref
from dataclasses import asdict, replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QMessageBox, QTabWidget

from desktop_rag.config import Settings
from desktop_rag.core.changes import Changes
from desktop_rag.core.library import Library
from desktop_rag.core.library_reads import FolderState
from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.ui.agent_endpoint import AppEndpoint, window_activity
from desktop_rag.ui.background import BackgroundUpgrade
from desktop_rag.ui.errors import changes_text, for_window, sentences, summary_text
from desktop_rag.ui.folders_panel import FoldersPanel
from desktop_rag.ui.progress_panel import ProgressPanel
from desktop_rag.ui.review_panel import ReviewPanel
from desktop_rag.ui.search_panel import SearchPanel
from desktop_rag.ui.settings_dialog import SettingsDialog
from desktop_rag.ui.stats_panel import StatsPanel
from desktop_rag.ui.tasks import TaskRunner
from desktop_rag.ui.theme import icon
from desktop_rag.ui.watching import FolderFollower



# Quit: how long workers get to reach a checkpoint before the children they wait on are ended. A worker embedding
# a batch waits on the embedder's child for seconds: a second's wait here, then the children ended, made Quit take
# 1.7 s under load (bench/first_hour.py --load 2 --quit-at 200); ending them is what returns it.
QUIT_WAIT_MS = 300


class MainWindow(QMainWindow):
    data_folder_chosen = Signal(str)  # the person picked another data folder in the settings: the app opens it
    quit_requested = Signal()  # `desktop-rag stop` or the tray's Quit: the app ends, and no service follows it
    # What a write changed (core/changes.py): every write's result ends here, and each view decides what to show.
    changed = Signal(object)

    def __init__(self, library: Library):
        super().__init__()
        self.library = library
        self.lane = WriteLane(library, upgrade="never")  # the writes' one order, as in `watch` and the service
        self.lane.start()
        self.runner = TaskRunner(self, write_lane=self.lane)
        self.setWindowTitle("desktop-rag")
        self.setWindowIcon(icon("app"))
        self._queued_folders: list[str] = []
        self._indexing_folders: set[str] = set()  # folders of the run in hand
        self._controls: weakref.WeakSet[RunControl] = weakref.WeakSet()  # of runs started here: Quit cancels all
        self._runs_asked = 0  # runs started here so far: the state read at start may come back after one of them

        self.search = SearchPanel(library, self.runner)
        self.review = ReviewPanel(library, self.runner)
        self.stats = StatsPanel(library, self.runner)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.search, icon("search"), "Search")
        self.tabs.addTab(self.review, "Review contexts")
        self.tabs.addTab(self.stats, "Stats")
        self.setCentralWidget(self.tabs)

        self.folders = FoldersPanel()
        self.progress = ProgressPanel()
        self._dock(self.folders, "Folders", Qt.DockWidgetArea.LeftDockWidgetArea)
        progress_dock = self._dock(self.progress, "Progress", Qt.DockWidgetArea.BottomDockWidgetArea)
        self.resizeDocks([progress_dock], [170], Qt.Orientation.Vertical)  # search keeps most of the height
        self._build_actions()

        self.folders.add_requested.connect(self.add_folder)
        self.folders.remove_requested.connect(self.remove_folder)
        self.folders.rescan_requested.connect(lambda folder: self.index([folder]))
        self.folders.ocr_toggled.connect(self.set_folder_ocr)
        self.folders.upgrade_first_toggled.connect(self.set_upgrade_first)
        self.background = BackgroundUpgrade(library, self.runner, self.lane, self.progress, self)
        self.background.changed.connect(
            lambda: self.progress.show_background(self.background.status_text(), self.background.action))
        self.background.finished.connect(lambda summary: self.changed.emit(summary.changes))
        self.progress.background_button.clicked.connect(self.background.act)
        QApplication.instance().installEventFilter(self.background)  # type: ignore[union-attr]  # person's input
        self.search.building_note = self._building_note
        self.search.status.connect(self.statusBar().showMessage)
        self.review.status.connect(self.statusBar().showMessage)
        self.review.changed.connect(self.changed)
        self.changed.connect(self._follow_changes)
        self.runner.error.connect(self.show_error)
        self.follower = FolderFollower(library, self.lane, self)
        self.follower.applied.connect(self._changes_applied)
        self.follower.failed.connect(self.show_error)
        self.watching_label = QLabel()
        self.statusBar().addPermanentWidget(self.watching_label)
        self.follower.folders_watched.connect(
            lambda n: self.watching_label.setText(f"Watching {n} folder{'s' if n != 1 else ''}" if n else ""))
        self.tabs.currentChanged.connect(self._tab_shown)
        self.agents = AppEndpoint(library, lambda: window_activity(self.progress, self.background), self)
        self.agents.run_requested.connect(self.index_for_agent)
        self.agents.pause_requested.connect(lambda paused: (self.background.pause if paused
                                                            else self.background.resume)())
        self.agents.stop_requested.connect(self.quit_requested)
        self.resize(1200, 800)
        QTimer.singleShot(0, self._start)

    def _dock(self, widget, title: str, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def _build_actions(self) -> None:
        def action(text, slot, shortcut=None, icon_name=None):
            act = QAction(icon(icon_name), text, self) if icon_name else QAction(text, self)
            if shortcut:
                act.setShortcut(QKeySequence(shortcut))
            act.triggered.connect(slot)
            self.addAction(act)
            return act

        focus = action("Search", self.focus_search, "Ctrl+K")
        add = action("Add folder…", self.folders.choose_folder, "Ctrl+O", "add-folder")
        rescan = action("Re-scan all folders", lambda: self.index(self.library.reads.folders()), "F5", "rescan")
        upgrade = action("Write LLM contexts now", self.upgrade_contexts, None, "upgrade")
        upgrade.setToolTip("Write the waiting LLM contexts now, whether or not the computer is idle")
        settings = action("Settings…", self.open_settings, "Ctrl+,", "settings")
        quit_ = action("Quit", self.close, "Ctrl+Q")
        menu = self.menuBar().addMenu("&File")
        for act in (add, rescan, upgrade, settings):
            menu.addAction(act)
        menu.addSeparator()
        menu.addAction(quit_)
        self.menuBar().addMenu("&Search").addAction(focus)
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("Main")
        for act in (add, rescan, upgrade, settings):
            toolbar.addAction(act)

    # -- start ----------------------------------------------------------------------------------------------

    def _start(self) -> None:
        self.focus_search()
        self._refresh_folders()
        self._tab_shown(self.tabs.currentIndex())
        asked = self._runs_asked
        self.runner.read(lambda: (self.library.reads.counts(), self.library.reads.failures()),
                         on_done=lambda state: self._report_state(state, overtaken=self._runs_asked != asked))
        self._load_embedding_model()

    def _load_embedding_model(self) -> None:
        """In the background: the first search does not wait seconds for it (it matches keywords meanwhile)."""
        self.search.meaning_model_loading = True
        self.runner.load(self.library.load_embedding_model, on_done=lambda _: self.search.meaning_model_ready(),
                         on_error=lambda message: (self.search.meaning_model_ready(), self.show_error(message)))

    def _report_state(self, state, overtaken: bool = False) -> None:
        """`overtaken`: a run was asked for (a folder added at once) before this state came back from the read
        lane; the panel is that run's, and its "Done" must not be replaced by the state at start."""
        stats, failures = state
        docs = stats["documents"]
        if not docs["indexed"] and not docs["failed"]:
            if not overtaken:
                self.progress.finish("Nothing indexed yet: add a folder to start.")
            self.follower.start()  # watches what gets added
            self.background.begin()
            return
        if not overtaken:
            self.progress.finish(f"{docs['indexed']} files indexed, {docs['failed']} could not be read.",
                                 failures)
        if stats["folders"]:
            self._catch_up(stats["folders"], stats["chunks_pending_embedding"], quiet=overtaken)
        else:
            # Even with nothing left by the last run: the first write checks that both indexes are there
            # (core/doctor.py) and rebuilds a lost one, saying so.
            pending = stats["chunks_pending_embedding"]
            self.sync(f"Resuming: {pending} chunks left by the last run…" if pending else "Checking the indexes…",
                      quiet=overtaken)
            self.follower.start()
        self.background.begin()  # it starts once the catch-up is done and the schedule allows

    def _catch_up(self, folders: list[str], pending: int, quiet: bool = False) -> None:
        """What changed while the app was closed (the reconciliation scan: a stat per unchanged file), and what
        a killed run left; then the folders are watched. `quiet`: the panel is a run's the person asked for
        meanwhile; this one shows itself only if it finds something."""
        control = self._new_control()
        title = (f"Resuming: {pending} chunks left by the last run…" if pending
                 else "Checking the folders for changes made while the app was closed…")
        self.runner.write(
            lambda report: self.library.index(folders, on_progress=report,
                                              control=control),
            on_done=lambda summary: self._caught_up(summary, control),
            on_error=lambda message: (self.progress.finish(message), self.follower.start()),
            on_progress=None if quiet else self._panel_follows(title, control),
        )

    def _panel_follows(self, title: str, control: RunControl):
        """A run's progress handler that takes the panel when the run starts on the write lane, not when it is
        queued: a run queued behind another does not take the panel from it."""
        def report(progress) -> None:
            if self.progress.control is not control:
                self.progress.start(title, control)
            self._show_progress(progress)
        return report

    def _show_progress(self, progress) -> None:
        """A run's step in the panel; what it made searchable (core/indexing/report.py) to every view."""
        self.progress.on_progress(progress)
        if progress.changes:
            self.changed.emit(progress.changes)

    def _caught_up(self, summary, control: RunControl) -> None:
        # Old failures are listed either way; notices say an index was rebuilt, or why it will be.
        changed = summary.indexed or summary.removed or summary.moved or summary.notices
        if changed or self.progress.control is control:  # else the panel shows another run's end: kept
            self.progress.finish(summary_text(summary) if changed else "Up to date.",
                                 [(f.path, f.reason) for f in summary.failed])
        self.follower.start()
        self.changed.emit(summary.changes)

    def focus_search(self) -> None:
        self.tabs.setCurrentWidget(self.search)
        self.search.query.setFocus()
        self.search.query.selectAll()

    def come_forward(self, query: str = "") -> None:
        """Another launch of the app asked for this window (ui/single_instance.py), with a query or none."""
        self.showNormal() if self.isMinimized() else self.show()
        self.raise_()
        self.activateWindow()
        self.focus_search()
        if query:
            self.search.query.setText(query)
            self.search.search_now()

    # -- work -----------------------------------------------------------------------------------------------

    def add_folder(self, folder: str) -> None:
        self.index([folder])

    def index(self, folders: list[str], contexts: str | None = None, run_id: str | None = None) -> None:
        """`run_id`: a run an agent asked for (AppEndpoint), whose progress it follows."""
        if not folders:
            return
        control = self._new_control()  # the write below makes the LLM upgrade make way: the person goes first
        self._queued_folders += folders
        self._refresh_folders()
        runs = self.agents.runs
        agent_report = runs.reporter(run_id) if run_id else None

        def started(progress):
            if self.progress.control is not control:
                self.progress.start(f"Indexing {', '.join(folders)}", control)
                self._dequeue(folders)
                self._indexing_folders.update(folders)
                self._refresh_folders()
                self.follower.folders_changed(adding=folders)
                if run_id:
                    runs.started(run_id)
            self._show_progress(progress)
            if agent_report:
                agent_report(progress)

        def done(summary):
            if run_id:
                runs.finished(run_id, summary)
            self._indexed(folders, summary)

        def failed(message):
            if run_id:
                runs.failed(run_id, message)
            self._failed(folders, message)

        self.runner.write(
            lambda report: self.library.index(folders, contexts=contexts, on_progress=report, control=control),
            on_done=done, on_error=failed, on_progress=started,
        )

    def index_for_agent(self, run_id: str, paths: list, contexts: str) -> None:
        """A re-indexing an agent asked for (desktop-rag mcp): run as a person's would be, in the panel."""
        self.statusBar().showMessage(f"An assistant asked to re-index {', '.join(paths)}.")
        self.index(list(paths), contexts=contexts, run_id=run_id)

    def _dequeue(self, folders) -> None:
        for folder in folders:
            if folder in self._queued_folders:
                self._queued_folders.remove(folder)

    def _indexed(self, folders, summary) -> None:
        self._dequeue(folders)
        self._indexing_folders.difference_update(folders)
        self.follower.folders_changed(added=folders)
        self.progress.finish(summary_text(summary), [(f.path, f.reason) for f in summary.failed])
        self.changed.emit(summary.changes | Changes(folders=True))  # the folders' states: no longer indexing

    def _failed(self, folders, message: str) -> None:
        self._dequeue(folders)
        self._indexing_folders.difference_update(folders)
        self.follower.folders_changed(added=folders)
        self.progress.finish(message)
        self.show_error(message)
        self._refresh_folders()

    def sync(self, title: str, quiet: bool = False) -> None:
        """Bring both indexes up to the catalog; `quiet` as for _catch_up."""
        control = self._new_control()
        self.runner.write(lambda report: self.library.indexes.sync(on_progress=report, control=control),
                          on_done=lambda summary: self._synced(summary, control),
                          on_progress=None if quiet else self._panel_follows(title, control))

    def _synced(self, summary, control: RunControl) -> None:
        if summary.cancelled or summary.notices or self.progress.control is control:  # else another run's end
            self.progress.finish("Cancelled; the rest continues next time." if summary.cancelled
                                 else f"Up to date. {sentences(summary.notices)}".strip())
        self.changed.emit(summary.changes)

    def upgrade_contexts(self) -> None:
        """The person asked for the LLM contexts now: whatever the machine does (not only when idle)."""
        self.background.run_now()

    def remove_folder(self, folder: str) -> None:
        answer = QMessageBox.question(self, "Stop indexing this folder?",
                                      f"{folder}\n\nIts files stay where they are; they leave the index.")
        if answer == QMessageBox.StandardButton.Yes:
            self.statusBar().showMessage(f"Removing {folder} from the index…")
            self.runner.write(lambda report: self.library.remove_folder(folder),
                              on_done=lambda changes: (self.statusBar().showMessage(
                                  f"Removed {folder} ({', '.join(changes.notes)}) from the index."),
                                  self.follower.folders_changed(), self.changed.emit(changes)))

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.library.settings, str(self.library.data_dir), self)
        if dialog.exec():
            self.save_settings(dialog.chosen())  # into this data folder, before another one is opened
            if dialog.chosen_data_dir() and dialog.chosen_data_dir() != str(self.library.data_dir):
                self.data_folder_chosen.emit(dialog.chosen_data_dir())

    def save_settings(self, chosen: Settings) -> None:
        changes = self.library.set_settings(asdict(chosen))
        self.changed.emit(changes)
        message = "Settings saved."
        if {"ocr", "ocr_skip_folders"} & changes.settings and self.library.settings.ocr:
            # Scans and images left unread are read now, not at the next change of each file.
            self.index(self.library.reads.folders())
            message += " Scanned pages and images not read before are being read."
        if changes.notes:
            message += " " + for_window("; ".join(changes.notes)) + "."
        self.statusBar().showMessage(message)

    def set_folder_ocr(self, folder: str, on: bool) -> None:
        """A folder's scans and images read by OCR, or not (the ocr_skip_folders setting)."""
        skipped = [f for f in self.library.settings.ocr_skip_folders if f != folder] + ([] if on else [folder])
        self.save_settings(replace(self.library.settings, ocr_skip_folders=skipped))
        if on and not self.library.settings.ocr:
            self.statusBar().showMessage("OCR is turned off in Settings: no folder's scans are read.")

    def set_upgrade_first(self, folder: str, on: bool) -> None:
        """The LLM upgrade takes a folder's documents before all others, or no longer."""
        # A write, on the edits' lane: it never waits behind a run (the upgrade makes way a moment, as for an edit).
        self.runner.edit(lambda: self.library.mark_upgrade_first(folder, on), self.changed.emit, self.show_error)

    def _changes_applied(self, summary) -> None:
        message = changes_text(summary)
        if not message:
            return
        self.statusBar().showMessage(message)
        if summary.failed:
            self.progress.finish(message, [(f.path, f.reason) for f in summary.failed])
        self.changed.emit(summary.changes)

    # -- views ----------------------------------------------------------------------------------------------

    def _follow_changes(self, changes: Changes) -> None:
        """Each view decides whether a write changed what it shows."""
        if changes.folders or changes.documents:
            self._refresh_folders()
        if changes.documents or changes.upgraded:
            self.background.count_waiting()  # a run adds rules contexts; the upgrade writes LLM ones
        if changes.settings:
            self.background.settings_changed()  # whether and when the upgrade runs may differ now
        if "embedding_model" in changes.settings:
            self._load_embedding_model()
        shown = self.tabs.currentWidget()
        if shown is self.stats and changes:
            self.stats.refresh()
        elif shown is self.review and (changes.documents or changes.upgraded):
            self.review.refresh()  # its own edits it shows itself, keeping the row in hand
        self.search.show_changes(changes)

    def _refresh_folders(self) -> None:
        queued, indexing = set(self._queued_folders), set(self._indexing_folders)

        def show(found) -> None:
            states, self.folders.upgrade_first = found
            self.folders.no_ocr = set(self.library.settings.ocr_skip_folders)
            known = {s.path for s in states}
            extra = [FolderState(f, 0, 0, 0) for f in sorted(queued | indexing) if f not in known]
            self.folders.show_states(states + extra, queued, indexing)
            self.search.set_folders([s.path for s in states])

        reads = self.library.reads
        self.runner.read(lambda: (reads.folder_states(), set(reads.upgrade_first_folders())), on_done=show)

    def _building_note(self) -> str:
        """For a search while a run adds to the index: "The index is still being built (40% done)", or ""."""
        if self.progress.control is None or self.progress.control is self.background.control:
            return ""
        fraction = self.progress.overall_fraction
        return "The index is still being built" + (f" ({fraction:.0%} done)" if fraction is not None else "")

    def _tab_shown(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if widget is self.review:
            self.review.refresh()
        elif widget is self.stats:
            self.stats.refresh()

    def _new_control(self) -> RunControl:
        control = RunControl()
        self._controls.add(control)
        self._runs_asked += 1
        return control

    def show_error(self, message: str) -> None:
        self.statusBar().showMessage(message)

    def closeEvent(self, event):  # noqa: N802 (Qt's name)
        """Quit within 2 s whatever runs: every run is cancelled (the model's call cut short), its workers get a
        second to reach a checkpoint; the app then ends the children any of them still waits on (AppSession)."""
        self.agents.stop()  # a client mid-call hears the app has gone (EndpointGone) and asks again elsewhere
        self.runner.close()
        QApplication.instance().removeEventFilter(self.background)
        self.follower.stop()
        self.lane.stop()  # a batch in hand is cut short; the runs waiting are not begun
        self.background.close()
        if self.progress.control is not None:
            self.progress.control.cancel()  # finished work is kept; the rest resumes next time
        for control in list(self._controls):
            control.cancel()
        self.runner.wait(QUIT_WAIT_MS)
        super().closeEvent(event)


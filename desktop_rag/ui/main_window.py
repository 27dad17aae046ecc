"""The main window: folders on the left, search / context review / stats in tabs, the progress panel below.

The window is a client of the data folder's service, the library's one writer (issue 49), as the quick popup and
the tray are: every write is a call the service carries out (ui/service_link.py), searches go through it, and
what the window shows of runs, of the LLM upgrade and of every change comes from the service's one event stream.
Reads in bulk (Review's rows, previews, folder counts) come from the catalog read in this process. Closing the
window closes only the window; the service goes on keeping the index fresh."""

from __future__ import annotations


import time
from dataclasses import asdict, fields, replace

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QDockWidget, QLabel, QMainWindow, QMessageBox, QPushButton,
                               QTabWidget)

from desktop_rag.config import Settings
from desktop_rag.core.damaged_catalog.health import catalog_damage
from desktop_rag.core.indexing.changes import Changes
from desktop_rag.errors import as_sentence
from desktop_rag.core.library.reads import FolderState
from desktop_rag.ui.background_view import BackgroundView
from desktop_rag.ui.errors import for_window
from desktop_rag.ui.folders_panel import FoldersPanel
from desktop_rag.ui.progress_panel import ProgressPanel
from desktop_rag.ui.review_panel import ReviewPanel
from desktop_rag.ui.search_panel import SearchPanel
from desktop_rag.ui.service_runs import ServiceRuns
from desktop_rag.ui.settings_dialog import SettingsDialog
from desktop_rag.ui.stats_panel import StatsPanel
from desktop_rag.ui.tasks import TaskRunner
from desktop_rag.ui.theme import icon
from desktop_rag.service import remote_library, wire
from desktop_rag.ui.service_link import ServiceLink


# The person's input reaches the service at most this often (with "only when idle" the upgrade makes way at once).
INPUT_NOTE_EVERY_S = 5.0
_INPUT_EVENTS = {QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.Wheel}
# Everything a view shows may have changed: a new service, or events missed.
EVERYTHING = Changes(documents=True, upgraded=True, folders=True, settings=frozenset(f.name for f in fields(Settings)))


class MainWindow(QMainWindow):
    data_folder_chosen = Signal(str)  # the person picked another data folder in the settings: the app opens it
    quit_requested = Signal()  # the tray's Quit: the app ends
    # What a write changed (core/indexing/changes.py), whoever made it: every view decides what to show.
    changed = Signal(object)

    def __init__(self, library: remote_library.RemoteLibrary, link: ServiceLink):
        """`library`: service/remote_library.py's RemoteLibrary; `link`: ui/service_link.py's ServiceLink."""
        super().__init__()
        self.library = library
        self.link = link
        self.runner = TaskRunner(self)
        self.setWindowTitle("desktop-rag")
        self.setWindowIcon(icon("app"))
        self._started = False
        self._input_noted_at = 0.0

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
        self.progress.finish("Starting the background service…")
        self.search.meaning_model_loading = True  # until the service has it loaded: keyword matches meanwhile

        self.runs = ServiceRuns(self.progress, self.send, self)
        self.settings_dialog: SettingsDialog | None = None  # the last opened: while open, it follows changes
        self.background = BackgroundView(library, self.runner, self.progress, self.send, self)
        self.background.changed.connect(
            lambda: self.progress.show_background(self.background.status_text(), self.background.action))
        self.progress.background_button.clicked.connect(self.background.act)
        self.folders.add_requested.connect(lambda folder: self.index([folder]))
        self.folders.remove_requested.connect(self.remove_folder)
        self.folders.rescan_requested.connect(lambda folder: self.index([folder]))
        self.folders.ocr_toggled.connect(self.set_folder_ocr)
        self.folders.upgrade_first_toggled.connect(self.set_upgrade_first)
        self.search.building_note = self.runs.building_note
        self.search.status.connect(self.statusBar().showMessage)
        self.review.status.connect(self.statusBar().showMessage)
        self.review.changed.connect(self.changed)
        self.changed.connect(self._follow_changes)
        self.runner.error.connect(self.show_error)
        self.tabs.currentChanged.connect(self._tab_shown)
        # The service's one state in its own words (service/activity.py), as the tray and `desktop-rag status` say it.
        self.state_label = QLabel()
        self.statusBar().addPermanentWidget(self.state_label)
        self.watching_label = QLabel()
        self.statusBar().addPermanentWidget(self.watching_label)
        self.service_label = QLabel()
        self.start_again_button = QPushButton("Start it again")
        self.start_again_button.hide()
        self.start_again_button.clicked.connect(self._start_again)
        self.rebuild_button = QPushButton("Rebuild from my folders")
        self.rebuild_button.hide()
        self.rebuild_button.clicked.connect(self._rebuild_damaged_catalog)
        self.statusBar().addPermanentWidget(self.service_label)
        self.statusBar().addPermanentWidget(self.start_again_button)
        self.statusBar().addPermanentWidget(self.rebuild_button)

        link.changed.connect(self.changed)
        link.run_state.connect(self._run_state)
        link.upgrade.connect(self.background.step)
        link.status.connect(self.background.show_status)
        link.status.connect(self._show_watching)
        link.applied.connect(self._applied)
        link.failed.connect(self.show_error)
        link.lost.connect(self._service_lost)
        link.back.connect(self._service_back)
        link.stopped.connect(self._service_stopped)
        link.read_only.connect(self._library_read_only)
        link.cannot_start.connect(self._service_cannot_start)
        link.missed.connect(lambda: self.changed.emit(EVERYTHING))
        link.quit_all.connect(self.quit_requested)
        link.answer.connect(self.search.asking.step)
        _application().installEventFilter(self)  # the person's input
        self.resize(1200, 800)
        QTimer.singleShot(0, self.focus_search)

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
        rescan = action("Re-scan all folders", self.rescan_all, "F5", "rescan")
        upgrade = action("Write LLM contexts now", self.upgrade_contexts, None, "upgrade")
        upgrade.setToolTip("Write the waiting LLM contexts now, whether or not the computer is idle")
        settings = action("Settings…", self.open_settings, "Ctrl+,", "settings")
        repair = action("Check and repair the indexes", lambda: self.send(wire.Repair()))
        repair.setToolTip("Compare both indexes with the catalog and rebuild from it what disagrees")
        quit_ = action("Quit", self.close, "Ctrl+Q")
        self.write_actions = (add, rescan, upgrade, repair)  # none can be done in a read-only library
        menu = self.menuBar().addMenu("&File")
        for act in (add, rescan, upgrade, repair, settings):
            menu.addAction(act)
        menu.addSeparator()
        menu.addAction(quit_)
        self.menuBar().addMenu("&Search").addAction(focus)
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("Main")
        for act in (add, rescan, upgrade, settings):
            toolbar.addAction(act)

    # -- the service ------------------------------------------------------------------------------------------

    def send(self, request: wire.Request, on_done=None) -> None:
        """A call to the service off the window's thread; a failure is said in the status line."""
        self.runner.write(lambda report: self.link.run(request), on_done=on_done)

    def _service_back(self, served_by: str) -> None:
        self.service_label.setText("")
        self.start_again_button.hide()
        self.rebuild_button.hide()
        if not self._started:  # the catalog is there once the service answers: the views can read it
            self._started = True
            self._start()
        else:
            self.statusBar().showMessage(f"The background service answers again ({served_by}).")
            self.library.follow_settings()
            self.changed.emit(EVERYTHING)

    def _show_watching(self, status: dict) -> None:
        self.state_label.setText(status.get("words") or "")
        n = status.get("watching") or 0
        self.watching_label.setText(f"Watching {n} folder{'s' if n != 1 else ''}" if n else "")

    def _applied(self, batch: dict) -> None:
        """The service applied a batch of file changes (saved, renamed, deleted)."""
        if not batch["words"]:
            return
        message = f"Updated from disk: {', '.join(batch['words'])}."
        self.statusBar().showMessage(message)
        if batch["failed"] and self.progress.control is None:
            self.progress.finish(message, [(f["path"], f["reason"]) for f in batch["failed"]])

    def _service_lost(self) -> None:
        self._runs_gone()
        self.service_label.setText("The background service stopped unexpectedly; starting it again…")

    def _service_stopped(self) -> None:
        self._runs_gone()
        self.service_label.setText("The background service was stopped: searching and indexing wait for it.")
        self.start_again_button.show()

    def _runs_gone(self) -> None:
        """Nothing answers: no state to show, and its runs are over (a killed one told no end: issue 60)."""
        self.state_label.clear()
        self.runs.service_gone()
        self._refresh_folders()

    def _service_cannot_start(self, why: str) -> None:
        self.state_label.clear()  # (nothing answers: no state to show)
        self.service_label.setText("The background service could not start: searching and indexing wait for it.")
        self.progress.finish(as_sentence(for_window(why).rstrip(".")) + "." if why else "The background service "
                             "could not start: logs/service.log in the data folder says why.")
        self.start_again_button.show()
        self.runner.read(lambda: catalog_damage(self.library.data_dir), on_done=self._offer_rebuild)

    def _offer_rebuild(self, damage: str | None) -> None:
        """A damaged catalog: starting again would end the same way; a new one made from the folders would not."""
        if damage:
            self.start_again_button.hide()
            self.rebuild_button.show()

    def _rebuild_damaged_catalog(self) -> None:
        answer = QMessageBox.question(
            self, "Rebuild the catalog from your folders?",
            "A new catalog is made and your folders are read again. Hand-edited and LLM contexts that can still be "
            "read are kept; the damaged catalog is kept too, in the data folder's “damaged” folder. Your files are "
            "not touched.")
        if answer == QMessageBox.StandardButton.Yes:
            self.rebuild_button.hide()
            self.service_label.setText("Making a new catalog; your folders are read again…")
            self.link.start_again(rebuild_damaged=True)

    def _library_read_only(self) -> None:
        """Searching, previews, stats and reading contexts work; what would write is not offered (issue 50)."""
        self.service_label.setText("Read-only library: searching works here; indexing, edits and the LLM upgrade "
                                   "need a data folder you may write.")
        for act in self.write_actions:
            act.setEnabled(False)
            act.setToolTip(f"{act.text()}: not in a read-only library")
        self.folders.set_read_only()
        self.review.set_read_only()
        self.background.read_only = True
        self.background.changed.emit()

    def _start_again(self) -> None:
        self.start_again_button.hide()
        self.service_label.setText("Starting the background service…")
        self.link.start_again()

    # -- start ----------------------------------------------------------------------------------------------

    def _start(self) -> None:
        self._refresh_folders()
        self._tab_shown(self.tabs.currentIndex())
        reads = self.library.reads
        seen = self.runs.seen
        self.runner.read(lambda: (reads.document_counts(), reads.failures()),
                         on_done=lambda state: self._report_state(state, overtaken=self.runs.seen != seen))
        self._load_embedding_model()
        self.background.begin()

    def _load_embedding_model(self) -> None:
        """The service loads it (seconds after its start): the first search matches keywords meanwhile."""
        self.search.meaning_model_loading = True
        self.runner.load(self.library.load_embedding_model, on_done=lambda _: self.search.meaning_model_ready(),
                         on_error=lambda message: (self.search.meaning_model_ready(), self.show_error(message)))

    def _report_state(self, state, overtaken: bool = False) -> None:
        """`overtaken`: a run's state came while this was read (a folder added at once): the panel is that run's,
        and its line must not be replaced by the state at start."""
        docs, failures = state
        if overtaken or self.progress.control is not None:
            return
        if not docs["indexed"] and not docs["failed"]:
            self.progress.finish("Nothing indexed yet: add a folder to start.")
        else:
            self.progress.finish(f"{docs['indexed']} files indexed, {docs['failed']} could not be read.", failures)

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

    def index(self, folders: list[str], contexts: str | None = None) -> None:
        """The service indexes them (a folder new to the library is watched from then on); its progress comes back
        on the event stream."""
        if folders:
            self.send(wire.Index(paths=list(folders), contexts=contexts))
            self._refresh_folders()

    def rescan_all(self) -> None:
        self.runner.read(self.library.reads.folders, on_done=self.index)

    def upgrade_contexts(self) -> None:
        """The person asked for the LLM contexts now: whatever the machine does (not only when idle)."""
        self.background.run_now()

    def remove_folder(self, folder: str) -> None:
        answer = QMessageBox.question(self, "Stop indexing this folder?",
                                      f"{folder}\n\nIts files stay where they are; they leave the index.")
        if answer == QMessageBox.StandardButton.Yes:
            self.statusBar().showMessage(f"Removing {folder} from the index…")
            self.runner.edit(lambda: self.library.remove_folder(folder),
                             on_done=lambda changes: self.statusBar().showMessage(
                                 f"Removed {folder} ({', '.join(changes.notes)}) from the index."))

    def open_settings(self) -> None:
        self.settings_dialog = dialog = SettingsDialog(self.library.settings, str(self.library.data_dir), self)
        if dialog.exec():  # what the person changed, over what changed elsewhere meanwhile; before another folder
            self.save_settings(replace(self.library.settings, **dialog.edited()))
            if dialog.chosen_data_dir() and dialog.chosen_data_dir() != str(self.library.data_dir):
                self.data_folder_chosen.emit(dialog.chosen_data_dir())

    def save_settings(self, chosen: Settings) -> None:
        if self.link.library_read_only:  # (the dialog still chooses another data folder)
            if chosen != self.library.settings:
                self.statusBar().showMessage("Settings not saved: this library is read-only.")
            return
        was_ocr = self.library.settings.ocr
        chosen_values = asdict(chosen)
        values = {k: v for k, v in chosen_values.items() if getattr(self.library.settings, k) != v}

        def saved(changes: Changes) -> None:
            message = "Settings saved."
            if {"ocr", "ocr_skip_folders"} & changes.settings and self.library.settings.ocr:
                # Scans and images left unread are read now, not at the next change of each file.
                self.rescan_all()
                message += " Scanned pages and images not read before are being read." if not was_ocr else ""
            if changes.notes:
                message += " " + for_window("; ".join(changes.notes)) + "."
            self.statusBar().showMessage(message)

        self.runner.edit(lambda: self.library.set_settings(values), on_done=saved)

    def set_folder_ocr(self, folder: str, on: bool) -> None:
        """A folder's scans and images read by OCR, or not (the ocr_skip_folders setting)."""
        skipped = [f for f in self.library.settings.ocr_skip_folders if f != folder] + ([] if on else [folder])
        self.save_settings(replace(self.library.settings, ocr_skip_folders=skipped))
        if on and not self.library.settings.ocr:
            self.statusBar().showMessage("OCR is turned off in Settings: no folder's scans are read.")

    def set_upgrade_first(self, folder: str, on: bool) -> None:
        """The LLM upgrade takes a folder's documents before all others, or no longer."""
        self.runner.edit(lambda: self.library.mark_upgrade_first(folder, on))

    # -- views ----------------------------------------------------------------------------------------------

    def _run_state(self, state: dict) -> None:
        if self.runs.show(state):
            self._refresh_folders()  # queued, begun, ended: the folders' marks

    def _follow_changes(self, changes: Changes) -> None:
        """Each view decides whether a write changed what it shows."""
        if changes.settings:
            self.library.follow_settings()  # as the service wrote them (another client's change included)
            self.background.changed.emit()
            if self.settings_dialog is not None and self.settings_dialog.isVisible():  # open: it shows them too
                self.settings_dialog.follow(self.library.settings)
        if changes.folders or changes.documents:
            self._refresh_folders()
        if changes.documents or changes.upgraded:
            self.background.count_waiting()
        if "embedding_model" in changes.settings:
            self._load_embedding_model()
        shown = self.tabs.currentWidget()
        if shown is self.stats and changes:
            self.stats.refresh()
        elif shown is self.review and (changes.documents or changes.upgraded):
            self.review.refresh()  # its own edits it shows itself, keeping the row in hand
        self.search.show_changes(changes)

    def _refresh_folders(self) -> None:
        if not self._started:
            return
        queued, running = self.runs.folders_in_hand

        def show(found) -> None:
            states, self.folders.upgrade_first = found
            self.folders.no_ocr = set(self.library.settings.ocr_skip_folders)
            known = {s.path for s in states}
            extra = [FolderState(f, 0, 0, 0) for f in sorted(queued | running.keys()) if f not in known]
            self.folders.show_states(states + extra, queued, running)
            self.search.set_folders([s.path for s in states])

        reads = self.library.reads
        self.runner.read(lambda: (reads.folder_states(), set(reads.upgrade_first_folders())), on_done=show)

    def _tab_shown(self, index: int) -> None:
        if not self._started:
            return
        widget = self.tabs.widget(index)
        if widget is self.review:
            self.review.refresh()
        elif widget is self.stats:
            self.stats.refresh()

    def show_error(self, message: str) -> None:
        self.statusBar().showMessage(for_window(message))  # (the service's words name commands)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """The person's input: the service hears of it (with "only when idle" its upgrade makes way)."""
        if event.type() in _INPUT_EVENTS and self._started:
            now = time.monotonic()
            if now - self._input_noted_at >= INPUT_NOTE_EVERY_S:
                self._input_noted_at = now
                self.runner.load(lambda: self.link.run(wire.NoteInput()), on_error=lambda message: None)
        return False

    def closeEvent(self, event):  # noqa: N802 (Qt's name)
        """Only the window closes (≤ 0.5 s): calls in flight are let go, the service goes on."""
        _application().removeEventFilter(self)
        self.background.close()
        self.runner.close()
        self.link.close()
        super().closeEvent(event)


def _application() -> QApplication:
    """The window's application (a window exists only inside one)."""
    application = QApplication.instance()
    assert isinstance(application, QApplication)
    return application

"""The progress panel: what runs, each phase's progress with rate and ETA, the file being worked on, per-file
errors with their reasons, and pause / resume / cancel."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QGridLayout, QHBoxLayout, QLabel, QProgressBar, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from desktop_rag.core.control import RunControl
from desktop_rag.core.indexing import PHASES, Progress
from desktop_rag.ui.theme import icon

PHASE_LABELS = {"scan": "Scan", "parse": "Parse", "contextualize": "Contexts", "embed": "Embed", "index": "Keywords"}
_RATE_WINDOW_S = 10.0  # rates follow the last seconds, not the whole run's average


class _PhaseRate:
    def __init__(self):
        self.samples: list[tuple[float, int]] = []

    def add(self, done: int, now: float) -> None:
        if self.samples and done < self.samples[-1][1]:
            self.samples = []  # the phase started over (the next batch of a run)
        self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[0][0] > _RATE_WINDOW_S:
            self.samples.pop(0)

    def per_second(self) -> float | None:
        if len(self.samples) < 2:
            return None
        (t0, d0), (t1, d1) = self.samples[0], self.samples[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 and d1 > d0 else None


def eta_text(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class ProgressPanel(QWidget):
    def __init__(self, parent: QWidget | None = None, clock=time.monotonic):
        super().__init__(parent)
        self._clock = clock
        self.control: RunControl | None = None
        self.title = QLabel("Ready.")
        self.title.setWordWrap(True)
        self.current = QLabel()
        self.current.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bars: dict[str, QProgressBar] = {}
        self.rates: dict[str, QLabel] = {}
        self._rate_samples: dict[str, _PhaseRate] = {}
        # One column per phase (label and rate above its bar): two rows of height for the whole pipeline.
        grid = QGridLayout()
        grid.setVerticalSpacing(2)
        for column, phase in enumerate(PHASES):
            bar = QProgressBar()
            bar.setRange(0, 1)
            bar.setValue(0)
            bar.setFormat("%v / %m")
            self.bars[phase] = bar
            self.rates[phase] = QLabel()
            # A role, not a style sheet colour: it follows the palette when the system turns light or dark.
            self.rates[phase].setForegroundRole(QPalette.ColorRole.PlaceholderText)
            heading = QHBoxLayout()
            heading.addWidget(QLabel(PHASE_LABELS[phase]))
            heading.addStretch(1)
            heading.addWidget(self.rates[phase])
            grid.addLayout(heading, 0, column)
            grid.addWidget(bar, 1, column)
        self.pause_button = QPushButton(icon("pause"), "Pause")
        self.cancel_button = QPushButton(icon("cancel"), "Cancel")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.cancel_button.clicked.connect(self.cancel)
        self.errors = QTreeWidget()
        self.errors.setHeaderLabels(["File", "Why it was not indexed"])
        self.errors.setRootIsDecorated(True)
        self.errors.setMaximumHeight(120)
        self.errors.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.title, 1)
        buttons.addWidget(self.pause_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.current)
        layout.addLayout(grid)
        layout.addWidget(self.errors)
        self._set_running(False)

    # -- a run ----------------------------------------------------------------------------------------------

    def start(self, title: str, control: RunControl) -> None:
        self.control = control
        self.title.setText(title)
        self.current.clear()
        for phase in PHASES:
            self.bars[phase].setRange(0, 1)
            self.bars[phase].setValue(0)
            self.rates[phase].clear()
        self._rate_samples = {phase: _PhaseRate() for phase in PHASES}
        self._set_running(True)

    def on_progress(self, progress: Progress) -> None:
        bar = self.bars.get(progress.phase)
        if bar is None:
            return
        if progress.total is None:
            bar.setRange(0, 0)  # unknown total: a busy bar
        else:
            bar.setRange(0, max(progress.total, 1))
            bar.setValue(min(progress.done, max(progress.total, 1)))
        if progress.path:
            self.current.setText(f"{PHASE_LABELS[progress.phase]}: {progress.path}")
        rate = self._rate_samples.setdefault(progress.phase, _PhaseRate())
        rate.add(progress.done, self._clock())
        per_second = rate.per_second()
        if per_second and progress.total and progress.total > 1:
            left = max(progress.total - progress.done, 0) / per_second
            self.rates[progress.phase].setText(f"{per_second:.1f}/s · {eta_text(left)} left")

    def finish(self, message: str, failures: list[tuple[str, str]] | None = None) -> None:
        """The run is over; `failures` replaces the error list (None keeps the one shown)."""
        self.title.setText(message)
        self.current.clear()
        if failures is not None:
            self.show_failures(failures)
        self._set_running(False)
        self.control = None

    def show_failures(self, failures) -> None:
        self.errors.clear()
        if not failures:
            self.errors.hide()
            return
        files = "1 file" if len(failures) == 1 else f"{len(failures)} files"
        top = QTreeWidgetItem([f"{files} could not be indexed", ""])
        for path, reason in failures:
            child = QTreeWidgetItem([path, reason])
            child.setToolTip(0, path)
            child.setToolTip(1, reason)
            top.addChild(child)
        self.errors.addTopLevelItem(top)
        top.setExpanded(len(failures) <= 20)
        self.errors.resizeColumnToContents(0)
        self.errors.show()

    # -- buttons --------------------------------------------------------------------------------------------

    def toggle_pause(self) -> None:
        if self.control is None:
            return
        if self.control.paused:
            self.control.resume()
            self.pause_button.setText("Pause")
            self.pause_button.setIcon(icon("pause"))
            self.title.setText(self.title.text().removesuffix(" (paused)"))
        else:
            self.control.pause()
            self.pause_button.setText("Resume")
            self.pause_button.setIcon(icon("resume"))
            self.title.setText(self.title.text() + " (paused)")

    def cancel(self) -> None:
        if self.control is not None:
            self.control.cancel()
            self.title.setText("Cancelling… finished work is kept.")

    def _set_running(self, running: bool) -> None:
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.pause_button.setText("Pause")
        self.pause_button.setIcon(icon("pause"))

"""The progress panel: what runs, one overall bar with its ETA and each phase below it with its count and rate,
the file being worked on (or what the run waits for: "Loading the language model…"), per-file errors with their
reasons, pause / resume / cancel; and a line on the background LLM upgrade: what waits, how long it would take,
what it is doing now, with its own button.

Numbers are written beside the bars, not on them: drawn on a narrow bar they ran over its edge."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QGridLayout, QHBoxLayout, QLabel, QProgressBar, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from desktop_rag.core.indexing.report import PHASE_WORDS, PHASES, WORK_ON_NO_FILE, Progress
from desktop_rag.core.progress.control import RunControl
from desktop_rag.documents import duration_words, folder_and_name, share_words
from desktop_rag.ui.theme import icon

# Rates and the ETA are smoothed over about this long: enough to ride out a big file, short enough to follow a
# change of phase.
_SMOOTHING_S = 20.0
_SHOW_ETA_AFTER_S = 5.0  # before that the first measurements say little
# A run without an estimate of its own (the LLM upgrade) is judged by its rate alone, whose first steps (a short
# document, a cached prefix) run far faster than the average: a minute of it before saying how long.
_SHOW_RATE_ETA_AFTER_S = 60.0
_BAR_STEPS = 1000


class Smoothed:
    """A rate of progress (units per second), exponentially smoothed over time; None until measured."""

    def __init__(self, time_constant_s: float = _SMOOTHING_S):
        self.time_constant_s = time_constant_s
        self.rate: float | None = None
        self._last: tuple[float, float] | None = None

    def add(self, done: float, now: float) -> None:
        if self._last is not None and done < self._last[1]:
            self._last, self.rate = None, None  # started over
        if self._last is None:
            self._last = (now, done)
            return
        elapsed = now - self._last[0]
        if elapsed < 0.5:  # updates come in bursts; a rate over milliseconds means nothing
            return
        instant = (done - self._last[1]) / elapsed
        weight = min(1.0, elapsed / self.time_constant_s)
        self.rate = instant if self.rate is None else self.rate + weight * (instant - self.rate)
        self._last = (now, done)


def _count(n: int) -> str:
    return f"{n:,}"


class ProgressPanel(QWidget):
    def __init__(self, parent: QWidget | None = None, clock=time.monotonic):
        super().__init__(parent)
        self._clock = clock
        self.control: RunControl | None = None
        self._on_pause: Callable[[], None] | None = None
        self._on_cancel: Callable[[], None] | None = None
        self._started_at = 0.0
        self.title = QLabel("Ready.")
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # file names: shown, never read as markup
        self.title.setWordWrap(True)
        self.current = QLabel()
        self.current.setTextFormat(Qt.TextFormat.PlainText)
        self.current.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.overall = QProgressBar()
        self.overall.setRange(0, _BAR_STEPS)
        self.overall.setTextVisible(False)
        self.overall_label = QLabel()
        self._overall_rate = Smoothed()
        self.bars: dict[str, QProgressBar] = {}
        self.counts: dict[str, QLabel] = {}
        self._rates: dict[str, Smoothed] = {}
        # One column per phase (name, count and rate above a thin bar): two rows of height for the whole pipeline.
        grid = QGridLayout()
        grid.setVerticalSpacing(2)
        for column, phase in enumerate(PHASES):
            bar = QProgressBar()
            bar.setRange(0, 1)
            bar.setValue(0)
            bar.setTextVisible(False)
            bar.setMaximumHeight(8)
            self.bars[phase] = bar
            self.counts[phase] = QLabel()
            # A role, not a style sheet colour: it follows the palette when the system turns light or dark.
            self.counts[phase].setForegroundRole(QPalette.ColorRole.PlaceholderText)
            heading = QHBoxLayout()
            heading.setSpacing(8)  # ("Keyword search10,357 / 10,357" ran together in a narrow column)
            heading.addWidget(QLabel(PHASE_WORDS[phase]))
            heading.addStretch(1)
            heading.addWidget(self.counts[phase])
            grid.addLayout(heading, 0, column)
            grid.addWidget(bar, 1, column)
        self.pause_button = QPushButton(icon("pause"), "Pause")
        self.cancel_button = QPushButton(icon("cancel"), "Cancel")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.cancel_button.clicked.connect(self.cancel)
        self.errors = QTreeWidget()
        self.errors.setHeaderLabels(["File", "Why it was not read", "Folder"])
        self.errors.setRootIsDecorated(True)
        self.errors.setMaximumHeight(120)
        self.errors.hide()
        self.background = QLabel()
        self.background.setWordWrap(True)
        self.background_button = QPushButton()
        self.background_button.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.title, 1)
        buttons.addWidget(self.pause_button)
        buttons.addWidget(self.cancel_button)
        overall = QHBoxLayout()
        overall.addWidget(self.overall, 1)
        overall.addWidget(self.overall_label)
        background = QHBoxLayout()
        background.addWidget(self.background, 1)
        background.addWidget(self.background_button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.current)
        layout.addLayout(overall)
        layout.addLayout(grid)
        layout.addWidget(self.errors)
        layout.addLayout(background)
        self._set_running(False)

    # -- a run ----------------------------------------------------------------------------------------------

    def start(self, title: str, control: RunControl, on_pause: Callable[[], None] | None = None,
              on_cancel: Callable[[], None] | None = None) -> None:
        """`on_pause` / `on_cancel`: what the buttons do instead of pausing or cancelling `control` (the
        background upgrade remembers a pause, and makes way rather than holding the write lane while paused)."""
        self.control = control
        self._on_pause, self._on_cancel = on_pause, on_cancel
        self._started_at = self._clock()
        self.title.setText(title)
        self.current.clear()
        self.overall.setRange(0, 0)  # busy until the run knows its share: a run taking over kept work is not at 0%
        self.overall_label.setText("starting…")
        self._overall_rate = Smoothed()
        self.clear_phases()
        self._set_running(True)

    def clear_phases(self) -> None:
        for phase in PHASES:
            self.bars[phase].setRange(0, 1)
            self.bars[phase].setValue(0)
            self.counts[phase].clear()
        self._rates = {phase: Smoothed() for phase in PHASES}

    def on_progress(self, progress: Progress) -> None:
        bar = self.bars.get(progress.phase)
        if bar is None:
            return
        now = self._clock()
        if progress.total is None:
            bar.setRange(0, 0)  # unknown total: a busy bar
            # A count with no total is what is there so far (files found, passages keyword-searchable while the
            # index is made again): a bare "Keyword search 1" read as a total of one (issue 60).
            self.counts[progress.phase].setText(f"{_count(progress.done)} so far" if progress.done else "")
        else:
            bar.setRange(0, max(progress.total, 1))
            bar.setValue(min(progress.done, max(progress.total, 1)))
            rate = self._rates.setdefault(progress.phase, Smoothed())
            rate.add(progress.done, now)
            # A finished phase has no rate: told again with each state, its count standing still, the rate decayed
            # ("Reading 484 / 484 · 3.8/s" a minute after the last file was read).
            per_second = f" · {rate.rate:.1f}/s" if rate.rate and progress.done < progress.total else ""
            self.counts[progress.phase].setText(f"{_count(progress.done)} / {_count(progress.total)}{per_second}")
        if progress.note:
            self.current.setText(progress.note)
        elif progress.path:
            self.current.setText(f"{PHASE_WORDS[progress.phase]}: {progress.path}")
        elif progress.phase in WORK_ON_NO_FILE:  # not the last file read, shown for the whole of embedding
            self.current.setText(WORK_ON_NO_FILE[progress.phase])
        self._show_overall(progress, now)

    def _show_overall(self, progress: Progress, now: float) -> None:
        """The run's own estimate when it gives one (an indexing run), else the phase's share (an upgrade)."""
        fraction = progress.overall
        if fraction is None and progress.total and progress.phase != "scan":  # (files listed: not work done)
            fraction = progress.done / progress.total
        if fraction is None:
            self.overall.setRange(0, 0)
            self.overall_label.setText("")
            return
        self.overall.setRange(0, _BAR_STEPS)
        self.overall.setValue(round(min(max(fraction, 0.0), 1.0) * _BAR_STEPS))
        self._overall_rate.add(fraction, now)
        text = share_words(fraction)
        left = progress.seconds_left
        if left is None and self._overall_rate.rate:
            left = (1.0 - fraction) / self._overall_rate.rate
        wait = _SHOW_ETA_AFTER_S if progress.overall is not None else _SHOW_RATE_ETA_AFTER_S
        paused = self.control is not None and self.control.paused  # (a paused run's time left is no time)
        if left is not None and now - self._started_at >= wait and fraction < 1.0 and not paused:
            text += f" · about {duration_words(left)} left"
        self.overall_label.setText(text)

    @property
    def overall_fraction(self) -> float | None:
        """How far the run in hand is (None: no run, or not known yet)."""
        if self.control is None or self.overall.maximum() == 0:
            return None
        return self.overall.value() / _BAR_STEPS

    def finish(self, message: str, failures: list[tuple[str, str]] | None = None) -> None:
        """The run is over; `failures` replaces the error list (None keeps the one shown)."""
        self.title.setText(message)
        self.current.clear()
        self.overall_label.clear()
        if failures is not None:
            self.show_failures(failures)
        self._set_running(False)
        self.control = None
        self._on_pause = self._on_cancel = None

    def show_failures(self, failures) -> None:
        self.errors.clear()
        if not failures:
            self.errors.hide()
            return
        files = "1 file" if len(failures) == 1 else f"{len(failures)} files"
        top = QTreeWidgetItem([f"{files} could not be read (found by name only)", ""])
        for path, reason in failures:
            folder, name = folder_and_name(path)  # the name first: a narrow panel cut full paths before it
            child = QTreeWidgetItem([name, reason, folder])
            child.setToolTip(0, path)
            child.setToolTip(1, reason)
            child.setToolTip(2, folder)
            top.addChild(child)
        self.errors.addTopLevelItem(top)
        top.setFirstColumnSpanned(True)  # the group's line is as wide as the list, not cut at the name's column
        top.setExpanded(len(failures) <= 20)
        self._fit_columns()
        self.errors.show()

    def _fit_columns(self) -> None:
        """The names and the reasons as wide as they are, each at least its heading ("Why it was not r") and at
        most a third of the list: a reason cut there has its whole in its tooltip; the folder takes the rest."""
        header = self.errors.header()
        metrics = header.fontMetrics()
        widest = max(self.errors.viewport().width() // 3, 160)
        for column in (0, 1):
            heading = metrics.horizontalAdvance(self.errors.headerItem().text(column)) + 24
            contents = self.errors.sizeHintForColumn(column) + (self.errors.indentation() if column == 0 else 0)
            self.errors.setColumnWidth(column, max(heading, min(contents + 8, widest)))

    def show_background(self, text: str, action: str | None) -> None:
        """The background LLM upgrade's line and its button ("Pause", "Resume", "Start"; None hides it)."""
        self.background.setText(text)
        self.background_button.setVisible(bool(action) and bool(text))  # hidden while the upgrade runs
        if action and self.background_button.text() != action:
            self.background_button.setText(action)
            self.background_button.setIcon(icon("resume" if action in ("Resume", "Start") else "pause"))

    # -- buttons --------------------------------------------------------------------------------------------

    def toggle_pause(self) -> None:
        if self.control is None:
            return
        if self._on_pause is not None:
            self._on_pause()
            return
        if self.control.paused:
            self.control.resume()
        else:
            self.control.pause()  # a model call in hand is cut short: the run holds within a second
        self.show_paused(self.control.paused)

    def show_paused(self, paused: bool) -> None:
        """The button offers what the run is not, whoever paused it (the window, the tray, an agent)."""
        self.pause_button.setText("Resume" if paused else "Pause")
        self.pause_button.setIcon(icon("resume" if paused else "pause"))
        title = self.title.text().removesuffix(" (paused)")
        self.title.setText(title + " (paused)" if paused else title)

    def cancel(self) -> None:
        if self.control is None:
            return
        if self._on_cancel is not None:
            self._on_cancel()
            return
        self.control.cancel()
        self.title.setText("Cancelling… finished work is kept.")

    def _set_running(self, running: bool) -> None:
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.pause_button.setText("Pause")
        self.pause_button.setIcon(icon("pause"))
        self.overall.setVisible(running)
        self.overall_label.setVisible(running)

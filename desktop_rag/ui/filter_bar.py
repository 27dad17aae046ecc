"""The row under the search field: where (an indexed folder), what kind (type chips that show how many documents of
each kind the current query finds), when (presets or a range), the order of the results; and the query's own
filter words (`type:pdf`) shown back as chips that remove themselves from the query when clicked."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QDate, Qt, Signal
from PySide6.QtWidgets import QComboBox, QDateEdit, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop_rag.core.search.filters import FAMILIES, SearchFilters, folder_label, make_filters
from desktop_rag.ui.flow_layout import FlowLayout

DATE_PRESETS = (("Any time", None), ("Past week", "week"), ("Past month", "month"), ("Past year", "year"),
                ("Between…", "range"))
SORTS = (("Relevance", "relevance"), ("Newest first", "newest"), ("Oldest first", "oldest"))


class FilterBar(QWidget):
    changed = Signal()
    remove_query_filter = Signal(str, str)  # (key, value) of a filter word to take out of the query

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.folder = QComboBox()
        self.folder.setToolTip("Only files under this folder")
        self.set_folders([])
        self.type_chips: dict[str, QToolButton] = {}
        chips = FlowLayout()  # (wraps on a narrow window: one row of nine made the window 1,270 px wide)
        for family in FAMILIES:
            # As wide from the start as with the widest count it shows: chips that grew as their counts came in
            # moved under the pointer and widened the window (issue 37).
            chip = QToolButton(text=_shown(_with_count(family.label, MAX_SHOWN_COUNT + 1)),  # type: ignore[call-arg]
                               checkable=True, autoRaise=True)  # (Qt's properties as keywords: not in its stubs)
            chip.setMinimumWidth(chip.sizeHint().width())
            chip.setText(_shown(family.label))
            chip.setToolTip(f"Only {family.label.lower()} (type:{family.name})")
            chip.toggled.connect(lambda _: self.changed.emit())
            self.type_chips[family.name] = chip
            chips.addWidget(chip)
        self.dates = QComboBox()
        for label, value in DATE_PRESETS:
            self.dates.addItem(label, value)
        self.dates.setToolTip("A mail's sent date, any other file's last change")
        self.date_from, self.date_to = QDateEdit(), QDateEdit()
        for box in (self.date_from, self.date_to):
            box.setCalendarPopup(True)
        today = QDate.currentDate()
        self.date_from.setDate(today.addMonths(-1))
        self.date_to.setDate(today)
        for edit in (self.date_from, self.date_to):
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setVisible(False)
            edit.dateChanged.connect(lambda _: self.changed.emit())
        self.sort = QComboBox()
        for label, value in SORTS:
            self.sort.addItem(label, value)
        self.query_chips = QHBoxLayout()  # the query's own filter words
        self.query_chips.setSpacing(4)

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.folder, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(chips, 1)
        sort_label = QLabel("Sort:")
        sort_label.setMinimumHeight(self.sort.sizeHint().height())  # (its words level with the box's)
        for widget in (self.dates, self.date_from, self.date_to, sort_label, self.sort):
            row.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)  # (beside the chips' first row when they wrap)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addLayout(self.query_chips)

        self.folder.currentIndexChanged.connect(lambda _: self.changed.emit())
        self.dates.currentIndexChanged.connect(self._date_preset_chosen)
        self.sort.currentIndexChanged.connect(lambda _: self.changed.emit())

    # -- what is chosen -------------------------------------------------------------------------------------

    def filters(self) -> SearchFilters:
        folder = self.folder.currentData()
        preset = self.dates.currentData()
        after = before = None
        if preset == "range":
            after, before = _iso(self.date_from.date()), _iso(self.date_to.date())
        elif preset:
            after = preset
        return make_filters(folders=[folder] if folder else [],
                            types=[name for name, chip in self.type_chips.items() if chip.isChecked()],
                            after=after, before=before)

    def sort_order(self) -> str:
        return self.sort.currentData()

    def set_folders(self, folders: list[str]) -> None:
        """The indexed folders to choose from; the chosen one stays chosen while it is still there."""
        chosen = self.folder.currentData()
        self.folder.blockSignals(True)
        self.folder.clear()
        self.folder.addItem("All folders", None)
        for folder in folders:
            self.folder.addItem(folder_label(folder), folder)
        self.folder.setCurrentIndex(max(0, self.folder.findData(chosen)) if chosen else 0)
        self.folder.blockSignals(False)

    def choose_folder(self, folder: str | None) -> None:
        self.folder.setCurrentIndex(max(0, self.folder.findData(folder)) if folder else 0)

    def _date_preset_chosen(self) -> None:
        custom = self.dates.currentData() == "range"
        self.date_from.setVisible(custom)
        self.date_to.setVisible(custom)
        self.changed.emit()

    # -- what the query found ---------------------------------------------------------------------------------

    def show_facets(self, counts: dict[str, int] | None) -> None:
        """Each type chip with the number of documents of that kind among the query's candidates."""
        for family in FAMILIES:
            chip = self.type_chips[family.name]
            count = (counts or {}).get(family.name)
            chip.setText(_shown(_with_count(family.label, count) if count else family.label))

    def show_query_filters(self, words: list[tuple[str, str]]) -> None:
        """The query's filter words as chips; clicking one takes it out of the query."""
        while self.query_chips.count():
            item = self.query_chips.takeAt(0)
            if item is not None and (widget := item.widget()) is not None:
                widget.deleteLater()
        for key, value in words:
            chip = QToolButton()
            chip.setText(f"{key}:{value}  ✕")
            chip.setToolTip("Remove this filter from the query")
            chip.clicked.connect(lambda _=False, k=key, v=value: self.remove_query_filter.emit(k, v))
            self.query_chips.addWidget(chip)
        if words:
            self.query_chips.addStretch(1)

    def query_chip_texts(self) -> list[str]:
        items = [self.query_chips.itemAt(i) for i in range(self.query_chips.count())]
        return [widget.text() for item in items
                if item is not None and isinstance(widget := item.widget(), QToolButton)]


MAX_SHOWN_COUNT = 999


def _with_count(label: str, count: int) -> str:
    return f"{label} {count if count <= MAX_SHOWN_COUNT else f'{MAX_SHOWN_COUNT}+'}"


def _shown(label: str) -> str:
    return label.replace("&", "&&")  # a button takes "&" for the underlined letter of its shortcut


def _iso(date: QDate) -> str:
    return dt.date(date.year(), date.month(), date.day()).isoformat()

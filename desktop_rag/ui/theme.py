"""Light or dark colours for rich text, following the system palette, and the app's icons from resources/."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon, QPalette

from desktop_rag.ui.result_html import DARK, LIGHT, Colors

ICONS = Path(__file__).resolve().parent / "icons"


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def colors_for(palette: QPalette) -> Colors:
    return DARK if is_dark(palette) else LIGHT


def icon(name: str) -> QIcon:
    return QIcon(str(ICONS / f"{name}.svg"))

"""What a person can do with a hit (its right-click menu, and keys in the result list): open it, open the folder
that holds it, copy its path, text or context, and search for passages like it."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from desktop_rag.core.search.searcher import Hit
from desktop_rag.platform import opening
from desktop_rag.documents import MEMBER_SEPARATOR, folder_and_name
from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.ui.errors import sentences
from desktop_rag.ui.tasks import TaskRunner


def containing_folder(hit: Hit) -> str:
    """The folder on disk that holds the hit's file (for a document inside an archive or a mailbox: the folder of
    that file)."""
    return str(Path(hit.path.partition(MEMBER_SEPARATOR)[0]).parent)


def open_with_system(url: QUrl, on_failed: Callable[[], None] = lambda: None) -> None:
    """`url` (a file, a folder) in the program the system has for it (platform/opening.py), else as Qt opens it.
    `on_failed` is called from another thread (emit a signal)."""
    target = url.toLocalFile() if url.isLocalFile() and not url.hasFragment() else url.toString()
    if not opening.open_target(target, on_failed) and not QDesktopServices.openUrl(url):
        on_failed()


def open_in_system_viewer(path: str, page: int | None, on_failed=lambda: None) -> None:
    """A hit's file at its page where the viewer takes one (a PDF's #page=N)."""
    url = QUrl.fromLocalFile(path)
    if page and path.lower().endswith(".pdf"):
        url.setFragment(f"page={page}")  # honoured by browsers and most PDF viewers
    open_with_system(url, on_failed)


def not_opened_words(name: str) -> str:
    """What the window and the quick popup say when no program on this computer took what Open asked for."""
    return (f"No program on this computer opened {name}: install one for this kind of file, or open its folder "
            "(Ctrl+Enter) and open it from there.")


def open_folder_in_file_manager(folder: str, on_failed: Callable[[], None] = lambda: None) -> None:
    open_with_system(QUrl.fromLocalFile(folder), on_failed)


def copy_to_clipboard(text: str) -> None:
    QGuiApplication.clipboard().setText(text)


def hit_menu(parent: QWidget, hit: Hit, open_hit, open_folder, find_similar, unfold=None, folded: int = 0) -> QMenu:
    """The menu of one hit. `open_hit()`, `open_folder(folder)`, `find_similar(hit)` and `unfold()` (the `folded`
    passages of its document under it) are the panel's."""
    menu = QMenu(parent)
    menu.addAction("Open", open_hit).setShortcut("Return")
    menu.addAction("Open containing folder", lambda: open_folder(containing_folder(hit))).setShortcut("Ctrl+Return")
    if unfold is not None:
        menu.addAction(f"Show {folded} more passage{'s' if folded > 1 else ''} in this file", unfold)
    menu.addSeparator()
    menu.addAction("Copy path", lambda: copy_to_clipboard(hit.path))
    menu.addAction("Copy text", lambda: copy_to_clipboard(hit.text))
    context = menu.addAction("Copy context", lambda: copy_to_clipboard(hit.context))
    context.setEnabled(bool(hit.context))
    menu.addSeparator()
    menu.addAction("Search for similar passages", lambda: find_similar(hit))
    return menu


def open_hit_file(hit: Hit, library: RemoteLibrary, runner: TaskRunner, say: Callable[[str], None],
                  open_file: Callable[[str, int | None], None]) -> None:
    """The hit's file in the system's viewer (`open_file(path, page)`); a document inside a file (an archive
    member, an attachment) is taken out to a copy first, on the read lane (a big archive must not hold the
    window). `say`: a line for the person ("" clears it)."""
    library.note_opened(hit.chunk_id)  # its LLM contexts come sooner (a note on another thread)

    def opened(path) -> None:
        say("")
        if Path(path).exists():
            open_file(str(path), hit.page)
        else:
            say(f"{hit.path} is no longer there; re-scan its folder.")

    if MEMBER_SEPARATOR not in hit.path:  # a file on disk: opened at once
        opened(hit.path)
        return
    say(f"Taking {folder_and_name(hit.path)[1]} out of its file…")
    runner.read(lambda: library.openable_path(hit.path), on_done=opened,
                on_error=lambda message: say(sentences([message])))

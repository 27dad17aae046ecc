"""A hit shown inside its document: the text around it, the chunk set apart, its context above, the query's words
marked; read, marked and made into rich text on the task runner's read lane (ui/tasks.py), so a long document
never holds the window. The search view's preview and the review view's both."""

from __future__ import annotations


from PySide6.QtWidgets import QTextBrowser

from desktop_rag.core.search.highlight import QueryMatch
from desktop_rag.ui.result_html import Colors, preview_html
from desktop_rag.ui.theme import colors_for
from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.ui.tasks import TaskRunner



def show_in_document(browser: QTextBrowser, runner: TaskRunner, library: RemoteLibrary, chunk_id: int,
                     match: QueryMatch | None,
                     context: str = "", context_source: str = "", fallback: str = "", questions: str = "",
                     colors: Colors | None = None) -> None:
    """The chunk inside its document text in `browser`, scrolled to it, the words of `match` marked (None: none).
    The document is read and its marks found on the runner's read lane (a long document must not hold the
    window); `fallback` is shown if the catalog no longer has it."""
    # Taken now, on the window's thread: the page is made on the read lane. The caller's own, when it has them:
    # as the system turns dark, the view hears of it before its preview's palette has changed.
    colors = colors or colors_for(browser.palette())
    # The passage itself at once, until its document is read: on a busy machine the read lane took seconds, and
    # meanwhile the preview showed the previous hit's document beside the new hit selected (tried on three public
    # repositories while they were indexed).
    browser.setPlainText(fallback)

    def read():
        located = library.reads.chunk_in_document(chunk_id)
        if located is None:
            return None
        text, start, end = located
        return preview_html(text, start, end, match, colors, context, context_source, questions)

    def show(page: str | None) -> None:
        if page is None:
            browser.setPlainText(fallback)
            return
        browser.setHtml(page)
        browser.scrollToAnchor("hit")

    runner.read(read, on_done=show)


def with_matches(rows: dict[int, dict], match: QueryMatch | None) -> dict[int, dict]:
    """Contexts read anew, each with where the shown query's words are in it (found off the window's thread; an
    empty list where none are: the old marks go)."""
    for row in rows.values():
        found = match.matches_in(context=row["text"], questions=row["questions"] or "") if match else {}
        row["matches"] = {"context": found.get("context", []), "questions": found.get("questions", [])}
    return rows

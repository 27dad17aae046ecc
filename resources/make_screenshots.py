"""Render the app's main views to resources/screenshots/ (offscreen, no display needed).

    .venv/bin/python resources/make_screenshots.py [--scans-only | --mail-only | --filters-only | --answer-only |
                                                    --no-progress]

Indexes the bundled samples (plus one corrupt file, to show an error) into a throw-away data folder with rules
contexts, then captures: search results with a preview, context review with a chunk selected, stats, the settings
dialog, and the search again after the palette turned dark (as when the system switches while the app runs).
Then, in a second data folder, the progress panel halfway through a first indexing (the samples and 300 notes),
and while the packaged 1.5B model writes LLM contexts in the background (a few minutes: it loads, then a step
or two is measured so that the rate and the time left show). And a search whose hit is a scanned page read by OCR
(a lease and a receipt rendered as scans by tests/documents.py), alone with --scans-only. A mailbox and an
archive searched (--mail-only); the same folder narrowed by the filter bar and a filter word, with a hit's menu
open, light and dark (--filters-only). A question answered from the samples, a marker's passage selected
(--answer-only). --no-progress leaves the two progress screenshots (the slow part) as they
are.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the scans the tests make

from PySide6.QtCore import QEventLoop, QPoint, QTimer, QUrl  # noqa: E402
from PySide6.QtGui import QColor, QPainter, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_rag.config import Settings  # noqa: E402
from desktop_rag.service.background_process import stop_answering  # noqa: E402
from desktop_rag.ui.app import AppSession  # noqa: E402
from desktop_rag.ui.main_window import MainWindow  # noqa: E402
from desktop_rag.ui.result_html import DARK, LIGHT  # noqa: E402
from desktop_rag.ui.settings_dialog import SettingsDialog  # noqa: E402

OUT = ROOT / "resources" / "screenshots"


def wait_until(app: QApplication, condition, timeout_s: float = 300) -> None:
    loop_timer = QTimer()
    waited = 0.0
    while not condition():
        loop = QEventLoop()
        loop_timer.singleShot(100, loop.quit)
        loop.exec()
        waited += 0.1
        if waited > timeout_s:
            raise TimeoutError("the app did not get there in time")
    app.processEvents()


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in (("Window", "#202124"), ("WindowText", "#e8eaed"), ("Base", "#292a2d"),
                         ("AlternateBase", "#303134"), ("Text", "#e8eaed"), ("Button", "#303134"),
                         ("ButtonText", "#e8eaed"), ("Highlight", "#3a4d73"), ("HighlightedText", "#ffffff"),
                         ("ToolTipBase", "#303134"), ("ToolTipText", "#e8eaed"), ("PlaceholderText", "#9aa0a6")):
        palette.setColor(getattr(QPalette.ColorRole, role), QColor(colour))
    for role in ("WindowText", "Text", "ButtonText"):
        palette.setColor(QPalette.ColorGroup.Disabled, getattr(QPalette.ColorRole, role), QColor("#6f7378"))
    return palette


def progress_screenshots(app: QApplication, tmp: Path) -> None:
    docs = tmp / "Notes"
    shutil.copytree(ROOT / "resources" / "samples", docs)
    (docs / "scan-0042.pdf").write_bytes(b"%PDF-1.4 truncated by a failed download")
    topics = ["boiler service", "garden compost", "tax return", "bicycle chain", "sourdough starter", "router setup"]
    for i in range(300):
        topic = topics[i % len(topics)]
        (docs / f"note-{i:03d}.md").write_text(
            f"# {topic.title()} {i}\n\n" + f"Notes on the {topic}, part {i}: what was done, what is left. " * 40)
    session = opened(tmp / "progress-data", Settings(contexts="rules", llm_upgrade_when_idle=False,
                                                     llm_only_when_idle=False))
    window = session.window
    window.folders.add_requested.emit(str(docs))
    wait_until(app, lambda: (window.progress.overall_fraction or 0) >= 0.35, timeout_s=900)
    window.progress.grab().save(str(OUT / "progress.png"))
    wait_until(app, lambda: window.progress.title.text().startswith("Done"), timeout_s=900)
    window.background.start()  # with the packaged 1.5B model, as a person's laptop would run it when idle
    # A few minutes of it, so that the rate and the time left are measured ones.
    wait_until(app, lambda: window.background.control is not None and "left" in window.progress.overall_label.text()
               and "writing now" in window.progress.background.text(), timeout_s=1800)
    window.progress.grab().save(str(OUT / "progress-upgrade.png"))
    window.close()
    ended(session)


def opened(data_dir: Path, settings: Settings) -> AppSession:
    """The window as a person opens it: a client of the data folder's service, which it starts."""
    settings.save(data_dir)
    session = AppSession(data_dir)
    session.window.resize(1280, 820)
    session.window.show()
    wait_until(QApplication.instance(), lambda: session.window._started)
    return session


def ended(session: AppSession) -> None:
    session.window.close()
    session.close()
    stop_answering(session.library.data_dir, wait_s=30)


def indexed_and_searched(app: QApplication, data_dir: Path, docs: Path, query: str,
                         settings: Settings | None = None) -> tuple[AppSession, MainWindow]:
    """A window over a new library (rules contexts) that has indexed `docs` and shows the hits for `query`."""
    session = opened(data_dir, settings or Settings(contexts="rules", llm_upgrade_when_idle=False))
    window = session.window
    window.folders.add_requested.emit(str(docs))
    wait_until(app, lambda: window.progress.title.text().startswith("Done"))
    wait_until(app, lambda: not window.search.meaning_model_loading)
    window.search.query.setText(query)
    window.search.search_now()
    wait_until(app, lambda: bool(window.search.hits))
    return session, window


def scan_screenshots(app: QApplication, tmp: Path) -> None:
    from documents import scanned_image, write_scanned_pdf

    docs = tmp / "Scans"
    docs.mkdir()
    write_scanned_pdf(docs / "lease-harbor-lofts.pdf", [
        ("Lease agreement between Harbor Lofts Ltd and Mina Okafor for flat 4B, 12 Quay Street.", False),
        ("2. Rent. The monthly rent is 1,450 euros, due on the first day of each month. Late payment carries "
         "interest of 2% a month. 3. Pets. No pets may be kept in the flat without written consent.", False)])
    scanned_image("CORNER BAKERY\nSourdough loaf 4.20\nCroissant x2 3.60\nOat latte 3.90\nTOTAL 11.70",
                  width_pt=220, height_pt=300, fontsize=11).save(docs / "receipt-2026-03-14.png")
    session, window = indexed_and_searched(app, tmp / "scan-data", docs, "monthly rent late payment")
    wait_until(app, lambda: "monthly rent" in window.search.preview.toPlainText())
    window.grab().save(str(OUT / "search-scan.png"))
    window.close()
    ended(session)


def answer_screenshots(app: QApplication, tmp: Path) -> None:
    """A question asked in the window and answered by the packaged 1.5B: the answer citing its passages, the
    evidence under it, the cited passage selected with the sentence's words marked in the preview."""
    docs = tmp / "Answers"
    shutil.copytree(ROOT / "resources" / "samples", docs)
    session, window = indexed_and_searched(app, tmp / "answer-data", docs, "late payment interest")
    panel = window.search
    panel.query.setText("How much interest is charged on a late payment?")
    panel.ask_now()
    wait_until(app, lambda: panel.answer.shown is not None and panel.answer.shown.state in ("ended", "stopped"),
               timeout_s=600)
    sentences = panel.answer.shown.sentences
    if sentences and sentences[0]["cites"]:
        panel.answer.anchorClicked.emit(QUrl(f"cite:0:{sentences[0]['cites'][0]}"))  # as its marker's click
    wait_until(app, lambda: LIGHT.mark_background in panel.preview.toHtml())  # the document read, words marked
    window.grab().save(str(OUT / "ask.png"))
    ended(session)


def write_mail_folder(tmp: Path) -> Path:
    """A mailbox (Thunderbird's "Inbox", no extension) with an attachment, a note, and an archive."""
    from documents import write_pdf
    from office_documents import message, write_mbox, write_zip

    docs = tmp / "Mail"
    docs.mkdir()
    fees = write_pdf(tmp / "harbour-fees-2026.pdf", [
        "Harbour fees 2026\n\nBerths up to 10 m: 1,240 euros a season. Visitor moorings: 28 euros a night, paid at "
        "the harbour office. The fee for winter storage on land rises to 610 euros from 1 April."]).read_bytes()
    write_mbox(docs / "Inbox", [
        message("Harbour fees for next season", "Hi Ben,\n\nthe harbour board has set next season's fees: the "
                "berth fee stays as it was, winter storage goes up in April. The table is attached.\n\nMina",
                sender="Mina Okafor <mina@harbourclub.example>", to="Ben Holm <ben@example.org>",
                date="Tue, 10 Mar 2026 18:04:00 +0100", attachments=[("harbour-fees-2026.pdf", fees)]),
        message("Crew for Saturday", "Can you crew on Saturday? We leave the harbour at nine.",
                sender="Carl Lind <carl@example.org>", date="Wed, 11 Mar 2026 07:40:00 +0100")])
    write_zip(docs / "boat-papers-2025.zip", {"insurance/policy.txt": b"Hull insurance: the harbour fee is not "
                                              b"covered; storage ashore is covered from October to April."})
    (docs / "boat-notes.md").write_text("# Boat\n\n## Winter\n\nAsk the harbour office about the winter storage "
                                        "fee before the boat comes out of the water in October.\n")
    return docs


def mail_screenshots(app: QApplication, tmp: Path) -> None:
    session, window = indexed_and_searched(app, tmp / "mail-data", write_mail_folder(tmp), "harbour fee winter storage")
    wait_until(app, lambda: bool(window.search.preview.toPlainText()))
    window.grab().save(str(OUT / "search-mail.png"))
    window.close()
    ended(session)


def filter_screenshots(app: QApplication, tmp: Path, dark: bool) -> None:
    """The filter bar (a type chip chosen, counts per type, a filter word typed as a chip) and a hit's menu."""
    if dark:
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    folder = tmp / ("filters-dark" if dark else "filters")
    folder.mkdir()
    session, window = indexed_and_searched(app, folder / "data", write_mail_folder(folder),
                                           "harbour fee after:2026-03")
    panel = window.search
    answered = panel._answered
    panel.filter_bar.type_chips["mail"].click()
    wait_until(app, lambda: panel._answered > answered and bool(panel.hits))
    wait_until(app, lambda: bool(panel.preview.toPlainText()))
    image = window.grab()
    menu = panel.hit_menu(0)
    menu.adjustSize()
    item = panel.results.visualItemRect(panel.results.item(0))
    corner = panel.results.viewport().mapTo(window, item.topLeft() + QPoint(item.width() // 3, item.height() // 2))
    painter = QPainter(image)
    painter.drawPixmap(corner, menu.grab())
    painter.end()
    image.save(str(OUT / ("search-filters-dark.png" if dark else "search-filters.png")))
    window.close()
    ended(session)
    app.setPalette(QPalette())


def main() -> None:
    app = QApplication(sys.argv[:1])
    OUT.mkdir(parents=True, exist_ok=True)
    if "--mail-only" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            mail_screenshots(app, Path(tmp))
        return
    if "--filters-only" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            filter_screenshots(app, Path(tmp), dark=False)
            filter_screenshots(app, Path(tmp), dark=True)
        return
    if "--answer-only" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            answer_screenshots(app, Path(tmp))
        return
    if "--scans-only" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            scan_screenshots(app, Path(tmp))
        return
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "Documents"
        shutil.copytree(ROOT / "resources" / "samples", docs)
        (docs / "scan-0042.pdf").write_bytes(b"%PDF-1.4 truncated by a failed download")
        session, window = indexed_and_searched(app, Path(tmp) / "data", docs, "late payment interest")
        window.grab().save(str(OUT / "search.png"))

        window.tabs.setCurrentWidget(window.review)
        wait_until(app, lambda: window.review.model.rowCount() > 0)
        window.review.table.selectRow(2)
        wait_until(app, lambda: window.review.current is not None)
        window.grab().save(str(OUT / "review.png"))

        window.tabs.setCurrentWidget(window.stats)
        wait_until(app, lambda: "Documents" in window.stats.view.toPlainText())
        window.grab().save(str(OUT / "stats.png"))

        # As a person's settings are by default (this library keeps background LLM work off while it poses).
        dialog = SettingsDialog(replace(session.library.settings, llm_upgrade_when_idle=True),
                                str(session.library.data_dir), window)
        dialog.show()
        app.processEvents()
        dialog.grab().save(str(OUT / "settings.png"))
        dialog.close()

        window.tabs.setCurrentWidget(window.search)
        app.setStyle("Fusion")  # the offscreen platform's own style ignores palette colours for some parts
        app.setPalette(dark_palette())
        # The hits are drawn again (new widgets) when the palette changes: look each time.
        wait_until(app, lambda: DARK.context_background in
                   window.search.results.itemWidget(window.search.results.item(0)).text())
        wait_until(app, lambda: DARK.chunk_background in window.search.preview.toHtml())
        window.grab().save(str(OUT / "search-dark.png"))
        window.close()
        ended(session)
        app.setPalette(QPalette())
        scan_screenshots(app, Path(tmp))
        mail_screenshots(app, Path(tmp))
        answer_screenshots(app, Path(tmp))
        filter_screenshots(app, Path(tmp), dark=False)
        filter_screenshots(app, Path(tmp), dark=True)
        if "--no-progress" not in sys.argv:
            progress_screenshots(app, Path(tmp))
    print("\n".join(str(p.relative_to(ROOT)) for p in sorted(OUT.glob("*.png"))))


if __name__ == "__main__":
    main()

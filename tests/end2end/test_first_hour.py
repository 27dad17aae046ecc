"""A person's first hour (issue 37), through the app as it runs (AppSession: the window, a client of the service it
starts, issue 49), default settings, a folder of mixed files made here: a query typed before the folder is added
comes back by itself within seconds; the language model is not asked while the files are read; files saved,
renamed and deleted in the middle of the first run are as they are on disk when it ends; the progress bar never
goes back; Quit takes at most 2 s. bench/first_hour.py does the same on a folder you point it at, with the times."""

import time
from pathlib import Path

from desktop_rag.config import Settings
from documents import write_docx, write_pdf
from fake_llm_server import SlowChatServer
from window_sessions import stop_the_service
from office_documents import message, write_mbox, write_pptx, write_xlsx, write_zip
from test_ui import WAIT_MS, search_and_wait

# The times belong to bench/first_hour.py (the target: a first hit in 10 s on an idle 2-core machine): here
# the order and the truth are asserted — found before the run ended, the bar never back — with a guard against a
# hang alone, long enough for a machine at load 16 (issue 50: 180 s for the run was missed there).
RUN_WAIT_MS = 900_000
QUIT_S = 2.0
TOPICS = ("invoice supplier delivery", "garden compost orchard", "bicycle train ticket", "budget forecast revenue",
          "violin concert piano", "mortgage pension insurance")


def mixed_folder(docs: Path, notes: int = 240) -> Path:
    """Notes enough for a run of tens of seconds, beside one file of each family people keep."""
    for i in range(notes):
        topic = TOPICS[i % len(TOPICS)]
        folder = docs / ("Projects" if i % 3 else "Notes") / f"{i // 40:02}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note-{i:03}.md").write_text(
            f"# Note {i} on {topic}\n\n" + f"Paragraph {i} is about the {topic} of week {i % 52}. " * 60)
    (docs / "herons.md").write_text("# Herons\n\nThe grey heron waits at the pond for fish at dawn.\n")
    write_pdf(docs / "lighthouse.pdf", ["The lighthouse keeper logs every ferry in the harbour.",
                                        "Page two: the glacier above the harbour feeds the river."])
    write_docx(docs / "hiring.docx", [("h1", "Hiring plan"), ("p", "Two engineers join the kestrel team in May.")])
    write_xlsx(docs / "budget.xlsx", {"Budget": [["Item", "Euros"], ["Orchard fence", 450]]})
    write_pptx(docs / "review.pptx", [("Quarterly review", "Meadow project on schedule", "notes")])
    write_mbox(docs / "Inbox.mbox", [message("Lunch on Friday", "Shall we try the new soup place near the museum?"),
                                     message("Train tickets", "Your tickets to the violin concert are attached.")])
    write_zip(docs / "recipes.zip", {"bread.md": b"# Bread\n\nFlour, butter and a hot oven.\n"})
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 not really a PDF")
    write_docx(docs / "seating-chart.docx", [], title="Wedding seating")  # no body text: found by name and title
    return docs


def test_a_first_hour_query_comes_back_by_itself_changes_mid_run_are_kept_the_bar_only_grows(
        qtbot, tmp_path, docs, monkeypatch):
    from desktop_rag.ui.app import AppSession

    monkeypatch.delenv("DESKTOP_RAG_DATA_DIR", raising=False)
    data = tmp_path / "data"
    # The defaults (contexts auto, the background upgrade), but no service after the window, and a stand-in for
    # the model's server that tells whether the run asked it anything.
    server = SlowChatServer(seconds=0).__enter__()
    Settings(keep_fresh_when_closed=False, llm_server=server.url).save(data)
    mixed_folder(docs)
    session = AppSession(data)
    win = session.window
    with qtbot.waitActive(win):
        win.show()
    try:
        qtbot.keyClicks(win.search.query, "heron")  # typed before anything is indexed
        qtbot.waitUntil(lambda: "add a folder" in win.search.message.text(), timeout=WAIT_MS)

        bar: list[int] = []
        counters: dict[str, list[int]] = {}
        show = win.progress.on_progress

        def recorded(progress):  # the overall bar and each phase's count, after every step of the folder's run
            show(progress)
            if win.progress.title.text().startswith("Indexing"):
                bar.append(win.progress.overall.value())
                counters.setdefault(progress.phase, []).append(progress.done)

        win.progress.on_progress = recorded
        win.folders.add_requested.emit(str(docs))
        qtbot.waitUntil(lambda: any("herons.md" in hit.path for hit in win.search.hits), timeout=RUN_WAIT_MS)
        assert win.progress.title.text().startswith("Indexing")  # found before the run ended: it re-ran itself

        # Mid-run (the scan has listed the files; most are still to be read or embedded): a save, a rename and a
        # deletion, which the run's own list does not hold as they now are.
        qtbot.waitUntil(lambda: win.progress.bars["parse"].value() >= 20, timeout=RUN_WAIT_MS)
        assert win.progress.title.text().startswith("Indexing")
        (docs / "kingfisher.md").write_text("# Kingfisher\n\nA kingfisher dives from the willow branch.\n")
        (docs / "herons.md").rename(docs / "grey-herons.md")
        (docs / "lighthouse.pdf").unlink()

        qtbot.waitUntil(lambda: win.progress.title.text().startswith("Done"), timeout=RUN_WAIT_MS)
        assert server.calls == 0  # `auto`: rules contexts while the files are read, the model only afterwards

        def on_disk_again() -> bool:
            found = {Path(hit.path).name for word in ("kingfisher", "heron", "lighthouse", "ferry")
                     for hit in win.library.search(word, k=5, mode="bm25").hits}
            return {"kingfisher.md", "grey-herons.md"} <= found and not {"herons.md", "lighthouse.pdf"} & found

        qtbot.waitUntil(on_disk_again, timeout=30_000)
        # Files without text, and the one that failed, are found by their names (and titles), saying so.
        for query, name in (("seating chart", "seating-chart.docx"), ("wedding", "seating-chart.docx"),
                            ("broken", "broken.pdf")):
            search_and_wait(qtbot, win, query)
            assert Path(win.search.hits[0].path).name == name
            shown = win.search.results.itemWidget(win.search.results.item(0)).text()
            assert "Found by its name" in shown, shown
        assert bar and bar == sorted(bar), bar  # the bar never went back
        assert {phase: done for phase, done in counters.items() if done != sorted(done)} == {}  # nor a phase's count
    finally:
        started = time.monotonic()
        win.close()
        session.close()
        quit_seconds = time.monotonic() - started
        stop_the_service(data)
        server.__exit__()
    assert quit_seconds <= QUIT_S

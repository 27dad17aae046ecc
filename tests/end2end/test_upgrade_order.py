"""The background LLM upgrade's order: what a person uses first — folders marked "upgrade first", documents opened
from results, documents among recent search hits, recently modified ones — then the rest in indexing order. Real
catalog, search and notes; a fake model (it records what it is asked, instantly)."""

import os
import time

from desktop_rag.config import Settings
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.documents import ContextResult
from desktop_rag.storage.catalog_upgrade_order import upgrade_order_sentence

OLD = time.time() - 60 * 86400  # two months ago: not "modified lately"


class TitleRecordingFakeLlm(Contextualizer):
    """Stands in for the model: records the documents it is asked about, in order; `on_call` runs at each."""

    levels = {"chunk"}
    unavailable = None

    def __init__(self, on_call=None):
        self.titles: list[str] = []
        self.on_call = on_call or (lambda title: None)

    def cache_key(self):
        return ("fake-model", "ctx-fake/chunk")

    def contextualize(self, document, chunks, only=None):
        self.titles.append(document.title)
        self.on_call(document.title)
        return [ContextResult(text=f"Fake context of {document.title}.", source="llm", model="fake-model",
                              prompt_version="ctx-fake/chunk", quality=0.9) for _ in chunks]


def birds_library(make_library, docs):
    for folder, name in (("", "auk"), ("", "bittern"), ("", "searched"), ("", "opened"), ("", "recent"),
                         ("", "zebra finch"), ("first", "marked")):
        (docs / folder).mkdir(exist_ok=True)
        path = docs / folder / f"{name}.md"
        path.write_text(f"# {name}\n\nField notes on the {name}: where it nests, what it eats.\n")
        if name != "recent":
            os.utime(path, (OLD, OLD))
    library = make_library(Settings(contexts="rules"))
    library.index([docs])
    return library


def chunk_of(library, title: str) -> int:
    """A document's first chunk, found without noting a search hit (the searcher itself, not the library)."""
    return next(h.chunk_id for h in library.searcher.search(title, k=1, mode="bm25").hits)


def test_the_upgrade_takes_marked_folders_opened_documents_search_hits_and_recent_changes_first(make_library, docs):
    library = birds_library(make_library, docs)
    library.search("opened", mode="bm25")
    library.note_opened(chunk_of(library, "opened"))  # found, then opened from the result: opening counts more
    library.search("searched", mode="bm25")
    library.mark_upgrade_first(str(docs / "first"))
    library.use_notes.write_waiting(library.catalog)  # (the write lane writes them between its steps)
    assert library.stats()["upgrade_order"] == {
        "in a folder marked upgrade first": 1, "opened from a search result": 1, "among recent search hits": 1,
        "modified in the last 30 days": 1, "in indexing order": 3}
    assert upgrade_order_sentence(library.stats()["upgrade_order"]) == (
        "1 document in a folder marked upgrade first, then 1 opened from a search result, then 1 among recent "
        "search hits, then 1 modified in the last 30 days, then 3 in indexing order")

    fake = TitleRecordingFakeLlm()
    library.contextualizer = lambda choice, on_notice=None: fake
    notes = []
    summary = library.upgrade_contexts(on_progress=lambda p: notes.append(p.note) if p.note else None)
    assert fake.titles == ["marked", "opened", "searched", "recent", "auk", "bittern", "zebra finch"]
    assert summary.documents == 7 and library.stats()["upgrade_order"] == {}
    assert "LLM contexts for marked.md, in a folder marked upgrade first" in notes
    assert "LLM contexts for auk.md, in indexing order" in notes


def test_a_search_made_during_the_upgrade_changes_what_comes_next(make_library, docs):
    library = birds_library(make_library, docs)
    library.search("searched", mode="bm25")
    library.use_notes.write_waiting(library.catalog)

    def person_searches(title):
        if title == "searched":  # while the first document is being upgraded
            library.search("zebra", mode="bm25")  # noted; the upgrade writes the notes before it picks

    fake = TitleRecordingFakeLlm(on_call=person_searches)
    library.contextualizer = lambda choice, on_notice=None: fake
    library.upgrade_contexts()
    assert fake.titles[:3] == ["searched", "zebra finch", "recent"]


def test_an_unmarked_folder_and_old_notes_fall_back_to_indexing_order(make_library, docs):
    library = birds_library(make_library, docs)
    library.mark_upgrade_first(str(docs / "first"))
    library.mark_upgrade_first(str(docs / "first"), marked=False)
    library.catalog.upgrade_order.note_hits([chunk_of(library, "searched")], at=OLD)  # a search of two months ago
    library.use_notes.write_waiting(library.catalog)
    order = library.catalog.upgrade_order.next_upgrades(limit=10)
    assert [reason for _, reason in order].count("in indexing order") == 6
    assert library.stats()["upgrade_first_folders"] == []

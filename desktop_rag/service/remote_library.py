"""The library as a client of the service sees it (issue 49): the window's view of it, with the surface the window's
panels use — searches and every write go to the service through the endpoint as typed requests (service/wire.py:
`run(Search(…))` answers a SearchAnswer; blocking: called on a worker thread), the reads in bulk (Review's rows,
previews, folder counts) come from the catalog read in this process on a connection that cannot write
(core/library/reads.py ClientReads), and the settings are a copy kept as the service changed them.

It holds no model, no index and no lock: closing it lets go of a read connection, nothing more."""

from __future__ import annotations

import threading
from dataclasses import fields
from pathlib import Path

from desktop_rag.config import Settings
from desktop_rag.core.indexing.changes import Changes
from desktop_rag.core.library.library import CATALOG_FILE
from desktop_rag.core.library.reads import ClientReads
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.core.search.searcher import SearchResult
from desktop_rag.errors import UserError
from desktop_rag.service import wire
from desktop_rag.service.operations import MAX_LIMIT
from desktop_rag.service.answers import AskAnswer, ChangesAnswer, LibraryStats, SearchAnswer
from desktop_rag.service.wire import Runner


class RemoteEdits:
    """A person's hand on one context, carried out by the service; each returns what it changed."""

    def __init__(self, run: Runner):
        self._run = run

    def set_context(self, chunk_id: int, text: str, questions: str | None = None) -> Changes:
        return _changes(self._run(wire.SetContext(chunk_id=chunk_id, text=text, questions=questions)))

    def revert_context(self, chunk_id: int) -> Changes:
        return _changes(self._run(wire.RevertContext(chunk_id=chunk_id)))

    def approve_context(self, chunk_id: int) -> Changes:
        return _changes(self._run(wire.ApproveContext(chunk_id=chunk_id)))

    def regenerate_context(self, chunk_id: int) -> Changes | None:
        """What the new context changed; None: cancelled (cancel_regenerate), nothing written."""
        answer = self._run(wire.RegenerateContext(chunk_id=chunk_id))
        return None if answer.get("cancelled") else Changes.from_dict(answer["changes"])

    def cancel_regenerate(self, chunk_id: int) -> None:
        self._run(wire.CancelRegenerate(chunk_id=chunk_id))


class RemoteLibrary:
    def __init__(self, data_dir: Path, run: Runner):
        self.data_dir = Path(data_dir)
        self._run = run
        self.settings = Settings.load(self.data_dir)
        self.reads = ClientReads(self.data_dir / CATALOG_FILE)
        self.edits = RemoteEdits(run)

    # -- searching ------------------------------------------------------------------------------------------

    def search(self, query: str, k: int = 10, mode: str = "hybrid", rerank: bool | None = None,
               filters: SearchFilters | None = None, sort: str = "relevance", facets: bool = False,
               words_first: bool = False) -> SearchResult:
        answer = self._run(wire.Search(query=query, limit=min(k, MAX_LIMIT), mode=mode, rerank=rerank,
                                       filters=filters, sort=sort, facets=facets, words_first=words_first))
        return _result(answer)  # (its match: the words the search parsed, carried, never parsed again here)

    def ask(self, question: str, filters: SearchFilters | None, ask_id: str) -> AskAnswer:
        """A question answered from the files; its steps come as "answer" events of `ask_id` meanwhile."""
        return self._run(wire.Ask(question=question, filters=filters, ask_id=ask_id))

    def cancel_ask(self, ask_id: str) -> None:
        self._run(wire.CancelAsk(ask_id=ask_id))

    def similar(self, chunk_id: int, k: int = 10, filters: SearchFilters | None = None) -> SearchResult:
        return _result(self._run(wire.Search(similar_to=chunk_id, limit=min(k, MAX_LIMIT), filters=filters)))

    def load_embedding_model(self) -> None:
        """A search answered once by meaning, once by words: the service has its model, its vector store and its
        keyword index loaded when this returns (by meaning alone, the first search then loaded the keyword index:
        ~0.5 s at 110k chunks). Not one hybrid search: that answers by words while the store opens
        (core/search/meaning_wait.py), 7-17 s at a million passages."""
        try:
            for mode in ("dense", "bm25"):
                self._run(wire.Search(query="warm up", limit=1, mode=mode))
        except UserError:
            pass  # nothing indexed yet: the first run loads it

    def stats(self) -> LibraryStats:
        return self._run(wire.Stats())

    # -- opening a hit ----------------------------------------------------------------------------------------

    def note_opened(self, chunk_id: int) -> None:
        """Its LLM contexts come sooner; said to the service on a thread of its own (the window does not wait)."""
        threading.Thread(target=self._note_opened, args=(chunk_id,), daemon=True).start()

    def _note_opened(self, chunk_id: int) -> None:
        try:
            self._run(wire.OpenHit(chunk_id=chunk_id))
        except UserError:
            pass  # a note lost is an order a little less apt, nothing more

    def openable_path(self, path: str) -> Path:
        opened = self._run(wire.OpenHit(path=path))["path"]
        if opened is None:
            raise UserError(f"{path} cannot be opened")
        return Path(opened)

    # -- writes -----------------------------------------------------------------------------------------------

    def set_settings(self, values: dict) -> Changes:
        answer = self._run(wire.ChangeSettings(values=values))
        self.follow_settings(answer["settings"])
        return _changes(answer)

    def follow_settings(self, values: dict | None = None) -> None:
        """The settings as the service now has them: `values` it answered with, or the file it wrote."""
        current = values if values is not None else vars(Settings.load(self.data_dir))
        names = {f.name for f in fields(Settings)}
        for name, value in current.items():
            if name in names:
                setattr(self.settings, name, value)

    def remove_folder(self, folder: str) -> Changes:
        return _changes(self._run(wire.RemoveFolder(folder=folder)))

    def mark_upgrade_first(self, folder: str, marked: bool = True) -> Changes:
        return _changes(self._run(wire.UpgradeFirst(folder=folder, on=marked)))

    # -- nothing to let go but a read connection ---------------------------------------------------------------

    def release_llm_model(self) -> None:
        pass

    def close(self, keep_catalog: bool = False) -> None:
        self.reads.close()


def _changes(answer: ChangesAnswer) -> Changes:
    return Changes.from_dict(answer["changes"])


def _result(answer: SearchAnswer) -> SearchResult:
    result = SearchResult.from_dict(answer)
    covers = answer.get("meaning_covers")
    result.meaning_covers = (covers[0], covers[1]) if covers else None
    return result

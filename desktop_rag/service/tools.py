"""The operations local agents and scripts use, over one library: search with contextual retrieval, a context for
a chunk, a re-indexing run and its progress, statistics, and a document or a chunk to read around a hit. Each takes
its request (service/wire.py) and gives its answer (service/answers.py); requests come checked against their
declaration by `request_handler` (service/door.py), the one door to these; what only the library can tell (a chunk
that does not exist, a path outside the indexed folders) is a BadInput saying what is wrong. The MCP server and the
local endpoint both call these, so an agent gets the same answers from the service, `serve` or `mcp` on its own."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any, TYPE_CHECKING, cast


from desktop_rag.core.search.filters import make_filters
from desktop_rag.service import wire
from desktop_rag.service.activity import ActivitySource, at_rest, version_of
from desktop_rag.service.answers import (ContextMade, DocumentAnswer, EventsAnswer, Hello, LibraryStats, Opened,
                                         PassageAnswer, RunProgress, RunStarted, SearchAnswer, Served, StatusAnswer,
                                         Stopping, StoredContext)
from desktop_rag.service.events import EventLog
from desktop_rag.service.ask_tools import AskTools
from desktop_rag.service.write_tools import WriteTools
from desktop_rag.documents import MEMBER_SEPARATOR, Chunk, question_list
from desktop_rag.errors import BadInput, ChunkGone, NoIndexError
from desktop_rag.service.operations import MAX_LIMIT
from desktop_rag.service.runs import RunRegistry, phases_in_order
from desktop_rag import remedies

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library

log = logging.getLogger(__name__)


AROUND_CHARS = 1_500  # document text given on each side of a chunk
CONTEXT_FIELDS = ("chunk_id", "text", "source", "model", "prompt_version", "quality", "generated_text",
                  "generated_source", "questions")  # a context as `context` gives it
STATUS_CHECK_S = 0.25  # how often a status asked to wait for a change looks again (a few attribute reads)


class LibraryTools:
    def __init__(self, library: Library, runs: RunRegistry, start_run: Callable[[list[str], str], str], served_by: str,
                 events: EventLog | None = None, write: Callable[..., Any] | None = None):
        """`start_run(paths, contexts)` queues an indexing run registered in `runs` on the process's write lane and
        returns its id at once (service/host.py). `events`: where every
        write's Changes go (service/events.py); `write(work)`: carries out a write where this process writes (its
        write lane: service/host.py) and returns its result."""
        self.library = library
        self.runs = runs
        self._start_run = start_run
        self.served_by = served_by
        self.event_log = events or EventLog()
        self._write = write or (lambda work, wait_s=None: work())
        self.writes = WriteTools(library, self._write, self.event_log, served_by)  # a person's writes
        self.asks = AskTools(library, self.event_log, served_by, lambda: self.writes.lane)  # questions answered
        self.max_limit = MAX_LIMIT  # hits a search gives at most (the CLI's own library allows more)
        self.on_stop: Callable[[], None] | None = None  # how the process answering ends (the service, `watch`)
        self.role = ""  # "service", "watch", "serve": what the process answering is (hello says it)
        self.activity: ActivitySource | None = None  # what it is doing (status); None: it says "idle"
        self.closing = threading.Event()  # the endpoint stops: a status waiting for a change answers now
        self.stop_asked = threading.Event()  # `stop` was called: hello says so to a front end arriving now

    # -- search ---------------------------------------------------------------------------------------------

    def search(self, r: wire.Search) -> SearchAnswer:
        """Filters narrow the search inside retrieval (core/search/filters.py); `folder` is one indexed folder
        (as before `folders`); `similar_to`: a chunk id whose neighbours in meaning are wanted instead of a query;
        `filters`: a filter bar's; `facets`: count the candidates' types."""
        folders = list(r.folders or [])
        if r.folder is not None:
            folders.append(str(self._indexed_path(r.folder, "folder")))
        narrowed = make_filters(folders=folders, types=r.types or [], after=r.after, before=r.before, sender=r.sender)
        if r.filters is not None:
            narrowed = narrowed.merged(r.filters)
        if r.similar_to is not None:
            result = self.library.similar(r.similar_to, k=r.limit, filters=narrowed)
        else:
            if not r.query.strip() and narrowed.empty:
                raise BadInput("the query is empty: give a question or some keywords (or filters alone)")
            asked = min(r.limit * 5, 500) if r.score_threshold is not None else r.limit
            result = self.library.search(r.query, k=asked, mode=r.mode, rerank=r.rerank, filters=narrowed,
                                         sort=r.sort, facets=r.facets, words_first=r.words_first)
        hits = [h for h in result.hits
                if r.score_threshold is None or h.scores.strength >= r.score_threshold][:r.limit]
        return {"query": result.query, "mode": result.mode, "reranked": result.reranked, "weak": result.weak,
                "notices": result.notices, "filters": result.filters.to_dict(), "nothing_left": result.nothing_left,
                "facets": result.facets, "meaning_covers": result.meaning_covers,
                "meaning_pending": result.meaning_pending,
                "match": result.match.to_dict() if result.match is not None else None,
                "filter_words": [list(word) for word in result.filter_words],
                "results": [h.to_dict() for h in hits], "served_by": self.served_by}

    # -- contexts -------------------------------------------------------------------------------------------

    def generate_context(self, r: wire.GenerateContext) -> ContextMade:
        """The context the configured contextualizer writes for a stored chunk, or for `text` as a part of an
        indexed document; stored (and re-indexed) only when asked, and only for a stored chunk."""
        chunk_id, text, document_path, store = r.chunk_id, r.text, r.document_path, r.store
        if (chunk_id is None) == (text is None):
            raise BadInput("give either chunk_id, or text with document_path")
        library = self.library
        if chunk_id is not None:
            try:
                doc_id = library.reads.chunk_document_id(chunk_id)
            except KeyError:
                raise BadInput(f"there is no passage {chunk_id} (ids come from search results)") from None
            stored = library.reads.stored_document(doc_id)
            if stored is None:  # removed since the id was given
                raise ChunkGone(chunk_id)
            chunks = stored.chunks
            position = [row["id"] for row in stored.rows].index(chunk_id)
        else:
            if store:
                raise BadInput("store works with a chunk_id: a text that is not a chunk of the index has nowhere to go")
            if not document_path or not text or not text.strip():
                raise BadInput("text needs the document_path of an indexed document it belongs to")
            record = library.reads.document_record(str(Path(document_path).expanduser().resolve()))
            if record is None or record.status != "indexed":
                raise BadInput(f"{document_path} is not an indexed document")
            stored = library.reads.stored_document(record.id)
            if stored is None:
                raise BadInput(f"{document_path} is not an indexed document")
            start = max(stored.document.text.find(text), 0)
            chunks = [*stored.chunks, Chunk(len(stored.chunks), text, start, start + len(text), None, [],
                                            len(text.split()), hashlib.sha256(text.encode()).hexdigest())]
            position = len(chunks) - 1
        if store:
            assert chunk_id is not None
            regenerated = self.writes.regenerated(chunk_id)  # a person's write: the same as the window's
            if regenerated is None:
                raise BadInput(f"regenerating the context of chunk {chunk_id} was cancelled; nothing was written")
            result, stored_now = regenerated.result, bool(regenerated.changes)
        else:
            result = self.library.edits.preview_context(stored.document, chunks, position, max_words=r.max_words)
            stored_now = False
        return {"chunk_id": chunk_id, "context": result.text, "source": result.source, "model": result.model,
                "quality": result.quality, "quality_detail": result.quality_detail,
                "seconds": round(result.seconds, 2), "stored": stored_now,
                "questions": question_list(result.questions)}  # with llm_questions set

    def context(self, r: wire.ContextOf) -> StoredContext:
        row = self.library.reads.context(r.chunk_id)
        if row is None:
            raise BadInput(f"there is no passage {r.chunk_id} (ids come from search results)")
        return StoredContext(**{k: row[k] for k in CONTEXT_FIELDS}, served_by=self.served_by)  # type: ignore[typeddict-item]

    def open_hit(self, r: wire.OpenHit) -> Opened:
        """A hit a person opens: its document's LLM contexts come sooner (use notes, for `chunk_id`), and the path
        the system's viewer can open for `path` — for a document inside a file (an archive's member, a mail's
        attachment) a copy taken out of it (core/files/member_copies.py)."""
        if r.chunk_id is not None:
            self.library.note_opened(r.chunk_id)
        openable = str(self.library.openable_path(r.path)) if r.path is not None else None
        return {"path": openable, "served_by": self.served_by}

    def hello(self, r: wire.SayHello) -> Hello:
        """`stopping`: on its way out (a front end arriving waits for it to go: who_answers)."""
        return {"served_by": self.served_by, "pid": os.getpid(), "role": self.role,
                "stopping": self.stop_asked.is_set()}

    # -- the event stream ---------------------------------------------------------------------------------------

    def events(self, r: wire.Events) -> EventsAnswer:
        """What was done since event `after` (service/events.py), with the status as it is now; waits up to wait_s
        for an event, or for the status to differ from the version `status` (the tray's and the window's one
        stream)."""
        def still_waiting() -> bool:
            return not self.closing.is_set() and (r.status is None or self._status_now()["version"] == r.status)

        answer = self.event_log.since(r.after, r.instance, r.wait_s, still_waiting)
        events = EventsAnswer(events=answer["events"], last=answer["last"], instance=answer["instance"],
                              missed=answer["missed"], status=self._status_now(), served_by=self.served_by)
        if r.after is None or answer["missed"]:  # a client (re)joining: the runs in hand, where they stand now
            events["runs"] = self.runs.active()
        return events

    # -- runs -----------------------------------------------------------------------------------------------

    def reindex(self, r: wire.Reindex) -> RunStarted:
        folders, paths = self.library.reads.folders(), r.paths
        if paths is None:
            if not folders:
                raise NoIndexError(f"no folder is indexed yet: {remedies.ADD_FOLDER}")
            chosen = folders
        else:
            if not paths:
                raise BadInput("paths is empty: give files or folders inside the indexed folders, or leave it out")
            chosen = [str(self._indexed_path(p, "path")) for p in paths]
        return self._started(chosen, r.contexts)

    def _started(self, paths: list[str], contexts: str) -> RunStarted:
        run_id = self._start_run(paths, contexts)
        state = self.runs.state_of(run_id)
        return {"run_id": run_id, "paths": paths, "contexts": contexts,
                "state": state["state"] if state is not None else None, "served_by": self.served_by}

    def index(self, r: wire.Index) -> RunStarted:
        """Files and folders indexed by the process answering (the service): a folder new to the library is
        watched from then on. `contexts`: None, the library's setting."""
        if not r.paths:
            raise BadInput("paths is empty: give the files or folders to index")
        missing = [p for p in r.paths if not Path(p).exists()]
        if missing:
            raise BadInput(f"no such file or folder: {', '.join(missing)}")
        return self._started([str(Path(p).resolve()) for p in r.paths], r.contexts or self.library.settings.contexts)

    def progress(self, r: wire.ProgressOf) -> RunProgress:
        state = self.runs.state_of(r.run_id)
        if state is None:
            raise BadInput(f"there is no run {r.run_id}" if r.run_id else "no re-indexing run was started here yet")
        state["phases"] = phases_in_order(state["phases"])
        if state["state"] == "running":  # the files failed so far, as the catalog has them now
            paths = [Path(p) for p in state["paths"]]
            state["errors"] = [{"path": p, "reason": r} for p, r in self.library.reads.failures()
                               if any(Path(p).is_relative_to(root) for root in paths)]
        state["served_by"] = self.served_by
        return state

    # -- what is indexed ------------------------------------------------------------------------------------

    def stop(self, r: wire.Stop) -> Stopping:
        """The process answering ends: its loop stops, a model's call in hand is cut short, what it applied is
        kept; it answers this first, and is gone within 2 s (`desktop-rag stop` waits for that)."""
        if self.on_stop is None:
            raise BadInput(f"{self.served_by} is not stopped from outside: close it where it runs")
        self.stop_asked.set()
        self.event_log.publish("stopping", everything=r.everything)  # before it goes: its clients know it was asked
        self.on_stop()
        return {"stopping": True, "served_by": self.served_by}

    def status(self, r: wire.Status) -> StatusAnswer:
        """What the process answering is doing (service/activity.py). `after`: the version a client has; the
        answer waits up to `wait_s` for a different one."""
        deadline = time.monotonic() + r.wait_s
        while True:
            state = self._status_now()
            if state["version"] != r.after or time.monotonic() >= deadline or self.closing.is_set():
                return state
            self.closing.wait(STATUS_CHECK_S)

    def _status_now(self) -> StatusAnswer:
        activity = self.activity.now() if self.activity is not None else at_rest(  # (`serve`: no lane)
            bool(self.library.settings.llm_upgrade_paused))
        state = {**activity.as_dict(), "role": self.role, "served_by": self.served_by}
        lane = self.writes.lane
        if lane is not None:  # why the LLM upgrade runs or waits ("waiting until the computer is idle")
            state.update(upgrade_reason=lane.decision.reason, upgrade_may_run=lane.decision.may_run,
                         asked_now=lane.asked_now,
                         watching=len(lane.watcher.folders) if lane.watcher is not None else 0)
        return cast(StatusAnswer, {**state, "version": version_of(state)})

    def pause_background(self, r: wire.PauseBackground) -> StatusAnswer:
        """The tray's Pause and Resume: the LLM's work (the window's LLM line: `runs` False) and the runs in hand
        (its Resume left a run paused in the window paused while it said "Catching up 7%": issue 60)."""
        self.writes.pause_llm_work(r.paused)
        if r.runs:
            self.writes.pause_runs(None, r.paused)
        return self._status_now()

    def prepare_search(self, r: wire.PrepareSearch) -> Served:
        """Load the embedding model and open the vector store now, on a thread, and answer at once: after the
        service's rest they take ~1.1 s at 105k chunks (bench/idle_service.py), the time a person takes to type."""
        threading.Thread(target=self._load_search_models, name="desktop-rag prepare search", daemon=True).start()
        return {"served_by": self.served_by}

    def _load_search_models(self) -> None:
        try:
            self.library.load_embedding_model()
        except Exception:  # the search that follows meets the same failure and says it
            log.warning("could not load the models a search needs", exc_info=True)

    def stats(self, r: wire.Stats) -> LibraryStats:
        failures = [{"path": path, "reason": reason} for path, reason in self.library.reads.failures()]
        return LibraryStats(**self.library.stats(), failures=failures, served_by=self.served_by,  # type: ignore[typeddict-item]
                            model=self.library.settings.llm_server or self.library.settings.llm_model)

    def document(self, r: wire.DocumentOf) -> DocumentAnswer:
        doc_id = r.doc_id
        stored = self.library.reads.document_for_contexts(doc_id)
        if stored is None:
            raise BadInput(f"there is no indexed document {doc_id}")
        doc, rows = stored
        self._served_only_inside_the_folders(doc["path"], f"document {doc_id}")
        return {"document_id": doc_id, "path": doc["path"], "title": doc["title"], "text": doc["text"],
                "chunks": [{"chunk_id": r["id"], "index": r["idx"], "page": r["page"], "start_char": r["start_char"],
                            "end_char": r["end_char"]} for r in rows]}

    def chunk(self, r: wire.ChunkOf) -> PassageAnswer:
        """A chunk in its document: its context, its text and the text around it."""
        chunk_id = r.chunk_id
        record = self.library.reads.chunks_by_id([chunk_id]).get(chunk_id)
        placed = self.library.reads.chunk_in_document(chunk_id)
        if record is None or placed is None:
            raise BadInput(f"there is no passage {chunk_id} (ids come from search results)")
        self._served_only_inside_the_folders(record.path, f"chunk {chunk_id}")
        text, start, end = placed
        return {"chunk_id": chunk_id, "document_id": record.document_id, "path": record.path, "page": record.page,
                "chunk_index": record.idx, "start_char": start, "end_char": end, "context": record.context,
                "context_source": record.context_source, "text": text[start:end],
                "before": text[max(0, start - AROUND_CHARS):start], "after": text[end:end + AROUND_CHARS],
                "ocr_confidence": record.ocr_confidence, "metadata": record.metadata}

    def _served_only_inside_the_folders(self, path: str, what: str) -> None:
        """An agent reads only what lies inside the indexed folders, by the file's real path (issue 50: a document
        indexed through a link, before links were checked, served /etc/hostname)."""
        real = Path(path.split(MEMBER_SEPARATOR)[0]).resolve()
        if not any(real.is_relative_to(folder) for folder in self.library.reads.folders()):
            raise BadInput(f"{what} lies outside the indexed folders: it is not served")

    def _indexed_path(self, path: str, what: str) -> Path:
        """`path`, resolved, if it lies inside an indexed folder; a BadInput saying so otherwise."""
        if not isinstance(path, str) or not path.strip():
            raise BadInput(f"{what} is empty")
        resolved = Path(os.path.expanduser(path)).resolve()
        folders = [Path(f) for f in self.library.reads.folders()]
        if not any(resolved.is_relative_to(folder) for folder in folders):
            known = ", ".join(str(f) for f in folders) or "none yet"
            raise BadInput(f"{path} is not inside an indexed folder (indexed: {known}); {remedies.ADD_ITS_FOLDER}")
        return resolved


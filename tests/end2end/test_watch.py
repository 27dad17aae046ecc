"""Folder watching: real files under watched folders, real watchdog observers, real catalog, Chroma and BM25.
Search results must follow creates, edits, renames, moves and deletes, and keep what did not change."""

import threading
import time
from contextlib import contextmanager

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.core.search.searcher import NoIndexError
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.core.watching.watch import FolderWatcher, feeding
from desktop_rag.documents import ContextResult
from desktop_rag.service.endpoint import EndpointClient
from waiting import eventually

PUMP = "# Pump manual\n\n## Start-up\n\nPrime the pump before the first start.\n\n## Storage\n\nDrain it for winter.\n"


class Applied:
    """Applies each batch to the library, as the CLI's `watch` does, and keeps the summaries."""

    def __init__(self, library):
        self.library, self.summaries, self.batches = library, [], []
        self.lock = threading.Lock()
        self.watcher = None

    def totals(self, since=0):
        """(moved, indexed, embedded) over the batches applied since the `since`-th one. A search can see a change
        before the call that made it has returned its summary, so tests wait for the totals, not read them once."""
        with self.lock:
            done = self.summaries[since:]
        return tuple(sum(getattr(s, field) for s in done) for field in ("moved", "indexed", "embedded"))

    def __call__(self, batch: ChangeBatch):
        summary = self.library.apply_changes(batch)
        with self.lock:
            self.batches.append(batch)
            self.summaries.append(summary)
        if summary.busy:
            self.watcher.retry_later(summary.busy, 0.2)


@pytest.fixture
def rules_library(make_library):
    return make_library(Settings(contexts="rules", llm_upgrade_when_idle=False))


@pytest.fixture
def watching(rules_library):
    started = []

    def watch(*folders):
        applied = Applied(rules_library)
        watcher = FolderWatcher(folders, rules_library.settings.ignore_patterns, applied, quiet_seconds=0.2)
        applied.watcher = watcher
        watcher.start()
        started.append(watcher)
        return applied

    yield watch
    for watcher in started:
        watcher.stop()


def paths(library, query, mode="bm25"):
    """The files of the hits, best first, each once."""
    return list(dict.fromkeys(h.path for h in library.search(query, k=10, mode=mode).hits))


def test_search_follows_create_edit_rename_and_delete(rules_library, watching, docs):
    lib = rules_library
    (docs / "other.md").write_text("# Other\n\nNothing about machines here.\n")
    lib.index([docs], contexts="rules")
    applied = watching(docs)

    (docs / "pump.md").write_text(PUMP)
    eventually(lambda: paths(lib, "prime pump") == [str(docs / "pump.md")])
    (docs / "pump.md").write_text(PUMP.replace("Drain it for winter.", "Drain it and store it dry for winter."))
    eventually(lambda: paths(lib, "store dry") == [str(docs / "pump.md")])
    assert paths(lib, "for winter", mode="bm25") == [str(docs / "pump.md")]
    # Keywords come first in a batch (core/indexing/): its vectors may follow a moment after the words are found.
    eventually(lambda: lib.vectors.count() == lib.catalog.chunk_count())  # the old version's chunks left Chroma

    # A hand-edited chunk whose text does not change keeps its row (so its vector) and its context.
    start_up = next(h for h in lib.search("prime", k=10, mode="bm25").hits if "Prime" in h.text)
    lib.edits.set_context(start_up.chunk_id, "Zanzibar station checklist.")
    (docs / "pump.md").write_text(PUMP.replace("Drain it for winter.", "Empty it before the frost."))
    eventually(lambda: paths(lib, "frost") == [str(docs / "pump.md")])
    kept = lib.search("zanzibar", k=1, mode="bm25").hits[0]
    assert (kept.chunk_id, kept.context_source) == (start_up.chunk_id, "manual")

    # The frost edit's summary may come a moment after its search result: counted first, so it is not the rename's.
    eventually(lambda: applied.totals()[1] == 3)  # created, edited, edited again
    before_rename = len(applied.summaries)
    (docs / "pump.md").rename(docs / "pump-guide.md")
    eventually(lambda: paths(lib, "zanzibar") == [str(docs / "pump-guide.md")])
    eventually(lambda: applied.totals(before_rename)[0] == 1)
    renamed = lib.search("zanzibar", k=1, mode="bm25").hits[0]
    assert (renamed.chunk_id, renamed.context_source) == (start_up.chunk_id, "manual")  # nothing redone
    assert renamed.title == "Pump manual"
    assert lib.search("zanzibar", k=1, mode="dense").hits[0].chunk_id == start_up.chunk_id  # its vector too
    assert applied.totals(before_rename) == (1, 0, 0)

    (docs / "pump-guide.md").unlink()
    eventually(lambda: lib.catalog.document(str(docs / "pump-guide.md")) is None)
    eventually(lambda: paths(lib, "prime zanzibar pump") == [])
    # Searches stop showing the file once the catalog forgets it; Chroma drops its vectors later in the batch.
    eventually(lambda: lib.vectors.count() == lib.catalog.chunk_count() == 1)  # only other.md is left
    assert paths(lib, "machines") == [str(docs / "other.md")]


def test_a_move_between_watched_folders_keeps_everything(rules_library, watching, tmp_path):
    inbox, archive = tmp_path / "inbox", tmp_path / "archive"
    (inbox / "2025").mkdir(parents=True)
    archive.mkdir()
    (inbox / "2025" / "pump.md").write_text(PUMP)
    (inbox / "2025" / "valve.md").write_text("# Valve\n\nClose the valve slowly.\n")
    lib = rules_library
    lib.index([inbox, archive], contexts="rules")
    ids = {h.text: h.chunk_id for h in lib.search("pump valve", k=10, mode="bm25").hits}
    applied = watching(inbox, archive)

    (inbox / "2025").rename(archive / "2025")  # a whole folder, into another watched folder
    eventually(lambda: set(paths(lib, "pump valve")) == {str(archive / "2025" / "pump.md"),
                                                         str(archive / "2025" / "valve.md")})
    assert {h.text: h.chunk_id for h in lib.search("pump valve", k=10, mode="bm25").hits} == ids
    eventually(lambda: applied.totals()[0] == 2)
    assert applied.totals() == (2, 0, 0)


def test_an_editor_save_dance_indexes_the_result_and_never_the_temp_file(rules_library, watching, docs):
    lib = rules_library
    (docs / "pump.md").write_text(PUMP)
    lib.index([docs], contexts="rules")
    applied = watching(docs)

    # What many editors do: write a temp file beside the original, then rename it over the original.
    temp = docs / ".pump.md.swp"
    temp.write_text(PUMP.replace("Prime", "Flush"))
    temp.rename(docs / "pump.md")
    (docs / "notes.tmp").write_text("scratch")  # an ignored name: no work at all
    eventually(lambda: paths(lib, "flush") == [str(docs / "pump.md")])
    assert paths(lib, "prime") == []
    assert {d.path for d in lib.catalog.documents_under(str(docs))} == {str(docs / "pump.md")}
    dirty = set().union(*(b.dirty for b in applied.batches))
    assert not any(p.endswith((".swp", ".tmp")) for p in dirty)


def test_an_event_storm_settles_to_the_right_state(rules_library, watching, docs):
    lib = rules_library
    lib.index([docs], contexts="rules")
    applied = watching(docs)
    batch = docs / "batch"
    batch.mkdir()
    for i in range(1000):
        (batch / f"note{i:04d}.md").write_text(f"# Note {i}\n\nstormword{i} appears only in note {i}.\n")
    for i in range(0, 1000, 10):
        (batch / f"note{i:04d}.md").unlink()  # created and deleted within the storm
    for i in range(5, 1000, 10):
        (batch / f"note{i:04d}.md").rename(batch / f"renamed{i:04d}.md")

    # Searching goes on throughout: never an error, and every hit is a file as it is (or was) on disk.
    problems, checked, stop = [], [], threading.Event()

    def search_meanwhile():
        while not stop.is_set():
            try:
                for hit in lib.search("stormword appears only", k=20, mode="hybrid").hits:
                    checked.append(hit.path)
                    number = int(hit.path.rsplit("/", 1)[-1][-7:-3])
                    if f"stormword{number} " not in hit.text:
                        problems.append(f"{hit.path} shows another file's text: {hit.text!r}")
            except NoIndexError:
                pass  # before the first file of the storm is in, search says so
            except Exception as exc:
                problems.append(repr(exc))
            time.sleep(0.05)

    searcher = threading.Thread(target=search_meanwhile)
    searcher.start()

    def settled():
        return lib.catalog.chunk_count() == 900 and lib.vectors.count() == 900
    try:
        eventually(settled, timeout=300)
    finally:
        stop.set()
        searcher.join()
    assert problems == [] and len(checked) > 100
    time.sleep(1)  # nothing more arrives and nothing is undone
    assert lib.catalog.chunk_count() == 900
    names = {d.path.rsplit("/", 1)[-1] for d in lib.catalog.documents_under(str(batch))}
    assert "note0000.md" not in names and "renamed0005.md" in names and "note0005.md" not in names
    # The keyword index is rebuilt last in a batch, after the vectors `settled` counted.
    eventually(lambda: paths(lib, "stormword15") == [str(batch / "renamed0015.md")])
    assert paths(lib, "stormword20") == []
    assert len(applied.batches) < 100  # coalesced, not one batch per event


def test_the_reconciliation_scan_catches_what_changed_while_nobody_watched(rules_library, docs, tmp_path):
    lib = rules_library
    for name in ("a", "b", "c", "d"):
        (docs / f"{name}.md").write_text(f"# {name}\n\nword{name} is written in {name}.\n")
    lib.index([docs], contexts="rules")
    moved_id = lib.search("wordc", k=1, mode="bm25").hits[0].chunk_id

    (docs / "a.md").write_text("# a\n\nworda changed while the app was closed.\n")
    (docs / "b.md").unlink()
    (docs / "sub").mkdir()
    (docs / "c.md").rename(docs / "sub" / "c-renamed.md")
    (docs / "e.md").write_text("# e\n\nworde is new.\n")

    summary = lib.index([docs], contexts="rules")
    assert (summary.indexed, summary.removed, summary.moved, summary.unchanged) == (2, 1, 1, 1)
    moved = lib.search("wordc", k=1, mode="bm25").hits[0]
    assert (moved.chunk_id, moved.path) == (moved_id, str(docs / "sub" / "c-renamed.md"))
    assert paths(lib, "wordb") == [] and paths(lib, "worde") == [str(docs / "e.md")]


def test_a_file_that_changes_while_being_read_is_left_for_later(rules_library, docs):
    from desktop_rag.core.contexts.rules import RulesContextualizer
    from desktop_rag.core.files.scan import FoundFile
    from desktop_rag.core.indexing.run import Indexer

    lib = rules_library
    path = docs / "growing.md"
    path.write_text("# Growing\n\nfirst half")
    seen = FoundFile(path.resolve(), path.stat().st_size, path.stat().st_mtime_ns)  # what the scan saw
    with path.open("a") as more:
        more.write(" and the second half, still being written")
    indexer = Indexer(lib, RulesContextualizer())
    indexer.files.index_file(seen)
    assert indexer.summary.busy == [str(path.resolve())] and indexer.summary.indexed == 0
    assert lib.catalog.document(str(path.resolve())) is None  # not half-indexed


class CountingFakeLlmContextualizer(Contextualizer):
    """Orchestration fake: answers like the LLM contextualizer and records which chunks it was asked about."""

    name = "llm"

    def __init__(self):
        self.asked: list[list[int]] = []

    def contextualize(self, document, chunks, only=None):
        wanted = list(range(len(chunks))) if only is None else list(only)
        self.asked.append(wanted)
        return [ContextResult(f"Model context {i} of {document.title}.", "llm" if i in wanted else "rules",
                              model="fake") for i in range(len(chunks))]


def test_a_changed_file_asks_the_model_only_about_its_changed_chunks(rules_library, docs):
    from desktop_rag.core.indexing.run import Indexer

    lib = rules_library
    (docs / "pump.md").write_text(PUMP)
    fake = CountingFakeLlmContextualizer()
    Indexer(lib, fake).run([docs])
    ids = {h.text: h.chunk_id for h in lib.search("pump", k=10, mode="bm25").hits}
    assert fake.asked == [[0, 1, 2]]

    (docs / "pump.md").write_text(PUMP.replace("Drain it for winter.", "Empty it before the frost."))
    summary = Indexer(lib, fake).run([docs])
    assert fake.asked[-1] == [2]  # only the storage section changed
    assert (summary.kept_contexts, summary.embedded) == (2, 1)
    after = {h.text: h.chunk_id for h in lib.search("pump frost", k=10, mode="bm25").hits}
    unchanged = [text for text in ids if "Drain" not in text]
    assert all(after[text] == ids[text] for text in unchanged)  # same rows: vectors and contexts kept


def test_watch_command_catches_up_then_follows_changes_until_interrupted(data_dir, docs):
    import json
    import signal
    import subprocess
    import sys

    from cli_runner import cli

    cli(data_dir, "settings", "contexts", "rules")
    (docs / "old.md").write_text("# Old\n\nwritten before watching started.\n")
    watcher = subprocess.Popen(
        [sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "watch", str(docs), "--no-upgrade",
         "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A test run started in the background ignores SIGINT, and children inherit that: give Ctrl-C back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        catch_up = json.loads(watcher.stdout.readline())
        assert (catch_up["event"], catch_up["indexed"]) == ("catch-up", 1)
        assert json.loads(watcher.stdout.readline())["event"] == "watching"
        (docs / "new.md").write_text("# New\n\nquokka sightings on the island.\n")
        change = json.loads(watcher.stdout.readline())
        assert (change["event"], change["indexed"], change["failed"]) == ("change", 1, [])
        (docs / "broken.pdf").write_bytes(b"%PDF-1.7 this is not really a PDF")
        change = json.loads(watcher.stdout.readline())
        assert change["indexed"] == 0 and change["failed"][0]["path"].endswith("broken.pdf")
        found = json.loads(cli(data_dir, "search", "quokka", "--mode", "bm25", "--json").stdout)["results"]
        assert found[0]["path"] == str((docs / "new.md").resolve())
        # That search was answered by the watcher, which holds the models loaded (service/endpoint.py).
        answering = EndpointClient.for_library(data_dir)
        assert "desktop-rag watch" in answering.call("hello")["served_by"]
        answering.close()
        # Another process does not write beside it (its vectors would overwrite the watcher's): its `index` is a
        # run of the watcher's, followed to its end.
        more = docs.parent / "more"
        more.mkdir()
        (more / "walrus.md").write_text("# Walrus\n\nThe walrus colony hauled out on the ice floe.\n")
        through = cli(data_dir, "index", str(more))
        assert "Indexing in desktop-rag watch" in through.stderr and "Done: 1 files indexed" in through.stdout
        found = json.loads(cli(data_dir, "search", "walrus colony", "--mode", "bm25", "--json").stdout)["results"]
        assert found[0]["path"] == str((more / "walrus.md").resolve())
    finally:
        watcher.send_signal(signal.SIGINT)
        _, stderr = watcher.communicate(timeout=60)
    assert watcher.returncode == 0 and "Stopped watching." in stderr
    assert EndpointClient.for_library(data_dir) is None  # it stopped answering with it


@contextmanager
def lane_following(lane, folders):
    """A write lane fed by a watcher of `folders`, on a thread of its own (as `watch` runs it on its main one)."""
    with feeding(lane, folders):
        thread = threading.Thread(target=lane.run)
        thread.start()
        try:
            yield thread
        finally:
            lane.stop()
            thread.join(60)


def test_the_write_lane_applies_changes_and_upgrades_contexts_while_quiet(make_library, docs):
    lib = make_library(Settings(contexts="auto", llm_model="smollm2-135m-instruct-q4_1"))
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    lib.index([docs], contexts="rules")
    assert lib.stats()["contexts_awaiting_upgrade"] > 0
    batches, upgrades = [], []
    lane = WriteLane(lib, upgrade="now", make_way_s=0.5,
                     on_batch=lambda batch, summary: batches.append(summary), on_upgrade=upgrades.append)
    with lane_following(lane, [docs]):
        eventually(lambda: upgrades, timeout=120)
        assert upgrades[0].documents == 1  # written (or tried and recorded) by the model
        assert lib.reader.stats()["contexts_awaiting_upgrade"] == 0
        (docs / "weeds.md").write_text("# Weeds\n\nNettle soup is made from young nettle leaves.\n")
        eventually(lambda: batches and batches[-1].indexed == 1)
        assert lib.catalog.contexts.context(lib.search("nettle", k=1, mode="bm25").hits[0].chunk_id)["source"] == "rules"
        eventually(lambda: len(upgrades) == 2, timeout=120)  # then upgraded, once the folder is quiet
        assert lib.reader.stats()["contexts_awaiting_upgrade"] == 0


def test_a_save_during_an_upgrade_goes_first_and_the_upgrade_then_resumes(make_library, docs):
    from desktop_rag.core.progress.pacing import CHUNKS_PER_STEP

    (docs / "manual.md").write_text("# Manual\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + f"Part {i} explains setting number {i} of the boiler in plain words. " * 6
        for i in range(20)))
    lib = make_library(Settings(contexts="rules", chunk_tokens=64, chunk_overlap_tokens=0))
    chunks = lib.index([docs]).chunks
    events = []
    lane = WriteLane(lib, upgrade="now", make_way_s=0.3,
                     on_batch=lambda batch, summary: events.append(("batch", summary.indexed)))

    class SlowFakeModel(Contextualizer):
        """Chunk-level contexts; its first step lasts until a save arrives (the step a save has to wait for)."""
        levels = {"chunk"}
        unavailable = None

        def cache_key(self):
            return ("fake-model", "ctx-fake/chunk")

        def contextualize(self, document, doc_chunks, only=None):
            events.append(("ask", list(only)))
            if len(events) == 1:
                (docs / "saved.md").write_text("# Saved\n\nThe quokka file saved during the upgrade.\n")
                eventually(lambda: lane.turn.control is not None and lane.turn.control.cancelled, timeout=30)
            return [ContextResult(text=f"Fake context for part {i}.", source="llm" if i in only else "rules",
                                  model="fake-model", prompt_version="ctx-fake/chunk", quality=0.9)
                    for i in range(len(doc_chunks))]

    real = lib.contextualizer
    lib.contextualizer = lambda choice, on_notice=None: SlowFakeModel() if choice == "llm" else real(choice, on_notice)
    with lane_following(lane, [docs]):
        eventually(lambda: lib.reader.stats()["contexts_awaiting_upgrade"] == 0, timeout=60)
    # The first step finished, then the save was applied, then the upgrade went on with what was still waiting.
    assert events[0] == ("ask", list(range(CHUNKS_PER_STEP))) and events[1] == ("batch", 1)
    asked_after = [step for kind, step in events[2:] if kind == "ask"]
    # The saved file's one chunk first (the newest change: storage/catalog_upgrade_order.py), then the manual's
    # remaining chunks.
    assert asked_after[0] == [0]
    assert [i for step in asked_after[1:] for i in step] == list(range(CHUNKS_PER_STEP, chunks))
    assert paths(lib, "quokka") == [str((docs / "saved.md").resolve())]


def test_watch_applies_saves_renames_and_deletes_within_3_s_while_the_llm_works(make_library, docs):
    from fake_models import SlowFakeModel

    (docs / "manual.md").write_text("# Boiler manual\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + f"Part {i} explains setting number {i} of the boiler pressure valve. " * 6
        for i in range(12)))
    lib = make_library(Settings(contexts="rules", chunk_tokens=64, chunk_overlap_tokens=0))
    lib.index([docs])
    model = SlowFakeModel(fast_calls=1)  # its second step lasts two minutes unless cut short
    lib.llm_backend = lambda: model
    lane = WriteLane(lib, upgrade="now", make_way_s=0.3)
    watching = lane_following(lane, [docs])
    thread = watching.__enter__()

    def seconds_until(predicate):
        started = time.monotonic()
        eventually(predicate)
        return time.monotonic() - started

    try:
        eventually(model.working.is_set, timeout=60)
        quokka = docs / "quokka.md"
        quokka.write_text("# Quokkas\n\nThe quokka is a small wallaby of Rottnest Island.\n")
        # Keyword hits come last in a batch (after its vectors): found by them, the file is in both indexes.
        assert seconds_until(lambda: paths(lib, "quokka") == [str(quokka.resolve())]) <= 3.0
        eventually(model.working.is_set, timeout=60)  # the upgrade went on once the folder was quiet
        wallaby = docs / "wallaby.md"
        quokka.rename(wallaby)
        assert seconds_until(lambda: paths(lib, "quokka") == [str(wallaby.resolve())]) <= 3.0
        eventually(model.working.is_set, timeout=60)
        wallaby.unlink()
        assert seconds_until(lambda: not paths(lib, "quokka")) <= 3.0
        eventually(model.working.is_set, timeout=60)
    finally:
        asked_to_stop = time.monotonic()
        lane.stop()  # what Ctrl-C does
        thread.join(60)
        watching.__exit__(None, None, None)
    assert time.monotonic() - asked_to_stop <= 2.0 and not thread.is_alive()
    assert model.interrupted >= 4  # three changes and the stop each cut a step short
    assert lib.reader.stats()["contexts_by_source"]["llm"] >= 8  # the first step's contexts are kept


def test_a_watched_file_failing_anew_tells_the_views_to_show_it_anew(library, docs):
    """The views show each file's error: when a broken file is saved again with a password, what they show changed
    although no count of the run did (its name card is the same, nothing is embedded)."""
    import pymupdf

    path = docs / "plan.pdf"
    path.write_bytes(b"%PDF-1.4 cut short")
    library.index([docs], contexts="rules")
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "The greenhouse plan for spring.")
    document.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="secret")
    summary = library.apply_changes(ChangeBatch(dirty={str(path)}))
    assert [f.reason.split(":")[0] for f in summary.failed] == ["password-protected"]
    assert summary.embedded == 0 and summary.changes.documents
    again = library.apply_changes(ChangeBatch(dirty={str(path)}))
    assert not again.changes  # the same file again (said failed again): nothing to show anew

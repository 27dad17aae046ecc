"""The indexing run (core/indexing/) on its own: the real catalog and file reading, fakes for the dense index, the
model and the keyword index (tests/unit/core/indexing/index_parts_fake.py). What it reads, keeps, forgets and
embeds, run after run; the real parts together are in end2end/test_indexing.py."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from desktop_rag.core.contexts.choice import make_contextualizer
from desktop_rag.core.indexing.run import Indexer
from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.watching.changes import ChangeBatch
from desktop_rag.documents import index_text
from index_parts_fake import DIMENSION, EmbedderFake, IndexPartsFake


@pytest.fixture
def parts(tmp_path):
    made = IndexPartsFake(tmp_path / "data")
    yield made
    made.close()


@pytest.fixture
def folder(tmp_path):
    made = tmp_path / "docs"
    made.mkdir()
    (made / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    (made / "boat.txt").write_text("The sailing boat's mast was varnished before the regatta.\n")
    return made


def indexer(parts, control=None, on_progress=None) -> Indexer:
    contextualizer = make_contextualizer("rules", parts.settings.context_max_words, parts.settings.context_max_tokens,
                                         parts.token_counter)
    return Indexer(parts, contextualizer, control=control, on_progress=on_progress)


def run(parts, *roots, control=None):
    return indexer(parts, control).run(list(roots))


def control_cancelled_after_reads(parts, control: RunControl, reads: int) -> RunControl:
    """`control`, cancelled as the reader is asked for its `reads`-th file (an injected stop, as the Cancel button
    does); the reader is itself again from then on."""
    reader_read = parts.document_reader.read
    asked = []

    def read_then_cancel(*args, **kwargs):
        asked.append(args[0])
        if len(asked) == reads:
            control.cancel()
            parts.document_reader.read = reader_read
        return reader_read(*args, **kwargs)

    parts.document_reader.read = read_then_cancel
    return control


def apply(parts, batch: ChangeBatch):
    return indexer(parts).apply_changes(batch)


def test_a_first_run_reads_contextualizes_keyword_indexes_and_embeds_every_file(parts, folder):
    summary = run(parts, folder)
    assert (summary.indexed, summary.failed, summary.cancelled) == (2, [], False)
    assert summary.embedded == summary.chunks == parts.catalog.chunk_count() > 0
    assert parts.keywords.rebuilds >= 1 and not parts.catalog.keyword_index_dirty
    assert set(parts.vectors.windows_of) == parts.catalog.chunk_ids()
    assert parts.catalog.folders() == [str(folder)]


def test_a_second_run_reads_and_embeds_nothing_that_did_not_change(parts, folder):
    run(parts, folder)
    embedded_before = parts.embedder.texts_embedded
    summary = run(parts, folder)
    assert (summary.indexed, summary.unchanged, summary.embedded) == (0, 2, 0)
    assert parts.embedder.texts_embedded == embedded_before


def test_a_changed_file_is_read_again_and_only_its_new_chunks_embedded(parts, folder):
    run(parts, folder)
    boat = parts.catalog.document(str(folder / "boat.txt"))
    old_chunks = {c for c in parts.catalog.chunk_ids() if parts.catalog.contexts.chunk_document_id(c) == boat.id}
    (folder / "boat.txt").write_text("The rowing boat was painted green after the race.\n")
    summary = run(parts, folder)
    assert (summary.indexed, summary.unchanged) == (1, 1)
    assert old_chunks <= set(parts.vectors.deleted)  # the old text's vectors are gone from the dense index
    assert set(parts.vectors.windows_of) == parts.catalog.chunk_ids()


def test_a_moved_file_keeps_its_chunks_and_vectors(parts, folder):
    run(parts, folder)
    chunks_before, embedded_before = parts.catalog.chunk_ids(), parts.embedder.texts_embedded
    (folder / "boat.txt").rename(folder / "regatta.txt")
    summary = apply(parts, ChangeBatch(moves=[(str(folder / "boat.txt"), str(folder / "regatta.txt"))]))
    assert summary.moved == 1 and summary.indexed == 0
    assert parts.catalog.document(str(folder / "regatta.txt")) is not None
    assert parts.catalog.chunk_ids() == chunks_before and parts.embedder.texts_embedded == embedded_before


def test_a_deleted_file_is_forgotten_with_its_vectors(parts, folder):
    run(parts, folder)
    (folder / "garden.md").unlink()
    summary = apply(parts, ChangeBatch(dirty={str(folder / "garden.md")}))
    assert summary.removed == 1 and parts.catalog.document(str(folder / "garden.md")) is None
    assert set(parts.vectors.windows_of) == parts.catalog.chunk_ids()


def test_a_broken_file_fails_alone_and_is_found_by_its_name(parts, folder):
    (folder / "plan.pdf").write_bytes(b"%PDF-1.4 cut short")
    summary = run(parts, folder)
    assert summary.indexed == 2 and [f.path for f in summary.failed] == [str(folder / "plan.pdf")]
    record = parts.catalog.document(str(folder / "plan.pdf"))
    assert record.status == "failed" and "PDF" in record.error


def test_a_cancelled_run_keeps_what_it_finished_and_the_next_run_does_the_rest(parts, folder):
    for number in range(6):
        (folder / f"note{number}.md").write_text(f"# Note {number}\n\nCrate {number} is on shelf {number}.\n")
    first = run(parts, folder, control=control_cancelled_after_reads(parts, RunControl(), 3))
    assert first.cancelled and 0 < first.indexed < 8
    second = run(parts, folder)
    assert second.unchanged == first.indexed and second.indexed == 8 - first.indexed and not second.cancelled


def test_a_context_edited_while_its_chunk_is_being_embedded_is_embedded_again_with_the_edit(parts, folder):
    """A person's edit landing between the run reading a pending chunk and marking it embedded: the vector written
    was of the old context. It was marked embedded all the same, and meaning search never saw the edit (found by
    test_watch.py on a loaded machine)."""
    run_before_embedding = indexer(parts)
    run_before_embedding.sync.embed_pending = lambda: None  # the files read and stored, nothing embedded yet
    run_before_embedding.run([folder])
    boat = next(c for c in parts.catalog.chunk_ids() if "boat" in parts.catalog.chunks_by_id([c])[c].text)
    embed = parts.embedder.embed

    def embed_while_a_person_edits(texts):  # the edit, injected where the run waits for the model
        parts.embedder.embed = embed
        parts.catalog.contexts.set_manual_context(boat, "Regatta preparations log.")
        return embed(texts)

    parts.embedder.embed = embed_while_a_person_edits
    indexer(parts).sync_indexes()
    assert parts.catalog.count_pending_embeddings() == 1  # the edited chunk, for the next sync: not marked done
    indexer(parts).sync_indexes()  # (the writer's next sync: a run indexes the edits made during it as it ends)
    assert parts.catalog.count_pending_embeddings() == 0 and not parts.catalog.pending_dense_deletions()
    edited = embed([index_text("Regatta preparations log.", parts.catalog.chunks_by_id([boat])[boat].text)])
    assert any(np.allclose(window, edited[0]) for window in parts.vectors.windows([boat])[boat])
    stored = parts.catalog.filters.chunk_vectors([boat], DIMENSION)[boat]
    assert any(np.allclose(window, edited[0], atol=2e-3) for window in stored)  # the catalog's copy too


def test_a_chunk_edited_during_every_embedding_batch_does_not_keep_the_run_going(parts, folder):
    """Edits coming all the time (the app's edit lane during a run): each chunk is embedded once per sync, the one
    edited waits for the next; the run ends (it went on for as long as the edits did)."""
    for number in range(150):
        (folder / f"note{number}.md").write_text(f"# Note {number}\n\nCrate {number} is on shelf {number}.\n")
    run_before_embedding = indexer(parts)
    run_before_embedding.sync.embed_pending = run_before_embedding.sync.measure_embedding = lambda: None
    run_before_embedding.run([folder])
    first = min(parts.catalog.chunk_ids())
    embed, calls = parts.embedder.embed, []

    def embed_while_a_person_keeps_editing(texts):
        calls.append(len(texts))
        parts.catalog.contexts.set_manual_context(first, f"Edit number {len(calls)}")
        return embed(texts)

    parts.embedder.embed = embed_while_a_person_keeps_editing
    indexer(parts).sync_indexes()  # batches of 128 chunks: two, each with an edit
    assert sum(calls) == parts.catalog.chunk_count() and len(calls) == 2  # each chunk embedded once
    # Each chunk's vector is its own text's.
    records = parts.catalog.chunks_by_id(sorted(parts.catalog.chunk_ids())[1:])
    for chunk_id, record in records.items():
        [window] = parts.vectors.windows([chunk_id])[chunk_id]
        assert np.allclose(window, embed([index_text(record.context, record.text)])[0]), chunk_id
    assert parts.catalog.count_pending_embeddings() == 1


class EmbedderFakeSlowToLoad(EmbedderFake):
    """Not loaded until its `dimension` is asked for (as the model's child process), and then only once the test
    lets it: a model that takes its time."""

    def __init__(self):
        super().__init__()
        self.loaded = False
        self.asked_on: list[str] = []
        self.may_load = threading.Event()

    @property
    def dimension(self) -> int:
        self.asked_on.append(threading.current_thread().name)
        self.may_load.wait(timeout=30)
        self.loaded = True
        return DIMENSION


def test_a_run_loads_the_embedding_model_on_the_side_while_it_reads(parts, folder):
    """A service started on an empty library had no model loaded: it loaded only when embedding began, and the
    ETA stood on a guess until then (issue 49's first hour: "about 5 min left" of 13). The run asks for it as it
    starts reading, on a thread of its own, and never waits for it."""
    parts.embedder = slow = EmbedderFakeSlowToLoad()
    summary = run(parts, folder)
    assert summary.indexed == 2 and not slow.loaded  # read, stored and embedded while the model still loads
    deadline = time.monotonic() + 10
    while not slow.asked_on and time.monotonic() < deadline:  # (the thread asks at once; a loaded machine may lag)
        time.sleep(0.01)
    assert slow.asked_on and slow.asked_on[0] != threading.current_thread().name
    slow.may_load.set()
    asked_again = len(slow.asked_on)
    run(parts, folder)  # nothing to read: nothing asked
    assert len(slow.asked_on) == asked_again



class KeywordIndexCancelledMidwayFake:
    """Fault injection: Ctrl-C comes while the keyword index is rebuilt; the rebuild asks, and gives up."""

    tokenizing_s = 0.0

    segment_count, merging = 0, False

    def __init__(self, control: RunControl):
        self.control, self.rebuilds = control, 0

    def rebuild(self, texts, stopped=lambda: False) -> int:
        from desktop_rag.storage.keyword_index import RebuildStopped

        self.rebuilds += 1
        self.control.cancel()
        if stopped():
            raise RebuildStopped("given up")
        return sum(1 for _ in texts)


def test_a_cancel_during_the_keyword_rebuild_ends_the_run_there_and_leaves_the_index_to_rebuild(parts, folder):
    control = RunControl()
    parts.keywords = KeywordIndexCancelledMidwayFake(control)
    summary = run(parts, folder, control=control)
    assert summary.cancelled and parts.keywords.rebuilds == 1
    assert parts.catalog.keyword_index_dirty  # rebuilt by the next run


def shares_of_a_run(parts, *roots, control=None) -> tuple[list[float], object]:
    """The whole run's share each report carried, in order, and the run's summary."""
    shares: list[float] = []
    told = indexer(parts, control, on_progress=lambda p: shares.append(p.overall) if p.overall is not None else None)
    return shares, told.run(list(roots))


def test_a_rescan_counts_the_work_kept_so_its_bar_does_not_start_again_at_nought(parts, folder):
    """Issue 60: the bar went back to 0% after a re-scan, with all the earlier work kept."""
    for number in range(12):
        (folder / f"note{number}.md").write_text(f"# Note {number}\n\n" + "Crates on the shelf. " * 200)
    run(parts, folder)
    (folder / "new.md").write_text("# New\n\nOne more crate arrived.\n")
    shares, summary = shares_of_a_run(parts, folder)
    assert summary.indexed == 1 and summary.unchanged == 14
    assert shares[0] > 0.8, shares  # 14 files of 15, the larger ones, read and embedded before
    assert shares == sorted(shares) and shares[-1] == 1.0


def test_a_run_taking_over_an_interrupted_one_starts_at_the_share_that_one_showed(parts, folder):
    """A service killed (here: a run cancelled) at some share: the next run, with nothing added, goes on from
    there; with a file added it starts from the kept work alone."""
    for number in range(8):
        (folder / f"note{number}.md").write_text(f"# Note {number}\n\n" + f"Crate {number} on the shelf. " * 300)
    first, summary = shares_of_a_run(parts, folder, control=control_cancelled_after_reads(parts, RunControl(), 5))
    assert summary.cancelled and first[-1] > 0
    left = parts.catalog.run_work.run_left()
    assert left["bytes_left"] > 0 and left["share"] == pytest.approx(first[-1], abs=1e-3)
    second, summary = shares_of_a_run(parts, folder)
    assert not summary.cancelled
    assert second[0] >= first[-1] - 1e-3, (first, second)
    assert second == sorted(second) and second[-1] == 1.0
    assert parts.catalog.run_work.run_left() == {"share": 1.0, "bytes_left": 0, "passages_left": 0,
                                                 "folders": [str(folder)]}


def test_a_run_with_work_added_or_of_another_folder_does_not_take_over_the_share_of_another(parts, folder, tmp_path):
    parts.catalog.run_work.remember_run_left({"share": 0.9, "bytes_left": 10, "passages_left": 1,
                                              "folders": [str(folder)]})
    for number in range(4):
        (folder / f"big{number}.md").write_text(f"# Big {number}\n\n" + "A long story of crates. " * 500)
    shares, _ = shares_of_a_run(parts, folder)
    assert shares[0] < 0.5, shares  # nothing kept: the 90% of a smaller run's work is not this run's
    other = tmp_path / "other"
    other.mkdir()
    (other / "small.md").write_text("# Small\n\nOne crate.\n")
    parts.catalog.run_work.remember_run_left({"share": 0.9, "bytes_left": 10_000_000, "passages_left": 1_000,
                                              "folders": [str(folder)]})
    shares, _ = shares_of_a_run(parts, other)
    assert shares[0] < 0.5, shares  # a run over another folder: the share of the first is not its own


def test_a_file_deleted_during_the_run_is_forgotten_not_failed(parts, folder, monkeypatch):
    """Issue 61: 110 of 150 files deleted from 6 s into a first run left 72 rows "cannot read file: No such file
    or directory" in the failures and in search by name until the next run. Here the file goes between the scan and
    its reading (an injected deletion, as a person's would come)."""
    from desktop_rag.core.indexing import reading

    real_read = reading.read_bounded

    def deleted_first(path, limit):
        if path.name == "boat.txt":
            path.unlink()
        return real_read(path, limit)

    monkeypatch.setattr(reading, "read_bounded", deleted_first)
    summary = run(parts, folder)
    assert summary.failed == [] and summary.indexed == 1
    assert parts.catalog.document(str(folder / "boat.txt")) is None
    assert parts.catalog.failures() == []

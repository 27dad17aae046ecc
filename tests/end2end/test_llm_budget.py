"""`auto` contexts: rules at once for every file (an indexing run never waits on the model), LLM contexts later
from the upgrade, which resumes where it stopped."""

from pathlib import Path

from desktop_rag.config import Settings
from desktop_rag.core.contexts.base import Contextualizer
from desktop_rag.documents import ContextResult


def test_auto_gives_rules_at_once_and_never_loads_the_model_while_indexing(make_library, docs):
    """Issue 37: a one-page PDF took the 1.5B model 210 s inside a first run, nothing searchable meanwhile."""
    (docs / "kettle.md").write_text("# Kettle descaling\n\nFill with one part vinegar, two parts water; boil, "
                                    "rest an hour, rinse twice. Citric acid works too, at 30 grams per litre.")
    library = make_library(Settings(llm_model="qwen2.5-coder-0.5b-instruct-q4_k_m"))
    seen = []
    summary = library.index([docs], on_progress=lambda p: seen.append(p.note))  # `auto`, the default
    assert summary.indexed == 1
    assert library._llm_backend is None  # not even made: no model file joined, no child started
    assert not [note for note in seen if note and "language model" in note]
    assert {r[0] for r in library.catalog._db.execute("SELECT source FROM contexts")} == {"rules"}
    assert library.search("descaling vinegar", k=1).hits  # searchable at once
    assert library.stats()["contexts_awaiting_upgrade"] == 1

    upgrade = library.upgrade_contexts()
    assert upgrade.documents == 1 and upgrade.upgraded_chunks + upgrade.kept_rules == 1
    model = library.catalog._db.execute("SELECT model FROM contexts").fetchone()[0]
    assert model.startswith("qwen2.5-coder-0.5b")  # written, or tried and recorded, by the model
    assert library.stats()["contexts_awaiting_upgrade"] == 0


def test_an_interrupted_upgrade_resumes_without_asking_again_for_finished_documents(make_library, docs):
    from desktop_rag.core.progress.control import RunControl

    for name in ("herons", "swallows", "kettles"):
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\nA short note about {name} and their habits.\n")
    library = make_library(Settings(llm_model="smollm2-135m-instruct-q4_1"))
    library.index([docs])
    control = RunControl()

    def stop_after_first_document(progress):
        if progress.phase == "contextualize" and progress.done == 1:
            control.cancel()  # as a kill would, between two documents

    first = library.upgrade_contexts(on_progress=stop_after_first_document, control=control)
    assert first.cancelled and first.documents == 1
    asked = {r[0]: r[1] for r in library.catalog._db.execute(
        "SELECT c.document_id, x.updated_at FROM contexts x JOIN chunks c ON c.id = x.chunk_id"
        " WHERE x.model IS NOT NULL")}
    assert len(asked) == 1

    second = library.upgrade_contexts()
    assert not second.cancelled and second.documents == 2  # only the two documents not done before
    again = {r[0]: r[1] for r in library.catalog._db.execute(
        "SELECT c.document_id, x.updated_at FROM contexts x JOIN chunks c ON c.id = x.chunk_id")}
    for doc_id, updated in asked.items():
        assert again[doc_id] == updated  # the finished document's context was not written again
    assert library.stats()["contexts_awaiting_upgrade"] == 0


class StepRecordingFakeLlm(Contextualizer):
    """Stands in for the model at chunk level: records which chunks each call asks about; can cancel a run."""

    levels = {"chunk"}
    unavailable = None

    def __init__(self, on_call=None):
        self.asked: list[list[int]] = []
        self.on_call = on_call or (lambda: None)

    def cache_key(self):
        return ("fake-model", "ctx-fake/chunk")

    def contextualize(self, document, chunks, only=None):
        self.asked.append(list(only))
        self.on_call()
        return [ContextResult(text=f"Fake context for part {i}.", source="llm" if i in only else "rules",
                              model="fake-model", prompt_version="ctx-fake/chunk", quality=0.9)
                for i in range(len(chunks))]


def test_an_upgrade_stops_between_steps_of_a_long_document_and_resumes_with_the_chunks_still_waiting(
        make_library, docs):
    from desktop_rag.core.progress.pacing import CHUNKS_PER_STEP
    from desktop_rag.core.progress.control import RunControl

    (docs / "manual.md").write_text("# Manual\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + f"Part {i} explains setting number {i} of the boiler in plain words. " * 6
        for i in range(20)))
    library = make_library(Settings(contexts="rules", chunk_tokens=64, chunk_overlap_tokens=0))
    chunks = library.index([docs]).chunks
    assert chunks > 2 * CHUNKS_PER_STEP
    control = RunControl()
    interrupted = StepRecordingFakeLlm(on_call=control.cancel)  # a saved file arrives during the first step
    library.contextualizer = lambda choice, on_notice=None: interrupted
    first = library.upgrade_contexts(control=control)
    assert first.cancelled and interrupted.asked == [list(range(CHUNKS_PER_STEP))]
    assert first.upgraded_chunks == CHUNKS_PER_STEP  # the step in hand was finished and kept

    resumed = StepRecordingFakeLlm()
    library.contextualizer = lambda choice, on_notice=None: resumed
    second = library.upgrade_contexts()
    asked = [i for step in resumed.asked for i in step]
    assert asked == list(range(CHUNKS_PER_STEP, chunks))  # only the chunks still waiting, in order
    assert all(len(step) <= CHUNKS_PER_STEP for step in resumed.asked)
    assert not second.cancelled and second.upgraded_chunks == chunks - CHUNKS_PER_STEP
    assert {r[0] for r in library.catalog._db.execute("SELECT source FROM contexts")} == {"llm"}
    assert library.stats()["contexts_awaiting_upgrade"] == 0


def test_a_run_says_it_is_loading_the_language_model_instead_of_sitting_at_its_first_document(make_library, docs):
    from desktop_rag.core.indexing.report import LOADING_NOTE

    (docs / "herons.md").write_text("# Herons\n\nA short note about herons and their habits.\n")
    (docs / "kettles.md").write_text("# Kettles\n\nA short note about kettles and their limescale.\n")
    library = make_library(Settings(llm_model="smollm2-135m-instruct-q4_1"))
    seen = []
    library.index([docs], contexts="llm", on_progress=lambda p: seen.append((p.note, p.path)))
    notes = [(note, Path(path).name) for note, path in seen if note]
    assert notes == [(LOADING_NOTE, "herons.md")]  # once, at the first document that asks the model

    library.index([docs], contexts="rules")  # nothing changed: nothing to load for
    upgrade = []
    library.release_llm_model()
    (docs / "swallows.md").write_text("# Swallows\n\nSwallows fly south in autumn.\n")
    library.index([docs], contexts="rules")
    library.upgrade_contexts(on_progress=lambda p: upgrade.append(p.note))
    assert upgrade[0] == LOADING_NOTE

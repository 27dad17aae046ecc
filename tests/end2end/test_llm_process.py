"""The app's set-up: the GGUF model (here the real small SmolLM2) in a child process, writing contexts that are
stored and found; a model setting changed mid-run closes that child without losing anything; a call is cut
short by its caller's control within a second."""

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.library.library import Library
from desktop_rag.core.llm.llama_process import LlamaInChild


def test_contexts_from_the_model_in_a_child_and_a_settings_change_mid_run(data_dir, docs):
    for name in ("herons", "swallows", "kettles"):
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\nA short note about {name} and their habits.\n")
    library = Library(data_dir, Settings(contexts="rules", llm_model="smollm2-135m-instruct-q4_1",
                                         llm_upgrade_when_idle=False), child_processes=True)
    try:
        library.index([docs])
        assert isinstance(library.llm_backend(), LlamaInChild)
        first_child = library.llm_backend()

        def change_settings_after_first_document(progress):
            if progress.phase == "contextualize" and progress.done == 1:
                library.set_settings({"llm_threads": 1})  # as the settings dialog does while an upgrade runs

        first = library.upgrade_contexts(on_progress=change_settings_after_first_document)
        assert not first_child._child.running  # the old model's child has ended
        # The first document was done; the next met the closed model and kept its rules context; the run stopped.
        assert first.documents == 2 and first.upgraded_chunks + first.kept_rules == 2
        assert any("stopped for this run" in notice for notice in first.notices)
        assert library.stats()["contexts_awaiting_upgrade"] == 2

        second = library.upgrade_contexts()  # the two documents left, by a new child
        assert second.documents == 2 and library.llm_backend() is not first_child
        assert library.stats()["contexts_awaiting_upgrade"] == 0
        models = {r[0] for r in library.catalog._db.execute("SELECT model FROM contexts")}
        assert models == {"SmolLM2-135M-Instruct.Q4_1"}  # written, or tried and recorded, by the model
        assert "kettle" in library.search("kettles habits").hits[0].path
    finally:
        library.close()


@pytest.mark.parametrize("engine", ["llama-cpp-python", "xllamacpp"])
@pytest.mark.parametrize("where", ["child", "in-process"])
def test_the_model_s_call_is_cut_short_by_its_caller_s_control_and_the_next_call_works(tmp_path, where, engine):
    import threading
    import time

    from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
    from desktop_rag.core.llm.engines import local_engine
    from desktop_rag.core.llm.models import resolve_model
    from desktop_rag.core.progress.control import RunControl

    path = resolve_model("smollm2-135m-instruct-q4_1", tmp_path)
    runs = local_engine(engine)  # issue 52: the wheel engine is cut short alike (between its prompt's batches)
    model = LlamaInChild(path, n_ctx=8192, engine=runs) if where == "child" else runs(path, n_ctx=8192)
    document = " ".join(f"Paragraph {i} is about herons, fish and the water level of the lake." for i in range(250))
    questions = [[{"role": "user", "content": f"{document}\n\nQuestion {k}: what is this about?"}] for k in range(8)]
    try:
        model.load()
        control = RunControl()
        threading.Timer(1.0, control.cancel).start()  # a saved file arrives a second into the step
        started = time.monotonic()
        with calls_controlled_by(control), pytest.raises(Interrupted):
            model.chat_batch(questions, max_tokens=200)  # ~2,800 prompt tokens, 8 answers: many seconds
        assert time.monotonic() - started < 2.0

        with calls_controlled_by(control), pytest.raises(Interrupted):
            model.chat_batch(questions[:1], max_tokens=5)  # a cancelled caller gets no more calls
        other = RunControl()  # another caller (a person's "regenerate") is not held by the first one's cancel
        short = [[{"role": "user", "content": f"Question {k}: what does a heron eat?"}] for k in range(2)]
        with calls_controlled_by(other):  # (short prompts: the long ones took ~50 s of this test to evaluate)
            answers = model.chat_batch(short, max_tokens=8)
        assert len(answers) == 2 and all(a.completion_tokens > 0 for a in answers)
        assert model.count_tokens("one two three") > 0  # the lane carries this call's own answer
    finally:
        model.close()


def test_the_model_a_regeneration_loaded_and_the_reader_are_given_back_when_unused_by_the_write_lane(data_dir, docs,
                                                                                                    monkeypatch):
    """Issue 37: the model's process held 1.1 GB 25 minutes after its last call: only the background upgrade's own
    end started the clock that gives the model back, so a model loaded by anything else stayed. The document
    reader's child held 780 MB after a first run of 500 files, for good. The service's write lane gives both back
    (the window, a client since issue 49, holds neither)."""
    import desktop_rag.core.runs.lane as lane_module
    from desktop_rag.core.runs.lane import WriteLane
    from waiting import eventually

    monkeypatch.setattr(lane_module, "RELEASE_MODEL_AFTER_S", 2.0)
    (docs / "herons.md").write_text("# Herons\n\nThe grey heron waits at the pond for fish at dawn.\n")
    library = Library(data_dir, Settings(contexts="rules", llm_model="smollm2-135m-instruct-q4_1",
                                         llm_upgrade_when_idle=False), child_processes=True)
    lane = WriteLane(library, upgrade="never")
    lane.start()
    try:
        library.index([docs])
        chunk_id = library.search("heron", k=1).hits[0].chunk_id
        lane.edit(lambda: library.edits.regenerate_context(chunk_id)).result(timeout=600)  # as Review's Regenerate
        model = library.llm_backend()
        assert model.loaded
        eventually(lambda: not model.loaded, timeout=180)  # given back by the write lane
        assert library.llm_backend() is not model  # and the next use loads it again
        eventually(lambda: not library.document_reader._child.running, timeout=180)
        (docs / "kestrels.md").write_text("# Kestrels\n\nA kestrel hovers over the meadow.\n")
        library.index([docs])  # a file saved later is read by a new reader
        assert any("kestrels.md" in hit.path for hit in library.search("kestrel", k=3).hits)
    finally:
        lane.stop()
        lane.join(5)
        library.close()


def test_a_streamed_answer_is_cut_short_at_once_even_while_the_child_cannot_run(tmp_path):
    """A child starved of the CPU (niced, beside busy programs: it took 27-30 s to answer a read of the pieces)
    is here stopped outright (SIGSTOP) while it writes: a Cancel still ends the stream within a second, and once
    it runs again its next call answers."""
    import os
    import signal
    import threading
    import time

    from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
    from desktop_rag.core.llm.models import resolve_model
    from desktop_rag.core.progress.control import RunControl

    model = LlamaInChild(resolve_model("smollm2-135m-instruct-q4_1", tmp_path), n_ctx=2048)
    control = RunControl()
    pid = None
    resume = None
    asked = [{"role": "user", "content": "Write a long story about herons, fish and the lake, in many sentences."}]
    try:
        model.load()
        pid = model._child._process.pid
        pieces = []
        with calls_controlled_by(control), pytest.raises(Interrupted):
            for piece in model.chat_stream(asked, max_tokens=400):
                pieces.append(piece)
                if len(pieces) == 2:
                    os.kill(pid, signal.SIGSTOP)
                    threading.Timer(0.3, control.cancel).start()
                    resume = threading.Timer(5, os.kill, (pid, signal.SIGCONT))  # a failure ends, not hangs
                    resume.start()
                    stopped_at = time.monotonic()
        assert time.monotonic() - stopped_at < 1.3, time.monotonic() - stopped_at
        os.kill(pid, signal.SIGCONT)
        assert model.count_tokens("one two three") > 0
    finally:
        if resume is not None:
            resume.cancel()  # the child may be gone when it would fire
        if pid is not None:
            os.kill(pid, signal.SIGCONT)
        model.close()

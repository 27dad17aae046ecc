"""The two engines that run the local model (core/llm/engines.py, issue 52): llama-cpp-python, compiled at
install, and llama.cpp's server from the xllamacpp wheel, for where no compiler is at hand. With the shipped
Qwen2.5-Coder 0.5B: they build the same prompt, answer alike, and the app writes, stores and finds contexts with
either."""

import re

from desktop_rag.config import Settings
from desktop_rag.core.library.library import Library
from desktop_rag.core.llm import backend
from desktop_rag.core.llm.engines import local_engine
from desktop_rag.core.llm.llama_backend import LlamaCppBackend
from desktop_rag.core.llm.llama_process import LlamaInChild
from desktop_rag.core.llm.llama_server_engine import LlamaServerEngine
from desktop_rag.core.llm.models import resolve_model

MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
QUESTIONS = [
    [{"role": "system", "content": "Answer in one sentence."},
     {"role": "user", "content": "Herons nest in tall trees near the marsh, in colonies called heronries. What is this "
                                 "about?"}],
    [{"role": "user", "content": "Limescale builds up in kettles in hard-water areas. Fill the kettle with vinegar and "
                                 "water, boil it and rinse it twice. What is this about?"}],
    [{"role": "user", "content": "東京の隅田川では毎年七月に花火大会が開かれる。これは何についての文章ですか。"}],
]


def test_the_setting_picks_the_engine_and_auto_prefers_llama_cpp_python():
    assert local_engine("auto") is LlamaCppBackend  # both are installed here
    assert local_engine("llama-cpp-python") is LlamaCppBackend
    assert local_engine("xllamacpp") is LlamaServerEngine


def test_both_engines_build_the_same_prompt_and_answer_the_same_greedily(tmp_path, monkeypatch):
    path = resolve_model(MODEL, tmp_path)
    answers = {}
    for engine in (LlamaCppBackend, LlamaServerEngine):
        model = engine(path, n_ctx=2048, n_threads=2)
        try:
            monkeypatch.setattr(backend, "REPEAT_PENALTY", 1.0)
            plain = [model.chat(messages, max_tokens=40) for messages in QUESTIONS]
            monkeypatch.setattr(backend, "REPEAT_PENALTY", 1.1)
            batched = model.chat_batch(QUESTIONS, max_tokens=40, first_sentence_only=True)
            answers[engine.__name__] = (plain, batched, model.count_tokens("Herons nest near 東京の川"))
        finally:
            model.close()
    (ours, ours_batched, ours_count), (theirs, theirs_batched, theirs_count) = answers.values()
    assert ours_count == theirs_count > 0
    assert [a.prompt_tokens for a in ours] == [a.prompt_tokens for a in theirs]  # one chat template, one tokenizer
    # Greedy without the penalty: the same answer, token for token (measured so on every question tried).
    assert [a.text for a in ours] == [a.text for a in theirs], [(a.text, b.text) for a, b in zip(ours, theirs)]
    # With the app's penalty the engines part where a token repeats (llama.cpp's server counts the prompt's last
    # 64 tokens as seen, the batched decoder only the answer's): the same subject, in other words at most.
    for mine, other in zip(ours_batched, theirs_batched):
        assert mine.text and other.text and _overlap(mine.text, other.text) >= 0.3, (mine.text, other.text)


def test_the_app_writes_contexts_with_the_wheel_engine_in_its_child(data_dir, docs):
    (docs / "herons.md").write_text("# Herons of the Lower Marsh\n\n## Feeding\n\nThe grey heron stands still in "
                                    "shallow water at dawn and waits for fish, frogs and small eels.\n\n## Nesting\n\n"
                                    "Herons nest together in tall trees near the marsh, in colonies called "
                                    "heronries.\n")
    (docs / "kettles.md").write_text("# Descaling an electric kettle\n\nLimescale builds up in kettles in hard-water "
                                     "areas. Boil equal parts white vinegar and water, wait an hour, rinse twice.\n")
    library = Library(data_dir, Settings(contexts="rules", llm_model=MODEL, llm_engine="xllamacpp",
                                         llm_upgrade_when_idle=False, llm_threads=2), child_processes=True)
    try:
        library.index([docs])
        result = library.upgrade_contexts()
        model = library.llm_backend()
        assert isinstance(model, LlamaInChild) and model._child.running
        assert result.upgraded_chunks == library.stats()["chunks"] and result.upgraded_chunks >= 3
        rows = library.catalog._db.execute("SELECT model, text FROM contexts").fetchall()
        assert {row[0] for row in rows} == {MODEL}
        assert all(len(row[1].split()) > 5 for row in rows), [row[1] for row in rows]
        assert "kettle" in library.search("how to remove limescale", k=1).hits[0].path
    finally:
        library.close()


def _overlap(a: str, b: str) -> float:
    """Shared character pairs of the two answers' letters (Japanese has no spaces to split words at)."""
    pairs = [{t[i:i + 2] for i in range(len(t) - 1)} for t in ("".join(re.findall(r"\w", x.lower())) for x in (a, b))]
    return len(pairs[0] & pairs[1]) / max(1, len(pairs[0] | pairs[1]))

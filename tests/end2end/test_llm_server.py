"""Contexts from an OpenAI-compatible server: a real llama-cpp-python server (its OpenAI API) on localhost,
serving SmolLM2-135M."""

import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from desktop_rag.config import Settings
from desktop_rag.data_folders import models_cache_dir
from desktop_rag.core.llm.models import ModelUnavailable, resolve_model
from desktop_rag.core.llm.openai_backend import OpenAiServerBackend
from desktop_rag.core.llm.prompts import document_messages




def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    model = resolve_model("smollm2-135m-instruct-q4_1", models_cache_dir())
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"  # a file, not a pipe: its verbose log would fill a pipe
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", "2048", "--n_threads", "2"],
        stdout=subprocess.DEVNULL, stderr=log.open("w"),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server exited: {log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url + "/v1/models", timeout=2).read()
            break
        except OSError:
            time.sleep(0.5)
    else:
        process.kill()
        pytest.fail("the server did not start within 90 s")
    yield url
    process.terminate()
    process.wait(timeout=30)


def test_the_server_answers_counts_tokens_and_names_its_model(server_url):
    backend = OpenAiServerBackend(server_url + "/v1")
    assert backend.name.endswith("@127.0.0.1:" + server_url.rsplit(":", 1)[1]) and backend.model
    assert 2 <= backend.count_tokens("Herons hunt fish in shallow water.") <= 20
    messages = document_messages("Herons hunt fish in shallow water at dawn.", "What do herons hunt?")
    answer = backend.chat(messages, max_tokens=16)
    assert answer.text.strip() and 0 < answer.completion_tokens <= 16 and answer.prompt_tokens > 10
    together = backend.chat_batch([messages, messages], max_tokens=16)
    assert [a.text for a in together] == [answer.text, answer.text]  # greedy: the same question, the same answer


def test_indexing_with_a_server_writes_model_contexts(make_library, docs, server_url):
    (docs / "herons.md").write_text("# Herons\n\nThe grey heron hunts fish in shallow water at dawn and dusk.")
    library = make_library(Settings(llm_server=server_url))
    summary = library.index([docs], contexts="llm")
    assert summary.indexed == 1 and summary.notices == []
    row = library.catalog._db.execute("SELECT model, prompt_tokens, completion_tokens FROM contexts").fetchone()
    assert "@127.0.0.1:" in row["model"] and row["prompt_tokens"] > 0 and row["completion_tokens"] > 0


def test_an_unreachable_server_gives_rules_contexts_and_a_clear_notice(make_library, docs):
    with pytest.raises(ModelUnavailable, match="did not answer"):
        OpenAiServerBackend(f"http://127.0.0.1:{free_port()}")
    (docs / "herons.md").write_text("# Herons\n\nThe grey heron hunts fish.")
    library = make_library(Settings(llm_server=f"http://127.0.0.1:{free_port()}"))
    summary = library.index([docs], contexts="llm")
    assert summary.indexed == 1
    assert any("LLM contexts unavailable" in n and "did not answer" in n for n in summary.notices)
    assert {r[0] for r in library.catalog._db.execute("SELECT source FROM contexts")} == {"rules"}


def test_an_answer_streams_from_the_server_under_the_answer_grammar_and_cancels(server_url):
    """`llm_server` set: a question's answer comes from the server piece by piece (stream: true), held to the answer
    grammar (llama.cpp's server takes GBNF), and a cancel ends it at once."""
    import re

    from desktop_rag.core.answering.answer_format import NOT_FOUND, answer_grammar, answer_messages
    from desktop_rag.core.llm.interrupt import Interrupted, calls_controlled_by
    from desktop_rag.core.progress.control import RunControl

    backend = OpenAiServerBackend(server_url + "/v1")
    messages = answer_messages("When does the lease of the Harbour Office end?",
                               [("Lease", "The lease of the Harbour Office ends on 31 March 2027.")])
    pieces = list(backend.chat_stream(messages, 60, answer_grammar(1)))
    text = "".join(pieces)
    assert len(pieces) > 3, pieces  # streamed, not one answer at the end
    assert text == NOT_FOUND or re.fullmatch(r"([^\[\]\n]+?[.!?。] ?\[1\] ?){1,4}", text.strip()), text
    control, heard = RunControl(), []
    with pytest.raises(Interrupted), calls_controlled_by(control):
        for piece in backend.chat_stream(messages, 60, answer_grammar(1)):
            heard.append(piece)
            control.cancel()
    assert len(heard) == 1

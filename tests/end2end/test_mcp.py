"""`desktop-rag mcp` as an assistant runs it: a subprocess spoken to with the MCP SDK's own stdio client. Every
tool with good and bad arguments, a re-indexing followed to its end, results equal to the CLI's; then the same
with `desktop-rag serve` holding the library, which then answers the calls."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.core.library.library import Library
from desktop_rag.service.endpoint import EndpointClient, endpoint_path
from documents import write_pdf
from office_documents import message

TOOLS = {"search_with_contextual_retrieval", "generate_context_for_chunk", "reindex_with_context",
         "get_reindexing_progress", "get_contextual_retrieval_stats", "answer_from_files"}


@pytest.fixture
def indexed(tmp_path):
    """A data folder with a small indexed folder (rules contexts, the setting the tools' contexts follow)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron hunts fish in shallow water at dawn.\n")
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    write_pdf(docs / "router.pdf", ["Router manual", "Update the router firmware every month."])
    (docs / "ferry.eml").write_bytes(message("Ferry times", "The ferry to the island leaves at seven.",
                                             sender="Carl Holm <carl@example.org>"))
    data_dir = tmp_path / "data"
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    with Library(data_dir) as library:  # closed: the process under test is the only one holding it
        library.index([docs])
    return data_dir, docs


@asynccontextmanager
async def mcp_session(data_dir: Path, starts_the_service: bool = False):
    """`desktop-rag mcp` as an assistant starts it (the SDK passes it a few safe variables alone); it starts the data
    folder's service when none answers only with `starts_the_service` (DESKTOP_RAG_START_SERVICE, conftest.py)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "desktop_rag", "--data-dir", str(data_dir), "mcp"],
                                   env={} if starts_the_service else {"DESKTOP_RAG_START_SERVICE": "0"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session, tool: str, **arguments) -> dict:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def refused(session, tool: str, **arguments) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text


async def run_to_its_end(session, run_id: str, timeout_s: float = 240) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        progress = await call(session, "get_reindexing_progress", run_id=run_id)
        assert progress["run_id"] == run_id
        if progress["state"] in ("finished", "failed", "cancelled"):
            return progress
        await asyncio.sleep(0.3)
    raise AssertionError(f"run {run_id} did not end in {timeout_s} s")


def cli_hits(data_dir: Path, query: str, k: int = 5, local: bool = True) -> list[int]:
    found = cli_json(data_dir, "search", query, "-k", str(k), "--json", *(["--local"] if local else []))
    return [hit["chunk_id"] for hit in found["results"]]


async def every_tool_good_and_bad(session, data_dir: Path, docs: Path, served_by: str) -> None:
    listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
    assert all(tool.input_schema.get("additionalProperties") is False for tool in listed.tools)

    # search: the CLI's results, and what a hit carries
    found = await call(session, "search_with_contextual_retrieval", query="router firmware", limit=5)
    assert served_by in found["served_by"]
    assert [hit["chunk_id"] for hit in found["results"]] == cli_hits(data_dir, "router firmware")
    top = found["results"][0]
    assert top["path"].endswith("router.pdf") and top["page"] == 2 and top["context_source"] == "rules"
    for key in ("chunk_index", "start_char", "end_char", "context", "quality", "text", "scores", "ocr_confidence",
                "metadata"):
        assert key in top
    mail = (await call(session, "search_with_contextual_retrieval", query="ferry island", limit=1))["results"][0]
    assert mail["path"].endswith("ferry.eml") and mail["metadata"] == {
        "from": "Carl Holm <carl@example.org>", "to": "Ben <ben@example.org>", "date": "2025-03-14T09:30:00"}
    only_garden = await call(session, "search_with_contextual_retrieval", query="compost heap", folder=str(docs),
                             score_threshold=0.5)
    assert only_garden["results"] and all(h["scores"]["strength"] >= 0.5 for h in only_garden["results"])
    # filters narrow the search itself, as arguments or as the query's words
    pdfs = await call(session, "search_with_contextual_retrieval", query="router firmware", types=["pdf"])
    assert pdfs["results"] and {h["family"] for h in pdfs["results"]} == {"pdf"}
    assert pdfs["filters"]["types"] == ["pdf"]
    typed = await call(session, "search_with_contextual_retrieval", query="router firmware type:pdf")
    assert [h["chunk_id"] for h in typed["results"]] == [h["chunk_id"] for h in pdfs["results"]]
    mails = await call(session, "search_with_contextual_retrieval", types=["mail"], sender="carl",
                       after="2025-03", before="2025-03")
    assert [h["path"].rsplit("/", 1)[1] for h in mails["results"]] == ["ferry.eml"]  # filters alone: a listing
    future = await call(session, "search_with_contextual_retrieval", query="router", after="2999")
    assert future["results"] == [] and future["nothing_left"] and future["notices"]
    like = await call(session, "search_with_contextual_retrieval", similar_to=top["chunk_id"], limit=3)
    assert like["results"] and top["chunk_id"] not in [h["chunk_id"] for h in like["results"]]
    assert "unknown type 'movie'" in await refused(session, "search_with_contextual_retrieval", query="x",
                                                   types=["movie"])
    assert "not a date" in await refused(session, "search_with_contextual_retrieval", query="x", after="March")
    misspelt = await refused(session, "search_with_contextual_retrieval", query="x", lmit=3)
    assert "lmit" in misspelt and "not permitted" in misspelt
    assert "at most 2,000" in await refused(session, "search_with_contextual_retrieval", query="word " * 20_000)
    assert "limit must be between 1 and 100" in await refused(session, "search_with_contextual_retrieval",
                                                               query="heron", limit=0)
    assert "not inside an indexed folder" in await refused(session, "search_with_contextual_retrieval",
                                                           query="heron", folder="/etc")
    await refused(session, "search_with_contextual_retrieval", query="heron", mode="psychic")

    # a context for a stored chunk, and for a passage of an indexed document; nothing stored
    chunk_id = top["chunk_id"]
    before = await call(session, "get_contextual_retrieval_stats")
    written = await call(session, "generate_context_for_chunk", chunk_id=chunk_id)
    assert written["context"] and written["source"] == "rules" and written["stored"] is False
    assert written["questions"] == []  # rules write none (the LLM does, with llm_questions set)
    passage = await call(session, "generate_context_for_chunk", text="Update the router firmware every month.",
                         document_path=str(docs / "router.pdf"), max_words=20)
    assert passage["context"] and len(passage["context"].split()) <= 20
    assert "either chunk_id, or text" in await refused(session, "generate_context_for_chunk")
    assert "there is no passage 999999" in await refused(session, "generate_context_for_chunk", chunk_id=999999)
    assert "not an indexed document" in await refused(session, "generate_context_for_chunk", text="words",
                                                      document_path="/etc/hostname")
    after = await call(session, "get_contextual_retrieval_stats")
    assert after["contexts_by_source"] == before["contexts_by_source"]

    # statistics
    assert after["documents"]["indexed"] == 4 and after["chunks"] >= 3 and served_by in after["served_by"]

    # a re-indexing run, started at once and followed to its end
    (docs / "kettle.md").write_text("# Kettle\n\nDescale the kettle with citric acid every season.\n")
    started = await call(session, "reindex_with_context", contexts="rules")
    assert started["run_id"] and started["state"] in ("queued", "running") and served_by in started["served_by"]
    ended = await run_to_its_end(session, started["run_id"])
    assert ended["state"] == "finished" and ended["indexed"] == 1 and ended["share_done"] == 1.0
    assert ended["phases"]["parse"]["done"] == ended["phases"]["parse"]["total"] == 5
    kettle = await call(session, "search_with_contextual_retrieval", query="descale kettle citric acid", limit=1)
    assert kettle["results"][0]["path"].endswith("kettle.md")
    assert "not inside an indexed folder" in await refused(session, "reindex_with_context", paths=["/etc"])
    await refused(session, "reindex_with_context", contexts="magic")
    assert "there is no run nope" in await refused(session, "get_reindexing_progress", run_id="nope")

    # resources: read around a hit
    chunk = json.loads((await session.read_resource(f"desktop-rag://chunks/{chunk_id}")).contents[0].text)
    assert chunk["text"] == top["text"] and chunk["path"] == top["path"] and "after" in chunk
    document = json.loads(
        (await session.read_resource(f"desktop-rag://documents/{chunk['document_id']}")).contents[0].text)
    assert top["text"] in document["text"] and chunk_id in [c["chunk_id"] for c in document["chunks"]]


def test_mcp_on_its_own_library(indexed):
    data_dir, docs = indexed

    async def scenario():
        async with mcp_session(data_dir) as session:
            await every_tool_good_and_bad(session, data_dir, docs, served_by="desktop-rag mcp")
            async with mcp_session(data_dir) as second:  # a second assistant at the same time
                both = await asyncio.gather(
                    call(session, "search_with_contextual_retrieval", query="grey heron", limit=1),
                    call(second, "search_with_contextual_retrieval", query="grey heron", limit=1))
                assert [b["results"][0]["path"].endswith("heron.md") for b in both] == [True, True]
            answered = await call(session, "answer_from_files", question="When does the grey heron hunt fish?")
            cited = {n for sentence in answered["sentences"] for n in sentence["cites"]}
            assert answered["evidence"] and cited <= set(range(1, len(answered["hits"]) + 1)), answered
            assert "question" in await refused(session, "answer_from_files")  # required, and said to be

    asyncio.run(scenario())
    assert cli(data_dir, "doctor").returncode == 0  # what the run wrote is consistent


@pytest.fixture
def serving(indexed):
    data_dir, docs = indexed
    process = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "serve"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while EndpointClient.for_library(data_dir) is None:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "serve did not start listening"
        time.sleep(0.2)
    yield data_dir, docs, process
    process.terminate()
    process.wait(timeout=30)


def test_mcp_with_no_service_running_starts_it_and_its_calls_are_answered_there(indexed):
    """Issue 49: the service is the one writer, and `mcp` is one of its clients: started by the first call."""
    from desktop_rag.service.background_process import who_answers
    from window_sessions import stop_the_service

    data_dir, _docs = indexed

    async def scenario():
        async with mcp_session(data_dir, starts_the_service=True) as session:
            found = await call(session, "search_with_contextual_retrieval", query="grey heron", limit=1)
            assert found["served_by"].startswith("desktop-rag service")
            assert found["results"][0]["path"].endswith("heron.md")

    try:
        asyncio.run(scenario())
        hello = who_answers(data_dir)
        assert hello is not None and hello["role"] == "service"  # it goes on after the assistant leaves
    finally:
        stop_the_service(data_dir)


def test_with_serve_running_the_calls_are_answered_by_it(serving):
    data_dir, docs, process = serving
    path = endpoint_path(data_dir)
    assert oct(path.stat().st_mode & 0o777) == "0o600" and oct(path.parent.stat().st_mode & 0o077) == "0o0"

    async def scenario():
        async with mcp_session(data_dir) as session:
            await every_tool_good_and_bad(session, data_dir, docs, served_by="desktop-rag serve")

    asyncio.run(scenario())
    # The CLI asks it too, and gets what a search of its own would give.
    assert cli_hits(data_dir, "compost heap", local=False) == cli_hits(data_dir, "compost heap", local=True)
    human = cli(data_dir, "stats").stdout
    assert "Documents:     5 indexed" in human

    process.terminate()  # serve stops: the next calls work on their own, as without it
    process.wait(timeout=30)
    assert not path.exists()

    async def after():
        async with mcp_session(data_dir) as session:
            found = await call(session, "search_with_contextual_retrieval", query="kettle", limit=1)
            assert "desktop-rag mcp" in found["served_by"] and found["results"][0]["path"].endswith("kettle.md")

    asyncio.run(after())


def test_a_second_serve_is_refused_with_a_reason(serving):
    data_dir, _, _ = serving
    second = cli(data_dir, "serve", check=False, timeout=120)
    assert second.returncode == 1 and "already answers for" in second.stderr


def test_with_the_window_open_the_service_answers_and_its_run_shows_in_the_window(indexed, qtbot):
    """The window is a client of the service as the agent is (issue 49): the agent's re-indexing is the service's
    run, and the window's panel follows it from the service's event stream."""
    import threading

    from window_sessions import close_session, open_session, stop_the_service

    data_dir, docs = indexed
    session = open_session(qtbot, data_dir)
    window = session.window
    outcome: dict = {}

    async def scenario():
        async with mcp_session(data_dir) as mcp:
            found = await call(mcp, "search_with_contextual_retrieval", query="router firmware", limit=3)
            outcome["search"] = found
            started = await call(mcp, "reindex_with_context", paths=[str(docs)], contexts="rules")
            outcome["ended"] = await run_to_its_end(mcp, started["run_id"])

    def in_thread():  # the window's event loop keeps running meanwhile: it shows what the service does
        try:
            asyncio.run(scenario())
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            outcome["done"] = True

    threading.Thread(target=in_thread, daemon=True).start()
    qtbot.waitUntil(lambda: outcome.get("done") is True, timeout=300_000)  # (a None would count as passed)
    try:
        assert "error" not in outcome, outcome.get("error")
        assert "desktop-rag service" in outcome["search"]["served_by"]
        assert outcome["search"]["results"][0]["path"].endswith("router.pdf")
        ended = outcome["ended"]
        assert ended["state"] == "finished" and "desktop-rag service" in ended["served_by"]
        assert "4 unchanged" in ended["summary"] and ended["phases"]["parse"]["total"] == 4
        qtbot.waitUntil(lambda: window.progress.title.text().startswith(ended["summary"]), timeout=30_000)
    finally:
        close_session(session)
    assert EndpointClient.for_library(data_dir) is not None  # the service goes on after the window
    stop_the_service(data_dir)

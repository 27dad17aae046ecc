"""The local endpoint over a real library, as a hostile or a crowded local client meets it: every bad request of
every operation (made from the operations' own declaration, and the wire's worst lines) gets a clear error and
the next good one is answered; fifty clients at once are all taken; and the MCP server answers a client nobody
here wrote, the MCP Inspector's command line."""

from __future__ import annotations

import json
import logging
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from desktop_rag.core.library.library import Library
from desktop_rag.service.endpoint import EndpointClient
from desktop_rag.service.host import LibraryHost
from desktop_rag.service.operations import Argument
from desktop_rag.service.wire import OPERATIONS
from test_mcp import indexed, serving  # noqa: F401 — fixtures: a small indexed folder, `serve` on it

WIRE = [b"[" * 500_000 + b"\n", b"{" * 30 + b"\n", b'{"method": "search", "params": {"query": "' + b"y" * 1_200_000
        + b'"}}\n', b"\xc3\x28\n", b"\x00\x00\x00\n", b'{"method": "search", "params": {"limit": NaN}}\n',
        b'{"method": "search", "params": {"query": "\\ud83d"}}\n', b'{"method": "Search"}\n', b'{"method": ""}\n',
        b'{"method": "__init__"}\n', b'{"method": "_indexed_path", "params": {"path": "/", "what": "x"}}\n',
        b'{"params": {}}\n', b"null\n", b"[]\n", b"{}\n", b"\n", b"   \n", b'{"method": "search", "params": 5}\n']


def wrong_values(argument: Argument) -> list:
    """Values of the wrong type, out of range or too long, for one declared argument."""
    if argument.kind == "integer":
        values = ["5", 2.5, True, [1], {"n": 1}, 2**64, -2**64,
                  (argument.minimum if argument.minimum is not None else 1) - 1]  # just under its range
    elif argument.kind == "number":
        values = ["0.5", True, [0.5], 1e308 * 10, -1, (argument.maximum if argument.maximum is not None else 1) + 1]
    elif argument.kind == "boolean":
        values = ["true", 1, 0, [True]]
    elif argument.kind == "string":
        values = [5, ["a"], {"a": 1}, True, "a\x00b", "\ud800", "z" * ((argument.max_length or 4096) + 1)]
    else:
        values = ["/home", [1], [None], ["p\x00th"], ["x" * 5000], [["nested"]], {"a": "b"}]
    if not argument.nullable:
        values.append(None)
    return values


def bad_requests() -> list[tuple[str, dict]]:
    requests = []
    for name, operation in OPERATIONS.items():
        requests.append((name, {"no_such_argument": 1}))
        for argument in operation.arguments:
            requests += [(name, {argument.name: value}) for value in wrong_values(argument)]
    # well formed, and wrong only for what the library holds
    requests += [("chunk", {"chunk_id": 2**62}), ("document", {"doc_id": 2**62}),
                 ("generate_context", {"chunk_id": 2**62}), ("generate_context", {}),
                 ("generate_context", {"text": "words"}), ("generate_context", {"chunk_id": 1, "text": "both"}),
                 ("generate_context", {"text": "x", "document_path": "/etc/passwd"}),
                 ("reindex", {"paths": ["/etc"]}), ("reindex", {"paths": []}), ("progress", {"run_id": "nope"}),
                 ("search", {"query": ""}), ("search", {"after": "March"}), ("search", {"types": ["movie"]}),
                 ("search", {"query": "x", "folder": "/"}), ("search", {"similar_to": 2**62})]
    return requests


@pytest.fixture
def host(indexed, caplog):  # noqa: F811 — the fixture imported above
    data_dir, docs = indexed
    caplog.set_level(logging.WARNING)
    library = Library(data_dir)
    host = LibraryHost(library, "test host")
    assert host.start()
    yield host, docs
    host.stop()
    library.close()


def line(method: str, params: dict) -> bytes:
    return json.dumps({"method": method, "params": params}).encode() + b"\n"


def test_every_bad_request_gets_a_clear_error_and_the_next_good_one_is_answered(host, caplog):
    host, _docs = host
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(str(host.endpoint.path))
    connection.settimeout(60)
    stream = connection.makefile("rwb")
    bystander = EndpointClient.connect(host.endpoint.path)  # another client, all along

    def ask(raw: bytes) -> dict:
        stream.write(raw)
        stream.flush()
        return json.loads(stream.readline())

    good = line("search", {"query": "grey heron", "limit": 1})
    tried = [(f"wire line {i}", raw) for i, raw in enumerate(WIRE)]
    tried += [(f"{method} {params!r:.80}", line(method, params)) for method, params in bad_requests()]
    for what, raw in tried:
        answer = ask(raw)
        assert answer.get("error", {}).get("type") in ("BadInput", "NoIndexError"), f"{what}: {answer}"
        assert "internal error" not in answer["error"]["message"], what
        hits = ask(good)["result"]["results"]
        assert hits and hits[0]["path"].endswith("heron.md"), what
    assert bystander.call("stats")["documents"]["indexed"] == 4
    assert host.endpoint.failures == 0
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert problems == [], [r.getMessage() for r in problems]
    assert len(tried) > 150  # the declaration gave every argument its wrong values
    connection.close()
    bystander.close()


def test_fifty_clients_searching_at_once_are_all_answered(host):
    host, _ = host
    refused, failed, latencies = [], [], []
    go = threading.Event()
    queries = ["grey heron", "compost heap", "router firmware", "ferry island", "dawn fish"]

    def one_client(n: int) -> None:
        go.wait()
        client = EndpointClient.connect(host.endpoint.path)
        if client is None:
            refused.append(n)
            return
        try:
            for i in range(4):
                started = time.monotonic()
                result = client.call("search", query=queries[(n + i) % len(queries)], limit=3)
                latencies.append(time.monotonic() - started)
                if not result["results"]:
                    failed.append((n, i))
        except Exception as exc:
            failed.append((n, repr(exc)))
        finally:
            client.close()

    threads = [threading.Thread(target=one_client, args=(n,)) for n in range(50)]
    for thread in threads:
        thread.start()
    go.set()
    for thread in threads:
        thread.join(timeout=120)
    assert refused == [] and failed == [] and len(latencies) == 200
    assert host.endpoint.failures == 0


# -- a client nobody here wrote -------------------------------------------------------------------------------

INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"  # pinned: the version these calls were written against


@pytest.fixture(scope="module")
def inspector():
    """The Inspector's command line through npx; skipped when there is no npx, or npm cannot fetch it."""
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is absent: the MCP Inspector (Node.js) cannot run here")
    fetched = subprocess.run([npx, "-y", INSPECTOR, "--cli", "--help"], capture_output=True, text=True,
                             timeout=600)
    if fetched.returncode != 0:
        pytest.skip(f"npx could not fetch {INSPECTOR}: {fetched.stderr.strip()[-300:]}")
    return npx


def inspect(npx: str, data_dir, *args: str) -> dict:
    completed = subprocess.run(
        [npx, "-y", INSPECTOR, "--cli", sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "mcp",
         *args], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout)


def tool_call(npx: str, data_dir, tool: str, **arguments) -> dict:
    # a string as it is (the Inspector gives a string argument its text unparsed), anything else as JSON
    given = [f"--tool-arg={name}={value if isinstance(value, str) else json.dumps(value)}"
             for name, value in arguments.items()]
    return inspect(npx, data_dir, "--method", "tools/call", "--tool-name", tool, *given)


def test_the_mcp_inspector_lists_and_calls_every_tool_with_good_and_bad_arguments(inspector, serving):  # noqa: F811
    data_dir, docs, _ = serving  # `serve` holds the library: a run started by one call is followed by the next
    listed = inspect(inspector, data_dir, "--method", "tools/list")["tools"]
    schemas = {tool["name"]: tool["inputSchema"] for tool in listed}
    assert schemas["search_with_contextual_retrieval"]["properties"]["limit"]["maximum"] == 100
    assert all(schema["additionalProperties"] is False for schema in schemas.values()) and len(schemas) == 6  # with answer_from_files

    found = tool_call(inspector, data_dir, "search_with_contextual_retrieval", query="router firmware", limit=2)
    hit = found["structuredContent"]["results"][0]
    assert not found.get("isError") and hit["path"].endswith("router.pdf")
    assert "desktop-rag serve" in found["structuredContent"]["served_by"]
    written = tool_call(inspector, data_dir, "generate_context_for_chunk", chunk_id=hit["chunk_id"])
    assert written["structuredContent"]["context"] and written["structuredContent"]["stored"] is False
    started = tool_call(inspector, data_dir, "reindex_with_context", paths=[str(docs)], contexts="rules")
    run_id = started["structuredContent"]["run_id"]
    assert started["structuredContent"]["state"] in ("queued", "running")
    progress = tool_call(inspector, data_dir, "get_reindexing_progress", run_id=run_id)["structuredContent"]
    assert progress["run_id"] == run_id and progress["state"] in ("queued", "running", "finished")
    stats = tool_call(inspector, data_dir, "get_contextual_retrieval_stats")
    assert stats["structuredContent"]["documents"]["indexed"] >= 4

    bad = [("search_with_contextual_retrieval", {"query": "x", "limit": 0}, "limit must be between 1 and 100"),
           ("search_with_contextual_retrieval", {"query": "x", "mode": "psychic"}, "psychic"),
           ("generate_context_for_chunk", {"chunk_id": 2**64}, "chunk_id must be between 1 and"),
           ("generate_context_for_chunk", {"chunk_id": 999999}, "there is no passage 999999"),
           ("reindex_with_context", {"paths": ["/etc"]}, "not inside an indexed folder"),
           ("get_reindexing_progress", {"run_id": "nope"}, "there is no run nope"),
           ("get_contextual_retrieval_stats", {"verbose": True}, "verbose")]
    for tool, arguments, said in bad:
        refused = tool_call(inspector, data_dir, tool, **arguments)
        assert refused.get("isError") and said in refused["content"][0]["text"], (tool, arguments, refused)

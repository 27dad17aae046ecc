"""The one door of the front ends without a library of their own (service/client.py), as a long-lived `mcp` uses it:
its own library answers, is opened again when another process has written, and is never closed under a call that
another thread is answering with it."""

from __future__ import annotations

import os
import threading

from cli_runner import cli
from desktop_rag.service.client import LibraryClient


def _paths(client: LibraryClient, query: str, mode: str) -> list[str]:
    return [hit["path"] for hit in client.call("search", query=query, mode=mode, limit=5)["results"]]


def test_a_long_lived_client_sees_what_another_process_indexed_in_the_dense_index(data_dir, docs):
    (docs / "garden.md").write_text("# Garden\n\nTurn the compost heap every two weeks and water the tomatoes.\n")
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    client = LibraryClient(data_dir, local_only=True)
    try:
        assert _paths(client, "compost heap", "dense") == [str(docs / "garden.md")]
        (docs / "boat.md").write_text("# Boat\n\nThe sailing boat's mast was varnished before the regatta.\n")
        cli(data_dir, "index", str(docs), "--contexts", "rules")  # another process writes both indexes
        assert _paths(client, "varnished mast of the sailing boat", "bm25")[0] == str(docs / "boat.md")
        assert _paths(client, "varnished mast of the sailing boat", "dense")[0] == str(docs / "boat.md")
    finally:
        client.close()


def test_calls_from_several_threads_are_answered_while_the_client_opens_its_library_again(data_dir, docs):
    (docs / "garden.md").write_text("# Garden\n\nTurn the compost heap every two weeks.\n")
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    client = LibraryClient(data_dir, local_only=True)
    dense_file = data_dir / "chroma" / "chroma.sqlite3"
    failures: list[BaseException] = []
    stop = threading.Event()

    def agent() -> None:
        while not stop.is_set():
            try:
                assert _paths(client, "compost", "bm25") == [str(docs / "garden.md")]
            except BaseException as exc:
                failures.append(exc)
                return

    try:
        _paths(client, "compost", "bm25")
        agents = [threading.Thread(target=agent) for _ in range(4)]
        for thread in agents:
            thread.start()
        for second in range(40):  # "another process wrote the dense index": the next call opens the library again
            os.utime(dense_file, ns=(second * 1_000_000_000, second * 1_000_000_000))
            threading.Event().wait(0.05)
        stop.set()
        for thread in agents:
            thread.join(60)
    finally:
        client.close()
    assert failures == []

"""The same library against a real Chroma server on loopback, for users who outgrow the embedded store."""

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_rag.config import Settings

pytestmark = pytest.mark.server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    chroma = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = free_port()
    process = subprocess.Popen([chroma, "run", "--path", str(tmp_path / "server-data"), "--host", "127.0.0.1",
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("chroma server did not start within 60 s")
    yield f"127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=20)


def test_index_and_search_through_a_chroma_server(make_library, docs, chroma_server, data_dir):
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron hunts fish in shallow water.")
    (docs / "router.md").write_text("# Router\n\nUpdate the router firmware monthly.")
    library = make_library(Settings(chroma_server=chroma_server))
    summary = library.index([docs], contexts="rules")
    assert summary.embedded == 2
    assert library.vectors.count() == 2
    assert not (data_dir / "chroma").exists()  # nothing went to the embedded store
    hits = library.search("bird fishing", k=1, mode="dense").hits
    assert Path(hits[0].path).name == "heron.md"

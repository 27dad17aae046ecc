"""A new service never opens the meaning index beside another process that still has it (issue 61: a vector store
left by a killed service held Chroma's files open for writing 2-3 s while the new service answered). A holder
whose service has gone is ended; one that is not an orphan is named, and the store stays shut. The holders here
are injected faults (a plain process holding the store's mark as a vector store does, deaf to SIGTERM); the
service, its children and the CLI are real."""

from __future__ import annotations

import subprocess
import sys

import psutil
import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.platform.autostart import service_command
from desktop_rag.storage.store_holder import HOLDER_FILE
from test_resume import make_notes
from test_service import start_service
from window_sessions import stop_the_service

pytestmark = pytest.mark.slow

FAKE_HOLDER = """
import os, signal, sys, time
from pathlib import Path
from desktop_rag.platform.file_locks import hold_mark
signal.signal(signal.SIGTERM, signal.SIG_IGN)
handle = hold_mark(Path(sys.argv[1]))
handle.write(f"{os.getpid()} {sys.argv[2]}")
handle.flush()
print("held", flush=True)
time.sleep(120)
"""


def _fake_holder(data_dir, its_parent: int) -> subprocess.Popen:
    """A process holding the store's mark, as a vector store would, writing down `its_parent` as its service."""
    holder = subprocess.Popen([sys.executable, "-c", FAKE_HOLDER, str(data_dir / HOLDER_FILE), str(its_parent)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def _orphaned_fake_holder(data_dir) -> psutil.Process:
    """A fake holder whose starter (its "service") has ended: handed to another parent, as a killed service's
    vector store is."""
    starter = subprocess.run([sys.executable, "-c", ORPHAN_STARTER, FAKE_HOLDER, str(data_dir / HOLDER_FILE)],
                             capture_output=True, text=True, timeout=60, check=True)
    return psutil.Process(int(starter.stdout))


ORPHAN_STARTER = """
import os, subprocess, sys
holder = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2], str(os.getpid())],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
assert holder.stdout.readline().strip() == "held"
print(holder.pid)
"""


@pytest.fixture
def notes(docs, data_dir):
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    make_notes(docs, 4)
    return docs


def test_a_vector_store_left_by_a_gone_service_is_ended_before_the_new_one_opens_the_store(notes, data_dir, tmp_path):
    orphan = _orphaned_fake_holder(data_dir)
    service = start_service(service_command(data_dir), tmp_path / "service.out")
    try:
        cli(data_dir, "index", str(notes), timeout=300)  # handed to the service: its vector store opens the store
        gone, _ = psutil.wait_procs([orphan], timeout=10)
        assert gone, "the orphan was left holding the store beside the new vector store"
        hits = cli_json(data_dir, "search", "alpha2 note text", "-k", "1", "--mode", "dense", "--json")["results"]
        assert hits and hits[0]["path"].endswith("note0002.md")
        assert "a vector store left by a service that has gone" in (data_dir / "logs" / "service.log").read_text()
    finally:
        if orphan.is_running():
            orphan.kill()
        stop_the_service(data_dir)
    assert service.wait(timeout=15) == 0


def test_a_store_held_by_a_process_whose_service_lives_is_not_opened_and_the_holder_is_named(notes, data_dir,
                                                                                             tmp_path):
    import os

    holder = _fake_holder(data_dir, its_parent=os.getpid())  # its parent (this test) lives: not an orphan
    start_service(service_command(data_dir), tmp_path / "service.out")
    try:
        run = cli(data_dir, "index", str(notes), timeout=300, check=False)
        said = run.stdout + run.stderr
        sentence = f"vector store: the meaning index ({data_dir / 'chroma'}) is still open in process {holder.pid}"
        assert run.returncode != 0 and sentence in said, said  # (no class name before the sentence)
        assert psutil.Process(holder.pid).is_running()  # not ended: it was not the service's to end
    finally:
        holder.kill()
        stop_the_service(data_dir)

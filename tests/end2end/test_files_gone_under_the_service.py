"""What is deleted under a running service is noticed (issue 61): `chroma/` removed → the service ends with a
sentence, `doctor` reports the meaning index missing, `--repair` rebuilds it, the next write works; the whole data
folder removed → the service ends with a sentence instead of writing into a folder it makes anew; `bm25/` removed →
rebuilt from the catalog, the service goes on. Real processes: the service, the CLI."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.platform.autostart import service_command
from desktop_rag.service.endpoint import EndpointClient
from test_resume import make_notes
from test_service import start_service
from window_sessions import stop_the_service

pytestmark = pytest.mark.slow


@pytest.fixture
def served(docs, data_dir, tmp_path):
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    make_notes(docs, 6)
    cli(data_dir, "index", str(docs), "--local", timeout=300)
    service = start_service(service_command(data_dir), tmp_path / "service.out")
    yield service
    if service.poll() is None:
        stop_the_service(data_dir)


def test_the_meaning_index_deleted_under_the_service_ends_it_and_doctor_repairs_it(served, docs, data_dir):
    shutil.rmtree(data_dir / "chroma")
    assert served.wait(timeout=15) == 0  # noticed within its second, ended as a stop
    said = (data_dir / "logs" / "service.log").read_text()
    assert "The meaning index" in said and "was deleted while the service used it" in said
    report = json.loads(cli(data_dir, "doctor", "--json", check=False).stdout)
    assert report["found"], report  # the files on disk, not a process's open handles
    cli(data_dir, "doctor", "--repair", timeout=300)
    assert json.loads(cli(data_dir, "doctor", "--json").stdout)["found"] == []
    (docs / "pump.md").write_text("# Pump\n\nPrime the centrifugal pump before the first start.\n")
    cli(data_dir, "index", str(docs), "--local", timeout=300)  # the next write works
    hits = cli_json(data_dir, "search", "priming a centrifugal pump", "-k", "1", "--json", "--local")["results"]
    assert hits[0]["path"].endswith("pump.md")


def test_the_data_folder_deleted_under_the_service_ends_it_with_a_sentence(served, data_dir, tmp_path):
    shutil.rmtree(data_dir)
    assert served.wait(timeout=15) == 0
    assert "was deleted while the service used it" in (tmp_path / "service.out").read_text()
    assert not (data_dir / "bm25").exists()  # nothing written into a folder made anew


def test_the_keyword_index_deleted_under_the_service_is_rebuilt_and_the_service_goes_on(served, data_dir):
    import time

    shutil.rmtree(data_dir / "bm25")
    deadline, hits = time.monotonic() + 60, []
    while time.monotonic() < deadline and not hits:  # rebuilt from the catalog by a repair run, within seconds
        time.sleep(0.5)
        found = cli(data_dir, "search", "alpha3 note text", "-k", "1", "--mode", "bm25", "--json", check=False)
        hits = json.loads(found.stdout)["results"] if found.returncode == 0 else []
    assert hits and hits[0]["path"].endswith("note0003.md")
    assert served.poll() is None  # it went on
    assert "The keyword index" in (data_dir / "logs" / "service.log").read_text()
    assert json.loads(cli(data_dir, "doctor", "--json").stdout)["found"] == []
    client = EndpointClient.for_library(data_dir)  # the repair run's end says why it ran, as the window shows it
    try:
        repair = client.call("progress")
    finally:
        client.close()
    assert repair["kind"] == "repair" and repair["state"] == "finished", repair
    assert any("The keyword index" in notice and "was deleted" in notice for notice in repair["notices"]), repair


def test_the_window_says_why_the_keyword_index_was_rebuilt(qtbot, docs, data_dir):
    """Issue 61: the repair run that rebuilt a deleted `bm25/` ran in the window with no word of why (the log had
    it). The window, a client of the service it starts, says it with the run's end."""
    from shown_words import faults_in, widget_texts
    from window_sessions import close_session, open_session

    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    make_notes(docs, 6)
    cli(data_dir, "index", str(docs), "--local", timeout=300)
    session = open_session(qtbot, data_dir)
    try:
        qtbot.waitUntil(lambda: bool(session.window.link.served_by), timeout=60_000)
        shutil.rmtree(data_dir / "bm25")
        # ("replaced" when the service's own catch-up wrote a new one within the second before it looked)
        said = lambda: [(w, t) for w, t in widget_texts(session.window)  # noqa: E731
                        if re.search(r"\w\. The keyword index \(.*\) was (deleted|replaced) while the service", t)]
        qtbot.waitUntil(lambda: bool(said()), timeout=60_000)
        assert not (bad := faults_in(said())), bad  # (the index's own folder, "bm25", named it: an engine's word)
    finally:
        close_session(session)
        stop_the_service(data_dir)

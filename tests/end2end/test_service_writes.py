"""A person's writes through the service, the library's one writer (issue 49), with a real `desktop-rag service`
process: a setting changed from the terminal reaches it (and every client following its events), a context
written through the endpoint is searchable at once, a run's progress and what it made searchable come on the one
event stream, and a run can be cancelled."""

from __future__ import annotations

import json
import time

import pytest

from cli_runner import cli, cli_json
from test_service import start_service, stop_and_wait

from desktop_rag.config import SETTINGS_FILE
from desktop_rag.service.endpoint import EndpointClient

pytestmark = pytest.mark.slow


@pytest.fixture
def service(docs, data_dir, tmp_path):
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    cli(data_dir, "settings", "llm_upgrade_when_idle", "false")  # no model work beside the test's
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    process = start_service([*_command(data_dir), "service"], tmp_path / "service.log")
    client = EndpointClient.for_library(data_dir)
    assert client is not None
    yield client
    client.close()
    stop_and_wait(data_dir)
    process.wait(30)


def _command(data_dir) -> list[str]:
    import sys

    return [sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir)]


def _events_until(client, start: dict, wanted, timeout: float = 60) -> list[dict]:
    """Follow the stream from `start` until `wanted(events so far)`; every event seen."""
    seen: list[dict] = []
    after, deadline = start["last"], time.monotonic() + timeout
    while not wanted(seen):
        assert time.monotonic() < deadline, f"not seen in {timeout} s: {seen}"
        answer = client.call("events", after=after, instance=start["instance"], wait_s=2)
        assert not answer["missed"]
        seen += answer["events"]
        after = answer["last"]
    return seen


def test_a_setting_changed_in_a_terminal_is_changed_by_the_service_and_told_to_its_clients(service, data_dir):
    start = service.call("events")
    changed = cli(data_dir, "settings", "ocr", "false")
    assert "changed in desktop-rag service" in changed.stderr and changed.stdout.strip() == "ocr = false"
    seen = _events_until(service, start, lambda events: any(e["kind"] == "changes" for e in events))
    told = [e["changes"] for e in seen if e["kind"] == "changes"]
    assert told[0]["settings"] == ["ocr"] and told[0]["folders"]  # a folder's OCR mark follows it
    assert json.loads((data_dir / SETTINGS_FILE).read_text())["ocr"] is False
    # The service holds the new value: a second change of another setting does not undo this one.
    cli(data_dir, "settings", "llm_only_on_mains", "false")
    stored = json.loads((data_dir / SETTINGS_FILE).read_text())
    assert stored["ocr"] is False and stored["llm_only_on_mains"] is False


def test_a_context_written_through_the_service_is_searchable_at_once_and_told(service, data_dir):
    hit = cli_json(data_dir, "search", "prime the pump", "-k", "1", "--json")["results"][0]
    start = service.call("events")
    asked = time.monotonic()
    answer = service.call("set_context", chunk_id=hit["chunk_id"], text="The bilge pump of the houseboat Otter.")
    assert answer["changes"]["contexts"] == [hit["chunk_id"]] and answer["changes"]["searchable"]
    found = service.call("search", query="houseboat otter bilge", limit=1, mode="bm25")["results"]
    print(f"an edit searchable through the service after {time.monotonic() - asked:.2f} s")
    assert found and found[0]["chunk_id"] == hit["chunk_id"] and found[0]["context_source"] == "manual"
    seen = _events_until(service, start, lambda events: any(e["kind"] == "changes" for e in events))
    assert next(e["changes"]["contexts"] for e in seen if e["kind"] == "changes") == [hit["chunk_id"]]
    assert service.call("approve_context", chunk_id=hit["chunk_id"])["changes"]["contexts"] == [hit["chunk_id"]]
    reverted = service.call("revert_context", chunk_id=hit["chunk_id"])
    assert reverted["changes"]["contexts"] == [hit["chunk_id"]]
    assert not service.call("search", query="houseboat otter", limit=1, mode="bm25")["results"]


def test_a_runs_progress_and_what_it_made_searchable_come_on_the_event_stream(service, data_dir, tmp_path):
    boats = tmp_path / "boats"
    boats.mkdir()
    for n in range(30):
        (boats / f"boat{n}.md").write_text(f"# Boat {n}\n\nThe ketch number {n} has a mizzen mast of spruce.\n")
    start = service.call("events")
    run = service.call("index", paths=[str(boats)])
    seen = _events_until(service, start, lambda events: any(
        e["kind"] == "run" and e["run"]["state"] == "finished" for e in events), timeout=300)
    states = [e["run"]["state"] for e in seen if e["kind"] == "run" and e["run"]["run_id"] == run["run_id"]]
    assert states[0] == "queued" and "running" in states and states[-1] == "finished"
    assert any(e["kind"] == "changes" and e["changes"]["documents"] for e in seen)
    assert [e["seq"] for e in seen] == sorted(e["seq"] for e in seen)
    removed = service.call("remove_folder", folder=str(boats))
    assert removed["changes"]["folders"] and removed["changes"]["documents"]
    assert str(boats) not in cli_json(data_dir, "stats", "--json")["folders"]


def test_a_run_is_cancelled_through_the_service_and_what_it_finished_is_kept(service, data_dir, tmp_path):
    many = tmp_path / "many"
    many.mkdir()
    for n in range(400):
        (many / f"note{n}.md").write_text(f"# Note {n}\n\n" + " ".join(f"word{n}x{i}" for i in range(300)) + "\n")
    start = service.call("events")
    run = service.call("index", paths=[str(many)])
    _events_until(service, start, lambda events: any(
        e["kind"] == "run" and e["run"]["state"] == "running" for e in events))
    assert service.call("cancel_run", run_id=run["run_id"])["cancelled"] == [run["run_id"]]
    seen = _events_until(service, start, lambda events: any(
        e["kind"] == "run" and e["run"]["state"] in ("cancelled", "finished") for e in events), timeout=60)
    ended = next(e["run"] for e in seen if e["kind"] == "run" and e["run"]["state"] in ("cancelled", "finished"))
    assert ended["state"] == "cancelled", ended


def test_the_cli_s_writes_go_to_the_running_service_and_its_clients_hear_them(service, data_dir, docs):
    """`context`, `upgrade-first`, `doctor`, `rebuild` while the service runs: carried out by it (it holds the
    writer's lock: a write of the command's own would be refused, as `--local` is), told on the event stream."""
    hit = cli_json(data_dir, "search", "prime the pump", "-k", "1", "--json")["results"][0]
    start = service.call("events")
    edited = cli_json(data_dir, "context", str(hit["chunk_id"]), "--set", "Priming notes for the well pump.",
                      "--json")
    assert edited["source"] == "manual" and edited["text"] == "Priming notes for the well pump."
    seen = _events_until(service, start, lambda events: any(e["kind"] == "changes" for e in events))
    assert next(e["changes"]["contexts"] for e in seen if e["kind"] == "changes") == [hit["chunk_id"]]
    missing = cli(data_dir, "context", "999999", check=False)
    assert missing.returncode == 1 and "there is no passage 999999" in missing.stderr

    marked = cli(data_dir, "upgrade-first", str(docs))
    assert str(docs.resolve()) in marked.stdout
    checked = cli_json(data_dir, "doctor", "--json")
    assert (checked["found"], checked["repaired"], checked["left"], checked["waiting"]) == ([], [], [], [])
    assert checked["holds"].startswith("the catalog holds")  # the service's own count (issue 50)

    start = service.call("events")
    rebuilt = cli(data_dir, "rebuild")
    assert "Rebuilt from the catalog: 1 passage searchable by meaning" in rebuilt.stdout
    assert "In desktop-rag service" in rebuilt.stderr
    seen = _events_until(service, start, lambda events: any(
        e["kind"] == "run" and e["run"]["kind"] == "rebuild" and e["run"]["state"] == "finished" for e in events))
    assert any(e["run"]["state"] == "running" for e in seen if e["kind"] == "run")

    refused = cli(data_dir, "rebuild", "--local", check=False)  # the one writer is the service
    assert refused.returncode == 1 and "is writing to this data folder" in refused.stderr
    found = service.call("search", query="priming notes well pump", limit=1, mode="bm25")["results"]
    assert found and found[0]["chunk_id"] == hit["chunk_id"]  # the hand edit survived the rebuild


def test_a_regeneration_is_cancelled_at_once_and_writes_nothing(service, data_dir):
    """Regenerate while the model takes minutes (a slow OpenAI-compatible server: the injected delay), then cancel:
    the call ends within seconds saying so, and the context is as it was (a person once waited 9 minutes)."""
    import threading

    from fake_llm_server import SlowChatServer

    hit = service.call("search", query="prime the pump", limit=1, mode="bm25")["results"][0]
    before = service.call("context", chunk_id=hit["chunk_id"])
    with SlowChatServer(seconds=300) as server:
        service.call("change_settings", values={"llm_server": server.url})
        answers: list[dict] = []
        asking = threading.Thread(target=lambda: answers.append(
            EndpointClient.for_library(data_dir).call("regenerate_context", chunk_id=hit["chunk_id"])))
        asking.start()
        assert server.working.wait(60), "the model was never asked"
        cancelled_at = time.monotonic()
        assert service.call("cancel_regenerate", chunk_id=hit["chunk_id"])["cancelled"] == [hit["chunk_id"]]
        asking.join(30)
        took = time.monotonic() - cancelled_at
    print(f"a regeneration cancelled in {took:.2f} s")
    assert answers and answers[0]["cancelled"] is True and answers[0]["changes"]["contexts"] == []
    assert took < 3.0
    assert service.call("context", chunk_id=hit["chunk_id"]) == before


def test_pause_holds_on_write_llm_contexts_now_and_on_a_contextualize_run(service, data_dir):
    """Issue 49: Pause did not hold on "Write LLM contexts now" (three clicks, a core kept busy). The tray's and the
    window's Pause is one write (pause_background): the upgrade asked for now, and a `contextualize` run, stop
    asking the model within a second and ask nothing more until Resume. (A slow OpenAI-compatible server stands in
    for the model: each request held 300 s, so a step that goes on is seen as a new request.)"""
    from fake_llm_server import SlowChatServer, wait_until

    with SlowChatServer(seconds=300) as server:
        service.call("change_settings", values={"llm_server": server.url, "contexts": "auto"})
        service.call("upgrade_now")
        wait_until(server.working.is_set, 120)
        paused_at = time.monotonic()
        service.call("pause_background", paused=True)
        wait_until(lambda: service.call("status")["doing"] != "writing LLM contexts", 5)
        took, calls = time.monotonic() - paused_at, server.calls
        time.sleep(5)
        assert server.calls == calls, "the model was asked again while paused"
        assert took < 1.5 and service.call("status")["paused"]

        run = service.call("contextualize", limit=1)  # asked while paused: it waits, and asks nothing
        time.sleep(3)
        assert server.calls == calls and service.call("progress", run_id=run["run_id"])["paused"]
        service.call("pause_background", paused=False)  # Resume: the run goes on
        wait_until(lambda: server.calls > calls, 60)
        service.call("cancel_run", run_id=run["run_id"])
        wait_until(lambda: service.call("progress", run_id=run["run_id"])["state"] != "running", 30)
        service.call("pause_background", paused=True)

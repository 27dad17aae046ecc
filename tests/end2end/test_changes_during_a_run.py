"""A file saved while the service's first run of hundreds of files goes on is searchable in seconds, not when the
run ends (issue 49: a person met 19 minutes): the write lane applies the changes waiting between two documents of
the run in hand (core/runs/lane.py), and the run embeds the file with the rest. Real service process, real files."""

from __future__ import annotations

import time

import pytest

from cli_runner import cli
from test_service import start_service, stop_and_wait

from desktop_rag.errors import BadInput
from desktop_rag.service.endpoint import EndpointClient

pytestmark = pytest.mark.slow

FILES = 600
SEARCHABLE_WITHIN_S = 3.0


def _note(n: int) -> str:
    return (f"# Field note {n}\n\nThe survey team logged plot {n} on the north ridge. Soil samples {n} and "
            f"{n + 1} were bagged.\n\nWeather: wind from the west, {n % 30} degrees.\n")


def test_a_file_saved_during_a_first_run_is_searchable_within_seconds_while_the_run_goes_on(docs, data_dir, tmp_path):
    import sys

    cli(data_dir, "settings", "llm_upgrade_when_idle", "false")  # no model work beside the test's
    service = start_service([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "service"],
                            tmp_path / "service.log")
    client = EndpointClient.for_library(data_dir)
    assert client is not None
    try:
        for n in range(FILES):
            (docs / f"note{n:04}.md").write_text(_note(n))
        run_id = client.call("index", paths=[str(docs)], contexts="rules")["run_id"]
        deadline = time.monotonic() + 120
        while (client.call("progress", run_id=run_id)["phases"].get("parse") or {}).get("done", 0) < 50:
            assert time.monotonic() < deadline, client.call("progress", run_id=run_id)
            time.sleep(0.1)

        (docs / "saved now.md").write_text("# Ferry\n\nThe zorblax ferry leaves the quay at dawn.\n")
        saved = time.monotonic()
        while not client.call("search", query="zorblax ferry", limit=1, mode="bm25")["results"]:
            assert time.monotonic() - saved < 60, "the file saved during the run was not found in a minute"
            time.sleep(0.1)
        found_after = time.monotonic() - saved
        state = client.call("progress", run_id=run_id)
        print(f"a file saved during a first run of {FILES} files: found by its words after {found_after:.2f} s, "
              f"the run at {state['share_done']}")
        assert state["state"] == "running", "the run ended first: the check proves nothing (more files)"
        assert found_after <= SEARCHABLE_WITHIN_S

        while client.call("progress", run_id=run_id)["state"] == "running":
            time.sleep(0.5)
        assert client.call("progress", run_id=run_id)["state"] == "finished"
        # The run embedded it with the rest: found by meaning, and the catalog and both indexes agree.
        hits = client.call("search", query="boat crossing at sunrise zorblax", limit=3, mode="dense")["results"]
        assert any(hit["path"].endswith("saved now.md") for hit in hits)
        assert client.call("doctor")["found"] == []
        assert client.call("stats")["documents"]["indexed"] == FILES + 1
    finally:
        client.close()
        stop_and_wait(data_dir)
        service.wait(30)


def test_stop_during_a_run_handed_over_by_index_ends_the_service_at_once_and_the_next_start_resumes(
        docs, data_dir, tmp_path):
    """Issue 49, D1: `desktop-rag stop` could not end a run `index` had handed to the service (it ended 108-115 s
    later, with the run). Now the stop cuts the run short within its promise, and the next start's catch-up goes
    on from there: the files finished before are not read again."""
    import re
    import subprocess
    import sys

    cli(data_dir, "settings", "llm_upgrade_when_idle", "false")
    command = [sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir)]
    service = start_service([*command, "service"], tmp_path / "service.log")
    for n in range(FILES):
        (docs / f"note{n:04}.md").write_text(_note(n))
    following = subprocess.Popen([*command, "index", str(docs), "--contexts", "rules"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    client = EndpointClient.for_library(data_dir)
    assert client is not None
    try:
        deadline, done = time.monotonic() + 120, 0
        while done < 100:
            assert time.monotonic() < deadline and following.poll() is None, following.communicate()
            time.sleep(0.1)
            try:
                done = (client.call("progress")["phases"].get("parse") or {}).get("done", 0)
            except BadInput:  # `index` has not handed its run over yet
                pass
    except BaseException:
        stop_and_wait(data_dir)
        raise
    finally:
        client.close()
    asked = time.monotonic()
    stopped = cli(data_dir, "stop", timeout=60)
    took = time.monotonic() - asked
    service.wait(30)
    print(f"stop during a run handed over by index: {took:.2f} s ({stopped.stderr.strip()})")
    assert re.search(r"Stopped desktop-rag service \(process \d+\) in \d", stopped.stderr)
    assert took < 5.0  # the promise is 2 s of the service's own; the command's start adds ~1 s on 2 cores
    _out, followed = following.communicate(timeout=60)  # the `index` following it is told, and ends
    assert following.returncode == 1 and "The service stopped before the run ended" in followed, followed

    service = start_service([*command, "service"], tmp_path / "service-again.log")  # caught up, then watching
    try:
        caught_up = (tmp_path / "service-again.log").read_text()
        unchanged = int(re.search(r"(\d+) unchanged", caught_up).group(1))
        assert unchanged >= done - 1  # what the first run finished was not read again
        assert cli_json_stats(data_dir)["documents"]["indexed"] == FILES
    finally:
        stop_and_wait(data_dir)
        service.wait(30)


def cli_json_stats(data_dir) -> dict:
    import json

    return json.loads(cli(data_dir, "stats", "--json").stdout)

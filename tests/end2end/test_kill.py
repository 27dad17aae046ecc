"""SIGKILL at a dozen points of `index` and `rebuild`: after each, `doctor` finds the catalog and both indexes in
agreement, and the run that finishes redoes nothing finished and finds every file by a word planted in it.

Kills are placed by watching the data folder, not by timers (a loaded machine moves timers around): so many more
documents catalogued (parse and contexts), so many more chunks embedded, a new keyword-index generation being
written (the swap)."""

import json
import signal
import subprocess
import sys
import time

import pytest
from cli_runner import cli, cli_json
from test_resume import counts, make_notes

FILES = 400  # two chunks each: the parse kills must not use up the files before the embed kills


def generations(data_dir):
    folder = data_dir / "bm25"
    return {p.name for p in folder.iterdir() if p.is_dir()} if folder.exists() else set()


def run_until(data_dir, args, condition, timeout=300):
    """Start a command, SIGKILL it once `condition(start_counts, start_generations)` holds; True if it was
    killed, False if it finished first."""
    before, gens = counts(data_dir), generations(data_dir)
    process = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    try:
        while process.poll() is None:
            if condition(before, gens):
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=60)
                return True
            if time.monotonic() > deadline:
                pytest.fail(f"{args} neither reached its kill point nor finished")
            time.sleep(0.01)
        return False
    finally:
        if process.poll() is None:
            process.kill()


def assert_doctor_clean(data_dir, context):
    report = json.loads(cli(data_dir, "doctor", "--json", check=False).stdout)
    assert report["found"] == [], f"after a kill {context}: {report}"


@pytest.mark.slow
def test_index_and_rebuild_survive_sigkill_anywhere(docs, data_dir):
    make_notes(docs, FILES)
    index = ["index", str(docs), "--contexts", "rules"]

    def documents_grew(n):
        return lambda before, gens: counts(data_dir)[0] >= before[0] + n

    def embedded_grew(n):
        return lambda before, gens: counts(data_dir)[2] >= before[2] + n

    def new_generation(before, gens):
        return bool(generations(data_dir) - gens)

    def embedded_dropped(before, gens):  # rebuild: the catalog marked every chunk for embedding again
        return counts(data_dir)[2] < before[2]

    # In the order a run meets them: each killed run resumes where the last one stopped.
    plan = [
        ("index", "parse", documents_grew(1)), ("index", "parse", documents_grew(40)),
        ("index", "parse", documents_grew(60)), ("index", "parse", documents_grew(80)),
        ("index", "embed", embedded_grew(1)), ("index", "embed", embedded_grew(120)),
        ("index", "embed", embedded_grew(150)), ("index", "embed", embedded_grew(180)),
        ("index", "keyword swap", new_generation), ("index", "keyword swap", new_generation),
    ]
    killed = []
    for command, where, condition in plan:
        docs_before = counts(data_dir)[0]
        if run_until(data_dir, index, condition):
            killed.append(f"{command}/{where}")
            assert counts(data_dir)[0] >= docs_before  # nothing catalogued was lost
            assert_doctor_clean(data_dir, f"in {command} at {where}")

    docs_done, _, embedded_done = counts(data_dir)
    summary = cli_json(data_dir, *index, "--json")
    assert summary["failed"] == []
    assert summary["indexed"] == FILES - docs_done  # nothing finished was redone
    assert summary["unchanged"] == docs_done
    assert summary["embedded"] == FILES * 2 - embedded_done
    assert counts(data_dir) == (FILES, FILES * 2, FILES * 2)

    for where, condition in [("after the reset", embedded_dropped), ("embed", embedded_grew(100)),
                             ("keyword swap", new_generation)]:
        if run_until(data_dir, ["rebuild"], condition):
            killed.append(f"rebuild/{where}")
            assert counts(data_dir)[:2] == (FILES, FILES * 2)  # rebuild never loses the catalog's work
            assert_doctor_clean(data_dir, f"in rebuild at {where}")
    cli(data_dir, "index", str(docs), "--contexts", "rules")  # finishes what the rebuild left

    print(f"\nkilled {len(killed)} times: {', '.join(killed)}")
    assert len(killed) >= 10, killed
    assert_doctor_clean(data_dir, "at the end")
    assert counts(data_dir) == (FILES, FILES * 2, FILES * 2)
    queries = data_dir.parent / "planted.jsonl"
    queries.write_text("".join(json.dumps({"_id": str(i), "text": f"omega{i}"}) + "\n" for i in range(FILES)))
    found = [json.loads(line) for line in cli(data_dir, "search", "--queries", str(queries), "--mode", "bm25",
                                              "-k", "1").stdout.splitlines()]
    assert [r["results"][0]["path"].rsplit("/", 1)[-1] for r in found] == [f"note{i:04d}.md" for i in range(FILES)]

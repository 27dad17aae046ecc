"""The keyword index's merge at rest in the real `watch` process (issue 64): a file saved while a merge runs is found
by its words within a second, and Ctrl-C during a merge leaves the index whole.

The test's library is small, so its merge would last milliseconds: an injected fault (SlowDiskFault, a
sitecustomize.py the process loads) makes each of the merge's blocks take 0.4 s more and its blocks small — a
merge of a million passages takes ~13 s on 2 cores (docs/benchmarks.md) — makes a merge due from one change, and
marks in a file when a merge starts and how it ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli_runner import cli
from waiting import eventually

from desktop_rag.core.text.lexical import lexical_tokens
from desktop_rag.storage.keyword_index import KeywordIndex

_SLOW_DISK_FAULT = '''
import os
import time

from desktop_rag.storage import keyword_segments

_marks = os.environ["MERGE_MARKS"]
_merge = keyword_segments.merge
keyword_segments._MERGE_BLOCK = 40


def _mark(word):
    with open(_marks, "a", encoding="utf-8") as marks:
        marks.write(word + "\\n")


def merge_on_a_slow_disk(segments, k1, b, stopped=lambda: False):
    _mark("started")

    def slowly():
        time.sleep(0.4)
        return stopped()

    try:
        merged = _merge(segments, k1, b, slowly)
    except StopIteration:
        _mark("stopped")
        raise
    _mark("merged")
    return merged


keyword_segments.merge = merge_on_a_slow_disk

from desktop_rag.core.indexing import keyword_upkeep  # (after: it imports the merge)

keyword_upkeep.MERGE_AT_REST_CHANGES = 1
'''


def _watching(data_dir: Path, docs: Path, fault: Path, marks: Path) -> subprocess.Popen:
    env = dict(os.environ, MERGE_MARKS=str(marks),
               PYTHONPATH=os.pathsep.join(filter(None, [str(fault), os.environ.get("PYTHONPATH", "")])))
    watcher = subprocess.Popen(
        [sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "watch", str(docs), "--no-upgrade",
         "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # A test run started in the background ignores SIGINT, and children inherit that: give Ctrl-C back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert json.loads(watcher.stdout.readline())["event"] == "catch-up"
    assert json.loads(watcher.stdout.readline())["event"] == "watching"
    return watcher


def _marked(marks: Path) -> list[str]:
    return marks.read_text(encoding="utf-8").split() if marks.exists() else []


def _last(marks: Path) -> str:
    return (_marked(marks) or [""])[-1]


def _found(data_dir: Path, word: str) -> bool:
    return bool(KeywordIndex(data_dir / "bm25", lexical_tokens).search(word, 5))  # as another process reads it


def test_a_save_during_a_merge_is_found_in_a_second_and_ctrl_c_leaves_the_index_whole(data_dir, docs, tmp_path):
    fault = tmp_path / "slow_disk_fault"
    fault.mkdir()
    (fault / "sitecustomize.py").write_text(_SLOW_DISK_FAULT, encoding="utf-8")
    marks = tmp_path / "merges.txt"
    for n in range(60):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nThe harbour ledger, page {n}.\n\nRent paid in full, {n}.\n")
    cli(data_dir, "settings", "contexts", "rules")
    cli(data_dir, "index", str(docs))
    watcher = _watching(data_dir, docs, fault, marks)
    try:
        (docs / "first.md").write_text("# First\n\nquokka sightings on the island.\n")
        assert json.loads(watcher.stdout.readline())["event"] == "change"
        eventually(lambda: _marked(marks) == ["started"], timeout=30)  # at rest (3 s later): a merge

        (docs / "during.md").write_text("# During\n\nwallaby tracks by the creek.\n")
        saved = time.monotonic()
        eventually(lambda: _found(data_dir, "wallaby"), timeout=10, interval=0.02)
        found_s = time.monotonic() - saved
        assert _marked(marks) == ["started"], "the merge was still running when the save was found"
        eventually(lambda: _last(marks) == "merged", timeout=60)
        assert found_s <= 1.0, f"found {found_s:.2f} s after the save"
        assert _found(data_dir, "quokka") and _found(data_dir, "wallaby")

        (docs / "later.md").write_text("# Later\n\nnumbat burrows in the woodland.\n")
        # (the save during the merge left a change: another merge may have begun already, before this save)
        eventually(lambda: _found(data_dir, "numbat"), timeout=10, interval=0.02)
        eventually(lambda: _last(marks) == "started", timeout=30)  # the next merge, at rest
        watcher.send_signal(signal.SIGINT)
        _, stderr = watcher.communicate(timeout=30)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.communicate()
    assert watcher.returncode == 0, stderr
    assert _last(marks) == "stopped"
    keywords = KeywordIndex(data_dir / "bm25", lexical_tokens)
    assert keywords.damage() is None
    for word in ("quokka", "wallaby", "numbat", "ledger"):
        assert keywords.search(word, 5), word
    checkup = json.loads(cli(data_dir, "doctor", "--json", check=False).stdout)
    assert checkup["found"] == [], checkup

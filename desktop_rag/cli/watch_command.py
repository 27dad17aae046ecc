"""What `desktop-rag watch` and `service` print while they follow folders (service/follow_loop.py): the catch-up's
progress and summary, each batch of changes applied, each step of the LLM upgrade, what failed. With --json, one
object per line on stdout."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from desktop_rag.cli.output import ProgressPrinter, print_index_summary
from desktop_rag.service.follow_loop import FollowReports


def terminal_reports(as_json: bool) -> FollowReports:
    def watching(folders: list[Path]) -> None:
        if as_json:
            print(json.dumps({"event": "watching", "folders": [str(f) for f in folders]}), flush=True)
        print(f"Watching {len(folders)} folder(s); Ctrl-C stops.", file=sys.stderr, flush=True)

    return FollowReports(
        catch_up_progress=ProgressPrinter(sys.stderr),
        catch_up_done=lambda summary: _report(summary, as_json, "catch-up"),
        batch=lambda summary: _report(summary, as_json, "change"),
        upgrade=lambda summary: _report_upgrade(summary, as_json),
        error=lambda sentence: _report_error(sentence, as_json),
        watching=watching,
        stopped=lambda: print("Stopped watching.", file=sys.stderr))


def _report(summary, as_json: bool, kind: str) -> None:
    if as_json:
        print(json.dumps({"event": kind, **asdict(summary)}), flush=True)
        return
    if kind == "catch-up":
        print_index_summary(summary, sys.stdout)
    else:
        parts = summary.change_words() + ([f"{len(summary.busy)} still being written"] if summary.busy else [])
        print(f"{time.strftime('%H:%M:%S')}  {', '.join(parts) or 'nothing changed'} ({summary.seconds:.1f} s)")
        for failure in summary.failed:
            print(f"  {failure.path}: {failure.reason}")
    sys.stdout.flush()


def _report_upgrade(summary, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"event": "upgrade", **asdict(summary)}), flush=True)
    else:
        print(f"{time.strftime('%H:%M:%S')}  LLM contexts: {summary.upgraded_chunks:,} written, "
              f"{summary.kept_rules:,} kept rules", flush=True)


def _report_error(sentence: str, as_json: bool) -> None:
    """What failed in the lane (a batch kept for a retry, a run, the upgrade); watching goes on."""
    if as_json:
        print(json.dumps({"event": "error", "message": sentence}), flush=True)
    else:
        print(f"{time.strftime('%H:%M:%S')}  {sentence}", file=sys.stderr, flush=True)

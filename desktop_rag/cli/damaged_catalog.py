"""`doctor --repair` on a damaged catalog (issue 50, 6): a new one made from the folders, keeping what can be read of
the damaged one, then the folders read again; the `doctor` command comes here when SQLite finds the catalog damaged,
and to cli/writes.py cmd_doctor otherwise."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

from desktop_rag.core.damaged_catalog.rebuild import rebuild_damaged_catalog
from desktop_rag.service.background_process import stop_answering, who_answers


def rebuild_then_index(args, data_dir: Path, damage: str, index: Callable[[argparse.Namespace, Path], int]) -> int:
    """A new catalog from the folders, with what can be read of the damaged one (core/damaged_catalog/rebuild.py); then
    the folders read again by `index` (the `index` command's: through the service, which is started)."""
    if who_answers(data_dir) is not None:  # a service that opened it before it was damaged: it lets go first
        stop_answering(data_dir, wait_s=30)
    rebuilt = rebuild_damaged_catalog(data_dir)
    found, repaired = [f"the catalog is damaged: {damage}"], ["a new catalog: " + "; ".join(rebuilt.sentences())]
    if not args.json:
        print(f"found: {found[0]}")
        print(f"repaired: {repaired[0]}")
    code = 0
    if rebuilt.folders:
        if not args.json:
            print(f"Reading {len(rebuilt.folders)} folders again…", flush=True)
        again = argparse.Namespace(**{**vars(args), "paths": rebuilt.folders, "contexts": None})
        with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
            code = index(again, data_dir)
    if args.json:
        print(json.dumps({"found": found, "repaired": repaired, "left": [], "holds": None, "waiting": [],
                          "rebuilt": {"kept_at": str(rebuilt.kept_at), "folders": rebuilt.folders,
                                      "hand_edited": rebuilt.hand_edited, "by_the_model": rebuilt.by_the_model,
                                      "unreadable": rebuilt.unreadable}}))
    return code

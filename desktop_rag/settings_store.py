"""The settings file (settings.json in the data folder), written so that no process undoes another's change.

Every process holds its own copy of the settings, read when it opened the library. Writing that whole copy back
undid whatever another process had changed since (issue 49: the window's Pause lost to the CLI's change, and the
other way round). A change writes only the names it changed into the file as it is now, under a lock held for
that moment; the service, the library's one writer, is where changes are made, and it tells every client.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from desktop_rag.platform.file_locks import one_at_a_time
from desktop_rag.platform.private_paths import private_folder

log = logging.getLogger(__name__)


def write_settings(path: Path, changed: Mapping[str, object], every: Mapping[str, object]) -> None:
    """`changed` into the file at `path`, the other values as the file holds them now; `every` (all of this
    process's values) where the file is missing or unreadable."""
    private_folder(path.parent)
    with one_at_a_time(path.with_suffix(".lock")):
        stored = _stored(path)
        values = {**every, **stored, **changed} if stored is not None else {**every, **changed}
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(values, indent=2), encoding="utf-8")
        os.replace(tmp, path)


def _stored(path: Path) -> dict | None:
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("%s could not be read (%s): it is written anew from this process's settings", path, exc)
        return None
    return values if isinstance(values, dict) else None

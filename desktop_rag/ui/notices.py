"""Things the app says once per data folder (the first close that leaves the service running): which were said is
kept in the data folder, beside the library they are about."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

FILE_NAME = "notices-shown.json"


def first_time(data_dir: Path, notice: str) -> bool:
    """True the first time `notice` is asked about for this data folder (it is marked said from then on)."""
    path = Path(data_dir) / FILE_NAME
    try:
        said = json.loads(path.read_text(encoding="utf-8"))
        said = [n for n in said if isinstance(n, str)] if isinstance(said, list) else []
    except (OSError, ValueError):
        said = []  # none said yet, or a damaged file: saying it once more is the lesser harm
    if notice in said:
        return False
    try:
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps([*said, notice]), encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:  # a read-only data folder: said again next time
        logging.getLogger(__name__).info("notice not remembered: %s", exc)
    return True

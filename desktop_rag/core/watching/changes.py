"""What changed on disk, as a file watcher reports it: paths to bring in line with the disk, and moves.

Events are coalesced into one batch: a path touched a hundred times in a save dance is one entry, and whether it
is new, changed or deleted is decided when the batch is applied, from what the disk holds then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath


@dataclass
class ChangeBatch:
    dirty: set[str] = field(default_factory=set)  # files or folders created, modified or deleted
    moves: list[tuple[str, str]] = field(default_factory=list)  # (source, destination), in the order they happened

    def __bool__(self) -> bool:
        return bool(self.dirty or self.moves)

    def __len__(self) -> int:
        return len(self.dirty) + len(self.moves)

    def outermost_dirty(self) -> list[str]:
        """The dirty paths without those inside another dirty folder (its scan covers them), sorted."""
        return sorted(path for path in self.dirty if not any(str(p) in self.dirty for p in PurePath(path).parents))

    def merge(self, other: ChangeBatch) -> None:
        self.dirty |= other.dirty
        self.moves.extend(other.moves)

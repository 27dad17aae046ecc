"""The keyword index's merge at rest (issue 64): the lane's step after the batches and runs, before the LLM upgrade,
once nothing has arrived for MAKE_WAY_S and enough has changed (core/indexing/keyword_upkeep.py). What a person
does meanwhile goes first without cancelling it: between its blocks (~0.5 s each) the lane serves the edits and
applies the file changes waiting, which update the changes' segment; a stop cancels it, leaving the index as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_rag.core.progress.control import RunControl

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library


def void(value: object) -> None:
    """(a hook's answer that nobody needs)"""


class RestMerge:
    def __init__(self, library: Library, serve_edits: Callable[[], None], apply_waiting: Callable[[], object],
                 failed: Callable[[str, Exception], None]):
        self._library = library
        self._serve_edits, self._failed = serve_edits, failed
        self._apply_waiting = lambda: void(apply_waiting())
        self.control: RunControl | None = None  # the merge while it runs
        # Something was written since the last look: only then is the catalog asked (the lane looks 5 times a
        # second at rest).
        self.maybe_due = True

    def run_if_due(self) -> bool:
        """Merged (or cut short by a stop) now: True; not due: False."""
        if not self.maybe_due:
            return False
        self.maybe_due = False
        control = self.control = RunControl()
        control.between_steps, control.between_documents = self._serve_edits, self._apply_waiting
        try:
            return self._library.indexes.merge_keywords(control)
        except Exception as exc:  # noqa: BLE001 — the index stays as it was; the next write looks again
            self._failed("Merging the keyword index failed", exc)
            return False
        finally:
            self.control = None

    def cancel(self) -> None:
        if self.control is not None:
            self.control.cancel()

from types import SimpleNamespace

from desktop_rag.core.progress.control import RunControl
from desktop_rag.core.runs.rest_merge import RestMerge


class IndexUpkeepFake:
    """Records the merges asked and what their control lets run between blocks."""

    def __init__(self, fails: bool = False):
        self.controls: list[RunControl] = []
        self.fails = fails

    def merge_keywords(self, control: RunControl) -> bool:
        self.controls.append(control)
        if self.fails:
            raise OSError("the disk went away")
        control.checkpoint(between_documents=True)  # between two blocks: what waits is served
        return True


def test_a_merge_is_looked_for_only_after_a_write_and_serves_what_arrives_meanwhile():
    upkeep, served = IndexUpkeepFake(), []
    merge = RestMerge(SimpleNamespace(indexes=upkeep), lambda: served.append("edits"),
                      lambda: served.append("changes") or True, lambda what, exc: None)
    assert merge.run_if_due()
    assert served == ["edits", "changes"]
    assert not merge.run_if_due() and len(upkeep.controls) == 1  # nothing written since: the catalog not asked
    merge.maybe_due = True
    assert merge.run_if_due() and len(upkeep.controls) == 2


def test_a_stop_cancels_the_merge_in_hand_and_a_failure_is_told_once():
    failures: list[str] = []
    upkeep = IndexUpkeepFake(fails=True)
    merge = RestMerge(SimpleNamespace(indexes=upkeep), lambda: None, lambda: None,
                      lambda what, exc: failures.append(f"{what}: {exc}"))
    assert not merge.run_if_due()
    assert failures == ["Merging the keyword index failed: the disk went away"] and merge.control is None
    control = merge.control = RunControl()
    merge.cancel()
    assert control.cancelled

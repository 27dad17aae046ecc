"""The LLM upgrade's count over its stretch (service/upgrade_stretch.py): issue 60 saw the bar full during "Writing
LLM contexts (you asked for them now)" while 10,168 passages waited, each step (one document) ending "done of
done". Plain arithmetic."""

from desktop_rag.core.indexing.report import Progress
from desktop_rag.service.upgrade_stretch import UpgradeStretch


def test_steps_add_up_to_the_contexts_waiting_when_the_stretch_began_until_work_is_added():
    waiting = [10_168]
    stretch = UpgradeStretch(lambda: waiting[0])
    stretch.step_started()
    assert stretch.told(Progress("contextualize", 0, None)) == Progress("contextualize", 0, 10_168)
    assert stretch.told(Progress("contextualize", 12, 12)).total == 10_168  # a step's end: not 12 of 12
    stretch.step_ended(12)
    waiting[0] -= 12
    stretch.step_started()  # the next document (after a pause, or a run, alike): the same stretch
    told = stretch.told(Progress("contextualize", 3, None))
    assert (told.done, told.total) == (15, 10_168)
    stretch.step_ended(8)
    waiting[0] = 10_148 + 400  # a folder's new files: their contexts wait too
    stretch.step_started()
    told = stretch.told(Progress("contextualize", 1, None))
    assert (told.done, told.total) == (1, 10_548)

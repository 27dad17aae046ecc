"""Who writes when (core/runs/lane.py), as `watch` and `serve` follow it on a plain thread, with the real catalog and
indexes and a fake model: the upgrade only with `auto` contexts, and a run before it. The app's own agreement is in
test_ui_background.py; the rules themselves in unit/core/runs/test_upgrade_turn.py."""

from __future__ import annotations

import time

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.runs.lane import WriteLane
from desktop_rag.service.host import LibraryHost
from fake_models import ANY_TIME, SlowFakeModel
from waiting import eventually


def _indexed_with_rules(make_library, docs, contexts: str):
    (docs / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap every two weeks.\n")
    library = make_library(Settings(contexts=contexts, **ANY_TIME))
    library.index([docs], contexts="rules")
    model = SlowFakeModel(seconds=0)
    library.llm_backend = lambda: model
    assert library.reader.stats()["contexts_awaiting_upgrade"] > 0
    return library, model


def _lane_of_watch(library) -> WriteLane:
    lane = WriteLane(library, make_way_s=0.2)  # as `desktop-rag watch` makes it, without --upgrade
    lane.start()
    return lane


def _lane_of_serve(library) -> WriteLane:
    host = LibraryHost(library, "test serve", upgrade="scheduled")  # as `desktop-rag serve` makes it
    host._own_lane.turn.make_way_s = 0.2
    return host._own_lane


@pytest.mark.parametrize("front_end", [_lane_of_watch, _lane_of_serve], ids=["watch", "serve"])
def test_watch_and_serve_upgrade_rules_contexts_only_when_contexts_are_auto(make_library, docs, front_end):
    library, model = _indexed_with_rules(make_library, docs, "rules")
    lane = front_end(library)
    try:
        eventually(lambda: lane.decision.reason == "contexts are set to rules")
        assert model.calls == 0 and library.reader.stats()["contexts_awaiting_upgrade"] > 0
    finally:
        lane.stop()
        lane.join(30)


@pytest.mark.parametrize("front_end", [_lane_of_watch, _lane_of_serve], ids=["watch", "serve"])
def test_watch_and_serve_upgrade_with_auto_contexts(make_library, docs, front_end):
    library, model = _indexed_with_rules(make_library, docs, "auto")
    lane = front_end(library)
    try:
        eventually(lambda: library.reader.stats()["contexts_awaiting_upgrade"] == 0, timeout=60)
        assert model.calls > 0 and library.reader.stats()["contexts_by_source"].get("llm", 0) > 0
    finally:
        lane.stop()
        lane.join(30)


def test_a_run_submitted_to_the_lane_goes_before_the_upgrade(make_library, docs):
    library, model = _indexed_with_rules(make_library, docs, "auto")
    model.seconds, model.fast_calls = 120.0, 0  # every model call lasts until cut short
    lane = _lane_of_watch(library)
    done = []
    try:
        eventually(model.working.is_set, timeout=60)
        lane.submit(lambda: done.append("the run"))
        eventually(lambda: done, timeout=10)  # the model's call was cut short for it
        assert model.interrupted >= 1
    finally:
        lane.stop()
        lane.join(30)


def test_a_lane_told_never_leaves_the_model_alone_whatever_the_schedule_allows(make_library, docs):
    library, model = _indexed_with_rules(make_library, docs, "auto")
    lane = WriteLane(library, make_way_s=0.2)
    lane.upgrade = "never"  # as `watch --no-upgrade` sets it, after the lane is made
    lane.start()
    try:
        time.sleep(1.5)  # the loop looks every 0.2 s: an allowed upgrade would have begun (see the test above)
        assert model.calls == 0 and library.reader.stats()["contexts_awaiting_upgrade"] > 0
    finally:
        lane.stop()
        lane.join(30)

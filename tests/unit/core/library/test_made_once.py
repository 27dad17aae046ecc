"""A part built on first use (core/library/made_once.py): once when threads ask at once, and parts of two objects at once."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import desktop_rag
from desktop_rag.core.library.made_once import made_once


class SlowPartsFake:
    """An object whose part takes a while to build, like the library's embedder child."""

    def __init__(self, building: threading.Event | None = None, wait_for: threading.Event | None = None):
        self.builds = 0
        self.building, self.wait_for = building or threading.Event(), wait_for
        self.overlapped = False

    @made_once
    def part(self) -> str:
        self.builds += 1
        self.building.set()
        if self.wait_for is not None:
            self.overlapped = self.wait_for.wait(2)  # the other object's part is being built meanwhile
        time.sleep(0.05)
        return f"part {self.builds}"


def _at_once(*calls) -> None:
    threads = [threading.Thread(target=call) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_threads_asking_at_once_share_one_part():
    owner, seen = SlowPartsFake(), []
    _at_once(*[lambda: seen.append(owner.part)] * 8)
    assert owner.builds == 1 and seen == ["part 1"] * 8


def test_the_parts_of_two_objects_are_built_at_the_same_time():
    first_building, second_building = threading.Event(), threading.Event()
    first = SlowPartsFake(building=first_building, wait_for=second_building)
    second = SlowPartsFake(building=second_building, wait_for=first_building)
    _at_once(lambda: first.part, lambda: second.part)
    assert first.overlapped and second.overlapped


def test_a_part_dropped_is_built_again():
    owner = SlowPartsFake()
    assert owner.part == "part 1"
    del owner.__dict__["part"]  # as settings_changed drops a part built from old values
    assert owner.part == "part 2"


def test_no_part_of_the_program_is_built_with_functools_cached_property():
    package = Path(desktop_rag.__file__).parent
    users = [str(p.relative_to(package)) for p in package.rglob("*.py")
             if re.search(r"@(functools\.)?cached_property", p.read_text())]
    assert users == []

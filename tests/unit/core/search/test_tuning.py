"""The numbers retrieval is tuned by (core/search/tuning.py): each beside its measurement, each in one place."""

from __future__ import annotations

from measured_constants import PACKAGE, defined_elsewhere, without_a_measurement

TUNING = PACKAGE / "core" / "search" / "tuning.py"


def test_each_retrieval_number_cites_the_measurement_that_chose_it():
    assert without_a_measurement(TUNING.read_text(encoding="utf-8")) == []


def test_each_is_defined_only_there():
    assert defined_elsewhere(TUNING) == []


def test_the_check_sees_a_number_without_its_measurement():
    source = "# the nearest misses\nWEAK = 3\n# issue 60: 29 weak hits\nSHOWN = 2\nALSO = 1\n# a guess\nLOST = 4\n"
    assert without_a_measurement(source) == ["WEAK", "LOST"]  # ALSO shares the block above SHOWN

"""How background work paces itself (core/progress/pacing.py): each number beside its measurement, in one place."""

from __future__ import annotations

from measured_constants import PACKAGE, defined_elsewhere, without_a_measurement

PACING = PACKAGE / "core" / "progress" / "pacing.py"


def test_each_pacing_number_cites_the_measurement_that_chose_it():
    assert without_a_measurement(PACING.read_text(encoding="utf-8")) == []


def test_each_is_defined_only_there():
    assert defined_elsewhere(PACING) == []

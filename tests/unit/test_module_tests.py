"""Which modules have a test of their own (a test file named for them, either tier; test basenames are unique),
as qutebrowser maps its modules to their tests: a new module comes with one, and tests/modules_without_a_test.txt,
the modules that came before the rule without one, only shrinks."""

from __future__ import annotations

from pathlib import Path

import desktop_rag

PACKAGE = Path(desktop_rag.__file__).parent
TESTS = PACKAGE.parent / "tests"
LIST = TESTS / "modules_without_a_test.txt"


def without_a_test(modules: list[str], test_names: set[str]) -> list[str]:
    return [m for m in modules if f"test_{Path(m).name}" not in test_names]


def _modules() -> list[str]:
    return [str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("*.py"))
            if p.name not in ("__init__.py", "__main__.py")]


def _listed() -> list[str]:
    return [line for line in LIST.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def _test_names() -> set[str]:
    return {p.name for p in TESTS.rglob("test_*.py")}


def test_a_module_without_a_test_of_its_own_is_one_listed_before_the_rule():
    missing = without_a_test(_modules(), _test_names())
    assert sorted(set(missing) - set(_listed())) == [], "a new module comes with its test"


def test_the_list_only_shrinks():
    missing = set(without_a_test(_modules(), _test_names()))
    assert [m for m in _listed() if m not in missing] == [], f"tested now (or gone): take them off {LIST.name}"


def test_the_check_sees_a_module_without_its_test():
    assert without_a_test(["core/new.py", "core/library/library.py"], {"test_library.py"}) == ["core/new.py"]

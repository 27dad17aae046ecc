"""The check of a tuning module (core/search/tuning.py, core/progress/pacing.py): each constant says the measurement
that chose it (or that none did), and is defined nowhere else in the package (one place to change it, beside its
evidence)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import desktop_rag

PACKAGE = Path(desktop_rag.__file__).parent
# A measurement: a bench script, the benchmarks' page, an issue, or a figure with its unit; or, said as plainly, that
# it was not measured (a judgement a reader may question, not a number that looks measured).
MEASURED = re.compile(r"bench/|docs/benchmarks|issues? \d+|\d+(\.\d+)?\s?(ms|s|%|MB|GB|cores?|k chunks)\b"
                      r"|not measured")


def constants(source: str) -> list[tuple[str, int]]:
    """(name, line) of each constant a module assigns at its top."""
    return [(target.id, node.lineno) for node in ast.parse(source).body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name) and target.id.isupper()]


def without_a_measurement(source: str) -> list[str]:
    """Constants whose comment — on their line, or the block of comment lines right above them (or above the group
    of constants they close) — cites no measurement."""
    lines = source.splitlines()
    unmeasured = []
    for name, number in constants(source):
        said, above = lines[number - 1].partition("#")[2], number - 2
        while above >= 0 and re.match(r"[A-Z_]+ = ", lines[above]):  # a group of constants: the first one's comment
            said += " " + lines[above].partition("#")[2]
            above -= 1
        while above >= 0 and lines[above].startswith("#"):
            said += " " + lines[above]
            above -= 1
        if not MEASURED.search(said):
            unmeasured.append(name)
    return unmeasured


def defined_elsewhere(module: Path) -> list[str]:
    """Its constants assigned again at the top of another module of the package."""
    names = {name for name, _ in constants(module.read_text(encoding="utf-8"))}
    return sorted(f"{path.relative_to(PACKAGE)}: {name}" for path in PACKAGE.rglob("*.py") if path != module
                  for name, _ in constants(path.read_text(encoding="utf-8")) if name in names)

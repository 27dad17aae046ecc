"""Every package the app imports is one its install asks for: a module imported only through another package's
dependencies, or named only in the test extra, is missing from someone's install (msoffcrypto-tool, with which
office_keys.py opens workbooks protected by Excel's default key, was in the test extra alone)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
# Installed first, pinned to its CPU build, and never listed: a listed torch lets pip choose a CUDA build of
# gigabytes (DEVELOPERS.md).
INSTALLED_APART = {"torch"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _imported_modules() -> set[str]:
    modules: set[str] = set()
    for source in (ROOT / "desktop_rag").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names and m != "desktop_rag"}


def test_every_package_the_app_imports_is_declared_for_the_app_not_only_for_the_tests():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["llm"]]
    declared = {_name(str(r)) for r in requirements}
    # Another system's own (ocrmac on macOS, issue 52): declared for it, and so not installed here.
    elsewhere = {_name(str(r)) for r in requirements if r.marker is not None and not r.marker.evaluate()}
    providers = importlib.metadata.packages_distributions()
    undeclared = []
    for module in sorted(_imported_modules()):
        distributions = {d.lower().replace("_", "-") for d in providers.get(module, [])}
        if not distributions and module.replace("_", "-") in elsewhere:
            continue
        assert distributions, f"{module} is imported but installed by no package here"
        if not distributions & (declared | INSTALLED_APART):
            undeclared.append(f"{module} ({', '.join(sorted(distributions))})")
    assert undeclared == []

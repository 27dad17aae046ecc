"""The module map (docs/module-map.md), made from the modules' own docstrings: every package and module under
desktop_rag/ with the first sentence of its docstring, so the map says what the code says and cannot go stale.

    python tests/module_map.py      (writes docs/module-map.md)

tests/unit/test_module_map.py fails when a module has no docstring or the map on disk is not the one made now.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "desktop_rag"
MAP = ROOT / "docs" / "module-map.md"
HEADER = """# Module map

Made from each module's own docstring (its first sentence) by `python tests/module_map.py`; the unit tests fail
when it is not current. The rules the layers follow and the recipes are in DEVELOPERS.md; the design in
docs/architecture.md.
"""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"(])")


def first_sentence(docstring: str) -> str:
    text = " ".join(docstring.split())
    end = _SENTENCE_END.search(text)
    return text[: end.start()] if end else text


def docstrings(package: Path = PACKAGE) -> dict[str, str | None]:
    """Each module's path under the package's parent ("desktop_rag/core/library/library.py") → its docstring (None: none)."""
    return {str(path.relative_to(package.parent)): ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(package.rglob("*.py"))}


def module_map(found: dict[str, str | None]) -> str:
    lines = [HEADER]
    folders = sorted({str(Path(path).parent) for path in found})
    for folder in folders:
        lines.append(f"\n## {folder}/\n")
        package_doc = found.get(f"{folder}/__init__.py")
        if package_doc:
            lines.append(f"{first_sentence(package_doc)}\n")
        for path, doc in found.items():
            if str(Path(path).parent) == folder and not path.endswith("__init__.py"):
                lines.append(f"- `{Path(path).name}`: {first_sentence(doc) if doc else '(no docstring)'}")
    return "\n".join(lines) + "\n"


def undocumented(found: dict[str, str | None]) -> list[str]:
    """Modules without a docstring (an empty package's __init__.py may have none)."""
    return [path for path, doc in found.items() if not doc and not (
        path.endswith("__init__.py") and not (PACKAGE.parent / path).read_text(encoding="utf-8").strip())]


if __name__ == "__main__":
    MAP.write_text(module_map(docstrings()), encoding="utf-8")
    print(f"wrote {MAP.relative_to(ROOT)}", file=sys.stderr)

"""Every function typed (mypy's disallow_untyped_defs, pyproject.toml), but the modules listed there, a list that only
shrinks: mypy fails on an untyped function elsewhere (the fast tier), and this test on a listed module that has no
untyped function left (take it off the list), as qutebrowser keeps its own."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import desktop_rag

PACKAGE = Path(desktop_rag.__file__).parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"


def exempted() -> list[str]:
    overrides = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mypy"]["overrides"]
    return next(o["module"] for o in overrides if o.get("disallow_untyped_defs") is False)


def untyped_functions(source: str) -> list[str]:
    """Functions mypy's disallow_untyped_defs refuses: an argument (but self and cls) or the return not annotated
    (an __init__ whose arguments are annotated may leave its return out)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = node.args
        named = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if named and named[0].arg in ("self", "cls"):
            named = named[1:]
        every = named + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        annotated_args = all(a.annotation is not None for a in every)
        returns = node.returns is not None or (node.name == "__init__" and bool(every) and annotated_args)
        if not (annotated_args and returns):
            found.append(f"line {node.lineno}: {node.name}")
    return found


def _path(module: str) -> Path:
    relative = Path(*module.split(".")[1:])
    package = PACKAGE / relative / "__init__.py"
    return package if package.exists() else PACKAGE / relative.with_suffix(".py")


def test_the_list_of_modules_not_yet_typed_only_shrinks():
    typed_now = [module for module in exempted() if not untyped_functions(_path(module).read_text(encoding="utf-8"))]
    assert typed_now == [], "typed now: take them off pyproject.toml's list"


def test_the_check_sees_each_kind_of_untyped_function():
    source = ("def a(x): return x\ndef b(x: int): return x\ndef c(x: int) -> int: return x\n"
              "class K:\n    def __init__(self, n: int): pass\n    def d(self) -> None: pass\n"
              "    def e(self, *rest) -> None: pass\n    def __init_subclass__(cls): pass\n")
    assert untyped_functions(source) == ["line 1: a", "line 2: b", "line 7: e", "line 8: __init_subclass__"]

"""The shape of the code, checked: modules import one another without cycles (lazy imports inside functions
included), the layers import one way (storage ← core ← service ← the front ends), only ui/ imports Qt, and no
module of core/ grows past CORE_MODULE_LINES (a module that long is several things: cut it along its seams)."""

from __future__ import annotations

import ast
from pathlib import Path

import desktop_rag

PACKAGE = Path(desktop_rag.__file__).parent
CORE_MODULE_LINES = 350
# What each layer may not import: a lower layer knows nothing of those above it.
FORBIDDEN = {
    "desktop_rag.storage": ("desktop_rag.core", "desktop_rag.service", "desktop_rag.ui", "desktop_rag.cli"),
    "desktop_rag.core": ("desktop_rag.service", "desktop_rag.ui", "desktop_rag.cli", "PySide6"),
    "desktop_rag.service": ("desktop_rag.ui", "desktop_rag.cli", "PySide6"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Every name imported anywhere in the file: the project's modules it uses, and outside packages."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from package import module` imports the module; `from module import name` the module itself.
            found |= {f"{node.module}.{alias.name}" for alias in node.names
                      if f"{node.module}.{alias.name}" in modules} or {node.module}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def project_graph() -> dict[str, set[str]]:
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(files)
    return {name: imports_of(path, modules) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root] & graph.keys())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step] & graph.keys()))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_cycle_and_passes_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_module_imports_itself_back_through_others():
    assert cycles(project_graph()) == []


def test_the_layers_import_one_way_and_only_the_window_imports_qt():
    wrong = [f"{module} imports {imported}" for module, imported_names in project_graph().items()
             for layer, forbidden in FORBIDDEN.items() if module == layer or module.startswith(layer + ".")
             for imported in imported_names if imported.startswith(forbidden)]
    assert wrong == []


def test_no_module_of_core_is_over_its_length():
    long = {str(path.relative_to(PACKAGE)): lines for path in (PACKAGE / "core").rglob("*.py")
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > CORE_MODULE_LINES}
    assert long == {}


def test_the_front_ends_use_the_library_s_operations_and_reads_not_its_parts():
    """The CLI, the window and the agents' tools go through Library (core/library.py, library_reads.py): none of
    them reaches into its catalog or imports the storage layer."""
    front_ends = [*PACKAGE.glob("cli*.py"), *(PACKAGE / "ui").rglob("*.py"), *(PACKAGE / "service").rglob("*.py")]
    reaching = []
    for path in front_ends:
        text = path.read_text(encoding="utf-8")
        reaching += [f"{path.name}: {part}" for part in (".catalog.", ".reader.", "library.catalog", "library.reader")
                     if part in text]
        reaching += [f"{path.name} imports {name}" for name in imports_of(path, set())
                     if name.startswith("desktop_rag.storage")]
    assert reaching == []

"""The shape of the code, checked: every module belongs to a layer and imports only its own and those below
(shared ← storage ← core ← service ← the front ends: the CLI and the window), only ui/ imports Qt, no module or
package imports itself back (lazy imports inside functions and relative imports included), the front ends use the
library's operations and reads, never its parts, and no module grows past MODULE_LINES (a module that long is
several things: cut it along its seams). The service is the library's one writer (issue 49): only service/ (and the
CLI's `--local` path, cli/writes.py) builds a Library for writing, uses its writer or its runs, and the window
imports none of the writing machinery. Clients cannot write (issue 62): the window imports no writer's entry point,
no client names a storage part or opens an SQLite file itself, and nothing imports by a name the checks cannot read.
Each check is given breaches of its rule below, to show it catches them."""

from __future__ import annotations

import ast
from pathlib import Path

import desktop_rag

PACKAGE = Path(desktop_rag.__file__).parent
MODULE_LINES = 350
# Modules longer than that today, each at most as long as it is now: they are being cut (issue 39's composed parts);
# a module that shrinks under the limit must leave this list, and none may join it.
OVER_LENGTH = {"storage/catalog.py": 465, "ui/main_window.py": 449, "ui/search_panel.py": 401}
# Lowest first. A module imports modules of its own layer and of those before it, nothing above.
LAYERS: dict[str, tuple[str, ...]] = {
    "shared": ("desktop_rag", "desktop_rag.errors", "desktop_rag.documents", "desktop_rag.config",
               "desktop_rag.platform", "desktop_rag.use_clock", "desktop_rag.logs", "desktop_rag.offline",
               "desktop_rag.child_process", "desktop_rag.child_serving", "desktop_rag.work_apart", "desktop_rag.remedies",
               "desktop_rag.settings_store", "desktop_rag.data_folders"),
    "storage": ("desktop_rag.storage",),
    "core": ("desktop_rag.core",),
    "service": ("desktop_rag.service",),
    "cli": ("desktop_rag.cli", "desktop_rag.__main__"),
    "ui": ("desktop_rag.ui",),
}
# What a layer may import besides its own and the shared modules. The front ends go through the library
# (core) and the one door (service), never to storage; the CLI starts the window through ui/app.py and the quick
# search popup through ui/quick_search.py alone.
MAY_IMPORT = {"shared": set(), "storage": set(), "core": {"storage"}, "service": {"core"},
              "cli": {"core", "service"}, "ui": {"core", "service"}}
LAUNCHERS = {("cli", "desktop_rag.ui.app"), ("cli", "desktop_rag.ui.quick_search"), ("cli", "desktop_rag.ui.tray")}
QT = ("PySide6", "shiboken6")
# The library's parts: the front ends ask the library (core/library/library.py), not these.
LIBRARY_PARTS = {"catalog", "reader", "embedder", "document_reader", "vectors", "keywords", "reranker", "searcher",
                 "use_notes", "token_counter", "contextualizer", "llm_backend"}
# The library's writing parts: the writer process's alone (service/), and the CLI's `--local` path.
WRITING_PARTS = {"writer", "indexes"}
# The writing machinery: modules that build, write or run a library. The window imports none (it is a client of
# the service); the CLI only in its `--local` path.
WRITING_MODULES = ("desktop_rag.core.library.library", "desktop_rag.core.library.writing", "desktop_rag.core.library.index_upkeep",
                   "desktop_rag.core.library.doctor", "desktop_rag.core.library.context_edits", "desktop_rag.core.indexing.run",
                   "desktop_rag.core.runs", "desktop_rag.core.watching", "desktop_rag.core.damaged_catalog.rebuild")
LOCAL_WRITES = "desktop_rag.cli.writes"  # the CLI's `--local` path, where no service answers
# (the demo: a library of its own, in a folder of its own; cli/damaged_catalog.py: a damaged catalog, which no service can hold,
# made anew by `doctor --repair`)
WRITES_ITS_OWN = {LOCAL_WRITES, "desktop_rag.cli.demo", "desktop_rag.cli.damaged_catalog"}
# The writer's entry points: the window and the quick popup, clients of the service, import none (the CLI's
# `service`, `watch` and `serve` commands are those processes: cli/commands.py and cli/through_service.py start them).
WRITER_ENTRY_POINTS = ("desktop_rag.service.writer_process", "desktop_rag.service.host",
                       "desktop_rag.service.write_tools", "desktop_rag.service.run_kinds", "desktop_rag.service.tools")
# Modules that import by a computed name, and why the layer check need not see the name.
COMPUTED_IMPORTS = {"desktop_rag.core.files.archives"}  # a decompressor of the standard library, by the suffix
# Where a Library is built: for writing, the service's processes and the `--local` path; a library of its own in a
# folder of its own for the demo and the evaluation.
BUILDS_A_LIBRARY = {"desktop_rag.service.writer_process", "desktop_rag.service.client", LOCAL_WRITES,
                    "desktop_rag.cli.demo", "desktop_rag.core.evaluation.evaluation"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, modules: set[str], is_package: bool = False,
               type_only: bool = True) -> set[str]:
    """Every name imported anywhere in the source (inside functions too): the project's modules it uses, and
    outside packages. Relative imports are resolved against `module`. `type_only` False: without the imports
    under `if TYPE_CHECKING:` (for annotations alone: no import at run time, so no cycle)."""
    found = set()
    tree = ast.parse(source)
    if not type_only:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from package import module` imports the module; `from module import name` the module itself.
            found |= {f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules} or {base}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Call) and _imports_by_name(node):  # importlib.import_module("PySide6"), __import__
            found.add(node.args[0].value)
    return found


def _imports_by_name(call: ast.Call) -> bool:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    return (name in ("import_module", "__import__") and bool(call.args) and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str))


def project_files() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def project_graph(type_only: bool = True) -> dict[str, set[str]]:
    """Each module's imports (`type_only` False: those made at run time alone)."""
    files = project_files()
    modules = set(files)
    return {name: imports_of(path.read_text(encoding="utf-8"), name, modules, path.name == "__init__.py", type_only)
            for name, path in files.items()}


def layer_of(module: str) -> str | None:
    for layer, prefixes in LAYERS.items():
        if any(module == prefix or (prefix != "desktop_rag" and module.startswith(prefix + "."))
               for prefix in prefixes):
            return layer
    return None


def layer_breaches(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, imported_names in sorted(graph.items()):
        layer = layer_of(module)
        if layer is None:
            wrong.append(f"{module} belongs to no layer")
            continue
        for imported in sorted(imported_names):
            if imported.split(".")[0] in QT and layer != "ui":
                wrong.append(f"{module} imports {imported}: only ui/ imports Qt")
            elif imported.split(".")[0] == "desktop_rag":
                target = layer_of(imported)
                allowed = {layer, "shared"} | MAY_IMPORT[layer]
                if target not in allowed and (layer, imported) not in LAUNCHERS:
                    wrong.append(f"{module} ({layer}) imports {imported} ({target})")
    return wrong


def package_of(module: str) -> str:
    """core's packages (core.indexing, core.search…) and its modules beside them (core.changes, core.library…)
    each on their own; every other package, or module beside them, whole."""
    parts = module.split(".")
    return ".".join(parts[:3] if len(parts) >= 3 and parts[1] == "core" else parts[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {}
    for module, imported_names in graph.items():
        packages.setdefault(package_of(module), set()).update(
            package_of(i) for i in imported_names if i in graph and package_of(i) != package_of(module))
    return packages


def reaching_into_the_library(source: str, parts: set[str] = LIBRARY_PARTS) -> list[str]:
    """`library.catalog…`, `self.library.embedder…`, `lib = self.library; lib.catalog`, `getattr(library,
    "catalog")`: a front end using a part of the library, not an operation."""
    tree = ast.parse(source)
    names = {"library", "_library"}
    for node in ast.walk(tree):  # aliases: a name given the library (or an alias of it), anywhere in the module
        if isinstance(node, ast.Assign) and _names_the_library(node.value, names):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in parts and _names_the_library(node.value, names):
            found.append(f"line {node.lineno}: {_name(node.value)}.{node.attr}")
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr" and len(node.args) >= 2
              and _names_the_library(node.args[0], names) and isinstance(node.args[1], ast.Constant)
              and node.args[1].value in parts):
            found.append(f"line {node.lineno}: getattr({_name(node.args[0])}, {node.args[1].value!r})")
    return found


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _names_the_library(node: ast.expr, names: set[str]) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute)) and _name(node) in names


def writing_breaches(graph: dict[str, set[str]], sources: dict[str, str]) -> list[str]:
    """The one writer, checked: the window imports no writing machinery, holds no WriteLane and reaches no
    writing part; the CLI only in its `--local` path; a Library is built only where BUILDS_A_LIBRARY says."""
    wrong = []
    for module, imported_names in sorted(graph.items()):
        layer = layer_of(module)
        local_writes = module in WRITES_ITS_OWN
        if layer in ("ui", "cli") and not local_writes:
            wrong += [f"{module} imports {imported}: the writing machinery is the service's"
                      for imported in sorted(imported_names)
                      if any(imported == m or imported.startswith(m + ".") for m in WRITING_MODULES)]
        source = sources.get(module, "")
        if layer in ("ui", "cli") and not local_writes:
            wrong += [f"{module} {where}: the writer is the service's"
                      for where in reaching_into_the_library(source, WRITING_PARTS)]
        if layer == "ui" and _names(source, "WriteLane"):
            wrong.append(f"{module} names WriteLane: the window has no write lane")
        if module not in BUILDS_A_LIBRARY:
            wrong += [f"{module} line {line}: builds a Library" for line in _library_built(source)]
    return wrong


def client_breaches(graph: dict[str, set[str]], sources: dict[str, str]) -> list[str]:
    """Clients cannot write (issue 62): the window imports no writer's entry point; a client module (the window's,
    the CLI's outside its own writes) names no storage part, however reached (`m.Catalog` of an aliased module
    too), and opens no SQLite file itself; no module imports by a computed name the layer check cannot read."""
    wrong, storage_classes = [], STORAGE_CLASSES()
    for module, imported_names in sorted(graph.items()):
        layer, source = layer_of(module), sources.get(module, "")
        if layer == "ui":
            wrong += [f"{module} imports {imported}: a writer's entry point; the window is a client"
                      for imported in sorted(imported_names) if imported.startswith(WRITER_ENTRY_POINTS)]
        if layer in ("ui", "cli") and module not in WRITES_ITS_OWN:
            wrong += [f"{module} line {line}: names {name}, storage's part" for line, name in
                      _named(source, storage_classes)]
            wrong += [f"{module} line {line}: opens an SQLite file itself" for line in _sqlite_opened(source)]
        if module not in COMPUTED_IMPORTS:
            wrong += [f"{module} line {node.lineno}: imports by a computed name" for node in ast.walk(ast.parse(source))
                      if isinstance(node, ast.Call) and _name(node.func) in ("import_module", "__import__")
                      and not _imports_by_name(node)]
    return wrong


def _named(source: str, names: set[str]) -> list[tuple[int, str]]:
    return sorted({(node.lineno, _name(node)) for node in ast.walk(ast.parse(source))
                   if isinstance(node, (ast.Name, ast.Attribute)) and _name(node) in names})


def _sqlite_opened(source: str) -> list[int]:
    """`sqlite3.connect(…)`, however sqlite3 or its connect was imported."""
    tree = ast.parse(source)
    modules, functions = {"sqlite3"}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name == "sqlite3"}
        elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
            functions |= {alias.asname or alias.name for alias in node.names if alias.name == "connect"}
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Attribute) and node.func.attr == "connect" and _name(node.func.value) in modules)
        or (isinstance(node.func, ast.Name) and node.func.id in functions))]


def _names(source: str, name: str) -> bool:
    """`name` used in code (imported, called, referred to), not in a docstring or a comment."""
    return any((isinstance(node, ast.Name) and node.id == name) or (isinstance(node, ast.Attribute) and node.attr == name)
               or (isinstance(node, ast.alias) and name in (node.name, node.asname))
               for node in ast.walk(ast.parse(source)))


def _library_built(source: str) -> list[int]:
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and _name(node.func) == "Library"]


def project_sources() -> dict[str, str]:
    return {name: path.read_text(encoding="utf-8") for name, path in project_files().items()}


def front_end_files() -> list[Path]:
    return [path for name, path in project_files().items() if layer_of(name) in ("cli", "ui", "service")]


def length_breaches(lengths: dict[str, int]) -> list[str]:
    wrong = []
    for path, lines in sorted(lengths.items()):
        allowed = OVER_LENGTH.get(path, MODULE_LINES)
        if lines > allowed:
            wrong.append(f"{path}: {lines} lines, more than {allowed}")
        elif path in OVER_LENGTH and lines <= MODULE_LINES:
            wrong.append(f"{path}: {lines} lines now; take it off OVER_LENGTH")
    return wrong


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
    assert cycles(project_graph(type_only=False)) == []


def test_no_package_imports_itself_back_through_others():
    assert cycles(package_graph(project_graph(type_only=False))) == []


def test_imports_for_annotations_alone_make_no_cycle_but_keep_their_layer():
    modules = set(project_files())
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from desktop_rag.ui.main_window import MainWindow\n"
    assert imports_of(source, "desktop_rag.core.library.doctor", modules, type_only=False) == {"typing"}
    assert "desktop_rag.ui.main_window" in imports_of(source, "desktop_rag.core.library.doctor", modules)


def test_the_layers_import_one_way_and_only_the_window_imports_qt():
    assert layer_breaches(project_graph()) == []


def storage_names_imported(source: str) -> list[str]:
    """A storage class imported through another module (`from desktop_rag.core.library.library import Catalog`): the
    layers see core imported, but the front end holds storage's part."""
    classes = STORAGE_CLASSES()
    return [f"line {node.lineno}: {alias.name}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom) for alias in node.names if alias.name in classes]


def STORAGE_CLASSES() -> set[str]:  # noqa: N802 — a constant, read from the source when first asked
    """Storage's working classes (a row's dataclass, as a read gives it, is a value a front end may hold)."""
    names = set()
    for name, path in project_files().items():
        if layer_of(name) == "storage":
            names |= {node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
                      if isinstance(node, ast.ClassDef) and not any("dataclass" in ast.unparse(d)
                                                                     for d in node.decorator_list)}
    return names


def test_no_front_end_imports_a_storage_class_through_another_module():
    found = [f"{path.relative_to(PACKAGE)} {where}" for path in front_end_files()
             for where in storage_names_imported(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_front_ends_use_the_library_s_operations_and_reads_not_its_parts():
    reaching = [f"{path.relative_to(PACKAGE)} {where}" for path in front_end_files()
                for where in reaching_into_the_library(path.read_text(encoding="utf-8"))]
    assert reaching == []


def test_only_the_service_writes_a_library():
    assert writing_breaches(project_graph(), project_sources()) == []


def test_clients_cannot_write():
    assert client_breaches(project_graph(), project_sources()) == []


def test_no_module_is_over_its_length():
    lengths = {str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
               for path in project_files().values()}
    assert length_breaches(lengths) == []


# -- the checks catch what they are for -----------------------------------------------------------------------

def test_the_layer_check_catches_each_kind_of_breach():
    graph = project_graph()
    breaches = {"desktop_rag.storage.catalog": "PySide6.QtCore", "desktop_rag.cli.commands": "PySide6.QtWidgets",
                "desktop_rag.config": "desktop_rag.core.library.library", "desktop_rag.documents": "desktop_rag.ui.main_window",
                "desktop_rag.service.tools": "desktop_rag.storage.catalog", "desktop_rag.ui.app": "desktop_rag.cli.commands"}
    for module, imported in breaches.items():
        graph[module] = graph[module] | {imported}
    graph["desktop_rag.newcomer"] = set()
    found = layer_breaches(graph)
    assert len(found) == len(breaches) + 1
    for module, imported in breaches.items():
        assert any(line.startswith(f"{module} ") and imported in line for line in found), (module, found)
    assert "desktop_rag.newcomer belongs to no layer" in found


def test_relative_and_lazy_imports_are_seen():
    modules = set(project_files())
    source = "def later():\n    from ..ui import main_window\n    from . import vector_store\n"
    assert imports_of(source, "desktop_rag.storage.catalog", modules) == {"desktop_rag.ui.main_window",
                                                                           "desktop_rag.storage.vector_store"}
    assert imports_of("from .files import outlook_store\n", "desktop_rag.core", modules, is_package=True) == {
        "desktop_rag.core.files.outlook_store"}


def test_the_package_check_catches_a_cycle_between_packages():
    graph = project_graph()
    graph["desktop_rag.core.dense.embedding"] = graph["desktop_rag.core.dense.embedding"] | {
        "desktop_rag.core.search.searcher"}
    assert ["desktop_rag.core.dense", "desktop_rag.core.search"] in cycles(package_graph(graph))


def test_the_library_check_catches_a_part_used_by_a_front_end():
    source = "def show(self):\n    self.library.embedder.dimension\n    library.contextualizer('rules')\n"
    assert reaching_into_the_library(source) == ["line 2: library.embedder", "line 3: library.contextualizer"]
    assert reaching_into_the_library("self.library.search('q')\nself.library.stats()\nscores.keywords\n") == []
    # a catalog through an alias, or by name
    aliased = "def show(self):\n    lib = self.library\n    books = lib\n    books.catalog.count()\n"
    assert reaching_into_the_library(aliased) == ["line 4: books.catalog"]
    assert reaching_into_the_library("getattr(self.library, 'catalog')\n") == ["line 1: getattr(library, 'catalog')"]


def test_the_qt_check_sees_qt_loaded_by_name():
    graph = project_graph()
    modules = set(project_files())
    source = "import importlib\nwidgets = importlib.import_module('PySide6.QtWidgets')\ncore = __import__('shiboken6')\n"
    graph["desktop_rag.core.library.library"] = graph["desktop_rag.core.library.library"] | imports_of(
        source, "desktop_rag.core.library.library", modules)
    found = layer_breaches(graph)
    assert "desktop_rag.core.library.library imports PySide6.QtWidgets: only ui/ imports Qt" in found
    assert "desktop_rag.core.library.library imports shiboken6: only ui/ imports Qt" in found


def test_the_one_writer_check_catches_each_kind_of_breach():
    graph, sources = project_graph(), project_sources()
    graph["desktop_rag.ui.search_panel"] = graph["desktop_rag.ui.search_panel"] | {"desktop_rag.core.indexing.run"}
    graph["desktop_rag.cli.commands"] = graph["desktop_rag.cli.commands"] | {"desktop_rag.core.runs.lane"}
    sources["desktop_rag.ui.review_panel"] += "\ndef grab(self):\n    self.library.writer.claim()\n"
    sources["desktop_rag.ui.stats_panel"] += "\nfrom desktop_rag.core.runs.lane import WriteLane\n"
    sources["desktop_rag.ui.app"] += "\ndef mine(path):\n    return Library(path)\n"
    sources["desktop_rag.cli.writes"] += "\ndef fine(path, library):\n    library.writer.claim()\n    Library(path)\n"
    found = writing_breaches(graph, sources)
    expected = ["desktop_rag.ui.search_panel imports desktop_rag.core.indexing.run",
                "desktop_rag.cli.commands imports desktop_rag.core.runs.lane", "desktop_rag.ui.review_panel line",
                "desktop_rag.ui.stats_panel names WriteLane", "desktop_rag.ui.app line"]
    assert len(found) == len(expected), found
    for start in expected:
        assert any(line.startswith(start) for line in found), (start, found)


def test_the_check_sees_a_storage_class_reached_through_core():
    assert storage_names_imported("from desktop_rag.core.library.library import Catalog\n") == ["line 1: Catalog"]
    assert storage_names_imported("from desktop_rag.core.library.library import CATALOG_FILE, Library\n") == []


def test_the_length_check_catches_a_long_module_and_a_stale_allowance():
    assert length_breaches({"core/new.py": MODULE_LINES + 1}) == [f"core/new.py: {MODULE_LINES + 1} lines, more "
                                                                   f"than {MODULE_LINES}"]
    assert length_breaches({"ui/search_panel.py": 200}) == ["ui/search_panel.py: 200 lines now; take it off "
                                                           "OVER_LENGTH"]


def test_the_client_check_catches_each_kind_of_breach():
    """Issue 62's four breaches, each of which the checks above let through."""
    graph, sources, modules = project_graph(), project_sources(), set(project_files())
    planted = {
        "desktop_rag.ui.review_panel": "\nimport desktop_rag.core.library.reads as m\n"
                                       "def wipe(p):\n    m.Catalog(p).connection.execute('DELETE FROM chunks')\n",
        "desktop_rag.ui.stats_panel": "\nfrom desktop_rag.service import writer_process\n"
                                      "def own(data):\n    writer_process.serve(data)\n",
        "desktop_rag.core.library.doctor": "\nimport importlib\nwidgets = importlib.import_module('PySide6' + '.QtWidgets')\n",
        "desktop_rag.ui.folders_panel": "\nimport sqlite3 as db\ndef wipe(data):\n"
                                        "    db.connect(str(data / 'catalog.sqlite3')).execute('DELETE FROM folders')\n",
    }
    for module, source in planted.items():
        sources[module] += source
        graph[module] = graph[module] | imports_of(sources[module], module, modules)
    found = client_breaches(graph, sources) + writing_breaches(graph, sources) + layer_breaches(graph)
    expected = ["desktop_rag.ui.review_panel line", "desktop_rag.ui.stats_panel imports "
                "desktop_rag.service.writer_process", "desktop_rag.core.library.doctor line",
                "desktop_rag.ui.folders_panel line"]
    for start in expected:
        assert any(line.startswith(start) for line in found), (start, found)
    assert len(found) == len(expected), found

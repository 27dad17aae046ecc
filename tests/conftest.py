import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
# The CLI's writes start the background service when none runs (cli/writes.py); here they work in the command's own
# process, as a script's do, unless a test runs a service itself (or unsets this: test_cli_starts_the_service.py).
os.environ["DESKTOP_RAG_START_SERVICE"] = "0"
sys.path.insert(0, str(Path(__file__).parent))

from desktop_rag.config import Settings


@pytest.fixture(scope="session", autouse=True)
def models_cache(tmp_path_factory):
    """Packaged models are assembled once per test session, here, not into the user's own cache. The default
    embedding model is converted first (~10 s, in a child process), before any test: the unit tier counts its word
    pieces, and a unit test starts no process of its own (unit_tests_stay_in_their_tier)."""
    folder = tmp_path_factory.mktemp("models-cache")
    os.environ["DESKTOP_RAG_MODELS_DIR"] = str(folder)
    from desktop_rag.core.dense.multilingual_model import multilingual_model_path

    multilingual_model_path()
    return folder


@pytest.fixture(scope="session", autouse=True)
def user_config(tmp_path_factory):
    """The data folder the app remembers lives in the user's config folder: here, a temporary one."""
    folder = tmp_path_factory.mktemp("config")
    os.environ["XDG_CONFIG_HOME"] = str(folder)
    return folder


@pytest.fixture(autouse=True)
def no_background_service_left(tmp_path_factory):
    """A test that starts a background service (desktop-rag service: the window starts one as it closes) stops
    it: one left running would follow a test's folders for the rest of the suite. Found by its data folder, under
    this session's temporary folder; killed, and the test fails."""
    yield
    import psutil

    from service_processes import services_under

    left = []
    for process in services_under(tmp_path_factory.getbasetemp()):
        left.append(" ".join(process.info["cmdline"]))
        try:
            process.kill()
        except psutil.Error:
            pass
    assert not left, f"the test left a background service running: {left}"


@pytest.fixture(scope="module", autouse=True)
def models_let_go_after_each_module():
    """The end-to-end tier's process keeps what a module loaded only while the module runs: the embedding models
    shared between its libraries (one per precision and batch size; embedding.shared_embedder) are dropped after
    it, and the freed heap handed back to the system, so the suite leaves memory for the processes it starts."""
    yield
    embedding = sys.modules.get("desktop_rag.core.dense.embedding")
    if embedding is None:
        return
    import ctypes
    import gc

    with embedding._shared_lock:
        embedding._shared.clear()
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # glibc keeps freed pages otherwise
    except (OSError, AttributeError):
        pass


@pytest.fixture
def data_dir(tmp_path):
    return tmp_path / "data"


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


@pytest.fixture
def make_library(data_dir):
    opened = []

    from desktop_rag.core.library.library import Library  # not at import: the fast tier never loads the real parts

    def make(settings: Settings | None = None, folder: Path | None = None) -> Library:
        library = Library(folder or data_dir, settings)
        opened.append(library)
        return library

    yield make
    for library in opened:
        library.close()


@pytest.fixture
def library(make_library):
    return make_library()


# Tiers by folder. tests/unit/ (mirroring desktop_rag/) is the fast tier: one module's logic, no embedding model
# loaded, no Chroma, no window, no child process (`pytest tests/unit`, under 30 s on 2 cores); .ci/run runs it
# first, so a broken build fails in a minute. tests/end2end/ is the rest, with the real parts, marked slow so that
# `-m "not slow"` still means the fast tier. The rule holds by what a unit test does, not by its fixtures' names
# alone: one that asks for a fixture of the real parts, imports the vector store or a model's library, starts a
# process or makes a window is refused, and belongs in end2end/.
_REAL_PARTS_FIXTURES = {"library", "make_library", "rules_library", "watching", "qtbot", "window", "app_window",
                        "data_dir"}
_REAL_PARTS_MODULES = {"chromadb", "torch", "sentence_transformers", "transformers", "llama_cpp"}


def _is_unit(item) -> bool:
    return "unit" in item.path.relative_to(Path(__file__).parent).parts


def pytest_collection_modifyitems(items):
    for item in items:
        if "end2end" in item.path.parts:
            item.add_marker(pytest.mark.slow)
        elif used := _REAL_PARTS_FIXTURES & set(getattr(item, "fixturenames", ())):
            raise pytest.UsageError(f"{item.nodeid} uses {', '.join(sorted(used))}: a test of the real parts "
                                    "belongs in tests/end2end/")


def pytest_collection_finish(session):
    """Collected alone, the unit tier has imported none of the real parts (its modules' own imports included)."""
    unit_alone = session.items and all(_is_unit(item) for item in session.items)
    if unit_alone and (imported := _real_parts_imported()):
        raise pytest.UsageError(f"the unit tier imports {', '.join(imported)} while collecting: the test module "
                                "that does belongs in tests/end2end/")


def _real_parts_imported() -> list[str]:
    return sorted({name.split(".")[0] for name in sys.modules} & _REAL_PARTS_MODULES)


def _refused(what: str):
    def refuse(*args, **kwargs):
        raise AssertionError(f"a unit test {what}: it belongs in tests/end2end/")

    return refuse


@pytest.fixture(autouse=True)
def unit_tests_stay_in_their_tier(request, monkeypatch):
    if not _is_unit(request.node):
        yield
        return
    import multiprocessing.process
    import subprocess

    before = _real_parts_imported()
    monkeypatch.setattr(subprocess.Popen, "__init__", _refused("starts a process"))
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", _refused("starts a process"))
    if "PySide6.QtWidgets" in sys.modules:
        monkeypatch.setattr(sys.modules["PySide6.QtWidgets"].QApplication, "__init__", _refused("makes a window"))
    yield
    if new := sorted(set(_real_parts_imported()) - set(before)):
        pytest.fail(f"{request.node.nodeid} imports {', '.join(new)}: a test of the real parts belongs in "
                    "tests/end2end/")

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
sys.path.insert(0, str(Path(__file__).parent))

from desktop_rag.config import Settings  # noqa: E402
from desktop_rag.core.library import Library  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def models_cache(tmp_path_factory):
    """Packaged models are assembled once per test session, here, not into the user's own cache."""
    folder = tmp_path_factory.mktemp("models-cache")
    os.environ["DESKTOP_RAG_MODELS_DIR"] = str(folder)
    return folder


@pytest.fixture(scope="session", autouse=True)
def user_config(tmp_path_factory):
    """The data folder the app remembers lives in the user's config folder: here, a temporary one."""
    folder = tmp_path_factory.mktemp("config")
    os.environ["XDG_CONFIG_HOME"] = str(folder)
    return folder


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


# The fast tier (`pytest -m "not slow"`, under a minute): tests of one module's logic. Everything that loads a
# model, opens Chroma, drives the window or starts a process is slow, marked here by what it uses rather than by
# hand, so a new test of that kind cannot forget the mark.
_SLOW_FIXTURES = {"library", "make_library", "rules_library", "watching", "qtbot", "window", "app_window", "data_dir"}
_SLOW_MODULES = {"test_chroma_server", "test_child_process", "test_evaluation", "test_llm_contexts", "test_llm_models",
                 "test_mcp", "test_offline_bundle", "test_llm_process", "test_llm_server", "test_model_process", "test_reading_process",
                 "test_vector_process", "test_ui_rendering"}


def pytest_collection_modifyitems(items):
    for item in items:
        if _SLOW_FIXTURES & set(getattr(item, "fixturenames", ())) or item.module.__name__ in _SLOW_MODULES:
            item.add_marker(pytest.mark.slow)

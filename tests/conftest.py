import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
sys.path.insert(0, str(Path(__file__).parent))

from desktop_rag.config import Settings


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

    from desktop_rag.core.library import Library  # not at import: the fast tier never loads the real parts

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
# `-m "not slow"` still means the fast tier. A unit test asking for a fixture of the real parts is refused: it
# belongs in end2end/.
_REAL_PARTS_FIXTURES = {"library", "make_library", "rules_library", "watching", "qtbot", "window", "app_window",
                        "data_dir"}


def pytest_collection_modifyitems(items):
    for item in items:
        if "end2end" in item.path.parts:
            item.add_marker(pytest.mark.slow)
        elif used := _REAL_PARTS_FIXTURES & set(getattr(item, "fixturenames", ())):
            raise pytest.UsageError(f"{item.nodeid} uses {', '.join(sorted(used))}: a test of the real parts "
                                    "belongs in tests/end2end/")

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

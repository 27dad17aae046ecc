import pytest

from desktop_rag.config import Settings
from window_sessions import close_session, open_session, stop_the_service


@pytest.fixture(scope="session", autouse=True)
def embedding_graph_made(models_cache):
    """The default embedding model made ready before any end-to-end test, as the README's set-up makes it: made by
    the first service that embeds instead, its int8 graph's ~15 s (2 GB, in a process apart) fell inside that
    test's run — test_one_state.py, run alone, saw "Indexing 12%, about 20 s left" stand for 15 s and judged its
    estimate on a run half as long as in the full suite."""
    from desktop_rag.core.dense import prepare

    assert prepare.main([]) == 0


@pytest.fixture
def window(qtbot, data_dir):
    """Opens the window on the test's data folder as a person does: a client of the service it starts."""
    def open_window(settings: Settings | None = None):
        session = open_session(qtbot, data_dir, settings or Settings(contexts="rules", llm_upgrade_when_idle=False))
        sessions.append(session)
        return session.window

    sessions: list = []
    yield open_window
    for session in sessions:
        close_session(session)
    stop_the_service(data_dir)

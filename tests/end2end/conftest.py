import pytest


@pytest.fixture(scope="session", autouse=True)
def embedding_graph_made(models_cache):
    """The default embedding model made ready before any end-to-end test, as the README's set-up makes it: made by
    the first service that embeds instead, its int8 graph's ~15 s (2 GB, in a process apart) fell inside that
    test's run — test_one_state.py, run alone, saw "Indexing 12%, about 20 s left" stand for 15 s and judged its
    estimate on a run half as long as in the full suite."""
    from desktop_rag.core.dense import prepare

    assert prepare.main([]) == 0

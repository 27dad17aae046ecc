"""The tray's one line (ui/tray.py): what the service is doing, and how far."""

from desktop_rag.ui.tray import status_words


def test_the_line_says_what_and_how_far():
    assert status_words({"doing": "indexing", "share_done": 0.42, "role": "service"}) == \
        "Indexing 42% (in the background)"
    assert status_words({"doing": "writing LLM contexts", "share_done": None, "role": "service"}) == \
        "Writing LLM contexts (in the background)"
    assert status_words({"doing": "idle", "role": "service"}) == "Idle: the index is up to date (in the background)"
    assert status_words({"doing": "paused", "role": "service"}) == "Background work paused (in the background)"
    assert status_words(None, starting=True) == "Starting the background index…"
    assert status_words(None) == "Not running"

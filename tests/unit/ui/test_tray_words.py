"""The tray's one line (ui/tray.py): the service's own words for its state (service/activity.py)."""

from desktop_rag.service.activity import Activity
from desktop_rag.ui.tray import status_words


def test_the_line_is_the_service_s_words_in_the_background():
    assert status_words(Activity("indexing", 0.42).as_dict()) == "Indexing 42% (in the background)"
    assert status_words(Activity("idle").as_dict()) == "Idle: the index is up to date (in the background)"
    assert status_words(None, starting=True) == "Starting the background index…"
    assert status_words(None) == "Not running"

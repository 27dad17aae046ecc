"""The window as a person opens it, for the window's end-to-end tests: a client of its data folder's service (issue
49), which it starts as a real process when none runs; closed with the service stopped and its process gone, so
the next test (or the test's own checks on the catalog) finds the data folder free."""

from __future__ import annotations

from pathlib import Path

WAIT_MS = 180_000


def open_session(qtbot, data_dir: Path, settings=None, on_window=None):
    """An AppSession on `data_dir` (its settings saved first when given), its window shown and answered by the
    service. `on_window(window)`: called before the window is shown (a test following its signals from the start)."""
    from desktop_rag.ui.app import AppSession

    if settings is not None:
        settings.save(data_dir)
    session = AppSession(data_dir)
    if on_window is not None:
        on_window(session.window)
    qtbot.addWidget(session.window)
    with qtbot.waitActive(session.window):
        session.window.show()
    qtbot.waitUntil(lambda: session.window._started, timeout=WAIT_MS)
    return session


def close_session(session) -> None:
    session.window.close()
    session.close()


def stop_the_service(data_dir: Path) -> None:
    """`desktop-rag stop` as the person would, then until every service process of the data folder is gone: found
    by its command line, not by its hello, since a service already stopping (the window asked it as it closed) no
    longer introduces itself (background_process.who_answers) yet may still be ending (CI: one left running)."""
    import psutil

    from desktop_rag.service.background_process import stop_answering
    from service_processes import services_under

    stop_answering(data_dir, wait_s=30)
    for process in services_under(data_dir):
        try:
            process.wait(timeout=30)
        except psutil.NoSuchProcess:
            pass

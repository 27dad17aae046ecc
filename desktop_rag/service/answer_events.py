"""A question's steps followed as the service answers it (issue 63), for a client that is not the window (whose
ServiceLink follows every event already): a thread on its own endpoint connection long-polls the event stream
from where it stands when the question is asked, and hands each "answer" event of the question's id to
`on_step` (on that thread). The CLI prints them; the quick popup passes them to its own thread. The answer itself
comes back to the asking call, whole: a step missed here is never an answer lost."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_rag.service import wire
from desktop_rag.service.endpoint import EndpointClient, EndpointGone
from desktop_rag.errors import UserError

EVENTS_WAIT_S = 0.5  # the long poll's wait: the follower notices it is stopped within it
STARTED_WAIT_S = 5.0  # where the stream stands, known before the question is asked


class AnswerSteps:
    def __init__(self, endpoint: EndpointClient, ask_id: str, on_step: Callable[[dict[str, Any]], None]):
        self._endpoint, self.ask_id, self._on_step = endpoint, ask_id, on_step
        self._stopping = threading.Event()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="desktop-rag answer steps", daemon=True)
        self._thread.start()
        self._started.wait(STARTED_WAIT_S)

    @classmethod
    def of_service(cls, data_dir: Path, ask_id: str,
                   on_step: Callable[[dict[str, Any]], None]) -> AnswerSteps | None:
        """Following the data folder's service; None when none answers (the question is then answered in the
        asker's own process, and only its end is told)."""
        endpoint = EndpointClient.for_library(data_dir)
        return cls(endpoint, ask_id, on_step) if endpoint is not None else None

    def _follow(self) -> None:
        try:
            stand = self._endpoint.run(wire.Events())
            after, instance = stand["last"], stand["instance"]
            self._started.set()
            while not self._stopping.is_set():
                answer = self._endpoint.run(wire.Events(after=after, instance=instance, wait_s=EVENTS_WAIT_S))
                after = answer["last"]
                for event in answer["events"]:
                    if event["kind"] == "answer" and event.get("ask_id") == self.ask_id:
                        self._on_step(event)
        except (EndpointGone, OSError, UserError):
            pass  # the answer itself still comes back to the asking call
        finally:
            self._started.set()
            self._endpoint.close()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(EVENTS_WAIT_S + 2)

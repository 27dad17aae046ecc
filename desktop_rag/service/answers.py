"""What each operation of the wire (service/wire.py) answers, as types a client reads and mypy checks: the JSON the
service sends for a request has the fields its answer type names. `Answer` is an answer without a type of its own
yet (a JSON object); each that gets one narrows its clients. (No `from __future__ import annotations` here: a
TypedDict sees NotRequired only in annotations evaluated as the class is made, and the tests read which keys are.)"""

from typing import Any, NotRequired, TypedDict

Answer = dict[str, Any]  # an answer without a type of its own yet


class Served(TypedDict):
    served_by: str


class SearchAnswer(TypedDict):
    query: str
    mode: str
    reranked: bool
    weak: bool
    notices: list[str]
    filters: dict[str, Any]  # SearchFilters.to_dict
    nothing_left: bool
    facets: dict[str, int] | None
    meaning_covers: tuple[int, int] | list[int] | None
    match: dict[str, list[str]] | None  # the query's words as the search parsed them (QueryMatch.to_dict)
    results: list[dict[str, Any]]  # Hit.to_dict each
    served_by: str


class RunStarted(TypedDict):
    run_id: str
    paths: list[str]
    state: str | None
    served_by: str


class ChangesAnswer(TypedDict):
    changes: dict[str, Any]  # Changes.to_dict
    served_by: str


class SettingsChanged(ChangesAnswer):
    settings: dict[str, Any]  # every setting as the service now has it


class Hello(TypedDict):
    served_by: str
    pid: int
    role: str
    stopping: bool


class StatusAnswer(TypedDict):
    """What the process answering is doing (service/activity.py's Activity, as every front end shows it)."""
    doing: str
    share_done: float | None
    seconds_left: float | None
    run_id: str | None
    run_paused: bool
    held: bool
    llm_paused: bool
    paused: bool
    words: str
    role: str
    served_by: str
    version: str
    upgrade_reason: NotRequired[str]  # where a write lane is: why the LLM upgrade runs or waits
    upgrade_may_run: NotRequired[bool]
    asked_now: NotRequired[bool]
    watching: NotRequired[int]


class RunProgress(TypedDict):
    """A run's state (service/runs.py's RunState)."""
    run_id: str
    paths: list[str]
    contexts: str
    state: str  # queued, running, finished, cancelled, failed
    kind: str
    queued_at: float
    started_at: float | None
    finished_at: float | None
    phases: dict[str, dict[str, Any]]
    share_done: float | None
    seconds_left: float | None
    left_told_at: float | None
    current: str | None
    errors: list[dict[str, str]]
    paused: bool
    held: bool
    summary: str | None
    notices: list[str]
    indexed: int | None
    error: str | None
    result: dict[str, Any] | None
    served_by: NotRequired[str]


class Opened(TypedDict):
    path: str | None
    served_by: str

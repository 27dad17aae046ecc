"""What each operation of the wire (service/wire.py) answers, as types a client reads and mypy checks: the JSON the
service sends for a request has the fields its answer type names (tests/end2end/test_answers_sent.py sends every
request to a real service's door and compares). Nested records a person reads whole (a stats section, a run's
phases) stay JSON objects. (No `from __future__ import annotations` here: a TypedDict sees NotRequired only in
annotations evaluated as the class is made, and the tests read which keys are.)"""

from typing import Any, NotRequired, TypedDict


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
    meaning_pending: bool  # by words alone for now: the meaning index is opening (core/search/meaning_wait.py)
    match: dict[str, list[str]] | None  # the query's words as the search parsed them (QueryMatch.to_dict)
    filter_words: list[list[str]]  # the query's own filter words as the search parsed them: [key, value] each
    results: list[dict[str, Any]]  # Hit.to_dict each
    served_by: str


class RunStarted(TypedDict):
    """An indexing run queued (`index`, `reindex`): its id, the paths it reads, their contexts."""
    run_id: str
    paths: list[str]
    contexts: str
    state: str | None
    served_by: str


class RunQueued(TypedDict):
    """A run that indexes no files queued (`rebuild`, `repair`, `contextualize`): its id and kind."""
    run_id: str
    kind: str
    state: str
    served_by: str
    paused: NotRequired[bool]  # a `contextualize` held while the background LLM work is paused


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


class AnswerFound(TypedDict):
    """What a question's evidence step finds: told at once on the event stream ("answer", state "evidence"), and
    again in the whole answer (AskAnswer)."""
    not_said: bool  # the files don't seem to say (then `said` says so in a person's words)
    said: str
    evidence: list[dict[str, Any]]  # EvidenceSentence: passage, chunk_id, path, title, start, end, text, score
    hits: list[dict[str, Any]]  # Hit.to_dict each
    match: dict[str, list[str]] | None  # the question's words as the search parsed them (QueryMatch.to_dict)


class AskAnswer(AnswerFound):
    """`ask`: a question answered from the files (core/answering/asking.py): the evidence sentences, the model's
    sentences each checked against the passages it cites, and the passages found (numbered from 1)."""
    ask_id: str
    question: str
    cancelled: bool
    sentences: list[dict[str, Any]]  # text, cites, supported, missing, reason, match (its words held there),
    # written (the markers the model wrote, where the check cited another passage that holds the sentence)
    without_model: str  # why the evidence alone answers ("" when the model wrote)
    seconds: dict[str, float]  # evidence, first_words, whole
    served_by: str


class ContextMade(TypedDict):
    """`generate_context`: the context the contextualizer wrote, stored only when asked."""
    chunk_id: int | None
    context: str
    source: str
    model: str | None
    quality: float | None
    quality_detail: dict[str, Any] | None
    seconds: float
    stored: bool
    questions: list[str]


class StoredContext(TypedDict):
    """`context`: a passage's context as the catalog has it."""
    chunk_id: int
    text: str
    source: str
    model: str | None
    prompt_version: str | None
    quality: float | None
    generated_text: str | None
    generated_source: str | None
    questions: str | None
    served_by: str


class Regenerated(ChangesAnswer):
    """`regenerate_context`: what the new context changed, and the context (nothing when it was cancelled)."""
    cancelled: bool
    context: NotRequired[str]
    source: NotRequired[str]
    quality: NotRequired[float | None]


class Cancelled(TypedDict):
    cancelled: list[Any]  # the chunks' ids (cancel_regenerate) or the runs' (cancel_run)
    served_by: str


class RunsPaused(TypedDict):
    """`pause_run`: the runs paused, or resumed, by their ids."""
    paused: NotRequired[list[str]]
    resumed: NotRequired[list[str]]
    served_by: str


class Stopping(TypedDict):
    stopping: bool
    served_by: str


class Checkup(TypedDict):
    """`doctor`: what disagrees between the catalog and the indexes (core/library/doctor.py)."""
    found: list[str]
    waiting: list[str]
    damage_advice: str | None
    holds: str | None  # who holds the store, where someone does (core/library/doctor.py Checkup.holdings)
    served_by: str


class PassagePlace(TypedDict):
    chunk_id: int
    index: int
    page: int | None
    start_char: int
    end_char: int


class DocumentAnswer(TypedDict):
    """`document`: an indexed document's text and where each of its passages lies."""
    document_id: int
    path: str
    title: str | None
    text: str
    chunks: list[PassagePlace]


class PassageAnswer(TypedDict):
    """`chunk`: a passage in its document, its context, and the text around it."""
    chunk_id: int
    document_id: int
    path: str
    page: int | None
    chunk_index: int
    start_char: int
    end_char: int
    context: str
    context_source: str
    text: str
    before: str
    after: str
    ocr_confidence: float | None
    metadata: dict[str, Any] | None


class LibraryStats(TypedDict):
    """`stats`: what the library holds (storage/catalog.py's stats, with the indexes' and the model's)."""
    documents: dict[str, int]
    chunks: int
    chunks_pending_embedding: int
    contexts_by_source: dict[str, int]
    contexts_awaiting_upgrade: int
    context_avg_words: float
    context_avg_quality: float | None
    llm_tokens: dict[str, int]
    context_seconds: float
    context_models: list[str]
    ocr: dict[str, Any]
    folders: list[str]
    upgrade_order: dict[str, Any]
    upgrade_first_folders: list[str]
    data_dir: str
    dense_index_vectors: int
    keyword_index_chunks: int
    index_bytes: dict[str, int]
    failures: list[dict[str, str]]
    model: str | None
    served_by: str


class EventsAnswer(TypedDict):
    """`events`: what was done since the event a client saw (service/events.py), and the status now."""
    events: list[dict[str, Any]]
    last: int
    instance: str
    missed: bool
    runs: NotRequired[list[RunProgress]]  # a client (re)joining: the runs in hand
    status: StatusAnswer
    served_by: str

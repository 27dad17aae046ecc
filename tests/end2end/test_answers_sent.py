"""Every request of the wire sent to a real service's door (a LibraryHost over a real indexed library), each answer
compared with the type service/answers.py declares for it: a field the service sends that its type does not name,
or one the type promises that the service leaves out, fails here before a client reads it wrong (mypy checks the
clients against the types; this checks the types against what is sent)."""

from __future__ import annotations

import time
import typing
from typing import Any, is_typeddict

from desktop_rag.config import Settings
from desktop_rag.core.search.filters import SearchFilters
from desktop_rag.service import wire
from desktop_rag.service.host import LibraryHost
from desktop_rag.service.wire import REQUESTS, arguments_of


def misfits(value: Any, declared: Any, where: str) -> list[str]:
    """What in `value` its declared type does not say (nested records and lists of them included)."""
    if is_typeddict(declared):
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        required, optional = declared.__required_keys__, declared.__optional_keys__
        found = [f"{where}: {key!r} missing" for key in sorted(required - set(value))]
        found += [f"{where}: {key!r} sent, not declared" for key in sorted(set(value) - required - optional)]
        hints = typing.get_type_hints(declared)
        for key in set(value) & set(hints):
            found += misfits(value[key], _inner(hints[key]), f"{where}.{key}")
        return found
    if typing.get_origin(declared) is list and value is not None:
        item = typing.get_args(declared)[0]
        return [problem for i, element in enumerate(value) for problem in misfits(element, item, f"{where}[{i}]")]
    return []


def _inner(hint: Any) -> Any:
    """NotRequired[X] → X; X | None → X."""
    while typing.get_origin(hint) is typing.NotRequired:
        hint = typing.get_args(hint)[0]
    others = [a for a in typing.get_args(hint) if a is not type(None)] if typing.get_origin(hint) is not list else []
    return others[0] if len(others) == 1 else hint


def answer_type(request: type[wire.Request[Any]]) -> Any:
    return typing.get_args(request.__orig_bases__[0])[0]  # type: ignore[attr-defined]


def test_every_request_is_answered_with_the_fields_its_type_declares(make_library, docs, tmp_path):
    (docs / "kayak.md").write_text("# Kayak\n\nThe sea kayak's rudder cable snapped near the skerries.\n\n"
                                   "## Repairs\n\nA new cable, spliced at the stern, and the rudder turns again.\n")
    library = make_library(Settings(contexts="rules", llm_model=str(tmp_path / "no-model.gguf")))
    library.index([docs])
    stopped: list[bool] = []
    host = LibraryHost(library, "a test", on_stop=lambda: stopped.append(True), role="test")
    try:
        def send(request: wire.Request[Any]) -> Any:
            return host.handle(request.method, arguments_of(request))

        chunk_id = send(wire.Search(query="rudder cable"))["results"][0]["chunk_id"]
        document_id = send(wire.ChunkOf(chunk_id=chunk_id))["document_id"]
        folder = str(docs.resolve())
        run_id = send(wire.Reindex(paths=[folder], contexts="rules"))["run_id"]
        sent: list[wire.Request[Any]] = [
            wire.Search(query="rudder type:text", filters=SearchFilters(folders=(folder,)), facets=True),
            wire.Search(similar_to=chunk_id), wire.GenerateContext(chunk_id=chunk_id),
            wire.Reindex(paths=[folder], contexts="rules"), wire.Index(paths=[folder]),
            wire.ProgressOf(run_id=run_id), wire.Stats(), wire.DocumentOf(doc_id=document_id),
            wire.ChunkOf(chunk_id=chunk_id), wire.Status(), wire.PauseBackground(paused=True),
            wire.PauseBackground(paused=False), wire.PrepareSearch(), wire.OpenHit(chunk_id=chunk_id, path=folder),
            wire.SayHello(), wire.Events(), wire.Events(after=0, instance="another"),
            wire.ChangeSettings(values={"llm_upgrade_when_idle": False}), wire.UpgradeFirst(folder=folder),
            wire.SetContext(chunk_id=chunk_id, text="About the kayak's rudder."),
            wire.ApproveContext(chunk_id=chunk_id), wire.RevertContext(chunk_id=chunk_id),
            wire.RegenerateContext(chunk_id=chunk_id), wire.CancelRegenerate(), wire.ContextOf(chunk_id=chunk_id),
            wire.Rebuild(), wire.Doctor(), wire.Repair(), wire.Contextualize(limit=1), wire.CancelRun(run_id="none"),
            wire.PauseRun(paused=True), wire.PauseRun(paused=False), wire.UpgradeNow(), wire.NoteInput(),
            wire.Ask(question="What snapped near the skerries?"), wire.Ask(question="zzz qqq xyzzy"),
            wire.CancelAsk(), wire.RemoveFolder(folder=folder), wire.Stop()]
        assert {type(request) for request in sent} == set(REQUESTS)  # every one of them
        problems = []
        for request in sent:
            problems += misfits(send(request), answer_type(request), type(request).__name__)
            if isinstance(request, (wire.Rebuild, wire.Repair, wire.Contextualize, wire.Reindex, wire.Index)):
                _ended(send)  # one run at a time: the next request meets a library at rest
        assert problems == []
        assert stopped == [True]
    finally:
        host.stop()


def _ended(send) -> None:
    deadline = time.monotonic() + 120
    while any(state["state"] in ("queued", "running") for state in send(wire.Events()).get("runs", [])):
        assert time.monotonic() < deadline, "a run did not end in 2 minutes"
        time.sleep(0.2)

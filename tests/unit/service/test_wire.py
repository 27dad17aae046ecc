"""The wire's declarations (service/wire.py): the door's checks are made from them, and mypy checks a client's
request and its reading of the answer, end to end."""

from __future__ import annotations

from pathlib import Path

from mypy import api

from desktop_rag.service import wire
from desktop_rag.service.operations import REQUIRED

ROOT = Path(wire.__file__).resolve().parents[2]

CLIENT = '''
from desktop_rag.service.endpoint import EndpointClient
from desktop_rag.service.wire import Index, Search


def client(endpoint: EndpointClient) -> str:
    answer = endpoint.run(Search(query="pump", limit={limit}))
    started = endpoint.run(Index(paths=["/home/ann/notes"]))
    return answer["{field}"] + started["run_id"]
'''


def _mypy(source: str, tmp_path: Path) -> str:
    planted = tmp_path / "planted_client.py"
    planted.write_text(source, encoding="utf-8")
    out, err, _status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-error-summary",
                                 "--cache-dir", str(ROOT / ".mypy_cache"), str(planted)])
    return out + err


def test_mypy_catches_a_wrong_argument_type_and_an_answer_field_that_does_not_exist(tmp_path):
    assert _mypy(CLIENT.format(limit=10, field="query"), tmp_path) == ""  # the right client passes
    found = _mypy(CLIENT.format(limit='"ten"', field="hitz"), tmp_path)
    assert 'Argument "limit" to "Search" has incompatible type "str"; expected "int"' in found, found
    assert '"SearchAnswer" has no key "hitz"' in found, found


def test_a_request_declares_its_arguments_for_the_door_and_for_agents():
    index = wire.OPERATIONS["index"]
    assert [(a.name, a.kind, a.default, a.nullable) for a in index.arguments] == [
        ("paths", "strings", REQUIRED, False), ("contexts", "string", None, True)]
    schema = wire.OPERATIONS["search"].json_schema()
    assert "filters" not in schema["properties"] and schema["properties"]["query"]["maxLength"] == 2_000
    request = wire.Search(query="pump", limit=3)
    assert wire.arguments_of(request)["limit"] == 3 and request.method == "search"
    assert set(wire.REQUEST_BY_METHOD) == set(wire.OPERATIONS)

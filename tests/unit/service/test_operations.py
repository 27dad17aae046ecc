"""The declaration of the tool layer's operations (service/operations.py): what each argument takes, the error a
wrong one gets, and that the tools, the endpoint's door and the MCP schemas all follow it."""

from __future__ import annotations


import pytest

from desktop_rag.errors import BadInput
from desktop_rag.service.operations import LARGEST_ID, MAX_LIMIT
from desktop_rag.service.wire import OPERATIONS
from desktop_rag.service.door import WRITES
from desktop_rag.service.ask_tools import AskTools
from desktop_rag.service.tools import LibraryTools
from desktop_rag.service.write_tools import WriteTools


WRONG = [
    ("search", {"limit": "5"}, "limit must be a whole number, not '5'"),
    ("search", {"limit": 2.5}, "limit must be a whole number, not 2.5"),
    ("search", {"limit": True}, "limit must be a whole number, not True"),
    ("search", {"limit": 0}, f"limit must be between 1 and {MAX_LIMIT}, not 0"),
    ("search", {"query": ["a"]}, "query must be text"),
    ("search", {"query": "word " * 500}, "query has 2,500 characters; at most 2,000"),
    ("search", {"query": "a\x00b"}, "NUL character"),
    ("search", {"query": "\ud800"}, "lone surrogate"),
    ("search", {"mode": "psychic"}, "unknown mode 'psychic'; pick one of hybrid, dense, bm25"),
    ("search", {"score_threshold": float("nan")}, "score_threshold must be a number"),
    ("search", {"score_threshold": 2}, "score_threshold must be between 0 and 1, not 2"),
    ("search", {"folders": "/home"}, "folders must be a list of strings"),
    ("search", {"types": ["pdf", 3]}, "types[1] must be text, not 3"),
    ("search", {"similar_to": 2**64}, f"similar_to must be between 1 and {LARGEST_ID}"),
    ("search", {"lmit": 3}, "search has no argument 'lmit' (it takes query, limit,"),
    ("generate_context", {"chunk_id": [1]}, "chunk_id must be a whole number, not [1]"),
    ("generate_context", {"chunk_id": -1}, "chunk_id must be between 1 and"),
    ("generate_context", {"store": "yes"}, "store must be true or false, not 'yes'"),
    ("generate_context", {"max_words": 1000}, "max_words must be between 5 and 200, not 1000"),
    ("reindex", {"paths": ["x" * 5000]}, "paths[0] has 5,000 characters; at most 4,096"),
    ("reindex", {"contexts": "magic"}, "unknown contexts 'magic'; pick one of auto, llm, rules, none"),
    ("progress", {"run_id": 7}, "run_id must be text, not 7"),
    ("stats", {"verbose": True}, "stats has no argument 'verbose' (it takes no arguments)"),
    ("document", {}, "document needs doc_id"),
    ("chunk", {"chunk_id": None}, "chunk_id must be a whole number, not None"),
]


@pytest.mark.parametrize(("name", "params", "message"), WRONG)
def test_a_wrong_argument_is_a_bad_input_saying_what_it_should_be(name, params, message):
    with pytest.raises(BadInput) as refused:
        OPERATIONS[name].check(params)
    assert message in str(refused.value)


def test_good_arguments_pass_as_given_and_a_front_end_may_allow_more_hits():
    search = OPERATIONS["search"]
    assert search.check({"query": "héron 物流", "limit": 7, "score_threshold": 1, "rerank": None}) == {
        "query": "héron 物流", "limit": 7, "score_threshold": 1, "rerank": None}
    with pytest.raises(BadInput, match="between 1 and 100, not 150"):
        search.check({"limit": 150})
    assert search.check({"limit": 150}, maximums={"limit": 500}) == {"limit": 150}


def test_the_json_schemas_say_what_is_checked():
    schema = OPERATIONS["search"].json_schema()
    assert schema["additionalProperties"] is False and schema["required"] == []
    assert schema["properties"]["limit"] == {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10}
    assert schema["properties"]["mode"]["enum"] == ["hybrid", "dense", "bm25"]
    assert schema["properties"]["rerank"] == {"anyOf": [{"type": "boolean"}, {"type": "null"}], "default": None}
    assert OPERATIONS["chunk"].json_schema()["required"] == ["chunk_id"]


def test_every_tool_a_front_end_can_call_is_declared():
    def public(part: type) -> set[str]:
        return {n for n in dir(part) if not n.startswith("_") and callable(getattr(part, n))}

    # WriteTools' parts other operations use (generate_context, pause), and the service's own repair
    helpers = {"regenerated", "pause_llm_work", "repair_because"}
    assert public(LibraryTools) | WRITES | public(AskTools) == set(OPERATIONS)
    assert public(WriteTools) - helpers == WRITES

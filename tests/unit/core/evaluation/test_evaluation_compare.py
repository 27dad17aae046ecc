import io
import json

import pytest

from desktop_rag.core.evaluation.evaluation_compare import load_reports, moved_questions, print_comparison
from desktop_rag.errors import BadInput


def _report(mode: str, r1: float, r5: float, ranks: dict[str, int | None]) -> dict:
    return {"config": {"contexts": "rules", "mode": mode, "rerank": False}, "recall": {"1": r1, "5": r5},
            "mrr": 0.5, "first_relevant_rank": ranks}


def test_a_question_moves_when_it_crosses_a_cut_off_and_losses_come_first():
    before = _report("hybrid", 0.5, 0.75, {"q1": 1, "q2": 3, "q3": 7, "q4": None, "q5": 2})
    after = _report("hybrid", 0.5, 0.75, {"q1": 4, "q2": 1, "q3": 9, "q4": 5, "q5": None})
    moved = moved_questions(before, after, [1, 5], {"q5": "where is it?"})
    assert [(m.query_id, m.lost) for m in moved] == [("q5", True), ("q1", True), ("q4", False), ("q2", False)]
    assert moved[0].text == "where is it?"  # q3 moved from 7 to 9: beyond both cut-offs, not a move


def test_two_runs_are_printed_side_by_side_with_what_moved():
    before = [_report("hybrid", 0.5, 0.75, {"q1": 1, "q2": 6}), _report("bm25", 0.5, 0.5, {"q1": 1, "q2": 9})]
    after = [_report("hybrid", 0.25, 1.0, {"q1": 2, "q2": 3})]
    out = io.StringIO()
    print_comparison(before, after, [1, 5], out, {"q1": "first question", "q2": "second"})
    text = out.getvalue()
    rows = [line.split() for line in text.splitlines()]
    assert ["rules,", "hybrid", "R@1", "50.00", "25.00", "-25.00"] in rows
    assert ["rules,", "hybrid", "R@5", "75.00", "100.00", "+25.00"] in rows
    assert "bm25" not in text  # the new run has no bm25 row
    assert "1 questions fell past a cut-off, 1 rose" in text
    assert "- q1" in text and "first question" in text and "+ q2" in text


def test_a_file_that_is_no_evaluation_run_is_said_so(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text(json.dumps({"hits": []}))
    for name in ("bad.json", "other.json"):
        with pytest.raises(BadInput, match="is not a saved evaluation run"):
            load_reports(tmp_path / name)
    (tmp_path / "one.json").write_text(json.dumps(_report("dense", 0.1, 0.2, {})))
    assert [r["config"]["mode"] for r in load_reports(tmp_path / "one.json")] == ["dense"]

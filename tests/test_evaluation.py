from desktop_rag.core.evaluation import Dataset, every_nth_document


def test_every_nth_document_keeps_only_queries_answered_inside_the_subset():
    documents = [{"_id": f"d{i}", "title": f"t{i}", "text": f"text {i}"} for i in range(6)]
    chunks = [{"_id": f"d{i}:0", "doc_id": f"d{i}", "index": 0, "text": f"text {i}"} for i in range(6)]
    qrels = {"q0": {"d0:0"}, "q1": {"d3:0"}, "q2": {"d0:0", "d1:0"}, "q3": {"d1:0"}}
    queries = [{"_id": q, "text": q} for q in qrels]
    subset = every_nth_document(Dataset("set", documents, chunks, queries, qrels), 3)
    assert [d["_id"] for d in subset.documents] == ["d0", "d3"]
    assert [c["_id"] for c in subset.chunks] == ["d0:0", "d3:0"]
    assert [q["_id"] for q in subset.queries] == ["q0", "q1"]  # q2 needs d1 too, q3 only d1
    assert set(subset.qrels) == {"q0", "q1"} and subset.name == "set (1 document in 3)"
    assert every_nth_document(subset, 1) is subset


def test_questions_are_filed_by_the_quality_of_their_relevant_contexts_and_counted_helped_or_hurt():
    from desktop_rag.core.eval_quality import quality_vs_retrieval

    qrels = {"q1": {"a"}, "q2": {"b"}, "q3": {"c"}, "q4": {"d", "e"}}
    qualities = {"a": ("llm", 0.9), "b": ("llm", 0.5), "c": ("rules", None), "d": ("llm", 0.7), "e": ("llm", 0.8)}
    plain = {"q1": 5, "q2": 1, "q3": None, "q4": 3}
    with_llm = {"q1": 1, "q2": 4, "q3": 2, "q4": 3}
    rows = {r["band"]: r for r in quality_vs_retrieval(plain, with_llm, qrels, qualities, depth=20)}
    assert rows["≥ 0.75"] == {"band": "≥ 0.75", "questions": 2, "helped": 1, "hurt": 0, "same": 1}  # q1; q4 (0.75)
    assert rows["< 0.60"]["hurt"] == 1 and rows["< 0.60"]["questions"] == 1
    assert rows["rules fallback"]["helped"] == 1  # not found before (rank 21), found at 2 after
    assert "0.60–0.75" not in rows

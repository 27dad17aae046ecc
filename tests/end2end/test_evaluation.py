from desktop_rag.core.evaluation.evaluation import Dataset, every_nth_document


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


def test_relevant_chunks_are_filed_by_their_context_quality_in_equal_bands_and_counted_helped_or_hurt():
    from desktop_rag.core.contexts.eval_quality import quality_vs_retrieval

    qualities = {"a": ("llm", 0.5), "b": ("llm", 0.6), "c": ("llm", 0.7), "d": ("llm", 0.8), "e": ("llm", 0.9),
                 "f": ("llm", 0.95), "g": ("rules", None)}
    plain = {"q1": {"a": 4, "b": 2}, "q2": {"c": 3, "d": None}, "q3": {"e": 8, "f": 2, "g": None}}
    with_llm = {"q1": {"a": 8, "b": 2}, "q2": {"c": 3, "d": 50}, "q3": {"e": 1, "f": 1, "g": 5}}
    rows = {r["band"]: r for r in quality_vs_retrieval(plain, with_llm, qualities, depth=100)}
    assert list(rows) == ["0.50–0.60", "0.70–0.80", "0.90–0.95", "rules fallback"]
    assert (rows["0.50–0.60"]["hurt"], rows["0.50–0.60"]["same"]) == (1, 1)  # a fell from 4 to 8
    assert rows["0.70–0.80"]["helped"] == 1 and rows["0.70–0.80"]["mean_gain"] > 0  # d: not found (101) → 50
    assert (rows["0.90–0.95"]["helped"], rows["0.90–0.95"]["mean_gain"]) == (2, 2.0)  # log2 8 and log2 2, halved
    assert rows["rules fallback"] == {"band": "rules fallback", "pairs": 1, "helped": 1, "hurt": 0, "same": 0,
                                      "mean_gain": 4.336}  # log2(101 / 5): not found before, 5th after

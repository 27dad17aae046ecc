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

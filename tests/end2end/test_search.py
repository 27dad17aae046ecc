from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.core.dense.tokens import default_embedding_model_path

NOTES = {
    "heron.md": "# Herons\n\nThe grey heron hunts fish standing still in shallow water.",
    "otter.md": "# Otters\n\nOtters eat fish and crabs and hold hands while they sleep.",
    "router.md": "# Router setup\n\nSet the WiFi channel to 11 and update the router firmware.",
    "taxes.md": "# Taxes\n\nThe annual tax return is due on the first of May.",
}


@pytest.fixture
def notes(docs):
    for name, text in NOTES.items():
        (docs / name).write_text(text)
    return docs


def names(result):
    return [Path(h.path).name for h in result.hits]


def test_modes_return_their_own_scores(library, notes):
    library.index([notes], contexts="rules")
    dense = library.search("a bird standing in water to catch fish", k=2, mode="dense")
    assert names(dense)[0] == "heron.md"
    assert all(h.scores.bm25 is None and h.scores.fused is None for h in dense.hits)
    keyword = library.search("firmware", k=5, mode="bm25")
    assert names(keyword) == ["router.md"]  # only chunks containing a query word
    hybrid = library.search("WiFi firmware update", k=4)
    assert names(hybrid)[0] == "router.md"
    fused = [h.scores.fused for h in hybrid.hits]
    assert fused == sorted(fused, reverse=True)


def test_each_hit_says_where_the_query_words_are_and_agents_get_them_too(library, notes):
    library.index([notes], contexts="rules")
    result = library.search("routers firmware* type:md", k=1, mode="bm25")
    hit = result.hits[0]
    assert Path(hit.path).name == "router.md"
    words = [hit.text[start:end] for start, end in hit.matches["text"]]
    assert words == ["Router", "router", "firmware"]  # stemmed and prefixed as the keyword index matched them
    assert [hit.context[a:b] for a, b in hit.matches["context"]][:1] == ["Router"]  # the rules context's title
    assert result.match is not None and result.match.spans("the router") == [(4, 10)]
    from desktop_rag.core.search.searcher import Hit

    assert Hit.from_dict(hit.to_dict()) == hit  # through the endpoint, as the CLI and agents get it


def test_k_limits_results_and_empty_query_gives_none(library, notes):
    library.index([notes], contexts="rules")
    assert len(library.search("fish", k=1).hits) == 1
    assert library.search("   ").hits == []
    with pytest.raises(ValueError, match="unknown search mode"):
        library.search("fish", mode="psychic")


def test_rerank_without_a_model_says_so_plainly(library, notes):
    library.index([notes], contexts="rules")
    result = library.search("fish", k=2, rerank=True)
    assert not result.reranked
    assert any("no reranker model is configured" in n for n in result.notices)
    assert len(result.hits) == 2


def test_rerank_with_a_missing_model_folder_says_so(make_library, notes, tmp_path):
    library = make_library(Settings(rerank_model=str(tmp_path / "nowhere")))
    library.index([notes], contexts="rules")
    result = library.search("fish", k=2, rerank=True)
    assert not result.reranked and "rerank skipped" in result.notices[0]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    """A real (randomly initialised, tiny) BERT cross-encoder built here: no package ships reranker weights."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    tokenizer = AutoTokenizer.from_pretrained(str(default_embedding_model_path()))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=1, max_position_embeddings=512)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_rerank_with_a_cross_encoder_reorders_by_its_scores(make_library, notes, tiny_cross_encoder):
    library = make_library(Settings(rerank_model=str(tiny_cross_encoder), rerank_candidates=4))
    library.index([notes], contexts="rules")
    plain = library.search("fish", k=4, rerank=False)
    reranked = library.search("fish", k=4, rerank=True)
    assert reranked.reranked and reranked.notices == []
    scores = [h.scores.rerank for h in reranked.hits]
    assert all(isinstance(s, float) for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert {h.chunk_id for h in reranked.hits} == {h.chunk_id for h in plain.hits}
    # The cross-encoder's own scores, recomputed directly, match what search reported.
    direct = library.reranker.score("fish", [f"{h.context}\n\n{h.text}" for h in reranked.hits])
    assert direct == pytest.approx(scores, abs=1e-5)


def test_hybrid_search_lifts_the_passage_naming_the_query_identifier_verbatim(library, docs):
    # Both name the executor's parts; only one holds `DiffExecutor` itself (core/search/identifiers.py).
    (docs / "talk.md").write_text("# Executors\n\nA diff executor runs two executors. The diff of executor "
                                  "outputs shows where the executors differ.")
    (docs / "diff.rs").write_text("/// Runs two executors on the same input.\npub struct DiffExecutor<A, B> {\n"
                                  "    primary: A,\n    secondary: B,\n}\n")
    library.index([docs], contexts="none")
    hits = library.search("What does DiffExecutor hold?", k=100).hits  # every chunk: each is a candidate
    assert Path(hits[0].path).name == "diff.rs"
    best_bm25 = max(h.scores.bm25 or 0 for h in hits)
    low, high = min(h.scores.dense for h in hits), max(h.scores.dense for h in hits)
    alpha = library.settings.fusion_bm25_weight  # the keyword list's weight in the product's convex fusion
    for hit in hits:  # the convex fusion, plus the bonus where the identifier is verbatim
        convex = alpha * (hit.scores.bm25 or 0) / best_bm25 + (1 - alpha) * (hit.scores.dense - low) / (high - low)
        bonus = 0.1 if "DiffExecutor" in hit.text + hit.context else 0.0
        assert hit.scores.fused == pytest.approx(convex + bonus)
    assert any("DiffExecutor" not in h.text for h in hits)


def test_loading_for_a_first_search_loads_the_keyword_index_too(make_library, notes):
    """The window (and the quick popup) asks the service to load what a first search needs as it opens: the model
    and the vector store were, the keyword index was left to the first search (0.47 s of it at 110k chunks)."""
    make_library().index([notes], contexts="rules")
    opened_again = make_library()
    assert not opened_again.keywords.loaded
    opened_again.load_embedding_model()
    assert opened_again.keywords.loaded

"""What the window says without a window: recent searches, and the core's shell advice put as window advice."""

def test_recent_searches_keep_the_newest_first_without_repeats(tmp_path):
    from desktop_rag.ui.recent_searches import KEPT, RecentSearches

    recent = RecentSearches(tmp_path)
    for query in ("boiler", "b", "heron  fish", "boiler", "boiler"):
        recent.add(query)
    assert recent.items == ["boiler", "heron fish"]  # one letter is no search worth offering again
    for number in range(KEPT + 5):
        recent.add(f"query {number}")
    assert len(RecentSearches(tmp_path).items) == KEPT and RecentSearches(tmp_path).items[0] == f"query {KEPT + 4}"
    (tmp_path / "recent-searches.json").write_text("{not json")
    assert RecentSearches(tmp_path).items == []


def test_the_cores_shell_advice_reads_as_window_advice():
    from desktop_rag.errors import NoIndexError
    from desktop_rag.ui.errors import readable, sentences

    shell_advice = [
        "the keyword index cannot be read (gone): run `desktop-rag doctor --repair` (or any index run) to rebuild it",
        "rerank was asked for, but no reranker model is configured: set `rerank_model` to a cross-encoder folder "
        "(desktop-rag settings rerank_model PATH); results are shown without reranking",
        "the setting chunk_tokens in x.toml should be int, not 'a': set it again with `desktop-rag settings "
        "chunk_tokens VALUE`",
        "no folder is indexed yet: add one in the app or with `desktop-rag index PATH`",
    ]
    for advice in shell_advice:
        assert "desktop-rag" not in sentences([advice]), advice
    assert "desktop-rag" not in readable(NoIndexError("nothing is indexed yet: run `desktop-rag index PATH...`"))

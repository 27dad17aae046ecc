"""What the window says without a window: recent searches (the remedies' words: tests/unit/test_remedies.py)."""

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

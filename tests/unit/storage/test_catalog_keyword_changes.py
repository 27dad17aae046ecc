from desktop_rag.documents import Chunk, ContextResult, keyword_text, text_hash
from desktop_rag.storage.catalog import Catalog


def save(catalog, path, texts):
    chunks = [Chunk(i, t, 0, len(t), None, ["H"], 3, text_hash(t)) for i, t in enumerate(texts)]
    contexts = [ContextResult(f"ctx {t}", "rules") for t in texts]
    return catalog.save_document(path=path, size=10, mtime_ns=1, content_hash="h", parser="text", title="T",
                                 text=" ".join(texts), page_count=None, chunks=chunks, contexts=contexts)


def test_every_write_of_a_keyword_text_is_noted_in_order_and_forgotten_once_merged(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    changes = catalog.keyword_changes
    assert not changes.waiting and changes.changed() == (0, [], [])
    save(catalog, "/a.txt", ["heron", "kestrel"])
    first, texts, changed = changes.changed()
    assert first > 0 and len(changed) == 2 and catalog.keyword_index_dirty
    assert [text for _, text in texts] == [keyword_text("ctx heron", "heron", ""),
                                           keyword_text("ctx kestrel", "kestrel", "")]
    changes.held_up_to(first)
    assert not changes.waiting
    heron = texts[0][0]
    catalog.contexts.set_manual_context(heron, "a person's words")  # a context edited: noted again, later
    assert changes.waiting and changes.latest() > first
    assert changes.changed(after=first)[2] == [heron]
    catalog.remove_documents([catalog.document("/a.txt").id])  # removed: still noted, without a text
    latest, texts, changed = changes.changed()
    assert texts == [] and len(changed) == 2
    changes.merged_up_to(first)  # the merge held the first notes only: the later ones stay
    assert changes.count() == 2 and changes.indexed() == first
    changes.rebuilt_up_to(latest)
    assert changes.count() == 0 and not changes.waiting
    catalog.close()


def test_a_rebuild_asked_waits_until_one_is_made(tmp_path):
    catalog = Catalog(tmp_path / "c.sqlite3")
    catalog.mark_keyword_index_dirty()
    assert catalog.keyword_changes.rebuild_asked and catalog.keyword_index_dirty
    catalog.keyword_changes.rebuilt_up_to(catalog.keyword_changes.latest())
    assert not catalog.keyword_index_dirty
    catalog.close()


def test_the_changed_texts_are_looked_up_from_the_changes_never_by_walking_every_passage(tmp_path):
    """A save's keyword update reads only what changed: left to SQLite's planner the query walked every chunk
    (300-450 ms a save at a million passages, bench/million_library.py)."""
    from desktop_rag.storage.catalog_keyword_changes import CHANGED_TEXTS

    catalog = Catalog(tmp_path / "c.sqlite3")
    for n in range(50):
        save(catalog, f"/{n}.txt", [f"passage {n} {i}" for i in range(20)])
    catalog.keyword_changes.merged_up_to(catalog.keyword_changes.latest())  # the index holds them: no changes left
    save(catalog, "/new.txt", ["heron"])
    plan = [row[3] for row in catalog._db.execute(f"EXPLAIN QUERY PLAN {CHANGED_TEXTS}", (0,))]
    assert plan[0].startswith(("SEARCH k", "SCAN k")) and not any(step.startswith("SCAN c") for step in plan), plan
    assert [text for _, text in catalog.keyword_changes.changed()[1]] == [keyword_text("ctx heron", "heron", "")]
    catalog.close()

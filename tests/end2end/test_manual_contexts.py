"""Hand-edited contexts: searchable at once, never overwritten by automatic work, revertible."""

import json

import pytest

from cli_runner import cli
from desktop_rag.errors import ChunkGone

GUIDE = "# Pump manual\n\n## Start-up\n\nPrime the pump before the first start.\n\n## Storage\n\nDrain it for winter.\n"


def chunk_with(library, word):
    return next(h for h in library.search(word, k=5, mode="bm25").hits if word.lower() in h.text.lower())


def test_edit_is_searchable_survives_reindexing_and_reverts(library, docs):
    (docs / "pump.md").write_text(GUIDE)
    library.index([docs], contexts="rules")
    hit = chunk_with(library, "prime")
    generated = hit.context
    assert library.search("zanzibar", mode="bm25").hits == []

    library.edits.set_context(hit.chunk_id, "Zanzibar field station   pump start-up checklist.")
    edited = library.search("zanzibar", k=1, mode="bm25").hits[0]
    assert (edited.chunk_id, edited.context_source) == (hit.chunk_id, "manual")
    assert edited.context == "Zanzibar field station pump start-up checklist."
    assert library.vectors.count() == library.catalog.chunk_count()  # re-embedded, old vector replaced

    # Another part of the document changes: the edited chunk's text does not, so its context stays.
    (docs / "pump.md").write_text(GUIDE.replace("Drain it for winter.", "Drain it and store it dry for winter."))
    assert library.index([docs], contexts="rules").indexed == 1
    again = library.search("zanzibar", k=1, mode="bm25").hits[0]
    assert again.context_source == "manual" and "Prime the pump" in again.text

    # The questions a chunk answers are edited with it, keyword-indexed, and outlive re-indexing too.
    library.edits.set_context(again.chunk_id, again.context, questions="Why prime a quokka pump?\n")
    assert [h.chunk_id for h in library.search("quokka", mode="bm25").hits] == [again.chunk_id]
    (docs / "pump.md").write_text(GUIDE.replace("Drain it for winter.", "Drain it, dry it, store it for winter."))
    assert library.index([docs], contexts="rules").indexed == 1
    assert [h.chunk_id for h in library.search("quokka", mode="bm25").hits] == [again.chunk_id]
    assert library.catalog.contexts.context(again.chunk_id)["source"] == "manual"

    assert library.edits.revert_context(again.chunk_id)
    assert library.search("zanzibar", mode="bm25").hits == []
    assert library.search("quokka", mode="bm25").hits == []  # the generated questions (none) are back too
    reverted = chunk_with(library, "prime")
    # Back to the generated context: the chunk's text never changed, so it kept the one it had before the edit.
    assert reverted.context_source == "rules" and reverted.context == generated
    assert not library.edits.revert_context(again.chunk_id)  # nothing left to revert


def test_context_command(docs, data_dir):
    (docs / "pump.md").write_text(GUIDE)
    cli(data_dir, "index", str(docs), "--contexts", "rules")
    hit = json.loads(cli(data_dir, "search", "prime the pump", "-k", "1", "--json").stdout)["results"][0]
    shown = json.loads(cli(data_dir, "context", str(hit["chunk_id"]), "--set", "Checklist for the Zanzibar pump.",
                           "--json").stdout)
    assert shown["source"] == "manual" and shown["generated_source"] == "rules"
    found = json.loads(cli(data_dir, "search", "zanzibar", "--mode", "bm25", "--json").stdout)["results"]
    assert found[0]["chunk_id"] == hit["chunk_id"]
    asked = cli(data_dir, "context", str(hit["chunk_id"]), "--questions", "Why prime a quokka pump?\nWhen?").stdout
    assert "Checklist for the Zanzibar pump." in asked and "  Q: Why prime a quokka pump?\n  Q: When?" in asked
    found = json.loads(cli(data_dir, "search", "quokka", "--mode", "bm25", "--json").stdout)["results"]
    assert found[0]["chunk_id"] == hit["chunk_id"]
    reverted = json.loads(cli(data_dir, "context", str(hit["chunk_id"]), "--revert", "--json").stdout)
    assert reverted["source"] == "rules" and reverted["text"] == hit["context"]
    missing = cli(data_dir, "context", "999999", check=False)
    assert missing.returncode == 1 and "no passage with id 999999" in missing.stderr


def test_regenerating_the_context_of_a_passage_whose_file_went_meanwhile_says_so(library, docs):
    (docs / "pump.md").write_text("# Pump\n\nPrime the pump before the first start.\n")
    library.index([docs], contexts="rules")
    chunk = library.search("prime", k=1, mode="bm25").hits[0].chunk_id
    (docs / "pump.md").unlink()
    library.index([docs], contexts="rules")
    with pytest.raises(ChunkGone, match="no longer in the library"):
        library.edits.regenerate_context(chunk)

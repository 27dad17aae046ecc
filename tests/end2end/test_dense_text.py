from pathlib import Path

from desktop_rag.core.dense.dense_text import EMBEDDER_TEXT_PIECES
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.documents import index_text


def test_indexed_chunks_with_rules_contexts_fit_the_embedder_in_one_window(library, docs):
    # Identifier-heavy code makes the longest contexts; prose makes the longest chunks.
    code = "\n".join(f"def com_example_module_function_{i}(argument_{i}): return HTTPServerConfig{i}()"
                     for i in range(300))
    (docs / "code.py").write_text(code)
    (docs / "prose.md").write_text("# Title\n\n" + " ".join(f"Word{i} follows here." for i in range(2000)))
    library.index([docs], contexts="rules")
    counter = token_counter()
    texts = [index_text(c, t) for _, c, t in library.catalog.iter_index_texts()]
    assert len(texts) > 20
    assert max(counter.count(texts)) <= EMBEDDER_TEXT_PIECES
    assert library.vectors.count() == len(texts)  # one vector per chunk: no chunk needed a second window
    assert {Path(h.path).name for h in library.search("HTTPServerConfig7", k=3).hits} == {"code.py"}


def test_long_prechunked_text_gets_several_vectors_and_is_found_by_its_tail(make_library, docs):
    from desktop_rag.config import Settings

    library = make_library(Settings(chunk_tokens=2000))  # a user who wants big chunks
    filler = " ".join(f"filler{i} text" for i in range(400))
    (docs / "long.md").write_text(f"# Long\n\n{filler} The kingfisher dives for minnows at dawn.")
    (docs / "other.md").write_text("# Other\n\nTax returns are due in May.")
    library.index([docs], contexts="rules")
    assert library.vectors.count() > library.catalog.chunk_count()
    hits = library.search("bird diving for small fish", k=2, mode="dense").hits
    assert Path(hits[0].path).name == "long.md"
    assert len({h.chunk_id for h in hits}) == len(hits)  # windows collapse into one hit per chunk

    (docs / "long.md").unlink()
    library.index([docs], contexts="rules")
    assert library.vectors.count() == library.catalog.chunk_count() == 1  # every window of the removed chunk went

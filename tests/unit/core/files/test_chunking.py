import itertools
from pathlib import Path

from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.files.chunking import HeadingPaths, chunk_document
from desktop_rag.core.files.parsers import parse
from desktop_rag.documents import Heading, ParsedDocument

MAX, OVERLAP = 60, 12


def chunks_of(doc, max_tokens=MAX, overlap=OVERLAP):
    return chunk_document(doc, token_counter(), max_tokens, overlap)


def long_markdown():
    body = " ".join(f"Sentence number {i} talks about brewing coffee carefully." for i in range(40))
    return f"# Guide\n\nShort intro.\n\n## Brewing\n\n{body}\n\n## Cleaning\n\nBrush the grinder monthly.\n"


def test_every_chunk_is_an_exact_slice_within_the_token_bound():
    doc = parse(Path("g.md"), long_markdown().encode())
    chunks = chunks_of(doc)
    assert len(chunks) > 4
    for c in chunks:
        assert doc.text[c.start_char:c.end_char] == c.text
        assert 0 < c.token_count <= MAX
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_chunks_never_cross_headings_and_carry_the_heading_path():
    doc = parse(Path("g.md"), long_markdown().encode())
    chunks = chunks_of(doc)
    assert chunks[0].heading_path == ["Guide"]
    assert all(c.heading_path == ["Guide", "Brewing"] for c in chunks if "brewing coffee" in c.text)
    cleaning = [c for c in chunks if "grinder" in c.text]
    assert len(cleaning) == 1 and cleaning[0].heading_path == ["Guide", "Cleaning"]
    assert "Sentence" not in cleaning[0].text


def test_consecutive_chunks_of_a_section_overlap():
    doc = parse(Path("g.md"), long_markdown().encode())
    brewing = [c for c in chunks_of(doc) if c.heading_path == ["Guide", "Brewing"]]
    overlaps = [b.start_char < a.end_char for a, b in itertools.pairwise(brewing)]
    assert overlaps and all(overlaps)
    no_overlap = [c for c in chunks_of(doc, overlap=0) if c.heading_path == ["Guide", "Brewing"]]
    assert all(b.start_char >= a.end_char for a, b in itertools.pairwise(no_overlap))


def test_pages_are_boundaries_and_chunks_know_their_page():
    text = "First page text.\n\nSecond page text.\n\nThird page text."
    starts = [0, text.index("Second"), text.index("Third")]
    doc = ParsedDocument(text=text, title="t", parser="pdf", page_starts=starts)
    chunks = chunks_of(doc)
    assert [(c.page, c.text) for c in chunks] == [(1, "First page text."), (2, "Second page text."),
                                                  (3, "Third page text.")]


def test_a_single_line_longer_than_a_chunk_is_split_between_words():
    text = " ".join(f"word{i}" for i in range(400))
    chunks = chunks_of(ParsedDocument(text=text, title="t", parser="text"), overlap=0)
    assert len(chunks) > 3
    assert all(c.token_count <= MAX for c in chunks)
    assert " ".join(c.text for c in chunks).split() == text.split()


def test_code_is_split_by_lines_under_its_definitions():
    source = "class Invoice:\n" + "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(30))
    doc = parse(Path("inv.py"), source.encode())
    chunks = chunks_of(doc)
    assert all(c.text == doc.text[c.start_char:c.end_char] for c in chunks)
    assert chunks[3].heading_path[0] == "class Invoice"
    assert all(not c.text.startswith(" ") for c in chunks)


def test_heading_path_pops_siblings_and_deeper_levels():
    headings = [Heading(0, 1, "A"), Heading(10, 2, "B"), Heading(20, 3, "C"), Heading(30, 2, "D")]
    paths = HeadingPaths(headings)
    assert paths.at(25) == ["A", "B", "C"]
    assert paths.at(35) == ["A", "D"]
    assert paths.at(5) == ["A"] and paths.at(0) == ["A"]
    assert HeadingPaths([Heading(8, 1, "Later")]).at(3) == []  # before the first heading: none


def test_long_texts_are_tokenized_in_pieces_with_the_same_result_as_whole():
    from desktop_rag.core.dense.tokens import PIECE_CHARS, pieces

    counter = token_counter()
    words = ["heron", "Schiphol,", "naïve", "x86_64;", "über-long", "3.14", "(see", "below)"]
    text = " ".join(words[i % len(words)] + ("\n" if i % 17 == 0 else "") for i in range(PIECE_CHARS // 2))
    blob = "QUJD" * (PIECE_CHARS // 2)  # no whitespace anywhere: cut where the limit falls
    assert len(text) > 3 * PIECE_CHARS and len(pieces(text)) > 3
    whole = counter._pieces.ids([text])[0]
    assert counter.count([text, "short one", text[:500]]) == [len(whole), 2, len(counter._pieces.ids([text[:500]])[0])]
    assert counter._offsets(text) == counter._pieces.spans(text)  # windows are cut from these: as whole
    assert sum(b - a for a, b in pieces(blob)) == len(blob) and len(pieces(blob)) == 2
    spans = counter.windows(text + " " + blob, 190)
    assert spans[0][0] == 0 and spans[-1][1] == len(text) + 1 + len(blob)
    assert all(a == b for (_, a), (b, _) in itertools.pairwise(spans))  # consecutive, nothing lost


def test_japanese_is_chunked_at_sentence_ends_in_the_model_s_own_tokens():
    sentences = [f"第{i}回の会議では、物流コストと倉庫の統合について詳しく話し合った。" for i in range(60)]
    text = "# 会議録\n\n" + "".join(sentences) + "\n"  # one paragraph, no spaces anywhere
    chunks = chunks_of(ParsedDocument(text=text, title="会議録", parser="markdown"), max_tokens=190, overlap=0)
    body = [c for c in chunks if c.text != "# 会議録"]
    assert len(body) > 3 and all(c.token_count <= 190 for c in chunks)
    assert all(c.text.endswith("。") for c in body)  # never half a sentence
    # The default chunk size (190 of the multilingual model's pieces) holds ~300 Japanese characters; the
    # English model's pieces held ~140 (issue 13).
    assert sum(len(c.text) for c in body[:-1]) / len(body[:-1]) > 250

"""How a document is shown to the model at the chunk level: marks at chunk starts, windows for long documents.
A fake token counter (4 characters per token) stands in for the model's tokenizer."""

from desktop_rag.core.llm.excerpts import document_excerpts
from desktop_rag.documents import Chunk


class FourCharsPerTokenFake:
    def count_tokens(self, text):
        return len(text) // 4


def chunks_of(text, size):
    return [Chunk(i, text[start:start + size], start, min(len(text), start + size), None, [], size // 4, str(i))
            for i, start in enumerate(range(0, len(text), size))]


def test_a_short_document_is_one_excerpt_with_every_chunk_marked_where_it_starts():
    text = "".join(f"Paragraph {i} about topic_{i}.\n" for i in range(6))
    chunks = chunks_of(text, 60)
    [excerpt] = document_excerpts(text, chunks, FourCharsPerTokenFake(), budget_tokens=1000, marks=True)
    assert excerpt.chunk_indexes == list(range(len(chunks)))
    for number, chunk in enumerate(chunks, 1):
        after_mark = excerpt.text.split(f"[[part {number}]]\n", 1)[1]
        assert after_mark.startswith(chunk.text[:20])
    assert excerpt.text.replace("\n", "").count("[[part") == len(chunks)


def test_a_long_document_is_its_head_plus_windows_covering_every_chunk_once_within_the_budget():
    text = "".join(f"Line {i}: the function handler_{i} validates input_{i} and logs it.\n" for i in range(400))
    chunks = chunks_of(text, 700)
    budget = 600
    excerpts = document_excerpts(text, chunks, FourCharsPerTokenFake(), budget_tokens=budget, marks=True)
    assert len(excerpts) > 3
    assert sorted(i for e in excerpts for i in e.chunk_indexes) == list(range(len(chunks)))
    head = excerpts[1].text.split("\n[…]\n")[0]
    for excerpt in excerpts:
        assert FourCharsPerTokenFake().count_tokens(excerpt.text) <= budget * 1.05
        for i in excerpt.chunk_indexes:
            assert f"[[part {i + 1}]]" in excerpt.text
        assert excerpt.text.startswith("\n[[part 1]]\n" + text[:100])  # the head opens every excerpt
    for excerpt in excerpts[1:]:
        assert excerpt.text.startswith(head)  # an identical prefix, so the KV cache keeps it across windows

    plain = document_excerpts(text, chunks, FourCharsPerTokenFake(), budget_tokens=budget)  # the product's way
    assert [e.chunk_indexes for e in plain] == [e.chunk_indexes for e in excerpts]
    assert all("[[part" not in e.text and e.text.startswith(text[:100]) for e in plain)
    for excerpt in plain:  # each window holds its chunks' text
        assert all(chunks[i].text[:50] in excerpt.text for i in excerpt.chunk_indexes)

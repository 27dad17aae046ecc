"""Keyword search on Japanese: CJK character pairs (what the app uses) against morphological analyzers.

    python bench/cjk_tokenizers.py [../shared/datasets/jsquad]

BM25 (bm25s, the app's parameters) over the set's paragraphs, each tokenizer used for documents and questions
alike; recall@k of the one relevant paragraph, tokenizing speed and what the tokenizer needs installed.
Analyzers are measured only when installed (`pip install sudachipy sudachidict-core`, `fugashi unidic-lite`);
they are not dependencies of the app.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from desktop_rag.core.text.keyterms import STOPWORDS
from desktop_rag.core.text.lexical import lexical_tokens

CUTOFFS = (1, 5, 10, 20)


def sudachi_tokenizer():
    from sudachipy import Dictionary, SplitMode

    tokenizer = Dictionary().create()

    def tokenize(text: str) -> list[str]:
        words = []
        for piece in _pieces(text):
            for m in tokenizer.tokenize(piece, SplitMode.A):
                if m.part_of_speech()[0] not in ("助詞", "助動詞", "補助記号", "空白"):
                    words.append(m.normalized_form().lower())
        return [w for w in words if w.strip() and w not in STOPWORDS]
    return tokenize


def fugashi_tokenizer():
    import fugashi

    tagger = fugashi.Tagger()

    def tokenize(text: str) -> list[str]:
        words = [(w.feature.lemma or w.surface) for w in tagger(text)
                 if w.feature.pos1 not in ("助詞", "助動詞", "補助記号", "空白")]
        return [w.lower() for w in words if w.strip() and w.lower() not in STOPWORDS]
    return tokenize


def _pieces(text: str, limit: int = 10_000) -> list[str]:
    return [text[i:i + limit] for i in range(0, len(text), limit)]  # Sudachi refuses inputs over ~49 KB


def evaluate(name: str, tokenize, chunks, queries, qrels) -> None:
    import bm25s

    started = time.perf_counter()
    corpus = [tokenize(c["text"]) for c in chunks]
    seconds = time.perf_counter() - started
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    ids = [c["_id"] for c in chunks]
    sums = {k: 0.0 for k in CUTOFFS}
    for q in queries:
        tokens = [t for t in tokenize(q["text"]) if t in retriever.vocab_dict]
        if not tokens:
            continue
        scores = retriever.get_scores(tokens)
        top = [ids[i] for i in np.argsort(-scores)[:max(CUTOFFS)]]
        for k in CUTOFFS:
            sums[k] += len(qrels[q["_id"]] & set(top[:k])) / len(qrels[q["_id"]])
    chars = sum(len(c["text"]) for c in chunks)
    print(f"{name:<28}" + "".join(f"{100 * sums[k] / len(queries):<8.2f}" for k in CUTOFFS)
          + f"{chars / seconds / 1e3:>10.0f}")


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared/datasets/jsquad")

    def read(name: str) -> list:
        return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines()]

    chunks, queries = read("chunks.jsonl"), read("queries.jsonl")
    qrels: dict[str, set[str]] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query, chunk, *_ = line.split("\t")
        qrels.setdefault(query, set()).add(chunk)
    print(f"{len(queries)} questions, {len(chunks)} paragraphs; BM25 recall@k, tokenizing speed (k chars/s)")
    print(f"{'tokenizer':<28}" + "".join(f"R@{k:<6}" for k in CUTOFFS) + f"{'kchar/s':>10}")
    evaluate("character pairs (the app)", lexical_tokens, chunks, queries, qrels)
    for name, make in (("SudachiPy A + core dict", sudachi_tokenizer), ("fugashi + unidic-lite", fugashi_tokenizer)):
        try:
            tokenize = make()
        except Exception as exc:  # not installed, or no dictionary: say so and go on
            print(f"{name:<28}not measured: {type(exc).__name__}: {exc}")
            continue
        evaluate(name, tokenize, chunks, queries, qrels)


if __name__ == "__main__":
    main()

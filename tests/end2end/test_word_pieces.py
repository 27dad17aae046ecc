"""The default model's word pieces through SentencePiece (core/dense/word_pieces.py) against `tokenizers` reading
the same model's tokenizer.json: the same pieces on real text of many kinds, the same character spans, and a
fifth of the memory (measured in the module's docstring; here, that it is read that way at all)."""

import inspect
import json
import unicodedata

import pytest
from pydoc_data.topics import topics

from desktop_rag.core.dense.tokens import default_embedding_model_path, token_counter
from desktop_rag.core.dense.word_pieces import SentencePieceTokens, TokenizersTokens, word_pieces
from documents import CHINESE, MEETING, TRAVEL

pytestmark = pytest.mark.slow  # converts the default model once


def real_texts() -> list[str]:
    prose = [p for topic in sorted(topics)[:60] for p in topics[topic].split("\n\n") if len(p) > 80][:300]
    code = inspect.getsource(json.decoder) + inspect.getsource(inspect)
    odd = ["", " ", "  two  spaces ", "\ttab\nline\r\nbreaks", "Ｆｕｌｌ　ｗｉｄｔｈ ① ㌔", "café, cafe\u0301, Å",
           "émoji 😀 and ☕ ok", "zero\u200bwidth", "a ▁ b", " lead", "trail ", "\x01control\x7f",
           "Mixed 日本語 and English テキスト。", "한국어 문장도 있습니다.", "русский текст", "عربي نص"]
    return prose + [code[i:i + 1500] for i in range(0, 60_000, 1500)] + [MEETING, TRAVEL, CHINESE] + odd


@pytest.fixture(scope="module")
def both():
    path = default_embedding_model_path()
    return word_pieces(path), TokenizersTokens(path)


def test_the_default_model_is_read_by_sentencepiece(both):
    assert isinstance(both[0], SentencePieceTokens)
    assert isinstance(token_counter()._pieces, SentencePieceTokens)


def test_sentencepiece_gives_the_model_s_pieces(both):
    pieces, reference = both
    texts = real_texts()
    ours, theirs = pieces.ids(texts), reference.ids(texts)
    differ = [t for t, a, b in zip(texts, ours, theirs) if a != b]
    # Two splits of equal score of a run of one repeated character may come out in either order: nothing else.
    assert all(len(a) == len(b) for a, b in zip(ours, theirs)), differ
    assert len(differ) <= len(texts) // 100, differ
    assert pieces.model_ids(["a heron " * 400], 512)[0] == reference.model_ids(["a heron " * 400], 512)[0]
    assert len(pieces.model_ids(["a heron " * 400], 512)[0]) == 512


def test_spans_are_the_pieces_characters_in_the_text_as_given(both):
    pieces, reference = both
    for text in real_texts():
        spans = pieces.spans(text)
        assert len(spans) == len(pieces.ids([text])[0]), text[:60]
        assert all(a <= b for a, b in spans) and spans == sorted(spans), text[:60]
        if unicodedata.normalize("NFKC", text) == text:  # nothing NFKC changes: the very same spans
            assert spans == reference.spans(text), text[:60]


def test_the_normalizer_is_read_from_the_head_of_tokenizer_json_as_the_whole_file_has_it(tmp_path):
    from desktop_rag.core.dense.word_pieces import _normalizer_of

    whole = default_embedding_model_path() / "tokenizer.json"
    assert _normalizer_of(whole) == json.loads(whole.read_text(encoding="utf-8"))["normalizer"]
    far = tmp_path / "tokenizer.json"  # a normalizer past the head (a file not saved by `tokenizers`): parsed whole
    far.write_text(json.dumps({"padding": "x" * 70_000, "normalizer": {"type": "NFKC"}}), encoding="utf-8")
    assert _normalizer_of(far) == {"type": "NFKC"}

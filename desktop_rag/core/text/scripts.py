"""Which writing system a text is in: the one definition of "CJK" that tokenizing, contexts, prompts and the
quality score share (Japanese, Chinese and Korean are written without spaces between words)."""

from __future__ import annotations

import re

CJK_CLASS = (  # for a regular expression's [...]
    "\u3040-\u30ff"  # hiragana, katakana (with ー)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"  # hangul
    "\u31f0-\u31ff\U00020000-\U0002ffff"
)
CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
KANA = re.compile("[\u3040-\u30ff]")  # hiragana and katakana: Japanese has them, Chinese has none
# Japanese and Chinese with their punctuation and full-width forms: written without spaces between words (Korean,
# which spaces its words, is not).
UNSPACED_CLASS = ("\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
                  "\U00020000-\U0002ffff")
# Where a sentence ends, in English and in Japanese or Chinese.
SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")


def ended_as_sentence(text: str, japanese: bool) -> str:
    """`text` with a full stop ("。" in Japanese) unless it already ends like a sentence ("…を待つ。", "Why?")."""
    return text if not text or text.endswith(SENTENCE_ENDS) else text + ("。" if japanese else ".")


def has_cjk(text: str) -> bool:
    return CJK_CHAR.search(text) is not None


def written_in_japanese(sentence: str) -> bool:
    """A sentence in Japanese, not Chinese or English: mostly CJK, with kana (a Japanese sentence has its
    particles; a small model asked in Japanese sometimes answers in Chinese, which has none)."""
    return mostly_cjk(sentence) and KANA.search(sentence) is not None


def document_in_japanese(text: str, sample: int = 4000) -> bool:
    """A document written in Japanese, not Chinese: mostly CJK, with kana that are its own words, not a quoted
    Japanese name — more than 20 kana, or in a short text (a note of one sentence) a fifth of its CJK
    characters (Japanese prose is about half kana)."""
    head = text[:sample]
    if not mostly_cjk(head):
        return False
    kana = len(KANA.findall(head))
    return kana > 20 or kana >= 0.2 * len(CJK_CHAR.findall(head))


def mostly_cjk(text: str, sample: int = 4000) -> bool:
    """Japanese, Chinese or Korean text: a fifth of its letters or more are CJK (a Japanese file quoting some
    English or code still is; an English file with a few kanji is not)."""
    head = text[:sample]
    letters = sum(ch.isalpha() for ch in head)
    return letters > 0 and len(CJK_CHAR.findall(head)) / letters >= 0.2

"""Turn a small model's raw answer into a context: no labels, chat tokens, quotes, copied passage text, generic
filler, or a sentence cut off by the token cap."""

from __future__ import annotations

import re

from desktop_rag.core.llm.prompts import (CHUNK_QUESTIONS, JAPANESE_CHUNK_QUESTIONS, JAPANESE_QUESTION_LINE,
                                          QUESTION_LINE)
from desktop_rag.core.text.scripts import SENTENCE_ENDS, ended_as_sentence, has_cjk, written_in_japanese

_CHAT_TOKENS = re.compile(r"<\|[^|>]{1,40}\|>|</?s>|\[/?INST\]|<\|endoftext\|>")
_LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:context|summary|answer|search context|document summary|文脈)\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*",
    re.I,
)
_PREAMBLE = re.compile(r"^\s*(?:sure|certainly|of course|here(?:'s| is| are)\b)[^.:\n]*[:.!]\s*", re.I)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
# Sentences that fit any document and so help no search (measured: a quarter of 0.5B contexts were like this).
_GENERIC = re.compile(
    r"does not belong to any specific|is not (?:related|specific) to|without (?:any )?(?:more|further) context"
    r"|i (?:cannot|can't|don't)|as an ai|let me know|hope this helps|in summary,?$",
    re.I,
)
# A sentence that only announces what follows, the instruction said back ("重要な人名や用語・話題は以下の通りです。",
# "The key terms are as follows:"): seen from the 1.5B model on a one-sentence Japanese note.
_ANNOUNCEMENT = re.compile(
    r"(?:以下|次)の(?:通り|とおり)(?:です|である)[。：:]?$|を挙げて(?:説明|紹介)します。?$"
    r"|\b(?:is|are) as follows[.:]?$", re.I)
# "This document is a guide to…" opens nearly every answer and says nothing: it becomes "A guide to…".
_BOILERPLATE_OPENING = re.compile(
    r"^(?:this|the) (?:document|file|passage|code|text|section|chunk|snippet|script|part)"
    r" (?:is|contains|describes|provides|defines|belongs to|covers)\s+(?:(a|an|the)\s+)?",
    re.I,
)
# The same in Japanese: "このチャンクはドキュメント内の第3節にあり、物流コストの削減について…" says where the
# situation already says it; what follows is the content. A sentence that is only the opening becomes empty.
# Where, said many ways by the 1.5B model: "ドキュメントの第10節", "文書内の第13章の第2節", "ドキュメント内の137行目",
# "ドキュメントの第15段と第16段".
_JAPANESE_NUMBER = "[0-9０-９一二三四五六七八九十百]+"
_JAPANESE_PLACE = f"第?{_JAPANESE_NUMBER}(?:段目|段落|段|節|章|部分|番目|行目|行)?"
_JAPANESE_OPENING = re.compile(
    r"^この(?:チャンク|文書|ドキュメント|部分|節|一節)は、?(?:(?:ドキュメント|文書)(?:内|の中)?|この文書)?の?"
    f"(?:{_JAPANESE_PLACE}(?:[のと]{_JAPANESE_PLACE})*)?"
    r"(?:にあり|であり|で(?:す。)?)、?"
)
# What an opening that was the whole sentence leaves ("…第10節にあり" + "ます。"): nothing worth keeping.
_JAPANESE_ENDING_ONLY = re.compile(r"^(?:ます|です)?[。.]?$")
# The answer form's placeholders ("Context: <that sentence>", "文脈：<その1文>", "Q: <…>") answered back as they are,
# or their words without the brackets: seen from the 1.5B model on Japanese articles, scored 0.68 and kept.
_PLACEHOLDER = re.compile(r"^<[^<>]{1,60}>[.。]?$")
_PROMPT_ECHOES = {placeholder.lower()
                  for template in (CHUNK_QUESTIONS, QUESTION_LINE, JAPANESE_CHUNK_QUESTIONS, JAPANESE_QUESTION_LINE)
                  for placeholder in re.findall(r"<([^<>]+)>", template)}
# The chunk-level question names the chunk by its mark in the document ("[[part 3]]"); answers echo it.
_PART_MARK = re.compile(r"\[\[\s*part\s+\d+\s*\]\](?:\s+of the document)?", re.I)
_COPY_NGRAM = 5
_COPY_SHARE = 0.6  # a sentence whose 5-grams mostly occur in the passage is copied, not written


def clean_context(raw: str, passage: str = "", truncated: bool = False, japanese: bool = False) -> str:
    """The answer's sentences worth keeping; with `japanese` (the model was asked in Japanese), only those written
    in Japanese: a small model still sometimes answers in English or in Chinese (seen: "人类在…", scored 0.74 and
    kept), noise to a Japanese search."""
    text = _CHAT_TOKENS.sub(" ", raw)
    text = _PART_MARK.sub("this part", text)
    text = text.replace("```", " ")
    for echo in _PROMPT_ECHOES:  # the placeholder given back before (or instead of) the sentence
        text = text.replace(f"<{echo}>", " ")
    for pattern in (_PREAMBLE, _LABEL):
        text = pattern.sub("", text, count=1)
    text = " ".join(text.split()).strip().strip("\"'“”‘’`").strip()
    sentences = split_sentences(text)
    if truncated and sentences and not sentences[-1].endswith(SENTENCE_ENDS):
        sentences.pop()  # cut at the token cap: never keep half a sentence
    passage_grams = _ngrams(passage) if passage else set()
    kept = []
    for sentence in sentences:
        if _GENERIC.search(sentence) or _ANNOUNCEMENT.search(sentence) or _echoes_the_prompt(sentence):
            continue
        if japanese and not written_in_japanese(sentence):
            continue
        grams = _ngrams(sentence)
        if passage_grams and grams and len(grams & passage_grams) / len(grams) >= _COPY_SHARE:
            continue
        sentence = _drop_boilerplate_opening(sentence[:1].upper() + sentence[1:])
        if sentence and sentence not in kept:  # small models repeat themselves
            kept.append(sentence)
    result = " ".join(kept).strip().strip("\"'“”").strip()
    return ended_as_sentence(result, japanese=has_cjk(result[-1:]))


def _echoes_the_prompt(sentence: str) -> bool:
    if not any(character.isalnum() for character in sentence):
        return True  # what was left of a placeholder: its full stop
    return bool(_PLACEHOLDER.match(sentence)) or sentence.rstrip(".。").strip("<>").lower() in _PROMPT_ECHOES


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s.strip()]


def _drop_boilerplate_opening(sentence: str) -> str:
    japanese = _JAPANESE_OPENING.match(sentence)
    if japanese:
        rest = sentence[japanese.end():]
        return "" if _JAPANESE_ENDING_ONLY.match(rest) else rest
    m = _BOILERPLATE_OPENING.match(sentence)
    if not m:
        return sentence
    rest = sentence[m.end():]
    article = (m.group(1) or "").capitalize()
    return f"{article} {rest}" if article else rest[:1].upper() + rest[1:]


def _ngrams(text: str) -> set[tuple[str, ...]]:
    # In Japanese a whole sentence is one \w+ run: its characters are the units there.
    words = [u for w in re.findall(r"\w+", text.lower()) for u in (list(w) if has_cjk(w) else [w])]
    return {tuple(words[i : i + _COPY_NGRAM]) for i in range(len(words) - _COPY_NGRAM + 1)}


# Questions after the sentence: "Q:" as asked; small models also number them or use bullets.
_QUESTION_LEAD = re.compile(r"(?:^|\s)(?:Q\s*\d*\s*[:：.)]|\d+[.)]\s|[-*•]\s)\s*", re.I)
_QUESTION_WORDS_MAX = 25
_QUESTION_CHARS_MAX = 120


def split_questions(raw: str, wanted: int) -> tuple[str, list[str]]:
    """The answer's sentence part, and up to `wanted` clean questions from what follows it. A question cut by
    the token cap (no question mark) is dropped; so are repeats and questions too long to be one."""
    text = _CHAT_TOKENS.sub(" ", raw)
    lead = _QUESTION_LEAD.search(text)
    if lead is None or not wanted:
        return text, []
    body, rest = text[: lead.start()], text[lead.start():]
    questions: list[str] = []
    for piece in _QUESTION_LEAD.split(rest):
        piece = " ".join(piece.split()).strip("\"'“”「」` ")
        for question in re.findall(r"[^?？]+[?？]", piece):
            question = question.strip()
            too_long = len(question.split()) > _QUESTION_WORDS_MAX or len(question) > _QUESTION_CHARS_MAX
            if len(question) > 3 and not too_long and question not in questions:
                questions.append(question[:1].upper() + question[1:])
    return body, questions[:wanted]

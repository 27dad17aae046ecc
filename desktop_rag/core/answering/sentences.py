"""A passage cut into its sentences, each with its span in the passage: what evidence is chosen from and what a
citation's supporting words are marked in. Ends: . ! ? and the Japanese and Chinese 。！？ (no space after them), a
line break between list items or table rows, and a semicolon only where a line holds many clauses (code, data)."""

from __future__ import annotations

import re

# A sentence ends after . ! ? (and a closing quote or bracket) before a space and a capital, a digit or a
# non-Latin letter; after 。！？ always; at a line break. "e.g. this", "3.5 kg", "v1.2" and "Mr. Smith" are not ends
# (a lowercase word or a digit follows, or no space).
_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*[ \t]+(?=[\"'“‘(\[]?[^\s\da-z])|(?<=[。！？])[」』）]*|\n+")
_ABBREVIATIONS = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|No|Fig|vs|etc|Inc|Ltd|Co|Jr|Sr)\.|\b[A-Z]\.)$")
MIN_CHARS = 12  # shorter: a heading's number, a stray "Yes." — no evidence on its own


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, in order, whitespace trimmed; pieces under MIN_CHARS are kept
    joined to the sentence before them (or after, for a first one), never lost."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _END.finditer(text):
        end = match.start() if match.group(0).strip(" \t\n") == "" else match.end()
        gap = match.group(0)
        if gap.startswith((" ", "\t")) and "\n" not in gap and _ABBREVIATIONS.search(text[start:end]):
            continue  # "Dr. Ito": not an end
        _add(spans, text, start, end)
        start = match.end()
    _add(spans, text, start, len(text))
    return _joined_short(spans, text)


def _add(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        lead = len(piece) - len(piece.lstrip())
        spans.append((start + lead, start + lead + len(stripped)))


def _joined_short(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and (end - start < MIN_CHARS or joined[-1][1] - joined[-1][0] < MIN_CHARS):
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined

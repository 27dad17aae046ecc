"""Search hits and previews as Qt rich text: the context prefix set apart (its own background and a "context"
label naming its source), query words marked in both context and text; the line that says what a search found.
Pure functions over strings."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from desktop_rag.core.search.grouping import no_good_match_words, not_listed_words
from desktop_rag.core.search.highlight import QueryMatch, Span
from desktop_rag.core.search.match_strength import strength_label
from desktop_rag.core.search.tuning import GOOD_MATCH
from desktop_rag.core.search.searcher import Hit, SearchResult
from desktop_rag.documents import (
    CONTEXT_SOURCE_WORDS, LOW_OCR_CONFIDENCE, SCORE_WORDS, copies_words, folder_and_name, how_many,
    metadata_words, unread_words,
)

SNIPPET_CHARS = 360
PREVIEW_CHARS = 1500  # document text shown on each side of the chunk


@dataclass(frozen=True)
class Colors:
    context_background: str
    context_label: str
    mark_background: str
    muted: str
    chunk_background: str
    selection: str  # a selected hit: a tint, so the hit's own colours stay readable on it


LIGHT = Colors("#e8eefb", "#3b5998", "#ffe27a", "#6b6b6b", "#fff6cc", "#c9dcf7")
DARK = Colors("#263047", "#9db4e8", "#8a6d00", "#a0a0a0", "#4a4220", "#3a4d73")


def marked(text: str, spans: Sequence[Span], colors: Colors) -> str:
    """`text` escaped for rich text, with the query's words (`spans` of it) on a highlight background."""
    out, last = [], 0
    for start, end in spans:
        out.append(html.escape(text[last:start]))
        out.append(f'<span style="background-color:{colors.mark_background}">{html.escape(text[start:end])}</span>')
        last = end
    out.append(html.escape(text[last:]))
    return "".join(out)


def snippet(text: str, spans: Sequence[Span], width: int = SNIPPET_CHARS) -> tuple[str, list[Span]]:
    """The part of a chunk around its first query match, its whitespace made single spaces and cut at word
    boundaries, with the spans that fall in it."""
    flat, at = _flattened(text)
    spans = [(at[start], at[end]) for start, end in spans if at[end] > at[start]]
    if len(flat) <= width:
        return flat, spans
    start = max(0, spans[0][0] - width // 4) if spans else 0
    start = flat.rfind(" ", 0, start) + 1 if start else 0
    end = flat.rfind(" ", start, start + width)
    end = end if end > start else start + width
    opened = "…" if start else ""
    shifted = [(max(a, start) - start + len(opened), min(b, end) - start + len(opened))
               for a, b in spans if a < end and b > start]
    return opened + flat[start:end] + ("…" if end < len(flat) else ""), shifted


def _flattened(text: str) -> tuple[str, list[int]]:
    """`text` with each run of whitespace one space and none at either end, and where each of its offsets
    (0 … len) lands in that."""
    out: list[str] = []
    at = []
    pending_space = False
    for character in text:
        if character.isspace():
            pending_space = bool(out)
            at.append(len(out))  # where the one space will be: a word's end lands before it
            continue
        if pending_space:
            out.append(" ")
            pending_space = False
        at.append(len(out))
        out.append(character)
    at.append(len(out))
    return "".join(out), at


# The link on a hit under which more passages of its document are folded (core/search/grouping.py).
SHOW_FOLDED = "show-folded"


def hit_html(hit: Hit, colors: Colors, folded: int = 0) -> str:
    """The hit with the query's words marked where the search found them (hit.matches). `folded`: how many more
    passages of its document are folded under this hit (a link shows them)."""
    more = (f"<br><a href='{SHOW_FOLDED}' style='color:{colors.context_label}'>▸ {folded} more passage"
            f"{'s' if folded > 1 else ''} in this file</a>") if folded else ""
    return _hit_body(hit, colors) + more


def _hit_body(hit: Hit, colors: Colors) -> str:
    folder, name = folder_and_name(hit.path)
    where = [html.escape(folder)]
    if hit.page:
        where.append(f"page {hit.page}")
    if hit.ocr_confidence is not None:
        where.append(ocr_badge(hit.ocr_confidence, colors))
    if hit.heading_path:
        where.append(html.escape(" › ".join(hit.heading_path)))
    quality = f" · quality {hit.quality:.2f}" if hit.quality is not None else ""
    strength = strength_bar(hit.scores.strength, colors) + " " if hit.scores.ranked else ""
    header = (f"<b>{html.escape(name)}</b> {strength}"
              f"<span style='color:{colors.muted}'>{' · '.join(where)}</span>")
    if about := metadata_words(hit.metadata, hit.dated):  # a mail's sender and date, an office file's author
        header += f"<br><span style='color:{colors.muted}'>{html.escape(about)}</span>"
    if hit.copies:
        header += f"<br><span style='color:{colors.muted}'>{html.escape(copies_words(hit.copies))}</span>"
    if hit.unread is not None:  # its name card is its only passage: the header shows it already
        return f"{header}<br><span style='color:{colors.muted}'>{html.escape(unread_words(hit.unread))}</span>"
    text = marked(*snippet(hit.text, hit.matches.get("text", ())), colors)
    if not hit.context:
        return f"{header}<br>{text}"
    block = context_block(hit.context, source_words(hit.context_source) + quality, colors, hit.matches,
                          hit.questions)
    return f"{header}{block}{text}"


def ocr_badge(confidence: float, colors: Colors) -> str:
    """"scanned page, OCR 0.91": the text was read from an image, and how sure the reading was. Below
    LOW_OCR_CONFIDENCE it says the text may be garbled (and its context is a rules one, on purpose)."""
    if confidence < LOW_OCR_CONFIDENCE:
        return (f"<span style='color:{colors.context_label}'>scanned page, OCR {confidence:.2f}: the text may be "
                "misread</span>")
    return f"<span style='color:{colors.context_label}'>scanned page, OCR {confidence:.2f}</span>"


def source_words(source: str) -> str:
    return CONTEXT_SOURCE_WORDS.get(source, source)


def context_block(context: str, label: str, colors: Colors, matches: Mapping[str, Sequence[Span]],
                  questions: str = "") -> str:
    """The context on its own background under a small "CONTEXT · source" label, and the questions the chunk
    answers below it (they are searched too, so a hit found through one shows it); `matches`: the query's words
    in "context" and "questions". A one-cell table: the reliable way to give a block its own background in Qt
    rich text."""
    # Marked whole, then cut into its lines: a match never spans a line's end.
    lines = marked(questions, matches.get("questions", ()), colors).split("\n")
    asked = " · ".join(line for line in lines if line.strip())
    answers = f"<br><span style='color:{colors.muted}'>Answers: {asked}</span>" if asked else ""
    return (
        f"<table width='100%' cellpadding='4' cellspacing='0' bgcolor='{colors.context_background}'><tr><td>"
        f"<span style='color:{colors.context_label}; font-size:small'><b>CONTEXT</b> · {html.escape(label)}</span>"
        f"<br>{marked(context, matches.get('context', ()), colors)}{answers}</td></tr></table>"
    )


def strength_bar(strength: float, colors: Colors) -> str:
    """Five blocks filled by the match strength, and its word: "▰▰▰▰▱ strong"."""
    filled = round(strength * 5)
    return (f"<span style='color:{colors.context_label if strength >= GOOD_MATCH else colors.muted}'>"
            f"{'▰' * filled}{'▱' * (5 - filled)} {strength_label(strength)}</span>")


def score_tooltip(hit: Hit) -> str:
    s = hit.scores
    if not s.ranked:
        return "Listed by date: the filters alone, no words to match"
    lines = [f"Match strength {s.strength:.2f} ({strength_label(s.strength)}): either part counts, more when both do",
             f"  keywords: {s.keywords:.0%} of the query's words are in this passage"]
    if s.meaning is not None:
        lines.append(f"  meaning: {s.meaning:.0%} (how far it stands out from the other candidates in meaning)")
    lines.append(f"{SCORE_WORDS['fused']} score " + (f"{s.fused:.4f}" if s.fused is not None else "—"))
    for name in ("dense", "bm25", "rerank"):
        if (value := getattr(s, name)) is not None:
            lines.append(f"{SCORE_WORDS[name]}: {value:.4f}")
    return "\n".join(lines)


def preview_html(document_text: str, start: int, end: int, match: QueryMatch | None, colors: Colors,
                 context: str = "", context_source: str = "", questions: str = "") -> str:
    """The chunk inside its document: the text around it, the chunk on its own background, the context above;
    the words of `match` marked (None: none). Made off the window's thread (show_in_document): a long document's
    marks are found there."""
    before_start = max(0, start - PREVIEW_CHARS)
    after_end = min(len(document_text), end + PREVIEW_CHARS)

    def spans(text: str) -> list[Span]:
        return match.spans(text) if match else []

    def block(text: str) -> str:
        return marked(text, spans(text), colors).replace("\n", "<br>")

    parts = []
    if before_start:
        parts.append(f"<span style='color:{colors.muted}'>…</span><br>")
    parts.append(block(document_text[before_start:start]))
    if context:
        matches = {"context": spans(context), "questions": spans(questions)}
        parts.append(context_block(context, source_words(context_source), colors, matches, questions))
    parts.append(f"<a name='hit'></a><span style='background-color:{colors.chunk_background}'>"
                 f"{block(document_text[start:end])}</span>")
    parts.append(block(document_text[end:after_end]))
    if after_end < len(document_text):
        parts.append(f"<br><span style='color:{colors.muted}'>…</span>")
    return "".join(parts)


def found_words(result: SearchResult, passages: int, files: int, left_out: int) -> str:
    """What a search found, as the line over its hits says it: `passages` shown in `files`, `left_out` weak ones
    not listed."""
    in_files = f" in {how_many(files, 'file')}" if files < passages else ""
    found = f"{how_many(passages, 'result')}{in_files}" if result.hits else "No results."
    if result.query.startswith("similar to: "):
        found = f"{how_many(passages, 'passage')}{in_files} like “{result.query.removeprefix('similar to: ')}”"
    elif result.nothing_left:
        found = "No document matches the filters."
    elif not result.filters.empty:
        found += f" ({', '.join(result.filters.describe())})" if result.hits else ""
    if result.weak:
        return no_good_match_words(passages)  # (no colon left hanging in the status bar: nothing follows it)
    if left_out:
        found += f" ({not_listed_words(left_out)})"
    return found


def results_line(found: str, notices: str, keywords_only: bool, building: str) -> str:
    """The line over the hits: what was found, then what the person should know of it — matched by keywords alone
    while the meaning model loads, the search's own notices, and a run still adding files (`building`: "The index
    is still being built (40% done)", or "")."""
    said = [f"{found}{'' if found.endswith(('.', ':')) else '.'}"]
    if keywords_only:
        said.append("Keyword matches for now: meaning search starts when its model has loaded.")
    said.append(notices)
    if building:
        said.append(f"{building}: files not yet indexed are missing from these results.")
    return " ".join(part for part in said if part)

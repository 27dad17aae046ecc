"""How the CLI shows progress, summaries, results and stats to a person (stdout/stderr text)."""

from __future__ import annotations

import time
from typing import TextIO

from desktop_rag.cli.terminal import shown
from desktop_rag.core.indexing.report import PHASE_WORDS, IndexSummary, Progress
from desktop_rag.core.search.match_strength import strength_label
from desktop_rag.documents import (SCORE_WORDS, copies_words, duration_words, metadata_words, question_list,
                                   share_words, unread_words)
from desktop_rag.service.stats_words import stats_rows

# A terminal line is redrawn in place, so it can change often; a log (non-terminal) gets a line every few seconds
# and one when a phase finishes, not one per file.
_TERMINAL_INTERVAL_S = 0.2
_LOG_INTERVAL_S = 3.0


class ProgressPrinter:
    def __init__(self, stream: TextIO):
        self.stream = stream
        self.interactive = stream.isatty()
        self.interval = _TERMINAL_INTERVAL_S if self.interactive else _LOG_INTERVAL_S
        self._last_phase: str | None = None
        self._last_time = 0.0
        self._phase_started = time.perf_counter()

    def __call__(self, progress: Progress) -> None:
        now = time.perf_counter()
        changed = progress.phase != self._last_phase
        if changed:
            self._phase_started = now
        finished = progress.total is not None and progress.done >= progress.total and progress.total > 0
        if not finished and now - self._last_time < self.interval:
            return
        self._last_phase, self._last_time = progress.phase, now
        line = self._format(progress, now)
        if self.interactive:  # the line redrawn in place: our own control sequence, the rest harmless
            getattr(self.stream, "control", self.stream.write)("\r\x1b[2K")
            self.stream.write(line + ("\n" if finished else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def _format(self, p: Progress, now: float) -> str:
        count = f"{p.done:,}/{p.total:,}" if p.total is not None else f"{p.done:,}"
        elapsed = now - self._phase_started
        rate = f"  {p.done / elapsed:.0f}/s" if elapsed > 1 and p.done else ""
        eta = ""
        if p.total and p.done and elapsed > 1 and p.done < p.total:
            eta = f"  about {duration_words((p.total - p.done) * elapsed / p.done)} for this step"
        where = f"  {_shorten(p.note or p.path or '')}" if p.note or p.path else ""
        overall = ""
        if p.overall is not None:  # the whole run's share and time left (core/progress/run_meter.py)
            left = (f", about {duration_words(p.seconds_left)} left" if p.seconds_left is not None and p.overall < 1
                    else "")
            overall = f"  [run {share_words(p.overall)}{left}]"
        return f"{PHASE_WORDS.get(p.phase, p.phase):<15} {count}{rate}{eta}{overall}{where}"


def _shorten(path: str, width: int = 60) -> str:
    path = shown(path)
    return path if len(path) <= width else "…" + path[-(width - 1):]


def print_index_summary(s: IndexSummary, out: TextIO) -> None:
    out.write(s.headline("Interrupted") + "\n")
    if s.busy:
        out.write(f"  {len(s.busy)} files changed while being read; the next run (or the watcher) takes them\n")
    out.write(f"  {s.embedded:,} passages made searchable by meaning")
    if s.keyword_chunks is not None:
        out.write(f"; keyword search brought up to date ({s.keyword_chunks:,} passages)")
    out.write("\n")
    timed = ", ".join(f"{PHASE_WORDS[phase].lower()} {sec:.1f} s" for phase, sec in s.phase_seconds.items()
                      if sec >= 0.05)
    if timed:
        out.write(f"  time by phase: {timed}\n")
    for notice in s.notices:
        out.write(f"Note: {notice}\n")
    if s.failed:
        out.write("Failed files:\n")
        for failure in s.failed:
            out.write(f"  {shown(failure.path)}: {failure.reason}\n")


def print_search_result(result, out: TextIO) -> None:
    narrowed = f" ({', '.join(result.filters.describe())})" if not result.filters.empty else ""
    if not result.hits:
        out.write(f"No results for {result.query!r}{narrowed}.\n")
        return
    if narrowed:
        out.write(f"Only: {', '.join(result.filters.describe())}\n\n")
    if result.weak:
        out.write(f"No good match for {result.query!r}; the closest, all weak:\n\n")
    for rank, hit in enumerate(result.hits, start=1):
        where = [shown(hit.path)]
        if hit.page:
            where.append(f"page {hit.page}")
        if hit.ocr_confidence is not None:
            where.append(f"(scanned page, OCR {hit.ocr_confidence:.2f})")
        if hit.heading_path:
            where.append("§ " + " > ".join(hit.heading_path))
        scores = ", ".join(
            f"{SCORE_WORDS.get(name, name)} {value:.4g}" for name, value in vars(hit.scores).items()
            if value is not None and name not in ("strength", "keywords", "meaning")
        )
        quality = f", quality {hit.quality:.2f}" if hit.quality is not None else ""
        out.write(f"{rank}. {'  '.join(where)}\n")
        if about := metadata_words(hit.metadata, hit.dated):
            out.write(f"   {shown(about)}\n")
        if hit.copies:
            out.write(f"   {shown(copies_words(hit.copies))}\n")
        if hit.scores.ranked:
            out.write(f"   {strength_words(hit.scores)} [{scores}{quality}]\n")
        if hit.context:
            out.write(f"   context ({hit.context_source}): {_one_line(hit.context, 200)}\n")
        if hit.questions:
            out.write(f"   answers: {_one_line(' · '.join(question_list(hit.questions)), 200)}\n")
        out.write(f"   {unread_words(hit.unread) if hit.unread is not None else _one_line(hit.text, 300)}\n\n")


def strength_words(scores) -> str:
    """"good match 0.62 (keywords 50%, meaning 24%)": the strength a person reads, and its two parts."""
    parts = [f"keywords {scores.keywords:.0%}"]
    if scores.meaning is not None:
        parts.append(f"meaning {scores.meaning:.0%}")
    return f"{strength_label(scores.strength)} match {scores.strength:.2f} ({', '.join(parts)})"


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def print_stats(stats: dict, failures: list[tuple[str, str]], out: TextIO) -> None:
    for label, sentence in stats_rows(stats):
        out.write(f"{label + ':':<15}{shown(sentence)}\n")
    if stats["folders"]:
        out.write(f"{'Folders:':<15}" + ("\n" + " " * 15).join(shown(f) for f in stats["folders"]) + "\n")
    if failures:
        out.write("Failed files:\n")
        for path, reason in failures:
            out.write(f"  {shown(path)}: {reason}\n")

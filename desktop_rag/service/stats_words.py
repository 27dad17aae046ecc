"""The library's stats (the `stats` operation's answer) in a person's words, as rows of a label and a sentence: one
text for `desktop-rag stats` and the window's Stats tab, which each had their own and said "chunks", "dense 1599
vectors", "bm25" and "1667 prompt and 15 generated tokens" (issue 60, 5). The JSON answer keeps the engine's names
and every count for scripts."""

from __future__ import annotations

from desktop_rag.core.files.ocr import totals_sentence
from desktop_rag.core.library.reads import upgrade_order_sentence
from desktop_rag.documents import CONTEXT_SOURCE_WORDS, documents_sentence

# The data folder's parts, as the place each search looks in.
STORE_WORDS = {"catalog": "catalog", "chroma": "meaning index", "bm25": "keyword index"}


def stats_rows(stats: dict) -> list[tuple[str, str]]:
    """(label, sentence) for each fact a person reads, in order; counts with their thousands separators."""
    passages, waiting = stats["chunks"], stats["chunks_pending_embedding"]
    searchable = f"{passages:,}" + (f" ({waiting:,} not yet searchable by meaning)" if waiting else "")
    sources = ", ".join(f"{CONTEXT_SOURCE_WORDS.get(name, name)} {count:,}"
                        for name, count in sorted(stats["contexts_by_source"].items())) or "none"
    contexts = f"{sources}; average {stats['context_avg_words']} words"
    if stats.get("context_avg_quality") is not None:
        contexts += f", quality {stats['context_avg_quality']}"
    if awaiting := stats.get("contexts_awaiting_upgrade"):
        contexts += f"; {awaiting:,} automatic ones wait for the language model"
    rows = [("Documents", documents_sentence(stats["documents"])), ("Passages", searchable),
            ("Contexts", contexts)]
    if order := upgrade_order_sentence(stats.get("upgrade_order") or {}):
        rows.append(("Upgrade order", order))
    if stats.get("context_seconds") or stats.get("context_models"):
        models = f" ({', '.join(stats['context_models'])})" if stats.get("context_models") else ""
        rows.append(("Language model", f"{stats['context_seconds']:,} s spent writing contexts{models}"))
    if ocr_line := totals_sentence(stats.get("ocr") or {}):
        rows.append(("OCR", ocr_line))
    if sizes := stats.get("index_bytes"):
        rows.append(("On disk", ", ".join(f"{STORE_WORDS.get(name, name)} {size / 2**20:,.1f} MB"
                                          for name, size in sizes.items())))
    rows.append(("Data folder", stats.get("data_dir", "")))
    return rows

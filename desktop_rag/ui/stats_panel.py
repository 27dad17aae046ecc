"""Stats: documents, chunks, contexts by source, average context length and quality, LLM tokens, models,
scanned pages read by OCR, index sizes."""

from __future__ import annotations


import html

from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from desktop_rag.core.files.ocr import totals_sentence
from desktop_rag.core.library_reads import upgrade_order_sentence
from desktop_rag.documents import documents_sentence
from desktop_rag.service.remote_library import RemoteLibrary
from desktop_rag.ui.tasks import TaskRunner



def stats_html(stats: dict) -> str:
    docs = stats["documents"]
    sources = ", ".join(f"{name} {count}" for name, count in sorted(stats["contexts_by_source"].items())) or "none"
    tokens = stats["llm_tokens"]
    sizes = ", ".join(f"{name} {size / 2**20:.1f} MB" for name, size in stats.get("index_bytes", {}).items())
    rows = [
        ("Documents", documents_sentence(docs)),
        ("Chunks", f"{stats['chunks']} ({stats['chunks_pending_embedding']} waiting to be embedded)"),
        ("Contexts", f"{sources}; {stats.get('contexts_awaiting_upgrade', 0)} rules contexts await the LLM upgrade"),
        *([("Upgrade order", order)] if (order := upgrade_order_sentence(stats.get("upgrade_order") or {})) else []),
        ("Average context", f"{stats['context_avg_words']} words"
                            + (f", quality {stats['context_avg_quality']}" if stats['context_avg_quality'] else "")),
        ("LLM", f"{tokens['prompt']} prompt and {tokens['completion']} generated tokens, "
                f"{stats['context_seconds']} s" + (f" ({', '.join(stats['context_models'])})"
                                                   if stats["context_models"] else "")),
        *([("OCR", ocr_line)] if (ocr_line := totals_sentence(stats.get("ocr") or {})) else []),
        ("Indexes", f"dense {stats.get('dense_index_vectors', 0)} vectors, keyword "
                    f"{stats.get('keyword_index_chunks', 0)} chunks; on disk {sizes}"),
        ("Data folder", stats.get("data_dir", "")),
    ]
    body = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(str(v))}</td></tr>" for k, v in rows)
    return f"<table cellpadding='4'>{body}</table>"


class StatsPanel(QWidget):
    def __init__(self, library: RemoteLibrary, runner: TaskRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.library = library
        self.runner = runner
        self.view = QTextBrowser()
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)

    def refresh(self) -> None:
        self.runner.read(self.library.stats, on_done=lambda stats: self.view.setHtml(stats_html(stats)))

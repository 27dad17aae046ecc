"""`desktop-rag demo`: index the bundled samples into a demo library (never the user's own) and show a few
searches."""

from __future__ import annotations

import sys
from pathlib import Path

from desktop_rag.cli.output import ProgressPrinter, print_index_summary, print_search_result

SAMPLES = Path(__file__).resolve().parent.parent / "resources" / "samples"
DEMO_QUERIES = (
    "how long should pour-over coffee brew",
    "when does the Aurora app launch",
    "hotel limit in London",
    "chain wear replacement",
    "物流コストを減らす方法",  # Japanese: found in the Japanese meeting note, by its words and by meaning
)


def run_demo(data_dir: Path) -> int:
    from desktop_rag.core.library.library import Library

    if not SAMPLES.is_dir():
        print(f"desktop-rag: the sample documents are missing ({SAMPLES})", file=sys.stderr)
        return 1
    demo_dir = data_dir / "demo"
    print(f"Indexing the sample documents in {SAMPLES}\n(into a separate demo library: {demo_dir})\n")
    with Library(demo_dir) as library:
        summary = library.index([SAMPLES], on_progress=ProgressPrinter(sys.stderr))
        print_index_summary(summary, sys.stdout)
        for query in DEMO_QUERIES:
            print(f"\n=== search: {query}\n")
            print_search_result(library.search(query, k=2), sys.stdout)
    print("Index your own folders with:  desktop-rag index ~/Documents\n"
          "and search them with:        desktop-rag search \"your question\"")
    return 0

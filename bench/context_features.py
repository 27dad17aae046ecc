"""Which properties of an LLM context go with it helping or hurting retrieval? Reads an `eval --all --json` file.

    desktop-rag eval ../shared/datasets/codebase --all --json > out.json     # (LLM settings in the data folder)
    .venv/bin/python bench/context_features.py out.json ../shared/datasets/codebase

For every (question, relevant chunk) pair, the chunk's rank with LLM contexts is compared with its rank without
contexts (same mode; not in the top 100 counts as 101): helped, hurt or same, and the mean change of
log2(rank). Each feature of the chunk's context is cut into three equal-count bands; a feature that predicts
usefulness shows "helped" rising (or falling) across its bands. The quality score and its parts are among the
features, so this is also the test of the score.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_rag.core.contexts.eval_quality import tertile_cuts
from desktop_rag.core.contexts.quality import content_words
from desktop_rag.core.dense.tokens import token_counter
from desktop_rag.core.evaluation.evaluation import load_dataset

_IDENTIFIER = re.compile(r"\b(?:[a-z]+[A-Z_][A-Za-z0-9_]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*|\w+\.\w+)\b")
NOT_FOUND = 101


def features(context: dict, chunk: str, document: str, pieces: tuple[int, int]) -> dict[str, float]:
    text = context["text"]
    own, in_chunk, in_doc = content_words(text), content_words(chunk), content_words(document)
    identifiers = set(_IDENTIFIER.findall(text))
    chunk_pieces, both_pieces = pieces
    row = {
        "context words": len(text.split()),
        "share of words new to the chunk": len(own - in_chunk) / max(len(own), 1),
        "words from elsewhere in the document": len((own - in_chunk) & in_doc),
        "identifiers new to the chunk": sum(1 for i in identifiers if i not in chunk),
        "chunk pieces": chunk_pieces,
        "context + chunk pieces": both_pieces,
        "quality": context["quality"] or 0.0,
    }
    for name, value in (context.get("breakdown") or {}).items():
        row[f"quality: {name}"] = value
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("dataset", type=Path)
    args = parser.parse_args()
    rows = json.loads(args.report.read_text())
    dataset = load_dataset(args.dataset)
    chunks = {c["_id"]: c for c in dataset.chunks}
    documents = {d["_id"]: d["text"] for d in dataset.documents}
    plain = {r["config"]["mode"]: r for r in rows if r["config"]["contexts"] == "none"}
    counter = token_counter()

    for row in rows:
        if row["config"]["contexts"] != "llm" or row["config"]["rerank"] or not row.get("contexts"):
            continue
        mode = row["config"]["mode"]
        base = plain[mode]["relevant_ranks"]
        contexts = row["contexts"]
        names = sorted({name for ranks in row["relevant_ranks"].values() for name in ranks
                        if contexts.get(name, {}).get("source") == "llm"})
        texts = [chunks[n]["text"] for n in names]
        both = [contexts[n]["text"] + "\n\n" + chunks[n]["text"] for n in names]
        counted = dict(zip(names, zip(counter.count(texts), counter.count(both))))
        pairs = []
        for query_id, ranks in row["relevant_ranks"].items():
            for name, rank in ranks.items():
                if name not in counted:
                    continue
                before, after = base[query_id].get(name) or NOT_FOUND, rank or NOT_FOUND
                chunk = chunks[name]
                pairs.append((features(contexts[name], chunk["text"], documents[chunk["doc_id"]], counted[name]),
                              math.log2(before) - math.log2(after)))
        print(f"\n{row['config']['contexts']} contexts, {mode}: {len(pairs)} (question, relevant chunk) pairs; "
              f"gain = log2(rank before) - log2(rank after), > 0 helped")
        print(f"  {'feature':<38}{'band':>16}{'pairs':>7}{'helped':>8}{'hurt':>6}{'same':>6}{'mean gain':>11}")
        for feature in pairs[0][0]:
            cuts = tertile_cuts([f[feature] for f, _ in pairs])
            named = False
            for band in range(3):
                low = -math.inf if band == 0 else cuts[band - 1]
                high = math.inf if band == 2 else cuts[band]
                members = [gain for f, gain in pairs if low <= f[feature] < high]
                if not members:
                    continue
                label = f"< {high:.3g}" if band == 0 else f">= {low:.3g}" if band == 2 else f"{low:.3g}–{high:.3g}"
                helped = sum(g > 0 for g in members)
                hurt = sum(g < 0 for g in members)
                print(f"  {'' if named else feature:<38}{label:>16}{len(members):>7}{helped:>8}{hurt:>6}"
                      f"{len(members) - helped - hurt:>6}{sum(members) / len(members):>11.3f}")
                named = True


if __name__ == "__main__":
    main()

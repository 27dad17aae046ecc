"""The numbers retrieval is tuned by, each beside the measurement that chose it (docs/benchmarks.md, "Search
quality"). A person's own knobs — candidates per retriever, the fusion and its weight, reranking — are settings
(config.py). A change here runs the retrieval check (`python bench/retrieval_check.py`) on all three sets."""

# A passage holding the query's `DiffExecutor`, `run_target` or `0x1F` verbatim gains this × the share of them it
# holds. bench/signals.py over six set × contexts cells: codebase/rules R@5 86.4 → 87.0, R@10 92.4 → 92.6; 12
# questions' first relevant passage up, none down; 0.15–0.3 changed nothing (docs/benchmarks.md, issues 26, 48).
EXACT_IDENTIFIER_WEIGHT = 0.1

# Below GOOD_MATCH a hit is a weak match; a result with no hit above it says "no good match". bench/fusion.py
# (docs/benchmarks.md "Languages and fusion"): jsquad's real questions' best hit p5 0.70, p50 0.94, 0.4% below
# 0.5; codebase p5 0.55, p50 0.88, 3.9% below; nonsense queries 0.15–0.40.
GOOD_MATCH = 0.5
STRONG_MATCH = 0.8  # the label "strong" (not measured: a judgement between GOOD_MATCH and the real questions' p50)
# A cosine this far above the candidates' median counts as a full-strength match in meaning (not measured on its
# own: the strengths above were measured with it).
FULL_MARGIN = 0.12

# Weak hits listed after good ones: the nearest misses, not a page of them. "radiator", in one file of 864, gave
# its file and 29 unrelated weak hits under it (issue 60, 8); where nothing is a good match, all are shown as such.
WEAK_AFTER_GOOD = 3

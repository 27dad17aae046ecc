"""Contexts: the short text that situates a chunk in its document before it is indexed.

- `base`: what every contextualizer offers (the interface callers use);
- `rules`: the cheap ones, `none` and `rules`;
- `choice`: the contextualizer a setting names, built over the LLM's (core/llm), which builds on `rules`;
- `quality`: the score of a context, and its breakdown; `eval_quality`: how well it predicts retrieval;
- `upgrade`: the background work that replaces rules contexts by LLM ones.
Dependencies point one way: base ← rules ← core/llm ← choice. This file imports none of them, so that the LLM's
modules can import `rules` without the package pulling `choice` (and so themselves) in first.
"""

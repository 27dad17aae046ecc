"""Contexts: the short text that situates a chunk in its document before it is indexed.

- `base`: what every contextualizer offers (the interface callers use);
- `rules`: the cheap ones, `none` and `rules`;
- `llm_contexts`: the LLM's, over the models and prompts of core/llm, falling back to `rules`;
- `choice`: the contextualizer a setting names;
- `quality`: the score of a context, and its breakdown; `eval_quality`: how well it predicts retrieval.
The background work that replaces rules contexts by LLM ones is a run: core/indexing/upgrade.py.
Dependencies point one way: base ← rules ← llm_contexts ← choice, and contexts → core/llm, never back. This file
imports none of them, so that importing `rules` does not pull `choice` in first.
"""

"""Local language models for contexts: where the GGUF files come from, how they are run, what they are asked."""

"""A generated context as the catalog stores it: its columns, and their values from a ContextResult (an insert, an
upgrade and a regeneration all write the same ones)."""

from __future__ import annotations

import json

from desktop_rag.documents import ContextResult

# The columns a generated context fills, in this order, by insert and by upgrade alike.
CONTEXT_COLUMNS = ("text", "source", "model", "prompt_version", "quality", "quality_detail", "prompt_tokens",
                   "completion_tokens", "seconds", "questions")


def context_values(context: ContextResult) -> tuple:
    detail = json.dumps(context.quality_detail) if context.quality_detail is not None else None
    return (context.text, context.source, context.model, context.prompt_version, context.quality, detail,
            context.prompt_tokens, context.completion_tokens, context.seconds, context.questions)

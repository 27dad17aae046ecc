"""The prompts, versioned: every stored context records the version that wrote it, so a change of prompt can
be told apart (and upgraded) later.

Shaped by measurement (context-experiment.md): the published per-chunk prompt made small models copy the
chunk back; a system line forbidding copying and a short, specific question gave usable contexts. The document
comes first and identically in every prompt, so llama.cpp evaluates it once per document.
"""

from __future__ import annotations

PROMPT_VERSION = "ctx-2"  # stored with each context as "ctx-2/<levels>"; ctx-1 repeated the chunk in its question

SYSTEM = "You write short search contexts for passages of a person's files. Never copy the passage or the document."

DOCUMENT_SUMMARY = (
    "In 2 sentences of your own words, say what this document is and does, naming its key "
    "types, functions, people or topics."
)

# The document carries a mark at each chunk's start (excerpts.py): the question names it and quotes the chunk's
# first words, so the chunk itself is not repeated.
CHUNK_CONTEXT = (
    'In 1 sentence of your own words, say what part {mark} of the document (it begins: "{opening}") covers '
    "and where it sits, naming key identifiers."
)
_OPENING_WORDS = 10


def chunk_question(mark: str, chunk_text: str) -> str:
    opening = " ".join(chunk_text.split()[:_OPENING_WORDS])[:100].replace('"', "'")
    return CHUNK_CONTEXT.format(mark=mark, opening=opening)


def document_messages(document_excerpt: str, question: str) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"<document>\n{document_excerpt}\n</document>\n\n{question}"},
    ]

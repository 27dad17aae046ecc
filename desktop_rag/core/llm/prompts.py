"""The prompts, versioned: every stored context records the version that wrote it, so a change of prompt can
be told apart (and upgraded) later.

Shaped by measurement (context-experiment.md): the published per-chunk prompt made small models copy the
chunk back; a system line forbidding copying and a short, specific question gave usable contexts. The document
comes first and identically in every prompt, so llama.cpp evaluates it once per document.
"""

from __future__ import annotations

PROMPT_VERSION = "ctx-1"  # stored with each context as "ctx-1/<levels>"

SYSTEM = "You write short search contexts for passages of a person's files. Never copy the passage or the document."

DOCUMENT_SUMMARY = (
    "In 2 sentences of your own words, say what this document is and does, naming its key "
    "types, functions, people or topics."
)

CHUNK_CONTEXT = (
    "Here is a passage from that document:\n<passage>\n{passage}\n</passage>\n\n"
    "In 1 sentence of your own words, say which part of the document this passage is and what it covers there, "
    "naming key identifiers."
)


def document_messages(document_excerpt: str, question: str) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"<document>\n{document_excerpt}\n</document>\n\n{question}"},
    ]

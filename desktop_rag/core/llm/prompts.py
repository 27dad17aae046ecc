"""The prompts, versioned: every stored context records the version that wrote it, so a change of prompt can
be told apart (and upgraded) later.

Shaped by measurement (DEVELOPERS.md, "Findings the code relies on"): the published per-chunk prompt made small
models copy the chunk back; a system line forbidding copying and a short, specific question gave usable contexts.
The document comes first and identically in every prompt, so llama.cpp evaluates it once per document.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_rag.core.text.scripts import document_in_japanese

# Stored with each context as "ctx-3/<levels>". ctx-1: chunk questions one at a time. ctx-2: chunks marked in the
# document and asked by mark (2.2x cheaper, but measured worse: hybrid R@20 96.1 vs 98.4 on the eval subset).
# ctx-3: ctx-1's question, answered in batches, stopping at the first sentence.
PROMPT_VERSION = "ctx-3"

SYSTEM = "You write short search contexts for passages of a person's files. Never copy the passage or the document."

DOCUMENT_SUMMARY = (
    "In 2 sentences of your own words, say what this document is and does, naming its key "
    "types, functions, people or topics."
)

# A long document is shown as its head, "[…]", then one section; its chunks get this sentence besides the summary.
SECTION_SUMMARY = (
    "The document is shown as its beginning, then, after […], one later section. In 1 sentence of your own "
    "words, say what that section covers, naming its key identifiers."
)

# The chunk is repeated after the document: naming it by a mark in the document instead (ctx-2) saved its
# prompt tokens, but the 1.5B model then situated it less well.
CHUNK_CONTEXT = (
    "Here is a passage from that document:\n<passage>\n{passage}\n</passage>\n\n"
    "In 1 sentence of your own words, say which part of the document this passage is and what it covers there, "
    "naming key identifiers."
)
# Questions the chunk answers (doc2query), asked in the same answer after the sentence: the document and the chunk
# are read once for both, so the questions cost only their own words.
CHUNK_QUESTIONS = "\nAnswer in this form, without answering the questions:\nContext: <that sentence>\n{lines}"
QUESTION_LINE = "Q: <a short question this passage answers>"


# Japanese documents are asked in Japanese, so the model answers in the document's language (an English context on
# a Japanese chunk is noise to both indexes); the questions say the same as the English ones.
JAPANESE_SYSTEM = ("あなたは個人のファイルの一節に短い検索用の文脈を書きます。"
                   "一節や文書をそのまま写してはいけません。日本語で答えてください。")
JAPANESE_DOCUMENT_SUMMARY = ("この文書が何についての文書かを、重要な人名・用語・話題を挙げて、"
                             "自分の言葉で2文で説明してください。")
JAPANESE_SECTION_SUMMARY = (
    "文書は冒頭と、[…]の後に後の方の一つの節として示されています。その節が何を扱っているかを、重要な用語を挙げて"
    "自分の言葉で1文で説明してください。")
JAPANESE_CHUNK_CONTEXT = (
    "この文書の一節です：\n<passage>\n{passage}\n</passage>\n\n"
    "このチャンクがドキュメント内のどの位置にあり、何について述べているかを、重要な用語を挙げて1文で簡潔に説明してください。")
JAPANESE_CHUNK_QUESTIONS = "\n次の形で答えてください（質問には答えないでください）：\n文脈：<その1文>\n{lines}"
JAPANESE_QUESTION_LINE = "Q: <この一節で答えられる短い質問>"


@dataclass(frozen=True)
class Prompts:
    language: str
    system: str
    document_summary: str
    section_summary: str
    chunk_context: str
    chunk_questions: str
    question_line: str

    @property
    def japanese(self) -> bool:
        return self.language == "ja"

    def chunk_question(self, chunk_text: str, quote_chars: int = 0, questions: int = 0) -> str:
        """The chunk question; with `quote_chars`, only the chunk's beginning is quoted (cut between words); with
        `questions`, that many questions the chunk answers are asked for after the sentence."""
        question = self.chunk_context.format(passage=quoted(chunk_text, quote_chars))
        lines = "\n".join([self.question_line] * questions)
        return question + (self.chunk_questions.format(lines=lines) if questions else "")

    def document_messages(self, document_excerpt: str, question: str) -> list[dict]:
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": f"<document>\n{document_excerpt}\n</document>\n\n{question}"},
        ]


ENGLISH = Prompts("en", SYSTEM, DOCUMENT_SUMMARY, SECTION_SUMMARY, CHUNK_CONTEXT, CHUNK_QUESTIONS, QUESTION_LINE)
JAPANESE = Prompts("ja", JAPANESE_SYSTEM, JAPANESE_DOCUMENT_SUMMARY, JAPANESE_SECTION_SUMMARY, JAPANESE_CHUNK_CONTEXT,
                   JAPANESE_CHUNK_QUESTIONS, JAPANESE_QUESTION_LINE)


def prompts_for(document_text: str) -> Prompts:
    """Japanese prompts for a Japanese document (Chinese has no kana)."""
    return JAPANESE if document_in_japanese(document_text) else ENGLISH


def chunk_question(chunk_text: str, quote_chars: int = 0) -> str:
    return ENGLISH.chunk_question(chunk_text, quote_chars)


def quoted(text: str, limit: int) -> str:
    if not limit or len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip() + " …"


def document_messages(document_excerpt: str, question: str) -> list[dict]:
    return ENGLISH.document_messages(document_excerpt, question)

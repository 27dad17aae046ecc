"""`desktop-rag mcp`: the library's tools for local AI assistants, as a Model Context Protocol server over stdio
(the official `mcp` SDK, 2.x: `MCPServer`). Logs go to stderr; while it serves, the SDK points fd 1 at stderr too,
so nothing a library or a child process prints can corrupt the protocol on stdout.

Every call goes through the one door of the front ends (service/client.py): to the process that holds the library
warm (the service, `watch` or `serve`) when one answers, else to a library of this process's own.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Literal

from desktop_rag.errors import UserError, user_message
from desktop_rag.service.client import LibraryClient
from desktop_rag.service.operations import REQUIRED
from desktop_rag.service.wire import OPERATIONS

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "desktop-rag searches the user's own files (documents, notes, code, scans) on this computer, offline. Each "
    "chunk of a file was indexed with a short context situating it in its document (contextual retrieval). Search "
    "first; read around a hit with the chunk resource (desktop-rag://chunks/{chunk_id}) or the whole document "
    "(desktop-rag://documents/{document_id}); re-index after files changed and follow the run's progress. "
    "answer_from_files answers a question with every sentence citing, and checked against, the passages found."
)


def _as_tool_error(exc: Exception) -> Exception:
    """A person's (or an agent's) mistake or a state to act on, as the tool's error text; a bug stays a bug."""
    from mcp.server.mcpserver.exceptions import ToolError

    message = user_message(exc)
    return ToolError(message) if message is not None else exc


def build_server(data_dir: Path):
    import anyio
    from mcp.server.mcpserver import MCPServer

    backend = LibraryClient(data_dir, start_service=True)  # the service answers, started if need be
    server = MCPServer(name="desktop-rag", instructions=INSTRUCTIONS)

    async def call(method: str, **params):
        try:
            return await anyio.to_thread.run_sync(lambda: backend.call(method, **params))
        except UserError as exc:
            raise _as_tool_error(exc) from None
        except OSError as exc:
            raise _as_tool_error(exc) from None

    @server.tool(structured_output=True)
    async def search_with_contextual_retrieval(
            query: str = "", limit: int = 10, mode: Literal["hybrid", "dense", "bm25"] = "hybrid",
            rerank: bool | None = None, score_threshold: float | None = None, folder: str | None = None,
            folders: list[str] | None = None, types: list[str] | None = None, after: str | None = None,
            before: str | None = None, sender: str | None = None,
            sort: Literal["relevance", "newest", "oldest"] = "relevance",
            similar_to: int | None = None) -> dict[str, Any]:
        """Search the user's indexed files. Hybrid search (meaning + keywords) over chunks indexed with their
        contexts. Returns hits best first, each with path, page, chunk_id, chunk_index, start_char/end_char in the
        document's text, the context (and its source: rules, llm or manual, with its quality), the chunk's text,
        ocr_confidence for scanned pages, family (pdf, word, slides, spreadsheet, mail, image, code, ebook, text),
        dated (epoch seconds: a mail's sent date, else the file's modification time), metadata (author, created,
        modified; for e-mail from, to, cc, date, and attached_to for an attachment), and scores (strength 0-1: what
        a person is shown), copies (other paths holding the same content, stored as its copies: "also at"). A path
        with " › " is a document inside a file (an archive member, a mailbox's message, an attachment).
        Filters narrow the search itself (a filter matching 3 chunks returns those 3): folders (absolute folders,
        their whole subtree, or a folder's name anywhere), types (families above, or extensions like docx, xlsx,
        eml), after / before (2025, 2025-03, 2025-03-14, or 7d / 4w / 6m / 1y ago; both ends include the period
        named), sender (part of a mail's From). The query may hold the same as words: type:pdf in:~/Work
        after:2025-03 before:2025-06-30 from:anna; a query of filters alone lists their documents, newest first.
        sort: relevance, newest or oldest. similar_to: a chunk_id; returns the chunks nearest to it in meaning
        (the query is then ignored). score_threshold drops hits below that strength; folder keeps hits inside one
        indexed folder."""
        return await call("search", query=query, limit=limit, mode=mode, rerank=rerank,
                          score_threshold=score_threshold, folder=folder, folders=folders, types=types, after=after,
                          before=before, sender=sender, sort=sort, similar_to=similar_to)

    @server.tool(structured_output=True)
    async def generate_context_for_chunk(chunk_id: int | None = None, text: str | None = None,
                                         document_path: str | None = None, max_words: int | None = None,
                                         store: bool = False) -> dict[str, Any]:
        """Write the context that situates a chunk in its document, as the configured contextualizer would: for a
        stored chunk (chunk_id from a search hit), or for `text` taken from the indexed document at
        document_path. Not stored unless store is true (then the chunk gets a new LLM context, re-indexed). With the
        llm_questions setting, `questions` lists questions the chunk answers, written with the context."""
        return await call("generate_context", chunk_id=chunk_id, text=text, document_path=document_path,
                          max_words=max_words, store=store)

    @server.tool(structured_output=True)
    async def reindex_with_context(paths: list[str] | None = None,
                                   contexts: Literal["auto", "llm", "rules", "none"] = "auto") -> dict[str, Any]:
        """Re-index files or folders inside the indexed folders (all of them when paths is left out): changed
        files are read again with contexts written as `contexts` says; unchanged ones are skipped. Returns at once
        with a run_id; follow it with get_reindexing_progress."""
        return await call("reindex", paths=paths, contexts=contexts)

    @server.tool(structured_output=True)
    async def get_reindexing_progress(run_id: str | None = None) -> dict[str, Any]:
        """A re-indexing run's state (queued, running, finished, cancelled, failed), its phases with counts and
        rates, share done, seconds left, the file in hand, and the files that could not be indexed with why.
        Without run_id: the run in progress, else the latest."""
        return await call("progress", run_id=run_id)

    @server.tool(structured_output=True)
    async def get_contextual_retrieval_stats() -> dict[str, Any]:
        """What is indexed: documents (indexed, failed, skipped), chunks, contexts by source, contexts waiting for
        the LLM, mean context quality, LLM tokens and time, the models, scanned pages read by OCR, index sizes."""
        return await call("stats")

    @server.tool(structured_output=True)
    async def answer_from_files(question: str, passages: int | None = None, folders: list[str] | None = None,
                                types: list[str] | None = None, after: str | None = None, before: str | None = None,
                                sender: str | None = None) -> dict[str, Any]:
        """Answer a question from the user's files with the local model: a few sentences, each citing the passages
        it stands on by their number in `hits` ([1] is hits[0]) and checked against them (`supported`; `reason`
        says what a passage lacks). `evidence`: the passages' sentences that best answer it, found first.
        `not_said`: the files don't seem to say (no good match, or the passages do not answer). `passages`: how
        many the model is given (default: the app's, 3). Filters as in search."""
        return await call("ask", question=question, passages=passages, folders=folders, types=types, after=after,
                          before=before, sender=sender)

    async def read(method: str, what: str, given: str, name: str) -> str:
        """A resource's answer; a wrong id or a document not served is said to the agent as such (the SDK turns
        any other exception into a generic error naming only the address)."""
        from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError

        if not given.isascii() or not given.isdigit() or int(given) < 1:
            raise ResourceNotFoundError(f"{given!r} is not a {what} id: ids are whole numbers from 1, as search "
                                        "results give them")
        try:
            return json.dumps(await call(method, **{name: int(given)}), ensure_ascii=False)
        except ToolError as exc:  # a user error (`call` makes them ToolErrors): said as it is
            raise ResourceNotFoundError(str(exc)) from None

    @server.resource("desktop-rag://documents/{document_id}", mime_type="application/json")
    async def document(document_id: str) -> str:
        """An indexed document's whole extracted text, with its chunks' ids and places."""
        return await read("document", "document", document_id, "doc_id")

    @server.resource("desktop-rag://chunks/{chunk_id}", mime_type="application/json")
    async def chunk(chunk_id: str) -> str:
        """A chunk in its document: its context, its text and the text just before and after it."""
        return await read("chunk", "chunk", chunk_id, "chunk_id")

    _schemas_from_the_declaration(server)
    server.backend = backend  # kept with the server for its tools' calls
    return server


# The operation of service/operations.py behind each tool.
TOOL_OPERATIONS = {"search_with_contextual_retrieval": "search", "generate_context_for_chunk": "generate_context",
                   "reindex_with_context": "reindex", "get_reindexing_progress": "progress",
                   "get_contextual_retrieval_stats": "stats", "answer_from_files": "ask"}


def _schemas_from_the_declaration(server) -> None:
    """Each tool's JSON schema is its operation's declaration (ranges, lengths and choices included), which the
    endpoint checks every call against; a tool whose arguments differ from it stops the server at start. An
    argument a tool does not have is an error: the SDK's argument models ignore unknown names by default, and an
    agent that misspelt `limit` would never know."""
    for tool in server._tool_manager.list_tools():
        operation = OPERATIONS[TOOL_OPERATIONS[tool.name]]
        model = tool.fn_metadata.arg_model
        takes = {name: REQUIRED if field.is_required() else field.default for name, field in model.model_fields.items()}
        declared = {argument.name: argument.default for argument in operation.agents_arguments()}
        if takes != declared:
            raise RuntimeError(f"the tool {tool.name} takes {takes}, its operation {operation.name} {declared}")
        model.model_config["extra"] = "forbid"
        model.model_rebuild(force=True)
        tool.parameters = operation.json_schema()


def serve_stdio(data_dir: Path) -> int:
    logging.basicConfig(level=logging.WARNING, format="desktop-rag mcp: %(message)s")  # to stderr
    logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs each index build
    server = build_server(data_dir)
    try:
        server.run("stdio")
    finally:
        server.backend.close()
    return 0

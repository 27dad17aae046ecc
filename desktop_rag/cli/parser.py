"""The `desktop-rag` command's arguments: every command, its options and their help (the commands themselves are
in cli/commands.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop_rag.config import CONTEXT_CHOICES
from desktop_rag.core.search.filters import FAMILY_NAMES
from desktop_rag.core.search.modes import MODES, SORTS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="desktop-rag", description="Search your own files offline, with contextual retrieval."
    )
    parser.add_argument("--data-dir", help="where the catalog and indexes live (default: $DESKTOP_RAG_DATA_DIR, "
                        "else the platform's user data folder)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    index = commands.add_parser("index", help="index files and folders (unchanged files are skipped)")
    index.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    index.add_argument("--contexts", choices=CONTEXT_CHOICES, help="how passage contexts are written (default: auto)")
    index.add_argument("--json", action="store_true", help="print the summary as JSON")
    _local_write(index)

    search = commands.add_parser("search", help="search the index")
    search.add_argument("query", nargs="?", help="the question or keywords; may hold filter words: type:pdf "
                        "in:~/Work after:2025-03 before:2025-06-30 from:anna (alone, they list their documents)")
    search.add_argument("--queries", type=Path, metavar="FILE.jsonl",
                        help='batch mode: one {"_id", "text"} object per line; prints one JSON result per line')
    search.add_argument("-k", type=_positive, default=10, help="number of results (default 10)")
    search.add_argument("--mode", choices=MODES, default="hybrid",
                        help="hybrid: by meaning and by keywords (default); dense: by meaning alone; bm25: by "
                        "keywords alone")
    search.add_argument("--rerank", action=argparse.BooleanOptionalAction, default=None,
                        help="rerank with the configured reranking model (default: the rerank setting)")
    search.add_argument("--in", dest="folders", action="append", default=[], metavar="FOLDER",
                        help="only files under FOLDER (a path, or a folder's name anywhere); may be repeated")
    search.add_argument("--type", dest="types", action="append", default=[], metavar="TYPE",
                        help=f"only this kind of file: {', '.join(FAMILY_NAMES)}, or an extension (docx, eml…); "
                        "may be repeated")
    search.add_argument("--after", metavar="DATE", help="dated on or after DATE: 2025, 2025-03, 2025-03-14, or 7d, "
                        "4w, 6m, 1y ago (a mail's sent date, else the file's modification time)")
    search.add_argument("--before", metavar="DATE", help="dated on or before DATE (the whole day, month or year)")
    search.add_argument("--from", dest="sender", metavar="NAME", help="mail (and its attachments) from NAME "
                        "(part of the name or address)")
    search.add_argument("--sort", choices=SORTS, default="relevance")
    search.add_argument("--similar", type=int, metavar="PASSAGE_ID",
                        help="the passages nearest in meaning to this passage (a hit's chunk_id in --json) "
                        "instead of a query")
    search.add_argument("--json", action="store_true")
    search.add_argument("--local", action="store_true", help="search in this process even when the app, `watch` "
                        "or `serve` runs and would answer at once with its models loaded")

    ask = commands.add_parser("ask", help="answer a question from your files, every sentence citing a passage")
    ask.add_argument("question", help="the question; may hold filter words as search does (type:mail from:anna)")
    ask.add_argument("--in", dest="folders", action="append", default=[], metavar="FOLDER",
                     help="only files under FOLDER; may be repeated")
    ask.add_argument("--type", dest="types", action="append", default=[], metavar="TYPE", help="only this kind of file")
    ask.add_argument("--after", metavar="DATE", help="dated on or after DATE")
    ask.add_argument("--before", metavar="DATE", help="dated on or before DATE")
    ask.add_argument("--from", dest="sender", metavar="NAME", help="mail from NAME")
    ask.add_argument("--json", action="store_true", help="print the answer, its checks and its passages as JSON")
    ask.add_argument("--local", action="store_true", help="answer in this process (see search)")

    stats = commands.add_parser("stats", help="what is indexed")
    stats.add_argument("--json", action="store_true")
    stats.add_argument("--local", action="store_true", help="read the library in this process (see search)")

    commands.add_parser("serve", help="hold the library's models loaded and answer `search`, `stats` and `mcp` "
                        "from other processes at once (what the app and `watch` do too); Ctrl-C stops")
    commands.add_parser("mcp", help="a Model Context Protocol server over stdio, for local AI assistants")

    watch = commands.add_parser("watch", help="keep the index in line with folders as files change (Ctrl-C stops)")
    watch.add_argument("paths", nargs="*", type=Path, metavar="FOLDER",
                       help="folders to watch (default: every folder indexed so far)")
    watch.add_argument("--upgrade", action=argparse.BooleanOptionalAction, default=None,
                       help="write LLM contexts while the folders are quiet (default: the llm_upgrade_when_idle "
                            "setting, with contexts auto, when the computer is idle as the settings say; "
                            "--upgrade: whenever the folders are quiet)")
    watch.add_argument("--json", action="store_true", help="one JSON object per line for each applied change")

    service = commands.add_parser("service", help="keep the index fresh in the background: follow every indexed "
                                  "folder, write LLM contexts by the schedule, answer the window, `search` and "
                                  "`mcp` (one per data folder; `desktop-rag stop` ends it)")
    service.add_argument("--json", action="store_true", help="one JSON object per line for each applied change")
    service.add_argument("--rebuild-damaged-catalog", action="store_true",
                         help="a damaged catalog is first made anew from the folders, as `doctor --repair` does "
                         "(the window's “Rebuild from my folders”)")
    commands.add_parser("quick", help="a small search-as-you-type popup answered by the background service (bind "
                        "it to a key; Enter opens, Ctrl+Enter opens the folder, Esc closes)")
    commands.add_parser("tray", help="an icon in the desktop's tray: what the window or the background service is "
                        "doing, Search…, Pause/Resume, Open, Quit (the window starts it where there is a tray)")
    status = commands.add_parser("status", help="what the background service is doing, in one line (indexing 42%%, "
                                 "paused, idle): what the tray and the window show")
    status.add_argument("--json", action="store_true", help="the state as the service keeps it (share done, time "
                        "left, paused, the run in hand)")
    commands.add_parser("stop", help="stop the process answering for the data folder (the service, `watch`, "
                        "`serve`); what it applied is kept")

    # The writes below go to the service answering for the data folder (it writes the library alone, and its
    # clients hear of it); --local, or no service answering: in this process, under the writer's lock.
    rebuild = commands.add_parser("rebuild", help="rebuild the meaning and keyword indexes from the catalog (no file "
                                  "is read again; `index` reads files)")
    _local_write(rebuild)

    doctor = commands.add_parser("doctor", help="check that the catalog and both indexes agree (--repair mends them)")
    doctor.add_argument("--repair", action="store_true", help="rebuild from the catalog what disagrees")
    doctor.add_argument("--json", action="store_true")
    _local_write(doctor)

    upgrade = commands.add_parser("contextualize", help="write LLM contexts for passages that have rules contexts")
    upgrade.add_argument("--upgrade", action="store_true", required=True,
                         help="upgrade rules contexts to LLM contexts (hand edits are never touched)")
    upgrade.add_argument("--limit", type=int, help="at most this many documents in this run")
    upgrade.add_argument("--json", action="store_true")
    _local_write(upgrade)

    first = commands.add_parser("upgrade-first", help="write LLM contexts for these folders' documents before all "
                                                      "others (--off: no longer); with no folder, list them")
    first.add_argument("folders", nargs="*", type=Path)
    first.add_argument("--off", action="store_true")
    _local_write(first)

    context = commands.add_parser("context", help="show a passage's context, or set it by hand, or revert the edit")
    context.add_argument("chunk_id", type=int, metavar="PASSAGE_ID",
                         help="a search hit's passage number (its chunk_id in search --json)")
    edit = context.add_mutually_exclusive_group()
    edit.add_argument("--set", metavar="TEXT", help="replace the context by this text (kept through re-indexing)")
    edit.add_argument("--revert", action="store_true", help="back to the generated context")
    edit.add_argument("--regenerate", action="store_true",
                      help="write a new context with the LLM (replaces a hand edit too)")
    context.add_argument("--questions", metavar="TEXT",
                         help="the questions the passage answers, one per line (keyword-indexed; kept like --set)")
    context.add_argument("--json", action="store_true")
    _local_write(context)

    settings = commands.add_parser("settings", help="show settings, or set one: settings KEY VALUE")
    settings.add_argument("key", nargs="?")
    settings.add_argument("value", nargs="?")

    evaluate = commands.add_parser("eval", help="measure retrieval on a pre-chunked dataset (BEIR-like layout)")
    evaluate.add_argument("dataset", type=Path, metavar="DATASET_DIR")
    evaluate.add_argument("--contexts", choices=CONTEXT_CHOICES, default="rules")
    evaluate.add_argument("--mode", type=_modes, default=["hybrid"], metavar="MODE[,MODE…]",
                          help=f"one or more of {', '.join(MODES)} (dense: by meaning; bm25: by keywords), "
                               "comma-separated, scored on one index (default hybrid)")
    evaluate.add_argument("--rerank", action=argparse.BooleanOptionalAction, default=False)
    evaluate.add_argument("-k", default="5,10,20", help="cut-offs, comma-separated (default 5,10,20)")
    evaluate.add_argument("--all", action="store_true", help="print the comparison table of configurations")
    evaluate.add_argument("--every", type=int, default=1, metavar="N",
                          help="only every N-th document and the queries answered inside them (for slow "
                               "configurations)")
    evaluate.add_argument("--answers", action="store_true",
                          help="measure answers instead (ask each question as `ask` does): right, citation "
                               "precision, sentences not found in the files, abstention, seconds")
    evaluate.add_argument("--baseline", action="store_true",
                          help="with --answers: the same model given the top passages plainly, without the answer "
                               "format, the checks or the evidence")
    evaluate.add_argument("--unanswerable", type=Path, metavar="FILE.jsonl",
                          help="with --answers: questions the set does not hold ({\"text\": …} a line); default the "
                               "dataset's unanswerable.jsonl if it has one")
    evaluate.add_argument("--questions", type=int, metavar="N", help="at most N questions, evenly spread")
    evaluate.add_argument("--json", action="store_true")
    evaluate.add_argument("--compare", type=Path, metavar="OLD.json",
                          help="print this run beside an earlier `eval --json` run: recall per mode and cut-off, "
                               "and the questions that moved past a cut-off")

    commands.add_parser("demo", help="index the bundled sample documents and run a few searches")
    gui = commands.add_parser("gui", help="open the desktop app (also what the bare command does); when it is open "
                              "already, bring its window forward")
    gui.add_argument("--search", metavar="QUERY", help="with this query in the search field")
    return parser


def _local_write(command: argparse.ArgumentParser) -> None:
    command.add_argument("--local", action="store_true", help="write in this process, not through the running "
                         "service (refused while one holds the data folder: `desktop-rag stop` first)")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _modes(text: str) -> list[str]:
    """"hybrid,bm25" → ["hybrid", "bm25"], each one of the search's modes."""
    modes = [mode.strip() for mode in text.split(",") if mode.strip()]
    wrong = [mode for mode in modes if mode not in MODES]
    if wrong or not modes:
        raise argparse.ArgumentTypeError(
            f"not a mode: {', '.join(wrong) or repr(text)} (choose from {', '.join(MODES)})")
    return modes

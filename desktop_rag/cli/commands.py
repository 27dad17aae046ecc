"""The `desktop-rag` command: a thin layer over desktop_rag.core.library.library.Library.

Results go to stdout (JSON with --json), progress and messages to stderr, so scripts can pipe the output.
"""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import asdict
from pathlib import Path

from desktop_rag.cli import ask_command, through_service as cli_service, writes as cli_writes
from desktop_rag.cli.parser import build_parser
from desktop_rag.cli.terminal import HarmlessStream
from desktop_rag.config import OPTIONS, Settings, describe, parse_setting
from desktop_rag.data_folders import resolve_data_dir
from desktop_rag.cli.writes import (EXIT_ERROR, EXIT_INTERRUPTED, INTERRUPTED_MESSAGE, cancelled_by_signals,
                                    interrupted, name_this_process, open_library_for_writing)
from desktop_rag.core.search.filters import make_filters
from desktop_rag.errors import BadInput, user_message
from desktop_rag.service import wire
from desktop_rag.logs import (LAST_WORDS, ROLE_OF_COMMAND, SHOWN, log_path, log_to_data_folder, log_to_terminal,
                              stop_logging)



def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        args.command = "gui"
    data_dir = resolve_data_dir(args.data_dir)
    logs = []
    if args.command not in ("gui", "tray", "quick", "mcp"):  # what a person reads: nothing in it obeyed
        sys.stdout, sys.stderr = HarmlessStream(sys.stdout), HarmlessStream(sys.stderr)
    if args.command != "gui":  # the app logs to its data folder itself, and follows a switch of folder
        name_this_process(args.command)
        logs = [log_to_terminal(), log_to_data_folder(data_dir, ROLE_OF_COMMAND.get(args.command, "cli"))]
    try:
        handler = _COMMANDS[args.command]
        return handler(args, data_dir) or 0
    except KeyboardInterrupt:  # before a command's own handler was there (its first second): nothing was done
        if getattr(args, "json", False):  # a script reading the JSON gets JSON, as after a run cut short
            print(json.dumps({"cancelled": True, "message": INTERRUPTED_MESSAGE}))
        print(f"\n{INTERRUPTED_MESSAGE}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `desktop-rag stats --json | head`: the reader left; nothing to say to it
        _quiet_stdout()
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 — the last resort: one line; a bug's traceback goes to the log
        message = _error_message(exc, log_path(data_dir, ROLE_OF_COMMAND.get(args.command, 'cli')))
        print(f"desktop-rag: {message}", file=sys.stderr)
        # In the log too: a service started by a window ends with its stderr read by nobody, and the window says
        # why from here (service/background_process.py's why_it_ended).
        logging.getLogger(__name__).error("%s%s", LAST_WORDS, message, extra=SHOWN)
        return EXIT_ERROR
    finally:
        for log_handler in logs:
            stop_logging(log_handler)


def _error_message(exc: Exception, log_file: Path) -> str:
    """What a person can act on, as it is; anything else is a bug, kept with its traceback in the log."""
    message = user_message(exc)
    if message is not None:
        return message
    import time
    import traceback

    detail = "".join(traceback.format_exception(exc))
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        with open(log_file, "a", encoding="utf-8") as log:
            log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} internal error in the CLI\n{detail}")
        where = f"the traceback is in {log_file}"
    except OSError:
        sys.stderr.write(detail)
        where = "the traceback is above"
    return (f"internal error ({exc.__class__.__name__}: {exc}); {where}. "
            "Please report it with that traceback.")


def _quiet_stdout() -> None:
    """Python flushes stdout at exit and would print a second BrokenPipeError: point it at nothing."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


# -- index ----------------------------------------------------------------------------------------------------

def cmd_index(args, data_dir: Path) -> int:
    from desktop_rag.cli.output import ProgressPrinter, print_index_summary

    if (through_service := cli_service.index_through_service(args, data_dir)) is not None:
        return through_service  # the process answering for the data folder (the service) indexed them
    with open_library_for_writing(data_dir) as library:
        summary = library.index(args.paths, contexts=args.contexts, on_progress=ProgressPrinter(sys.stderr),
                                control=cancelled_by_signals())
    if args.json:
        print(json.dumps(asdict(summary), indent=2))
    else:
        print_index_summary(summary, sys.stdout)
    return interrupted() if summary.cancelled else 0


# -- search ---------------------------------------------------------------------------------------------------

def cmd_search(args, data_dir: Path) -> int:
    from desktop_rag.cli.output import print_search_result
    from desktop_rag.core.search.searcher import SearchResult
    from desktop_rag.service.client import LibraryClient
    from desktop_rag.service.operations import MAX_LIMIT

    filter_arguments = {"folders": [_folder_argument(f) for f in args.folders],
                        "types": [t for value in args.types for t in value.split(",")],
                        "after": args.after, "before": args.before, "sender": args.sender}
    filters = make_filters(**filter_arguments)  # checked here: a bad date is said before anything is opened
    given = [x for x in (args.query, args.queries, args.similar) if x is not None]
    if len(given) > 1 or (not given and filters.empty):
        raise BadInput("give either a QUERY (or filters alone), --queries FILE.jsonl or --similar CHUNK_ID")
    # Through the one door (service/client.py): the process holding the models loaded answers when there is one
    # (it gives at most MAX_LIMIT hits); if it quits during a batch, the rest of the queries are searched here.
    client = LibraryClient(data_dir, local_only=args.local or args.k > MAX_LIMIT, max_limit=max(args.k, MAX_LIMIT),
                           served_by="search")

    def search(text: str) -> SearchResult:
        return SearchResult.from_dict(client.run(wire.Search(
            query=text, limit=args.k, mode=args.mode, rerank=args.rerank, sort=args.sort, similar_to=args.similar,
            **filter_arguments)))

    try:
        if args.queries is not None:
            for number, line in enumerate(args.queries.read_text(encoding="utf-8").splitlines(), start=1):
                if not line.strip():
                    continue
                item = _query_line(line, number, args.queries)
                result = search(item["text"])
                _print_notices(result)
                out = {"_id": item.get("_id"), "query": item["text"], "results": [h.to_dict() for h in result.hits]}
                print(json.dumps(out), flush=True)
            return 0
        result = search(_terminal_text(args.query or ""))
    finally:
        client.close()
    _print_notices(result)
    if args.json:
        print(json.dumps({
            "query": result.query, "mode": result.mode, "reranked": result.reranked, "notices": result.notices,
            "filters": result.filters.to_dict(), "nothing_left": result.nothing_left,
            "results": [h.to_dict() for h in result.hits], "served_by": result.served_by,
        }, indent=2))
    else:
        print_search_result(result, sys.stdout)
    return 0


def _terminal_text(text: str) -> str:
    """Bytes that are not UTF-8 (a terminal in another encoding) reach Python's argv as lone surrogates, which no
    text sent on may hold (service/operations.py refuses them): they become replacement characters here."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _folder_argument(folder: str) -> str:
    """--in takes a path as the shell gives it (relative to here when it is one), else a folder's name."""
    path = Path(folder).expanduser()
    return str(path.resolve()) if path.is_dir() else folder


def _query_line(line: str, number: int, path: Path) -> dict:
    where = f"{path}, line {number}"
    try:
        item = json.loads(line)
    except ValueError as exc:
        raise BadInput(f"{where} is not JSON ({exc})") from None
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        raise BadInput(f'{where}: expected an object with a "text" string, like {{"_id": "q1", "text": "…"}}')
    return item


def _print_notices(result) -> None:
    for notice in result.notices:
        print(f"note: {notice}", file=sys.stderr)


# -- stats, settings ---------------------------------------------------------------------------------

def cmd_stats(args, data_dir: Path) -> int:
    from desktop_rag.cli.output import print_stats

    from desktop_rag.service.client import LibraryClient

    client = LibraryClient(data_dir, local_only=args.local, served_by="stats")
    try:
        stats = client.run(wire.Stats())  # the same shape from the process holding the library and from here
    finally:
        client.close()
    shown = {k: v for k, v in stats.items() if k not in ("served_by", "model")}
    if args.json:
        print(json.dumps(shown, indent=2))
    else:
        print_stats(shown, [(f["path"], f["reason"]) for f in stats["failures"]], sys.stdout)
    return 0


def cmd_settings(args, data_dir: Path) -> int:
    settings = Settings.load(data_dir)
    current = asdict(settings)
    if args.key is None:
        for key, value in current.items():
            print(f"{key} = {json.dumps(value)}")
        return 0
    if args.key not in current:
        raise BadInput(f"unknown setting {args.key!r}; known: {', '.join(current)}")
    option = OPTIONS[args.key]
    if args.value is None:
        print(json.dumps(current[args.key]))
        choices = f" Choices: {', '.join(option.choices)}." if option.choices else ""
        print("# " + describe(args.key).replace("\n", "\n# ") + choices, file=sys.stderr)
        return 0
    value = parse_setting(args.key, args.value)
    answer = cli_service.change_through_the_service(data_dir, {args.key: value})
    if answer is None:  # nothing runs: the file is the settings' only holder
        settings.change({args.key: value}, data_dir)
        print(f"{args.key} = {json.dumps(getattr(settings, args.key))}")
    else:  # the process writing the library changes it, and its clients (the window) hear it
        print(f"{args.key} = {json.dumps(answer['settings'][args.key])}")
        print(f"(changed in {answer['served_by']})", file=sys.stderr)
    if option.effect:
        print(f"note: {option.effect}", file=sys.stderr)
    return 0


# -- eval, demo -----------------------------------------------------------------------------------------------

def cmd_eval(args, data_dir: Path) -> int:
    from desktop_rag.core.evaluation import evaluation, evaluation_compare

    cutoffs = [int(k) for k in args.k.split(",")]
    dataset = evaluation.every_nth_document(evaluation.load_dataset(args.dataset), args.every)
    if args.questions:
        dataset = evaluation.spread_questions(dataset, args.questions)
    if args.answers:
        return _eval_answers(args, dataset, data_dir)
    if args.all:
        rows = evaluation.compare_configurations(dataset, cutoffs, Settings.load(data_dir), log=sys.stderr)
        if args.json:
            print(json.dumps([asdict(r) for r in rows], indent=2))
        else:
            evaluation.print_table(rows, cutoffs, sys.stdout)
        return 0
    configs = [evaluation.EvalConfig(contexts=args.contexts, mode=mode, rerank=args.rerank) for mode in args.mode]
    earlier = evaluation_compare.load_reports(args.compare) if args.compare else None  # a wrong path fails first
    reports = evaluation.evaluate_modes(dataset, configs, cutoffs, Settings.load(data_dir), log=sys.stderr)
    if args.json:
        print(json.dumps(asdict(reports[0]) if len(reports) == 1 else [asdict(r) for r in reports]))
    else:
        evaluation.print_table(reports, cutoffs, sys.stdout)
    if earlier is not None:
        texts = {query["_id"]: query["text"] for query in dataset.queries}
        evaluation_compare.print_comparison(earlier, [asdict(r) for r in reports], cutoffs,
                                            sys.stderr if args.json else sys.stdout, texts)
    return 0


def _eval_answers(args, dataset, data_dir: Path) -> int:
    from desktop_rag.core.evaluation import answer_quality as answers

    unanswerable_file = args.unanswerable or args.dataset / "unanswerable.jsonl"
    unanswerable = answers.load_unanswerable(unanswerable_file) if unanswerable_file.exists() else []
    report = answers.evaluate_answers(dataset, unanswerable, Settings.load(data_dir), baseline=args.baseline,
                                      log=sys.stderr)
    if args.json:
        print(json.dumps({"figures": report.figures(), "rows": [asdict(r) for r in report.rows]}, indent=2,
                         ensure_ascii=False))
    else:
        answers.print_answers_table([report], sys.stdout)
    return 0


def cmd_serve(args, data_dir: Path) -> int:
    from desktop_rag.service.writer_process import serve

    cli_service.terminate_as_interrupt()
    return serve(data_dir, on_listening=lambda line: print(line, file=sys.stderr, flush=True))


def cmd_mcp(args, data_dir: Path) -> int:
    from desktop_rag.service.mcp_server import serve_stdio

    return serve_stdio(data_dir)


def cmd_gui(args, data_dir: Path) -> int:
    from desktop_rag.ui.app import run_app

    return run_app(data_dir, search=getattr(args, "search", None) or "")


def cmd_doctor(args, data_dir: Path) -> int:
    from desktop_rag.cli.damaged_catalog import rebuild_then_index
    from desktop_rag.core.damaged_catalog.health import catalog_damage

    if args.repair and (damage := catalog_damage(data_dir)):
        return rebuild_then_index(args, data_dir, damage, cmd_index)
    return cli_writes.cmd_doctor(args, data_dir)


def cmd_demo(args, data_dir: Path) -> int:
    from desktop_rag.cli.demo import run_demo

    return run_demo(data_dir)


_COMMANDS = {
    "index": cmd_index,
    "watch": cli_service.cmd_watch,
    "service": cli_service.cmd_service,
    "stop": cli_service.cmd_stop,
    "status": cli_service.cmd_status,
    "quick": cli_service.cmd_quick,
    "tray": cli_service.cmd_tray,
    "search": cmd_search,
    "ask": ask_command.cmd_ask,
    "stats": cmd_stats,
    "rebuild": cli_writes.cmd_rebuild,
    "doctor": cmd_doctor,
    "context": cli_writes.cmd_context,
    "gui": cmd_gui,
    "contextualize": cli_writes.cmd_contextualize,
    "upgrade-first": cli_writes.cmd_upgrade_first,
    "settings": cmd_settings,
    "eval": cmd_eval,
    "demo": cmd_demo,
    "serve": cmd_serve,
    "mcp": cmd_mcp,
}

if __name__ == "__main__":
    sys.exit(main())

"""The CLI's writes to a library: `index` (through_service.py index_through_service), `rebuild`, `doctor [--repair]`,
`contextualize`, `upgrade-first`, `context`. Each goes to the service answering for the data folder, which writes
the library alone and tells its clients (the window shows a context set here at once); when none answers the command
starts it, as the window does, and hands it the work (issue 49: an `index` run in the terminal's own process held
the data folder, and a window opened meanwhile could not start its service). Only with `--local`, with
DESKTOP_RAG_START_SERVICE=0 (scripts, CI: no process left behind), or when the service cannot start does the command
open the library in its own process, under the writer's lock."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

from desktop_rag.cli.terminal import shown as on_one_line
from desktop_rag.core.progress.control import RunControl
from desktop_rag.documents import share_words
from desktop_rag.errors import BadInput, UserError, as_sentence
from desktop_rag.service import wire
from desktop_rag.service.answers import RunProgress, RunQueued

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130
INTERRUPTED_MESSAGE = "interrupted: finished work is saved; run the same command again to continue"
FOLLOW_EVERY_S = 0.5


def open_library_for_writing(data_dir: Path):
    """The library in this process: the one place outside the service that builds one for writing (`--local`, or no
    service answering). A parser crashing on one file must not end the run: files are read in a child."""
    from desktop_rag.core.library.library import Library

    return Library(data_dir, read_in_child=True)


def name_this_process(command: str) -> None:
    """What this process is ("index", "rebuild"…), for the message a process finding the data folder held shows."""
    from desktop_rag.core.library.access import name_this_process as name_it

    name_it(command)


def the_service(args, data_dir: Path):
    """The client of the service answering for the data folder, started when none answers; None: write in this
    process (`--local`, DESKTOP_RAG_START_SERVICE=0, or a service that could not start)."""
    from desktop_rag.service import background_process
    from desktop_rag.core.library.access import library_writable
    from desktop_rag.service.endpoint import EndpointClient

    if getattr(args, "local", False):
        return None
    client = EndpointClient.for_library(data_dir)
    if client is not None or not background_process.may_start_service() or not library_writable(data_dir):
        return client  # (a library that cannot be written: the command says so, in this process)

    def say_it() -> None:
        print("Starting the background service, which will keep this library fresh (`desktop-rag stop` ends "
              "it)…", file=sys.stderr, flush=True)

    if background_process.answering_or_started(data_dir, on_start=say_it) is None:
        if background_process.service_starting(data_dir):
            raise UserError(f"the background service of {data_dir} is starting but does not answer after "
                            f"{background_process.SERVICE_START_WAIT_S:.0f} s; try again in a moment")
        print("The background service could not start (its log is in the data folder's logs/): working in this "
              "process.", file=sys.stderr)
        return None
    return EndpointClient.for_library(data_dir)


def follow_run(client, run_id: str, cancel_on_interrupt: bool = True) -> RunProgress:
    """A run of the service followed to its end, its progress on stderr; Ctrl-C cancels it (what it finished is
    kept) and raises KeyboardInterrupt, or with `cancel_on_interrupt` False leaves it to the service."""
    shown = None
    try:
        while (state := client.run(wire.ProgressOf(run_id=run_id)))["state"] in ("queued", "running"):
            line = progress_line(state)
            if line != shown:
                print(line, file=sys.stderr, flush=True)
                shown = line
            time.sleep(FOLLOW_EVERY_S)
    except KeyboardInterrupt:
        if cancel_on_interrupt:
            client.run(wire.CancelRun(run_id=run_id))
        raise
    return state


def progress_line(state: RunProgress) -> str:
    if state.get("paused"):
        return ("  paused, as the background LLM work is: Resume in the tray or the window, or `desktop-rag settings "
                "llm_upgrade_paused false`" if state.get("kind") == "upgrade" else "  paused")
    share = share_words(done) if (done := state["share_done"]) is not None else state["state"]
    return f"  {share} {on_one_line(state.get('current') or '')}".rstrip()


def _run_in_service(client, request: wire.Request[RunQueued]) -> RunProgress:
    try:
        started = client.run(request)
        print(f"In {started['served_by']}…", file=sys.stderr, flush=True)
        state = follow_run(client, started["run_id"])
    finally:
        client.close()
    if state["state"] == "failed":
        raise _RunFailed(state["error"])
    return state


class _RunFailed(BadInput):
    what = ""


def cancelled_by_signals() -> RunControl:
    """Ctrl-C, or a plain `kill`, stops a run of this process at its next checkpoint (a file, a batch of
    embeddings; a model call in hand is cut short), keeping what is finished; a second one stops at once. Not
    KeyboardInterrupt at the first: raised while llama.cpp computes, it would land in the model's abort callback
    and be lost."""
    control = RunControl()

    def cancel(signum, frame):
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, raise_keyboard_interrupt)
        control.cancel()

    signal.signal(signal.SIGINT, cancel)
    signal.signal(signal.SIGTERM, cancel)
    return control


def raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt


def interrupted() -> int:
    print(INTERRUPTED_MESSAGE, file=sys.stderr)
    return EXIT_INTERRUPTED


# -- rebuild ------------------------------------------------------------------------------------------------------

def cmd_rebuild(args, data_dir: Path) -> int:
    from desktop_rag.cli.output import ProgressPrinter

    if (client := the_service(args, data_dir)) is not None:
        state = _run_in_service(client, wire.Rebuild())
        print(state["summary"])
        return interrupted() if state["state"] == "cancelled" else 0
    from desktop_rag.service import run_kinds

    with open_library_for_writing(data_dir) as library:  # the service's run, carried out here
        outcome = run_kinds.rebuild(library)(ProgressPrinter(sys.stderr), cancelled_by_signals())
    print(outcome.sentence)
    return interrupted() if outcome.cancelled else 0


# -- doctor -------------------------------------------------------------------------------------------------------

def cmd_doctor(args, data_dir: Path) -> int:
    """Exit 0 when all agree (or were mended with --repair), 1 when something is still wrong. (A damaged catalog's
    repair is cli/damaged_catalog.py's.)"""
    if (client := the_service(args, data_dir)) is not None:
        if args.repair:
            result = _run_in_service(client, wire.Repair())["result"]
            assert result is not None  # a repair that ends without failing says what it found
        else:
            try:
                answer = client.run(wire.Doctor())
            finally:
                client.close()
            result = {"found": answer["found"], "repaired": [], "left": answer["found"],
                      "damage_advice": answer["damage_advice"], "holds": answer.get("holds"),
                      "waiting": answer.get("waiting", [])}
    else:
        result = _doctor_here(data_dir, args.repair)
    _print_doctor(result, args)
    return EXIT_ERROR if result["left"] else 0


def _doctor_here(data_dir: Path, repair: bool) -> dict:
    from desktop_rag.core.library import doctor
    from desktop_rag.service import run_kinds

    with open_library_for_writing(data_dir) as library:
        if repair:  # the service's repair run, carried out here
            return run_kinds.repair(library)(lambda progress: None, RunControl()).result or {}
        checkup = doctor.examine(library)
    return {"found": checkup.findings(), "repaired": [], "left": checkup.findings(),
            "damage_advice": checkup.damage_advice, "holds": checkup.holdings(), "waiting": checkup.waiting()}


def _print_doctor(result: dict, args) -> None:
    if args.json:
        print(json.dumps({k: result.get(k) for k in ("found", "repaired", "left", "holds", "waiting")}))
        return
    if result.get("holds"):
        print(as_sentence(result["holds"]) + ".")
    for waits in result.get("waiting") or []:
        print(f"waiting: {waits} (the background service does it as it runs; `desktop-rag doctor --repair` now)")
    for finding in result["found"]:
        print(f"found: {finding}")
    for done in result["repaired"]:
        print(f"repaired: {done}")
    if not result["found"]:
        print("The catalog, the meaning index and the keyword index agree"
              + (" on what they hold so far." if result.get("waiting") else "."))
    elif result["left"] and not args.repair and not result["damage_advice"]:  # (the advice says what to do then)
        print("Run `desktop-rag doctor --repair` to rebuild the indexes from the catalog.")
    if result["damage_advice"]:
        print(as_sentence(result["damage_advice"]) + ".")


# -- LLM contexts -------------------------------------------------------------------------------------------------

def cmd_contextualize(args, data_dir: Path) -> int:
    from desktop_rag.cli.output import ProgressPrinter

    if (client := the_service(args, data_dir)) is not None:
        state = _run_in_service(client, wire.Contextualize(limit=args.limit))
        result, cancelled = state["result"] or {}, state["state"] == "cancelled"
    else:
        from desktop_rag.service import run_kinds

        with open_library_for_writing(data_dir) as library:  # the service's run, carried out here
            outcome = run_kinds.upgrade(library, args.limit)(ProgressPrinter(sys.stderr), cancelled_by_signals())
        result, cancelled = outcome.result or {}, outcome.cancelled
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{'Interrupted' if cancelled else 'Done'}: {result.get('upgraded_chunks', 0)} contexts upgraded to "
              f"LLM in {result.get('documents', 0)} documents; {result.get('kept_rules', 0)} kept their rules "
              "context")
        for notice in result.get("notices", []):
            print(f"Note: {notice}")
    return interrupted() if cancelled else 0


def cmd_upgrade_first(args, data_dir: Path) -> int:
    for folder in args.folders:
        if not args.off and not folder.expanduser().is_dir():
            raise BadInput(f"{folder} is not a folder")
    folders = [str(folder.expanduser().resolve()) for folder in args.folders]
    if (client := the_service(args, data_dir)) is not None:
        try:
            for folder in folders:
                client.run(wire.UpgradeFirst(folder=folder, on=not args.off))
        finally:
            client.close()
        marked = _marked_folders(data_dir)  # as the catalog has them now (the service wrote them)
    else:
        with open_library_for_writing(data_dir) as library:
            for folder in folders:
                library.mark_upgrade_first(folder, marked=not args.off)
            marked = library.reads.upgrade_first_folders()
    print("LLM contexts are written first for: " + ", ".join(marked) if marked
          else "No folder is marked: the LLM upgrade takes what you search and open first, then the rest.")
    return 0


def _marked_folders(data_dir: Path) -> list[str]:
    from desktop_rag.core.library.reads import ClientReads
    from desktop_rag.core.library.library import CATALOG_FILE

    reads = ClientReads(data_dir / CATALOG_FILE)
    try:
        return reads.upgrade_first_folders()
    finally:
        reads.close()


def cmd_context(args, data_dir: Path) -> int:
    from desktop_rag.documents import question_list

    if (client := the_service(args, data_dir)) is not None:
        try:
            row = _context_in_service(client, args)
        finally:
            client.close()
    else:
        row = _context_here(data_dir, args)
    if args.json:
        print(json.dumps({k: row[k] for k in ("chunk_id", "text", "source", "model", "prompt_version", "quality",
                                                "generated_text", "generated_source", "questions")}))
    else:
        print(f"[{row['source']}] {row['text']}")
        for question in question_list(row["questions"]):
            print(f"  Q: {question}")
        if row["source"] == "manual" and row["generated_text"] is not None:
            print(f"(replaces the {row['generated_source']} context: {row['generated_text']})")
    return 0


def _context_in_service(client, args) -> dict:
    row = client.run(wire.ContextOf(chunk_id=args.chunk_id))  # a chunk that is not there is said before any write
    if args.set is not None or args.questions is not None:
        client.run(wire.SetContext(chunk_id=args.chunk_id, text=args.set if args.set is not None else row["text"],
                                   questions=args.questions))
    elif args.revert:
        if not client.run(wire.RevertContext(chunk_id=args.chunk_id))["changes"].get("contexts"):
            print(f"passage {args.chunk_id} has no hand-edited context to revert", file=sys.stderr)
    elif args.regenerate:
        regenerated = client.run(wire.RegenerateContext(chunk_id=args.chunk_id))
        if not regenerated["changes"].get("contexts"):
            print("The model's answer was not good enough; the context is unchanged.", file=sys.stderr)
    else:
        return row
    return client.run(wire.ContextOf(chunk_id=args.chunk_id))


def _context_here(data_dir: Path, args) -> dict:
    with open_library_for_writing(data_dir) as library:
        if library.reads.context(args.chunk_id) is None:
            raise BadInput(f"no passage with id {args.chunk_id}")
        if args.set is not None or args.questions is not None:
            text = args.set if args.set is not None else library.reads.context(args.chunk_id)["text"]
            library.edits.set_context(args.chunk_id, text, args.questions)
        elif args.revert and not library.edits.revert_context(args.chunk_id):
            print(f"passage {args.chunk_id} has no hand-edited context to revert", file=sys.stderr)
        elif args.regenerate:
            regenerated = library.edits.regenerate_context(
                args.chunk_id, on_notice=lambda m: print(f"Note: {m}", file=sys.stderr))
            if not regenerated.changes:
                print("The model's answer was not good enough; the context is unchanged.", file=sys.stderr)
        return library.reads.context(args.chunk_id)

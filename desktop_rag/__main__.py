"""`python -m desktop_rag` and the `desktop-rag` command: the CLI, with Ctrl-C in its first moments (while Python
imports it) ending quietly as it does later, not in a traceback."""

import os
import sys

EXIT_INTERRUPTED = 130  # (cli/writes.py EXIT_INTERRUPTED: not imported, as nothing is before the CLI itself)


def run() -> int:
    service = False
    try:
        from desktop_rag.service.service_mark import command_of, hold_before_imports

        service = command_of(sys.argv[1:]) == "service"
        hold_before_imports(sys.argv[1:])  # a service's mark at its first instant (the CLI's imports take seconds
        from desktop_rag.cli.commands import main    # under load, and a `stop` meanwhile saw nothing to stop)

        code = main()
    except KeyboardInterrupt:  # before the CLI's own handling (its imports, its arguments, its log)
        if "--json" in sys.argv:
            print('{"cancelled": true}')
        code = EXIT_INTERRUPTED
    if code == EXIT_INTERRUPTED or service:
        _end_now(code)
    return code


def _end_now(code: int) -> None:
    """An interrupted command ends here, its output and log written, without the interpreter's teardown: a model
    still loading on a thread of its own when Ctrl-C came (the embedder, loaded while the run reads its first
    files) was torn down under it, and C++ aborted the process ("terminate called without an active exception",
    exit -6 instead of 130: 7 runs in 8 after Ctrl-C in a run's first second). What the run finished is committed
    before this; the children end with their parent. A service ends here too, its library closed: the
    interpreter's teardown of its ~500 modules, at its background priority beside four busy processes, kept it
    2 s after it had stopped (issue 61)."""
    import logging

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    logging.shutdown()
    os._exit(code)


if __name__ == "__main__":  # not when a spawned child process (the app's vector store) imports it
    sys.exit(run())

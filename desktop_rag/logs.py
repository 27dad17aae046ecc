"""Where the program's log goes: a file per kind of process in the data folder's `logs/` (the service, the window,
the tray, the quick popup, the CLI and `mcp`), kept small by rotation, and for the CLI also the terminal, one line
per warning with its time.

Python's rotating handler assumes it is its file's only writer: five processes writing one file rotated it under
one another (issue 49). The service, the window and the tray are one each per data folder, so each rotates its own
file as it writes; CLI commands and popups may run several at once, so they append to a shared file (whole lines:
O_APPEND) that the process starting rotates, under a lock, when it has grown past its size.

A record a front end has already shown a person (the lane's sentence printed by `watch`, the CLI's error line)
carries `extra=SHOWN`: it goes to the file with its traceback, not to the terminal a second time.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

from desktop_rag.platform.file_locks import one_at_a_time

# A month of a busy library's warnings fits in one file; three old ones are kept (4 MB in all at most).
MAX_LOG_BYTES = 1_000_000
KEPT_LOG_FILES = 3
SHOWN = {"shown_to_person": True}
LAST_WORDS = "ended: "  # what a command said as it ended on an error, in its log (why_it_ended)
LOGS_FOLDER = "logs"
ONE_WRITER = ("service", "window", "tray")  # one process of each per data folder: it rotates its file itself
# What each command logs as: the background's (`service`, `watch`, `serve`: one writer of the library at a time)
# and the front ends of their own; every other command, `mcp` included, is the CLI's.
ROLE_OF_COMMAND = {"service": "service", "watch": "service", "serve": "service", "gui": "window", "tray": "tray",
                   "quick": "quick"}


def why_it_ended(data_dir: Path, role: str) -> str | None:
    """What the last process of `role` said as it ended on an error (a service a window started ends with its
    stderr read by nobody: the window says this instead), or None."""
    try:
        with open(log_path(data_dir, role), "rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - 64_000))
            lines = log.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if f" ERROR desktop_rag.cli.commands: {LAST_WORDS}" in line:
            return line.split(LAST_WORDS, 1)[1]
    return None


def log_path(data_dir: Path, role: str) -> Path:
    """The log of a kind of process ("service", "window", "tray", "quick", "cli") of this data folder."""
    return data_dir / LOGS_FOLDER / f"{role}.log"


def log_to_data_folder(data_dir: Path, role: str) -> logging.Handler | None:
    """Info and above, with tracebacks, into the data folder's log of `role` (None when the folder does not exist
    yet: a command that makes it logs to the terminal only until then; None too when the log cannot be written —
    a read-only library is still searched, and a handler opening its file at the first record would raise from
    that record's `log.info`, issue 50)."""
    if not data_dir.is_dir():
        return None
    path = log_path(data_dir, role)
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            return None
        handler: logging.Handler
        if role in ONE_WRITER:
            handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_LOG_BYTES, backupCount=KEPT_LOG_FILES,
                                                           encoding="utf-8", delay=True)
        else:
            rotate_if_grown(path)
            handler = logging.FileHandler(path, encoding="utf-8", delay=True)  # append mode: whole lines
    except OSError:
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _attach(handler, logging.INFO)
    return handler


def rotate_if_grown(path: Path) -> None:
    """A shared log past its size moves to .1 (.1 to .2, …), by one process at a time; a process still appending to
    it writes on into .1, whole lines, until it ends."""
    with one_at_a_time(path.with_name(path.name + ".lock")):
        try:
            if path.stat().st_size < MAX_LOG_BYTES:
                return
        except FileNotFoundError:
            return
        for number in range(KEPT_LOG_FILES - 1, 0, -1):
            older = path.with_name(f"{path.name}.{number}")
            if older.exists():
                os.replace(older, path.with_name(f"{path.name}.{number + 1}"))
        os.replace(path, path.with_name(f"{path.name}.1"))


def log_to_terminal() -> logging.Handler:
    """Our warnings and errors on stderr, one line each with the time: the details are in the file. Other
    libraries' warnings (Chroma's, watchdog's) go to the file only: a person cannot act on them."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine("%(asctime)s %(message)s", "%H:%M:%S"))
    handler.addFilter(lambda record: not getattr(record, "shown_to_person", False))
    _attach(handler, logging.WARNING, logging.getLogger("desktop_rag"))
    return handler


def stop_logging(handler: logging.Handler | None) -> None:
    if handler is not None:
        for logger in (logging.getLogger(), logging.getLogger("desktop_rag")):
            logger.removeHandler(handler)
        handler.close()


def warnings_to_the_log() -> None:
    """Python warnings of the libraries (openpyxl's "Data Validation extension is not supported", with its
    site-packages path) go to the log file, never to a person's terminal: nobody can act on them (issue 51). With
    no file to go to (a child process, a folder not made yet) they are dropped, not printed by logging's last
    resort."""
    logging.captureWarnings(True)
    caught = logging.getLogger("py.warnings")
    if not any(isinstance(h, logging.NullHandler) for h in caught.handlers):
        caught.addHandler(logging.NullHandler())


def _attach(handler: logging.Handler, level: int, logger: logging.Logger | None = None) -> None:
    warnings_to_the_log()
    handler.setLevel(level)
    (logger or logging.getLogger()).addHandler(handler)
    root = logging.getLogger()
    if root.level > logging.INFO:
        root.setLevel(logging.INFO)


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        record.message = record.getMessage()
        record.asctime = self.formatTime(record, self.datefmt)
        text = self.formatMessage(record)
        return text + (f" ({record.exc_info[1]!r})" if record.exc_info and record.exc_info[1] else "")

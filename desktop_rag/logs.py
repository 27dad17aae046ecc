"""Where the program's log goes: a file in the data folder for every process (the app, the CLI, `watch`, `serve`,
`mcp`), kept small by rotation, and for the CLI also the terminal, one line per warning with its time.

A record a front end has already shown a person (the lane's sentence printed by `watch`, the CLI's error line)
carries `extra=SHOWN`: it goes to the file with its traceback, not to the terminal a second time.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from desktop_rag.errors import LOG_FILE

# A month of a busy library's warnings fits in one file; three old ones are kept (4 MB in all at most).
MAX_LOG_BYTES = 1_000_000
KEPT_LOG_FILES = 3
SHOWN = {"shown_to_person": True}


def log_to_data_folder(data_dir: Path) -> logging.Handler | None:
    """Info and above, with tracebacks, into the data folder's log (None when the folder does not exist yet: a
    command that makes it logs to the terminal only until then)."""
    if not data_dir.is_dir():
        return None
    handler = logging.handlers.RotatingFileHandler(data_dir / LOG_FILE, maxBytes=MAX_LOG_BYTES,
                                                   backupCount=KEPT_LOG_FILES, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _attach(handler, logging.INFO)
    return handler


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


def _attach(handler: logging.Handler, level: int, logger: logging.Logger | None = None) -> None:
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

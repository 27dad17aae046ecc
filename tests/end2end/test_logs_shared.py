"""The CLI's log, shared by commands running at once (desktop_rag/logs.py): real processes writing it together
lose no line and cut none, and the next one to start rotates it once it has grown."""

from __future__ import annotations

import subprocess
import sys

from desktop_rag import logs

WRITER = """
import logging, sys
from pathlib import Path
from desktop_rag import logs
logs.MAX_LOG_BYTES = int(sys.argv[3])
handler = logs.log_to_data_folder(Path(sys.argv[1]), "cli")
for number in range(300):
    logging.getLogger("desktop_rag.part").warning("process %s line %04d " + "x" * 60, sys.argv[2], number)
logs.stop_logging(handler)
"""


def test_cli_processes_writing_at_once_lose_no_line_and_the_file_is_rotated_by_the_next_to_start(tmp_path):
    # Each writes ~40 kB, twice the size at which the file is rotated: a rotation under the others lost lines.
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(n), "20000"]) for n in range(4)]
    assert all(w.wait(60) == 0 for w in writers)
    path = logs.log_path(tmp_path, "cli")
    lines = [line for file in sorted(path.parent.glob("cli.log*")) if not file.name.endswith(".lock")
             for line in file.read_text().splitlines()]
    assert len(lines) == 4 * 300 and all(line.endswith("x" * 60) for line in lines)  # whole lines, none lost
    subprocess.run([sys.executable, "-c", WRITER, str(tmp_path), "last", "20000"], check=True)  # past 20 kB: rotated
    assert path.with_name("cli.log.1").exists() and len(path.read_text().splitlines()) == 300

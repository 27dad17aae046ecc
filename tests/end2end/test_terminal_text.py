"""Every text from a file or a file name reaches the terminal harmless (issue 50, 4): a file name holding an escape
sequence that sets the terminal's title and a newline, and a file whose text holds escape and C1 controls — through
`index` handed to the service, `search`, `stats`."""

from __future__ import annotations

import os

from cli_runner import cli
from desktop_rag.config import Settings
from window_sessions import stop_the_service

OBEYED = ("\x1b", "\x07", "\x9b")


def test_file_names_and_contents_are_shown_not_obeyed(docs, data_dir):
    hostile_name = "minutes\x1b]0;owned\x07\nfake line.md"
    (docs / hostile_name).write_text("# Minutes\n\nThe budget \x1b[2J\x1b[31mwas approved\x9b1m by the board.\n")
    (docs / "plain.md").write_text("# Plain\n\nNothing odd about this harbour note.\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    try:
        ran = cli(data_dir, "index", str(docs), env={**os.environ, "DESKTOP_RAG_START_SERVICE": "1"})
        assert "Indexing in desktop-rag service" in ran.stderr  # handed to the service, whose progress names the files
        found = cli(data_dir, "search", "budget approved board")
        stats = cli(data_dir, "stats")
    finally:
        stop_the_service(data_dir)
    for shown in (ran.stdout, ran.stderr, found.stdout, found.stderr, stats.stdout):
        assert not any(control in shown for control in OBEYED), repr(shown)
    assert "minutes\\x1b]0;owned\\x07\\nfake line.md" in found.stdout  # the name whole, on its one line
    assert "The budget \\x1b[2J\\x1b[31mwas approved" in found.stdout

"""The remedies a message names (desktop_rag/remedies.py): declared once, in the shell's words and the window's,
and no other module writes a command into a message, so the window never shows one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import desktop_rag
from desktop_rag import remedies
from desktop_rag.config import OPTIONS, SETTINGS_FILE, Settings, describe, what_changing_does
from desktop_rag.errors import BadInput, NoIndexError
from desktop_rag.ui.errors import readable, sentences

PACKAGE = Path(desktop_rag.__file__).parent
# Where a command may be written: the declarations, and the CLI's own words (its help, its output).
MAY_WRITE_COMMANDS = {"remedies.py", "cli/commands.py", "cli/parser.py", "cli/output.py", "cli/watch_command.py", "cli/through_service.py",
                      "cli/writes.py",
                      "cli/demo.py"}


def commands_written(source: str) -> list[str]:
    """String literals (docstrings aside) that hold a `desktop-rag …` command."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and "`desktop-rag " in node.value]


def test_no_module_but_the_declarations_and_the_cli_writes_a_command_into_a_message():
    written = {str(path.relative_to(PACKAGE)): found for path in PACKAGE.rglob("*.py")
               if str(path.relative_to(PACKAGE)) not in MAY_WRITE_COMMANDS
               and (found := commands_written(path.read_text(encoding="utf-8")))}
    assert written == {}


def test_the_check_finds_a_command_written_by_hand():
    source = '"""Docstrings may name `desktop-rag index`."""\nraise NoIndexError("run `desktop-rag index PATH` first")\n'
    assert commands_written(source) == ["run `desktop-rag index PATH` first"]


@pytest.mark.parametrize("remedy", [*remedies.FIXED, remedies.set_setting("chunk_tokens")], ids=str)
def test_each_remedy_reads_in_the_window_without_a_command(remedy):
    message = f"something is wrong: {remedy}; go on"
    assert remedies.for_window(message) == f"something is wrong: {remedy.window}; go on"


def test_the_real_messages_read_in_the_window_without_a_command(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text('{"chunk_tokens": "many"}')
    with pytest.raises(BadInput) as wrong_setting:
        Settings.load(tmp_path)
    shown = [readable(wrong_setting.value), readable(NoIndexError(f"nothing is indexed yet: {remedies.INDEX_FIRST}")),
             sentences([f"the dense index is empty: {remedies.REPAIR_INDEXES} to rebuild it"]),
             remedies.for_window("; ".join(what_changing_does(list(OPTIONS)))),
             *(remedies.for_window(describe(name)) for name in OPTIONS)]
    assert "set it again in Settings" in shown[0]
    assert [text for text in shown if "desktop-rag" in text] == []

"""The remedies a message names, in one place, each as a shell does it (the CLI, an agent, a script) and as the
window does it. Messages are built with the shell's words (`str(remedy)`); the window puts its own in their place
(`for_window`), from these same declarations, so a wording cannot drift apart between the two. No other module
writes a `desktop-rag …` command into a message (tests/unit/test_remedies.py checks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Remedy:
    command: str  # as a shell does it
    window: str  # as the window does it

    def __str__(self) -> str:
        return self.command


REPAIR_INDEXES = Remedy("run `desktop-rag doctor --repair` (or any index run)", "re-scan a folder (F5)")
INDEX_FIRST = Remedy("run `desktop-rag index PATH...` first", "add a folder")
ADD_FOLDER = Remedy("add one in the app or with `desktop-rag index PATH`", "add a folder")
ADD_ITS_FOLDER = Remedy("add its folder in the app or with `desktop-rag index FOLDER` first", "add its folder first")
REBUILD_DAMAGED = Remedy(
    "`desktop-rag doctor --repair` makes a new catalog from your folders, keeping what can still be read of this "
    "one (the folders, hand-edited and LLM contexts) and the damaged file aside",
    "“Rebuild from my folders” makes a new catalog from them, keeping what can still be read of this one (the "
    "folders, hand-edited and LLM contexts) and the damaged file aside")
REBUILD = Remedy("run `desktop-rag rebuild`", "re-scan the folders (F5)")
CHANGED_FILES_REREAD = Remedy("`desktop-rag index` re-reads only changed files",
                              "a re-scan (F5) re-reads only changed files")
SET_RERANK_MODEL = Remedy("set `rerank_model` to a cross-encoder folder (desktop-rag settings rerank_model PATH)",
                          "choose a cross-encoder folder in Settings")
_SET_SETTING = Remedy("set it again with `desktop-rag settings {name} VALUE`", "set it again in Settings")

STOP_SERVICE = Remedy("`desktop-rag stop` ends it now", "Quit in its tray icon's menu ends it now")
FIXED = (STOP_SERVICE, REBUILD_DAMAGED, REPAIR_INDEXES, INDEX_FIRST, ADD_FOLDER, ADD_ITS_FOLDER, REBUILD,
         CHANGED_FILES_REREAD, SET_RERANK_MODEL)


def set_setting(name: str) -> Remedy:
    return Remedy(_SET_SETTING.command.format(name=name), _SET_SETTING.window)


# Any setting's name in the shell's words: the template above, its placeholder made a name.
_ANY_SETTING = re.compile(re.escape(_SET_SETTING.command).replace(re.escape("{name}"), r"[a-z_]+"))


def for_window(message: str) -> str:
    """The message with each remedy in the window's words."""
    for remedy in sorted(FIXED, key=lambda r: -len(r.command)):  # a longer command first: none is cut in two
        message = message.replace(remedy.command, remedy.window)
    return _ANY_SETTING.sub(_SET_SETTING.window, message)

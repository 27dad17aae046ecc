"""Where a library's data folder is, and where the packaged models are assembled: resolved alike by the CLI and the
app, so that both see the same library."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "DESKTOP_RAG_DATA_DIR"
MODELS_DIR_ENV = "DESKTOP_RAG_MODELS_DIR"


def default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("desktop-rag", appauthor=False))


def models_cache_dir() -> Path:
    """Where packaged models are assembled: a cache shared by every library of this user (a 1.1 GB file need not
    exist once per data folder). $DESKTOP_RAG_MODELS_DIR overrides it."""
    if os.environ.get(MODELS_DIR_ENV):
        return Path(os.environ[MODELS_DIR_ENV]).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("desktop-rag", appauthor=False)) / "models"


def chosen_data_dir_file() -> Path:
    """Where the data folder picked in the app is remembered: outside any data folder, since it names one."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("desktop-rag", appauthor=False)) / "data-folder.txt"


def remember_data_dir(folder: Path) -> None:
    target = chosen_data_dir_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(str(folder), encoding="utf-8")


def resolve_data_dir(cli_value: str | os.PathLike | None = None) -> Path:
    """--data-dir wins over $DESKTOP_RAG_DATA_DIR, which wins over the folder picked in the app, which wins over
    the platform's user data folder. The CLI and the app resolve alike, so both see the same library."""
    if cli_value:
        return Path(cli_value).expanduser().resolve()
    if os.environ.get(DATA_DIR_ENV):
        return Path(os.environ[DATA_DIR_ENV]).expanduser().resolve()
    try:
        chosen = chosen_data_dir_file().read_text(encoding="utf-8").strip()
    except OSError:
        chosen = ""
    return Path(chosen) if chosen else default_data_dir()

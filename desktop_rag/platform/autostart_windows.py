"""Starting the background service at login on Windows: a value under HKCU\\...\\CurrentVersion\\Run (the place
Settings → Apps → Startup lists and can turn off), one per data folder, running the service with pythonw.exe, so
no console window opens. The registry calls are windows_calls.RunKey; this module is the command line, tested on
Linux with a dictionary in the registry's place."""

from __future__ import annotations

from pathlib import Path, PureWindowsPath

from desktop_rag.platform.autostart_names import entry_name, service_command, split_quoted


def _registry():
    from desktop_rag.platform.windows_calls import RunKey

    return RunKey()


def windowless(command: list[str]) -> list[str]:
    """python.exe → pythonw.exe beside it (the same environment, no console)."""
    executable = PureWindowsPath(command[0])
    if executable.name.lower() == "python.exe":
        return [str(executable.with_name("pythonw.exe")), *command[1:]]
    return command


def command_line(arguments: list[str]) -> str:
    """Arguments quoted as Windows' C runtime splits them again (CommandLineToArgvW's rules: subprocess'
    list2cmdline)."""
    import subprocess

    return subprocess.list2cmdline(arguments)


def split_command_line(line: str) -> list[str]:
    """The inverse of command_line: quotes group, 2n backslashes before a quote are n and the quote counts, 2n+1
    are n and a literal quote, other backslashes are themselves."""
    return split_quoted(line, " \t", _backslashes)


def _backslashes(line: str, i: int, quoted: bool) -> tuple[str, int] | None:
    if line[i] != "\\":
        return None
    run = len(line) - i - len(line[i:].lstrip("\\"))
    if i + run < len(line) and line[i + run] == '"':  # before a quote: halved; an odd one out makes it literal
        return "\\" * (run // 2) + ('"' if run % 2 else ""), i + run + run % 2
    return "\\" * run, i + run


def enable(data_dir: Path, registry=None) -> str:
    """The Run value written; its name returned."""
    name = entry_name(data_dir)
    (registry or _registry()).set(name, command_line(windowless(service_command(data_dir))))
    return name


def disable(data_dir: Path, registry=None) -> bool:
    return (registry or _registry()).delete(entry_name(data_dir))


def is_enabled(data_dir: Path, registry=None) -> bool:
    return (registry or _registry()).get(entry_name(data_dir)) is not None


def command_of(data_dir: Path, registry=None) -> list[str]:
    line = (registry or _registry()).get(entry_name(data_dir))
    return split_command_line(line) if line else []

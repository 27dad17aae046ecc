"""The Windows and macOS variants of the platform pieces that are logic, on Linux with the OS's answers given as
text (icacls' and ioreg's own output formats, GetTickCount's 32-bit ticks)."""

from __future__ import annotations

import signal
import subprocess

import pytest

from desktop_rag.errors import DataFolderUnusable
from desktop_rag.platform import private_paths
from desktop_rag.platform.machine import idle_from_ioreg, idle_from_ticks

FOLDER = r"C:\Users\ann\AppData\Local\desktop-rag"
PRIVATE = f"""{FOLDER} NT AUTHORITY\\SYSTEM:(OI)(CI)(F)
                                       BUILTIN\\Administrators:(OI)(CI)(F)
                                       DESKTOP-7Q\\ann:(OI)(CI)(F)

Successfully processed 1 files; Failed processing 0 files
"""
SHARED = f"""{FOLDER} DESKTOP-7Q\\ann:(OI)(CI)(F)
                                       BUILTIN\\Users:(OI)(CI)(RX)
                                       Everyone:(DENY)(W)
                                       NT AUTHORITY\\Authenticated Users:(I)(M)

Successfully processed 1 files; Failed processing 0 files
"""


def test_a_windows_folder_only_its_user_system_and_administrators_may_use_is_private():
    assert private_paths.others_in_access_list(PRIVATE, FOLDER, "ann") == []
    private_paths._check_windows_access(private_paths.Path(FOLDER), "the data folder", PRIVATE, "ann")


def test_a_windows_folder_users_may_read_is_refused_with_the_icacls_that_mends_it():
    assert private_paths.others_in_access_list(SHARED, FOLDER, "ann") == [
        "BUILTIN\\Users:(OI)(CI)(RX)", "NT AUTHORITY\\Authenticated Users:(I)(M)"]  # a deny entry keeps out
    with pytest.raises(DataFolderUnusable, match=r'icacls ".*desktop-rag" /inheritance:r /grant:r "%USERNAME%'):
        private_paths._check_windows_access(private_paths.Path(FOLDER), "the data folder", SHARED, "ann")
    assert private_paths.others_in_access_list(PRIVATE, FOLDER, "bob") == ["DESKTOP-7Q\\ann:(OI)(CI)(F)"]


def test_idle_time_from_macos_ioreg_and_windows_ticks():
    listing = '    | |   "HIDIdleTime" = 4500000000\n    | |   "HIDKeyboardModifierMask" = 0\n'
    assert idle_from_ioreg(listing) == 4.5 and idle_from_ioreg("nothing here") is None
    assert idle_from_ticks(10_000, 4_000) == 6.0
    assert idle_from_ticks(1_000, 0xFFFFFFFF - 999) == 2.0  # GetTickCount wrapped past 2^32 ms (49.7 days)


def test_each_desktop_is_told_how_to_bind_the_quick_search_key():
    from desktop_rag.platform.key_binding import binding_help

    command = [r"C:\Users\Ann Lee\.venv\Scripts\pythonw.exe", "-m", "desktop_rag", "quick"]
    assert '"C:\\Users\\Ann Lee\\.venv\\Scripts\\pythonw.exe" -m desktop_rag quick' in binding_help(command, "win32")
    assert "Shortcut key" in binding_help(command, "win32")
    mac = binding_help(["/Users/ann/.venv/bin/python", "-m", "desktop_rag", "quick"], "darwin")
    assert "Run Shell Script" in mac and "/Users/ann/.venv/bin/python -m desktop_rag quick" in mac
    assert "Command or Script" in binding_help(["dr", "quick"], "linux", "KDE")
    assert "Application Shortcuts" in binding_help(["dr", "quick"], "linux", "XFCE")
    assert "bindsym" in binding_help(["dr", "quick"], "linux", "sway")


def test_a_detached_process_gets_a_session_here_and_no_console_and_a_group_of_its_own_on_windows():
    from desktop_rag.platform.processes import start_detached_process
    from desktop_rag.platform.windows_calls import CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS

    asked: list[dict] = []

    class FakeStarted:  # what the fake Popen gives back: waited for at once (it ended before it began)
        pid = 0

        def wait(self) -> int:
            return 0

    started = FakeStarted()

    def recording_popen(command, **options):  # a fake Popen: records what it was asked, starts nothing
        asked.append({"command": command, **options})
        return started

    assert start_detached_process(["desktop-rag", "service"], "win32", recording_popen) is started
    start_detached_process(["desktop-rag", "service"], "linux", recording_popen)
    windows, linux = asked
    assert windows["creationflags"] == DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP == 0x208
    assert "start_new_session" not in windows and linux["start_new_session"] is True
    assert "creationflags" not in linux
    assert all(each[stream] == subprocess.DEVNULL for each in asked for stream in ("stdin", "stdout", "stderr"))


def test_children_start_with_the_console_s_ctrl_c_ignored_on_windows_and_the_parent_gets_it_back():
    from desktop_rag.platform.processes import interrupts_held_for_children

    flags: list[bool] = []
    before = signal.getsignal(signal.SIGINT)  # (SIG_IGN already where the suite runs under nohup)
    with interrupts_held_for_children("win32", console=flags.append):
        assert flags == [True] and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert flags == [True, False] and signal.getsignal(signal.SIGINT) is before
    with interrupts_held_for_children("linux", console=flags.append):
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert flags == [True, False]  # the console's flag is Windows' alone

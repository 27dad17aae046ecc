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


def test_children_start_with_the_console_s_ctrl_c_ignored_on_windows_and_blocked_here_and_the_parent_keeps_it():
    from desktop_rag.platform.processes import interrupts_held_for_children

    flags: list[bool] = []
    before = signal.getsignal(signal.SIGINT)  # (SIG_IGN already where the suite runs under nohup)
    with interrupts_held_for_children("win32", console=flags.append):
        assert flags == [True]
    assert flags == [True, False]
    started: list[str] = []
    with interrupts_held_for_children("linux", console=flags.append, tracker=lambda: started.append("tracker")):
        assert started == ["tracker"]  # multiprocessing's, before the block (its start unblocks SIGINT)
        assert signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # held for the child it starts
        assert signal.getsignal(signal.SIGINT) is before  # the parent's own handler stays: no Ctrl-C lost
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert flags == [True, False]  # the console's flag is Windows' alone


def test_a_child_on_a_mac_waits_for_its_parent_s_end_with_a_kqueue_watch():
    from desktop_rag.platform.parent_watch import wait_for_parent_end

    class FakeKqueueModule:  # select's kqueue names, and a queue that answers the parent's end at once
        KQ_FILTER_PROC, KQ_EV_ADD, KQ_EV_ONESHOT, KQ_NOTE_EXIT = -5, 0x1, 0x10, 0x80000000
        asked: list = []

        @staticmethod
        def kevent(ident, filter, flags, fflags):
            return ("watch", ident, filter, flags, fflags)

        class kqueue:  # noqa: N801 (select's own spelling)
            def control(self, changes, most, timeout=None):
                FakeKqueueModule.asked.append((changes, most, timeout))
                return [] if changes else ["the parent ended"]

            def close(self):
                FakeKqueueModule.asked.append("closed")

    looks: list[int] = []

    def parent_now() -> int:  # the parent's id as the child sees it: never changes (the kqueue tells)
        looks.append(1)
        return 4242

    wait_for_parent_end(4242, "darwin", kqueue_module=FakeKqueueModule, parent_now=parent_now)
    (registered, _, _), (waited, most, timeout), closed = FakeKqueueModule.asked
    assert registered == [("watch", 4242, -5, 0x11, 0x80000000)] and waited is None and most == 1 and timeout is None
    assert closed == "closed" and len(looks) == 1  # looked once (a parent gone before the watch), then waited

    class GoneAlready(FakeKqueueModule):
        class kqueue(FakeKqueueModule.kqueue):  # noqa: N801
            def control(self, changes, most, timeout=None):
                raise ProcessLookupError(3, "No such process")

    wait_for_parent_end(4242, "darwin", kqueue_module=GoneAlready, parent_now=parent_now)  # returns at once


def test_without_a_kqueue_a_child_looks_at_its_parent_s_id_until_it_changes():
    from desktop_rag.platform.parent_watch import wait_for_parent_end

    ids = iter([77, 77, 77, 1])  # handed to another parent at the fourth look
    looked: list[int] = []

    def parent_now() -> int:
        looked.append(1)
        return next(ids)

    wait_for_parent_end(77, "linux", parent_now=parent_now, every_s=0)
    assert len(looked) == 4


def test_a_child_on_windows_waits_on_its_parent_s_handle():
    from desktop_rag.platform import parent_watch, windows_calls

    waited: list[int] = []
    parent_watch.wait_for_parent_end(4242, "win32", windows_wait=waited.append)
    assert waited == [4242]

    class FakeKernel32:  # OpenProcess / WaitForSingleObject / CloseHandle, recorded
        def __init__(self, handle: int):
            self.handle, self.calls = handle, []

        def OpenProcess(self, access, inherit, pid):  # noqa: N802 (the API's names)
            self.calls.append(("open", hex(access), inherit, pid))
            return self.handle

        def WaitForSingleObject(self, handle, ms):  # noqa: N802
            self.calls.append(("wait", handle, hex(ms)))

        def CloseHandle(self, handle):  # noqa: N802
            self.calls.append(("close", handle))

    alive = FakeKernel32(handle=88)
    windows_calls.wait_for_process_end(4242, alive)
    assert alive.calls == [("open", "0x100000", False, 4242), ("wait", 88, "0xffffffff"), ("close", 88)]
    gone = FakeKernel32(handle=0)  # OpenProcess fails: the parent has gone
    windows_calls.wait_for_process_end(4242, gone)
    assert gone.calls == [("open", "0x100000", False, 4242)]


def test_a_windows_process_starting_helpers_puts_them_in_a_job_that_ends_them_with_it(monkeypatch):
    import ctypes

    from desktop_rag.platform import parent_watch, windows_calls

    class FakeKernel32:  # the job object calls, recorded; the limits read back from what was passed
        def __init__(self, assign_ok: bool = True):
            self.assign_ok, self.calls, self.limits = assign_ok, [], None

        def CreateJobObjectW(self, attributes, name):  # noqa: N802 (the API's names)
            self.calls.append("create")
            return 31

        def SetInformationJobObject(self, job, kind, limits, size):  # noqa: N802
            self.calls.append(("set", job, kind, size))
            self.limits = limits._obj  # (ctypes.byref's object)
            return 1

        def GetCurrentProcess(self):  # noqa: N802
            return -1  # Windows' pseudo-handle for the calling process

        def AssignProcessToJobObject(self, job, process):  # noqa: N802
            self.calls.append(("assign", job, process))
            return 1 if self.assign_ok else 0

        def CloseHandle(self, handle):  # noqa: N802
            self.calls.append(("close", handle))

    kernel32 = FakeKernel32()
    assert windows_calls.put_this_process_in_a_closing_job(kernel32)
    assert kernel32.calls == ["create", ("set", 31, 9, 144), ("assign", 31, -1)]  # the job's handle kept open
    assert ctypes.sizeof(kernel32.limits) == 144  # JOBOBJECT_EXTENDED_LIMIT_INFORMATION on 64-bit Windows
    assert kernel32.limits.BasicLimitInformation.LimitFlags == 0x2000 | 0x800  # kill on close; breakaway allowed

    nested_refused = FakeKernel32(assign_ok=False)  # a process already in a job that allows no other
    assert not windows_calls.put_this_process_in_a_closing_job(nested_refused)
    assert nested_refused.calls[-1] == ("close", 31)

    monkeypatch.setattr(parent_watch, "_job", {"made": False})
    assert not parent_watch.children_end_with_this_process("linux")  # nothing to do: children watch the parent
    once = FakeKernel32()
    assert parent_watch.children_end_with_this_process("win32", once) and parent_watch.in_closing_job()
    assert parent_watch.children_end_with_this_process("win32", once) and once.calls.count("create") == 1


def test_a_detached_process_leaves_the_job_that_ends_helpers_with_their_starter(monkeypatch):
    from desktop_rag.platform import parent_watch
    from desktop_rag.platform.processes import start_detached_process
    from desktop_rag.platform.windows_calls import CREATE_BREAKAWAY_FROM_JOB

    asked: list[int] = []

    class FakeStarted:  # what the fake Popen gives back
        pid = 0

        def wait(self) -> int:
            return 0

    def recording_popen(command, creationflags=0, **options):  # a fake Popen: records the flags
        asked.append(creationflags)
        return FakeStarted()

    monkeypatch.setattr(parent_watch, "_job", {"made": True})
    start_detached_process(["desktop-rag", "gui"], "win32", recording_popen)
    monkeypatch.setattr(parent_watch, "_job", {"made": False})  # (breaking away from a job not ours is refused)
    start_detached_process(["desktop-rag", "gui"], "win32", recording_popen)
    assert asked == [0x208 | CREATE_BREAKAWAY_FROM_JOB, 0x208]

"""Every Windows call the platform pieces make, in one place, each with the API it uses; imported only where they
run (on Linux the pieces' tests give their own in their place). None of them has run on Windows yet
(docs/porting.md)."""

from __future__ import annotations

DETACHED_PROCESS = 0x00000008  # CreateProcess' flags (subprocess names them only on Windows)
CREATE_NEW_PROCESS_GROUP = 0x00000200
RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"  # under HKEY_CURRENT_USER: this user's logins


class RunKey:
    """The values of HKCU\\...\\Run: the commands Windows runs at this user's login (winreg)."""

    def get(self, name: str) -> str | None:
        import winreg  # type: ignore[import-not-found,unused-ignore]

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:  # type: ignore[attr-defined,unused-ignore]
                return str(winreg.QueryValueEx(key, name)[0])  # type: ignore[attr-defined,unused-ignore]
        except FileNotFoundError:
            return None

    def set(self, name: str, command: str) -> None:
        import winreg  # type: ignore[import-not-found,unused-ignore]

        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:  # type: ignore[attr-defined,unused-ignore]
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, command)  # type: ignore[attr-defined,unused-ignore]

    def delete(self, name: str) -> bool:
        import winreg  # type: ignore[import-not-found,unused-ignore]

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0,  # type: ignore[attr-defined,unused-ignore]
                                winreg.KEY_SET_VALUE) as key:  # type: ignore[attr-defined,unused-ignore]
                winreg.DeleteValue(key, name)  # type: ignore[attr-defined,unused-ignore]
        except FileNotFoundError:
            return False
        return True


def start_file(target: str) -> None:
    """The program Windows associates with the file opens it (ShellExecute through os.startfile); OSError when
    none is associated."""
    import os

    os.startfile(target)  # type: ignore[attr-defined,unused-ignore]


def milliseconds_since_input() -> tuple[int, int] | None:
    """(GetTickCount, GetLastInputInfo's dwTime): the system's tick and the last input's, both 32-bit ms."""
    import ctypes

    class LastInputInfo(ctypes.Structure):
        _fields_ = [("cbSize", ctypes.c_uint), ("dwTime", ctypes.c_uint)]

    info = LastInputInfo(ctypes.sizeof(LastInputInfo), 0)
    if not ctypes.windll.user32.GetLastInputInfo(ctypes.byref(info)):  # type: ignore[attr-defined,unused-ignore]
        return None
    return ctypes.windll.kernel32.GetTickCount() & 0xFFFFFFFF, info.dwTime  # type: ignore[attr-defined,unused-ignore]


def access_list(path: str) -> str:
    """The folder's access control list as icacls prints it (icacls.exe, in every Windows since Vista)."""
    import subprocess

    return subprocess.run(["icacls", path], capture_output=True, text=True, timeout=10).stdout


def make_private(path: str, user: str) -> None:
    """Inherited entries removed, full control for `user` alone, inherited by what is made inside (icacls)."""
    import subprocess

    subprocess.run(["icacls", path, "/inheritance:r", "/grant:r", f"{user}:(OI)(CI)F"], capture_output=True,
                   timeout=10, check=True)


def ignore_console_interrupts(ignore: bool) -> None:
    """This process's console "ignore Ctrl-C" flag (SetConsoleCtrlHandler with no handler), which the processes it
    starts inherit."""
    import ctypes

    ctypes.windll.kernel32.SetConsoleCtrlHandler(None, ignore)  # type: ignore[attr-defined,unused-ignore]


CREATE_BREAKAWAY_FROM_JOB = 0x01000000  # a process started outside its starter's job (CreateProcess' flags)
_SYNCHRONIZE = 0x00100000  # a process handle that may be waited on, and nothing more
_INFINITE = 0xFFFFFFFF
_JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9  # SetInformationJobObject's class
_JOB_OBJECT_LIMIT_BREAKAWAY_OK = 0x00000800
_JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x00002000


def wait_for_process_end(pid: int, kernel32=None) -> None:
    """Return once the process `pid` has ended (OpenProcess, WaitForSingleObject): at once if it is gone."""
    import ctypes

    kernel32 = kernel32 or ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
    handle = kernel32.OpenProcess(_SYNCHRONIZE, False, pid)
    if not handle:
        return
    try:
        kernel32.WaitForSingleObject(handle, _INFINITE)
    finally:
        kernel32.CloseHandle(handle)


def closing_job_limits():
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION asking that the job's processes end when its last handle closes, and
    letting a process started with CREATE_BREAKAWAY_FROM_JOB leave it (144 bytes on 64-bit Windows)."""
    import ctypes

    class IoCounters(ctypes.Structure):
        _fields_ = [(name, ctypes.c_ulonglong) for name in (
            "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
            "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]

    class BasicLimits(ctypes.Structure):
        _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64), ("PerJobUserTimeLimit", ctypes.c_int64),
                    ("LimitFlags", ctypes.c_uint32), ("MinimumWorkingSetSize", ctypes.c_size_t),
                    ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", ctypes.c_uint32),
                    ("Affinity", ctypes.c_size_t), ("PriorityClass", ctypes.c_uint32),
                    ("SchedulingClass", ctypes.c_uint32)]

    class ExtendedLimits(ctypes.Structure):
        _fields_ = [("BasicLimitInformation", BasicLimits), ("IoInfo", IoCounters),
                    ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                    ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]

    limits = ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | _JOB_OBJECT_LIMIT_BREAKAWAY_OK
    return limits


def put_this_process_in_a_closing_job(kernel32) -> bool:
    """CreateJobObjectW, SetInformationJobObject (kill on close), AssignProcessToJobObject(GetCurrentProcess()).
    The job's handle is never closed here: the system closes it as this process ends, and the job's processes
    (those it started since) end with it."""
    import ctypes

    job = kernel32.CreateJobObjectW(None, None)
    if not job:
        return False
    limits = closing_job_limits()
    if not kernel32.SetInformationJobObject(job, _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, ctypes.byref(limits),
                                            ctypes.sizeof(limits)):
        kernel32.CloseHandle(job)
        return False
    if not kernel32.AssignProcessToJobObject(job, kernel32.GetCurrentProcess()):
        kernel32.CloseHandle(job)
        return False
    return True

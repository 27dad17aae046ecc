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

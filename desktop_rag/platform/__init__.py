"""Every piece that depends on the operating system, in one place; the rest of the program asks these. Linux is
implemented and tested; each module says what it must become elsewhere.

- local_socket.py: the local endpoint's transport (a Unix socket, 0600, in a private runtime folder). Windows:
  CPython has no AF_UNIX there; a named pipe with an owner-only security descriptor (or QLocalServer in the app).
- file_locks.py: the writer's claim and "one at a time" sections (fcntl.flock). Windows: msvcrt.locking.
- private_paths.py: folders and files only this user may open (modes 0700/0600). Windows: an ACL for the user.
- machine.py: idle and power probes (X11's screensaver idle time, GNOME's idle monitor, upower, psutil's battery;
  macOS and Windows counterparts already there, untested).
- processes.py: a child process's name and background priority.
- opening.py: a file or a folder opened in the program the system has for it (xdg-open).
- autostart.py: the service started at login (an XDG autostart entry). macOS: a LaunchAgent; Windows: the
  Startup folder.
- key_binding.py: a desktop key for the quick search (GNOME's custom keybindings through gsettings; KDE and the
  rest by hand, as the README says).

What blocks a Windows port today, besides these: tesserocr (OCR) has no Windows wheels on PyPI, and
llama-cpp-python ships only a source distribution there (a C++ toolchain at install). macOS: both build from
source as well; the rest of the stack has wheels.
"""

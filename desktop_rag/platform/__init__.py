"""Every piece that depends on the operating system, in one place; the rest of the program asks these. Linux is
implemented and tested; the Windows and macOS variants of the pieces that are logic are written and unit-tested on
Linux with the system's calls given by the test; the calls themselves are named in windows_calls.py and
macos_calls.py. docs/porting.md has the table: each piece, what it is on each system, what is done and left.

- local_socket.py: the local endpoint's transport (a Unix socket, 0600, in a private runtime folder; on Windows a
  loopback socket whose port and secret are in a private file).
- file_locks.py: the writer's claim and "one at a time" sections (flock; msvcrt.locking on Windows).
- private_paths.py: folders and files only this user may open (modes 0700/0600; icacls' access list on Windows).
- machine.py: idle and power (X11's screen saver idle time, psutil's battery; ioreg's HIDIdleTime on macOS,
  GetLastInputInfo on Windows).
- processes.py: a child process's name and background priority.
- opening.py: a file or a folder opened in the program the system has for it (xdg-open, open, ShellExecute).
- autostart.py: the service started at login (autostart_xdg.py, autostart_macos.py's LaunchAgent,
  autostart_windows.py's Run value).
- key_binding.py: a desktop key for the quick search (GNOME's custom keybindings through gsettings; told for the
  rest, per desktop).
"""

"""Which Qt platform plugins a session would try, what `ldd` says they lack, and the package names a person is told
to install (desktop_rag/ui/qt_platform.py). The check against Qt itself is in end2end/test_window_libraries.py."""

from desktop_rag.ui.qt_platform import cannot_open_window, debian_package, desktop_platforms, libraries_not_found

# `ldd libqxcb.so` on a Debian 12 machine without libxcb-icccm4 and libxcb-keysyms1 (this machine, 2026-11-25).
LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffd5b5f1000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f3c1a400000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f3c1a3f0000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3c1a000000)
"""


def test_the_plugins_tried_follow_the_session_and_an_explicit_choice():
    assert desktop_platforms({"DISPLAY": ":0"}) == ["xcb"]
    assert desktop_platforms({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}) == ["wayland", "xcb"]
    assert desktop_platforms({}) == []  # no display: nothing a library could mend
    assert desktop_platforms({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}) == []  # the tests' own
    assert desktop_platforms({"QT_QPA_PLATFORM": "wayland;xcb"}) == ["wayland", "xcb"]
    assert desktop_platforms({"QT_QPA_PLATFORM": "xcb:dpi=96"}) == ["xcb"]


def test_what_ldd_could_not_find_is_listed_once_each():
    assert libraries_not_found(LDD_OUTPUT) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert libraries_not_found("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_a_library_is_named_by_the_package_debian_and_ubuntu_ship_it_in():
    assert debian_package("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert debian_package("libxcb-icccm.so.4") == "libxcb-icccm4"
    assert debian_package("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert debian_package("libEGL.so.1") == "libegl1"
    assert debian_package("libwayland-cursor.so.0") == "libwayland-cursor0"


def test_the_sentence_names_the_libraries_and_one_command_that_installs_them():
    message = cannot_open_window(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in message
    assert "sudo apt install libxcb-icccm4 libxcb-keysyms1)" in message
    assert "Reinstalling" not in message

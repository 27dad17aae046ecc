"""The service's session at background priority (platform/processes.py): Linux shares the CPU between sessions
before a nice counts, so a service leading its own session lowers the session's nice too — and only then."""

from __future__ import annotations

from desktop_rag.platform.processes import NICENESS, lower_session_priority


def test_a_process_leading_its_own_session_lowers_the_session_s_priority(tmp_path):
    autogroup = tmp_path / "autogroup"
    autogroup.write_text("/autogroup-262 nice 0\n")
    assert lower_session_priority(str(autogroup), leads_session=True)
    assert autogroup.read_text() == f"{NICENESS}\n"  # what the kernel's file takes: the nice alone


def test_a_process_in_a_terminal_s_session_leaves_the_session_alone(tmp_path):
    autogroup = tmp_path / "autogroup"
    autogroup.write_text("/autogroup-262 nice 0\n")
    assert not lower_session_priority(str(autogroup), leads_session=False)  # the shell's session: not ours
    assert autogroup.read_text() == "/autogroup-262 nice 0\n"


def test_a_kernel_without_autogroup_leaves_the_nice_alone(tmp_path):
    assert not lower_session_priority(str(tmp_path / "no" / "autogroup"), leads_session=True)

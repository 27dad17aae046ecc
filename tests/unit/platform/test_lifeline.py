"""The lifeline (platform/parent_watch.py): the kernel told to kill a child when its parent's end of a pipe goes.
The kill itself takes two processes (tests/end2end/test_child_process.py); here what is asked of the kernel."""

from __future__ import annotations

import fcntl
import os
import signal
import sys

import pytest

from desktop_rag.platform import parent_watch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the lifeline is Linux's")


def test_a_lifeline_asks_the_kernel_for_sigkill_to_this_process_when_its_writer_goes():
    read, write = os.pipe()
    ended = []
    try:
        parent_watch.end_when_lifeline_ends(read, end=lambda: ended.append(True))
        assert fcntl.fcntl(read, fcntl.F_GETFL) & os.O_ASYNC
        assert fcntl.fcntl(read, fcntl.F_GETOWN) == os.getpid()
        assert fcntl.fcntl(read, 11) == signal.SIGKILL  # F_GETSIG
        assert ended == []  # the writer is there
    finally:
        os.close(read)  # the reader first: its signal goes with it (closing the writer first would kill pytest)
        os.close(write)


def test_a_lifeline_whose_writer_has_already_gone_ends_the_child_at_once():
    read, write = os.pipe()
    os.close(write)  # the parent gone before the child asked
    ended = []
    try:
        parent_watch.end_when_lifeline_ends(read, end=lambda: ended.append(True))
    finally:
        os.close(read)
    assert ended == [True]


def test_only_linux_arms_a_lifeline():
    assert parent_watch.lifeline_arms("linux") and not parent_watch.lifeline_arms("darwin")
    assert not parent_watch.lifeline_arms("win32")

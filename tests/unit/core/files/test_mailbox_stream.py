"""A mailbox split into messages from a stream (core/files/mailbox_stream.py): where each begins and ends, the
mailbox's "From " lines left out and ">From " unescaped, a message over the limit passed over without being held,
and the check that tells a mailbox appended to from one rewritten."""

import io

from desktop_rag.core.files import mailbox_stream

FIRST = b"From a@example.org Mon Mar 10 09:00:00 2025\nFrom: a@example.org\nSubject: one\n\nHello\n>From the start\n\n"
SECOND = b"From b@example.org Mon Mar 10 10:00:00 2025\nFrom: b@example.org\nSubject: two\n\nHi\nFrom me, not a line\n\n"


def test_messages_begin_at_from_lines_after_a_blank_line_and_keep_their_place():
    found = list(mailbox_stream.messages(io.BytesIO(FIRST + SECOND)))
    assert [(m.start, m.end) for m in found] == [(0, len(FIRST)), (len(FIRST), len(FIRST + SECOND))]
    assert found[0].raw == b"From: a@example.org\nSubject: one\n\nHello\nFrom the start\n\n"  # mboxrd unescaped
    assert found[1].raw.endswith(b"From me, not a line\n\n")  # no blank line before it: a body line, not a message


def test_reading_from_a_message_start_up_to_an_end_reads_just_those_messages():
    data = FIRST + SECOND + FIRST
    found = list(mailbox_stream.messages(io.BytesIO(data), start=len(FIRST), end=len(FIRST + SECOND)))
    assert [m.raw.split(b"\n")[1] for m in found] == [b"Subject: two"]


def test_a_message_over_the_limit_is_passed_over_and_the_next_one_is_read():
    huge = b"From x Mon Mar 10 09:00:00 2025\nSubject: big\n\n" + b"A" * (3 * 2**20) + b"\n\n"  # one line, 3 MB
    found = list(mailbox_stream.messages(io.BytesIO(FIRST + huge + SECOND), max_bytes=2**20))
    assert [m.too_large for m in found] == [False, True, False]
    assert found[1].raw == b"Subject: big\n\n" and found[1].end - found[1].start == len(huge)  # its head, named by it
    assert b"Subject: two" in found[2].raw


def test_text_before_the_first_message_is_no_message():
    assert list(mailbox_stream.messages(io.BytesIO(b"not a mailbox\nat all\n"))) == []


def test_the_check_tells_an_appended_mailbox_from_a_rewritten_one():
    read_to = len(FIRST)
    check = mailbox_stream.check_of(io.BytesIO(FIRST + SECOND), read_to)
    grown = FIRST + SECOND + SECOND
    assert mailbox_stream.appended_only(io.BytesIO(grown), len(grown), read_to, check)
    rewritten = FIRST.replace(b"Hello", b"Howdy") + SECOND + SECOND
    assert not mailbox_stream.appended_only(io.BytesIO(rewritten), len(rewritten), read_to, check)
    assert not mailbox_stream.appended_only(io.BytesIO(FIRST[:10]), 10, read_to, check)  # cut short

"""Text from files on a terminal is shown, never obeyed (issue 50, 4)."""

import io

from desktop_rag.cli.terminal import HarmlessStream, harmless, shown


def test_escape_sequences_c1_controls_and_reordering_marks_are_written_as_escapes():
    name = "report\x1b]0;pwned\x07\r\x9b31m\u202etxt.exe"
    assert harmless(name) == "report\\x1b]0;pwned\\x07\\r\\x9b31m\\u202etxt.exe"
    assert harmless("line one\n\tline two — 日本語のテキスト") == "line one\n\tline two — 日本語のテキスト"
    assert shown("a\nb") == "a\\nb"  # a path stays on its line


def test_the_stream_writes_text_harmless_and_its_own_control_sequences_as_they_are():
    out = io.StringIO()
    stream = HarmlessStream(out)
    stream.control("\r\x1b[2K")
    stream.write("file \x1b[2Jcleared\n")
    assert out.getvalue() == "\r\x1b[2Kfile \\x1b[2Jcleared\n"
    assert stream.getvalue() == out.getvalue()  # the rest of the stream as it is

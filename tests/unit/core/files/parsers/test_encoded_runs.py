"""Base64 and hex runs left out of every format's text (core/files/parsers/encoded_runs.py, issue 51, 6): what is
cut, what is kept (hashes, identifiers, rules, other scripts), and the offsets that must follow."""

from __future__ import annotations

import base64
import hashlib
import random
from pathlib import Path

from desktop_rag.core.files.parsers import parse
from desktop_rag.core.files.parsers.encoded_runs import LEFT_OUT_KEY, encoded_runs, without_encoded_runs
from desktop_rag.documents import Heading, ParsedDocument

PICTURE = base64.b64encode(random.Random(7).randbytes(900)).decode()  # 1,200 characters of base64


def test_a_markdown_notes_inline_picture_is_left_out_and_its_words_kept():
    note = (f"# Heron census\n\nForty-two grey herons at the estuary.\n\n![map](data:image/svg+xml;base64,{PICTURE})\n\n"
            "## Method\n\nCounted from the hide at low tide.\n").encode()
    document = parse(Path("census.md"), note)
    assert PICTURE[:40] not in document.text and "Forty-two grey herons" in document.text
    assert document.metadata[LEFT_OUT_KEY] == str(len(PICTURE))
    method = next(h for h in document.headings if h.title == "Method")
    assert document.text[method.start_char:].lstrip("# ").startswith("Method")  # its offset moved with the cut


def test_wrapped_base64_as_mime_and_pem_keep_it_is_one_run():
    wrapped = "\n".join(PICTURE[i:i + 64] for i in range(0, len(PICTURE), 64))
    text = (f"Keys for the lab server.\n-----BEGIN CERTIFICATE-----\n{wrapped}\n-----END CERTIFICATE-----\n"
            "Renew it every March.\n")
    document = parse(Path("keys.txt"), text.encode())
    assert "Keys for the lab server." in document.text and "Renew it every March." in document.text
    assert PICTURE[:20] not in document.text and "BEGIN CERTIFICATE" in document.text
    quoted = "\n".join("> " + PICTURE[i:i + 76] for i in range(0, len(PICTURE), 76))  # in a quoted reply
    assert len(encoded_runs(f"She wrote:\n{quoted}\nThanks!")) == 1


def test_a_hex_dump_is_left_out():
    dump = random.Random(3).randbytes(400).hex()
    assert encoded_runs(f"Firmware image follows: {dump} end of image.") != []


def test_hashes_identifiers_rules_and_other_scripts_are_kept():
    sha512 = hashlib.sha512(b"quince").hexdigest()  # 128 characters: searched for, and too short to be a run
    kept = [
        f"The release's checksum is {sha512} as published.",
        "integrity sha512-" + base64.b64encode(hashlib.sha512(b"x").digest()).decode() + " resolved",
        "=" * 300,  # a rule under a heading
        "-" * 400,
        "a_very_long_snake_case_identifier_" * 10,  # letters only: no digits, no capitals
        "ACGT" * 100,  # a DNA sequence: capitals only
        "東京都の人口は約千四百万人である。" * 30,
    ]
    for text in kept:
        assert encoded_runs(text) == [], text[:40]


def test_headings_and_pages_inside_and_after_a_run_move_with_it():
    text = "Page one words.\n" + PICTURE + "\nPage two words.\n"
    second = text.index("Page two")
    document = ParsedDocument(text=text, title="t", parser="pdf", page_starts=[0, 20, second],
                              headings=[Heading(second, 1, "Two")])
    cut = without_encoded_runs(document)
    assert cut.text == "Page one words.\n\n\nPage two words.\n"
    assert cut.page_starts == [0, 16, cut.text.index("Page two")]  # one inside the run: where the run was
    assert cut.headings[0].start_char == cut.text.index("Page two")
    assert without_encoded_runs(ParsedDocument(text="plain words", title="t", parser="txt")).metadata == {}

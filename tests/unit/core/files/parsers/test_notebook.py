"""Jupyter notebooks (core/files/parsers/notebook.py), written in the test as Jupyter saves them (nbformat 4, and
an old nbformat 3 one)."""

import json
from pathlib import Path

import pytest

from desktop_rag.core.files.parsers import ParseError, parse
from desktop_rag.core.files.parsers.notebook import OUTPUT_CHARS
from desktop_rag.core.files.parsers.formats import family_of_parser

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==" * 20


def notebook(cells: list[dict], **top) -> bytes:
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4,
                       "nbformat_minor": 5, **top}, indent=1).encode()


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def code(text: str, outputs: list[dict]) -> dict:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": outputs,
            "source": text.splitlines(keepends=True)}


def test_cells_read_in_order_with_headings_code_and_printed_output_and_no_json_or_pictures():
    data = notebook([
        markdown("# Tide analysis\n\nHigh water at the **harbour** gauge."),
        code("import pandas as pd\ntides = pd.read_csv('tides.csv')\ntides.max()",
             [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
               "data": {"text/plain": ["height    4.21\n", "dtype: float64"], "text/html": ["<table>…</table>"]}}]),
        markdown("Spring tides\n------------\nThey follow the full moon."),
        code("plot(tides)", [{"output_type": "display_data", "metadata": {}, "data": {"image/png": PNG}},
                             {"output_type": "stream", "name": "stdout", "text": ["saved tides.png\n"]}]),
        code("1 / 0", [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                        "traceback": ["\u001b[0;31m---------\u001b[0m"]}]),
    ])
    document = parse(Path("tides.ipynb"), data)
    text = document.text
    assert document.parser == "notebook" and family_of_parser("notebook") == "code"
    assert document.title == "Tide analysis" and [(h.level, h.title) for h in document.headings] == [
        (1, "Tide analysis"), (2, "Spring tides")]
    for said in ("High water at the **harbour** gauge.", "tides = pd.read_csv('tides.csv')", "height    4.21",
                 "They follow the full moon.", "saved tides.png", "ZeroDivisionError: division by zero"):
        assert said in text, said
    assert text.index("Tide analysis") < text.index("tides.max()") < text.index("Spring tides") < text.index(
        "saved tides.png")
    for noise in ('"cell_type"', "iVBOR", "<table>", "------------", "\\n"):
        assert noise not in text, noise


def test_a_long_output_is_cut_and_an_old_notebook_is_read():
    log = "".join(f"epoch {n}: loss 0.{n:04d}\n" for n in range(2000))
    long_run = parse(Path("train.ipynb"), notebook([code("train()", [{"output_type": "stream", "text": log}])]))
    assert "epoch 0: loss" in long_run.text and "epoch 1999" not in long_run.text
    assert len(long_run.text) < OUTPUT_CHARS + 100
    old = {"nbformat": 3, "metadata": {"name": "survey"}, "worksheets": [{"cells": [
        {"cell_type": "markdown", "source": ["# Survey\n", "Depths of the channel."]},
        {"cell_type": "code", "input": ["depths = [4, 5, 7]"], "outputs": []}]}]}
    document = parse(Path("survey.ipynb"), json.dumps(old).encode())
    assert "Depths of the channel." in document.text and "depths = [4, 5, 7]" in document.text


def test_a_notebook_whose_json_is_cut_short_says_so():
    with pytest.raises(ParseError, match="not a readable Jupyter notebook"):
        parse(Path("cut.ipynb"), notebook([markdown("# Half")])[:40])

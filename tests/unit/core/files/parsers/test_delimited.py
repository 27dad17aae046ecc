"""Comma- and tab-separated files read as sheets (core/files/parsers/delimited.py), made in the test as programs
write them: Excel's German CSV (semicolons, decimal commas, Windows-1252), Excel's Japanese CSV (Shift_JIS), a
bank export with quoted fields, a tab-separated file."""

from pathlib import Path

from desktop_rag.core.files.parsers import parse
from desktop_rag.core.files.parsers.formats import family_of_parser


def test_each_row_says_its_columns_labels_in_whatever_separator_and_charset():
    german = "Datum;Empfänger;Betrag\r\n01.03.2025;Hafenamt;-120,50\r\n02.03.2025;Segelclub;-45,00\r\n"
    document = parse(Path("konto.csv"), german.encode("cp1252"))
    assert "Datum: 01.03.2025; Empfänger: Hafenamt; Betrag: -120,50" in document.text
    assert document.parser == "csv" and family_of_parser("csv") == "spreadsheet"
    japanese = "日付,品名,金額\n2025/03/01,係留料,12000\n"
    assert "日付: 2025/03/01; 品名: 係留料; 金額: 12000" in parse(Path("経費.csv"), japanese.encode("shift_jis")).text
    tabbed = parse(Path("phones.tsv"), b"Name\tPhone\nAnna Berg\t555-1234\n").text
    assert "Name: Anna Berg; Phone: 555-1234" in tabbed


def test_quoted_fields_keep_their_commas_quotes_and_line_breaks_and_values_stay_as_written():
    export = (b'Date,Payee,Amount,Memo\n2025-03-01,"Berg, Anna",1.50,"said ""hi""\nthen left"\n'
              b"2025-03-02,Harbour Office,-120.00,\n")
    text = parse(Path("statement.csv"), export).text
    assert 'Date: 2025-03-01; Payee: Berg, Anna; Amount: 1.50; Memo: said "hi" then left' in text
    assert "Date: 2025-03-02; Payee: Harbour Office; Amount: -120.00" in text


def test_a_first_row_of_numbers_or_dates_is_data_not_labels():
    text = parse(Path("readings.csv"), b"2025-03-01,12.5,7\n2025-03-02,13.0,8\n").text
    assert "2025-03-01\t12.5\t7" in text and "2025-03-02\t13.0\t8" in text and ":" not in text.replace("\n", "")


def test_every_row_of_a_long_file_is_read_with_its_labels():
    rows = "".join(f"Berth {n},{n * 10}\n" for n in range(30_000))
    text = parse(Path("berths.csv"), ("Berth,Fee\n" + rows).encode()).text
    assert "Berth: Berth 29999; Fee: 299990" in text and "not indexed" not in text


def test_a_file_the_csv_module_cannot_split_is_read_as_text():
    huge_field = b"Name,Note\nAnna," + b"x" * 200_000 + b"\n"  # over csv.field_size_limit (131,072)
    document = parse(Path("odd.csv"), huge_field)
    assert document.parser == "text" and document.text.startswith("Name,Note\nAnna,xxx")

from desktop_rag.core.files.titles import fitting_title, name_in_words, names_something
from desktop_rag.documents import Heading, ParsedDocument

FILING = ("UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nBEST BUY CO., INC.\n"
          "Best Buy is a leading provider of technology products. This annual report on Form 10-K for Best Buy "
          "covers fiscal 2023. Our 10-K filings are on our website.")


def _document(title: str, text: str = "", headings: list[Heading] | None = None) -> ParsedDocument:
    return ParsedDocument(text=text, title=title, parser="pdf", headings=headings or [])


def test_identifiers_forms_and_templates_name_nothing_and_real_titles_do():
    for junk in ("0000764478-23-000006", "UNITED STATES", "Form 10-Q", "Document1", "Untitled", "Presentation 2",
                 "PowerPoint Presentation", "Table of Contents", "5e4c01057a10732d34784af2", "report_v2.docx", "",
                 "PART II", "Item 7A", "42"):
        assert not names_something(junk), junk
    for title in ("Best Buy 10-K 2023", "Q3 2025 ACME earnings report", "Stetigkeit topologischer Räume",
                  "東京の地下鉄", "IMG 2023", "Annual Report 2023 of ACME"):
        assert names_something(title), title


def test_a_name_is_spelled_as_the_text_spells_its_words():
    assert name_in_words("bestbuy-10k-2023", FILING) == "Best Buy 10-K 2023"
    assert name_in_words("bestbuy-10k-2023", "") == "bestbuy 10k 2023"  # nothing to spell it by: the name's parts
    assert name_in_words("quarterlyReport_Q3", "The Quarterly Report of Q3.") == "Quarterly Report Q3"
    assert name_in_words("見積書_2025", "") == "見積書 2025"


def test_an_accession_number_gives_way_to_the_file_s_name_in_the_text_s_spelling():
    assert fitting_title(_document("0000764478-23-000006", FILING), "bestbuy-10k-2023") == "Best Buy 10-K 2023"
    assert fitting_title(_document("UNITED STATES", FILING), "bestbuy-10k-2023") == "Best Buy 10-K 2023"


def test_a_title_that_names_its_document_stays():
    document = _document("Q3 2025 ACME earnings report", FILING)
    assert fitting_title(document, "bestbuy-10k-2023") == "Q3 2025 ACME earnings report"


def test_a_printer_s_prefix_and_extension_are_taken_off():
    document = _document("Microsoft Word - Travel policy 2024.docx", "Travel policy")
    assert fitting_title(document, "x") == "Travel policy 2024"


def test_a_name_that_says_nothing_gives_way_to_the_first_real_heading():
    headings = [Heading(0, 1, "Table of Contents"), Heading(40, 1, "Annual Safety Review"), Heading(90, 2, "Fires")]
    assert fitting_title(_document("Document1", "text", headings), "scan0001") == "Annual Safety Review"
    assert fitting_title(_document("Document1", "text"), "scan0001") == "scan0001"  # nothing better: the name

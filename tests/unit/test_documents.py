"""What a hit says of its document, and the name card a document without text is found by (desktop_rag/documents.py)."""

import time

from desktop_rag.documents import metadata_words, name_card, name_chunk, unread_words


def _epoch(day: str) -> float:
    return time.mktime(time.strptime(day, "%Y-%m-%d")) + 12 * 3600


def test_a_hit_shows_the_date_the_date_filters_use():
    """Issue 37: a PDF labelled "modified 2025-08-02" (its own inner date) was listed by after:2026-06, which reads
    the file's last change. The label now shows that day; the inner date only where no file date is known."""
    inner = {"author": "Kim", "modified": "2025-08-02T10:00:00"}
    assert metadata_words(inner, _epoch("2026-07-01")) == "by Kim, modified 2026-07-01"
    assert metadata_words(inner) == "by Kim, modified 2025-08-02 10:00"
    assert metadata_words(None, _epoch("2026-07-01")) == "modified 2026-07-01"
    mail = {"from": "Anna <a@example.org>", "date": "2025-03-14T09:30:00"}
    assert metadata_words(mail, _epoch("2026-07-01")) == "from Anna <a@example.org>, 2025-03-14 09:30"  # sent date


def test_a_document_without_text_is_known_by_its_name_folder_title_and_what_it_says_of_itself():
    card = name_card("/home/ann/Work/plans/seating-chart.docx", "Wedding seating",
                     {"author": "Kim", "created": "2025-05-01T08:00:00"})
    assert card.split("\n") == ["seating-chart.docx", "/home/ann/Work/plans", "Wedding seating",
                                "by Kim, created 2025-05-01 08:00"]
    assert name_card("/home/ann/a.pdf", "a") == "a.pdf\n/home/ann"  # a title that is the name says nothing more
    assert name_card("/m/photos.zip › 2023/receipt.png") == "photos.zip › 2023/receipt.png\n/m"
    chunk = name_chunk(card)
    assert (chunk.text, chunk.start_char, chunk.end_char, chunk.index) == (card, 0, len(card), 0)


def test_a_hit_found_by_its_name_says_why_it_shows_no_text():
    assert unread_words("") == "Found by its name: there is no text in this file."
    assert unread_words("encrypted PDF: a password is needed.") == (
        "Found by its name: its text could not be read (encrypted PDF: a password is needed).")


def test_how_many_says_one_in_the_singular_and_the_rest_in_the_plural():
    from desktop_rag.documents import how_many

    assert how_many(1, "result") == "1 result" and how_many(0, "result") == "0 results"
    assert how_many(2, "weak match", "weak matches") == "2 weak matches"
    assert how_many(1, "weak match", "weak matches") == "1 weak match" and how_many(12000, "file") == "12,000 files"


def test_the_counts_of_documents_and_contexts_say_one_in_the_singular():
    from desktop_rag.documents import documents_sentence, upgrade_words

    counts = {"indexed": 3, "failed": 1, "skipped": 0, "inside_files": 1}
    assert documents_sentence(counts).startswith("3 indexed (and 1 document inside archives and mail), 1 failed")
    assert upgrade_words(1, 1, 1) == "1 context written by the LLM in 1 document; 1 kept its rules context"
    assert upgrade_words(12, 2, 0) == "12 contexts written by the LLM in 2 documents; 0 kept their rules context"

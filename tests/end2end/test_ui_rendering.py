"""How hits and contexts are rendered as rich text, and the light/dark choice (no window needed)."""

from PySide6.QtGui import QColor, QPalette

from desktop_rag.core.search.highlight import QueryMatch
from desktop_rag.core.search.query import parse_query
from desktop_rag.core.search.searcher import Hit, Scores
from desktop_rag.ui.result_html import DARK, LIGHT, hit_html, preview_html, snippet
from desktop_rag.ui.theme import colors_for


def make_hit(context="Invoice tools — late fees.", source="llm", quality=0.82):
    return Hit(chunk_id=1, path="/home/ann/work/invoice_tools.py", title="invoice_tools", page=None, chunk_index=3,
               start_char=0, end_char=10, heading_path=["def late_payment_interest"], context=context,
               context_source=source, quality=quality, text="def late_payment_interest(amount, days): <b>",
               scores=Scores(dense=0.61, bm25=7.2, fused=0.0323, keywords=0.5, meaning=0.7, strength=0.85))


def words_of(query: str) -> QueryMatch:
    return QueryMatch.of(parse_query(query))


def found(hit: Hit, query: str) -> Hit:
    """The hit with its matches, as the searcher gives it."""
    hit.matches = words_of(query).matches_in(text=hit.text, context=hit.context, questions=hit.questions)
    return hit


def test_the_context_is_a_block_of_its_own_before_the_text_with_source_quality_and_escaped_text():
    html = hit_html(found(make_hit(), "late interest"), LIGHT)
    context_at, text_at = html.index("<b>CONTEXT</b> · by the language model · quality 0.82"), html.index("(amount, days)")
    assert f"bgcolor='{LIGHT.context_background}'" in html and context_at < text_at
    assert "</span> fees.</td></tr></table>" in html[context_at:text_at]  # the context closes its own block
    assert "&lt;b&gt;" in html and "<b>CONTEXT</b>" in html  # document text is escaped, markup is ours
    assert f"background-color:{LIGHT.mark_background}\">late_payment_interest</span>" in html
    assert "invoice_tools.py" in html and "def late_payment_interest" in html
    assert "▰▰▰▰▱ strong" in html  # the match strength, as a bar and a word


def test_a_mail_hit_says_who_sent_it_and_a_member_is_named_from_its_file_on():
    hit = make_hit()
    hit.path = "/home/ann/mail/Inbox › 2025-03-14 Lunch › menu.pdf"
    hit.metadata = {"from": "Anna Berg <anna@example.org>", "to": "Ben", "date": "2025-03-14T09:30:00",
                    "attached_to": "Lunch"}
    html = hit_html(found(hit, "menu"), LIGHT)
    assert "<b>Inbox › 2025-03-14 Lunch › menu.pdf</b>" in html and "/home/ann/mail" in html
    assert "from Anna Berg &lt;anna@example.org&gt;, to Ben, 2025-03-14 09:30, attached to “Lunch”" in html
    hit.path, hit.metadata = "/home/ann/photos.zip › 2023/receipt.pdf", {"author": "Kim", "modified": "2024-02-01"}
    html = hit_html(found(hit, "receipt"), LIGHT)
    assert "<b>photos.zip › 2023/receipt.pdf</b>" in html and "by Kim, modified 2024-02-01" in html


def test_a_hit_names_the_copies_of_its_file():
    """Issue 51, 8: a copy's words find the original alone; the hit says where else the same content is."""
    hit = make_hit()
    assert "also at" not in hit_html(found(hit, "interest"), LIGHT)
    hit.copies = ["/home/ann/Backup/invoice_tools.py", "/home/ann/old/tools.zip › invoice_tools.py"]
    html = hit_html(found(hit, "interest"), LIGHT)
    assert "also at /home/ann/Backup/invoice_tools.py, /home/ann/old/tools.zip › invoice_tools.py" in html
    hit.copies = [f"/home/ann/copy{i}.py" for i in range(5)]
    assert "copy2.py and 2 more" in hit_html(found(hit, "interest"), LIGHT)


def test_the_questions_a_hit_answers_show_under_its_context_with_the_query_words_marked():
    hit = make_hit()
    hit.questions = "How is late interest computed?\nWhat does <late> mean?"
    html = hit_html(found(hit, "interest"), LIGHT)
    answers_at = html.index("Answers: ")
    assert html.index("<b>CONTEXT</b>") < answers_at < html.index("</td></tr></table>")  # inside the context block
    assert f"background-color:{LIGHT.mark_background}\">interest</span> computed?" in html[answers_at:]
    assert "What does &lt;late&gt; mean?" in html  # escaped like every text
    assert "Answers" not in hit_html(found(make_hit(), "interest"), LIGHT)  # none written: no line
    preview = preview_html("Intro. def late_payment_interest(): ...", 7, 39, words_of("interest"), LIGHT,
                           hit.context, "llm", hit.questions)
    assert "Answers: How is late" in preview and preview.index("Answers: ") < preview.index("name='hit'")


def test_a_hit_without_context_has_no_context_block():
    html = hit_html(found(make_hit(context="", source="none", quality=None), "interest"), LIGHT)
    assert "CONTEXT" not in html and "bgcolor" not in html


def test_long_text_is_cut_around_the_first_match_at_word_boundaries():
    text = " ".join(f"word{i}" for i in range(200)) + " needle " + " ".join(f"tail{i}" for i in range(200))
    cut, spans = snippet(text, words_of("needle").spans(text), width=120)
    assert [cut[start:end] for start, end in spans] == ["needle"]
    assert "needle" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 122
    assert not cut.split()[1].startswith("ord")  # no word cut in half


def test_the_preview_marks_the_chunk_and_anchors_it():
    document = "Intro line.\nThe chunk itself.\nAfter it."
    html = preview_html(document, 12, 29, None, LIGHT, "Context here", "rules")
    assert "<a name='hit'></a>" in html and LIGHT.chunk_background in html
    assert html.index("Intro line") < html.index("Context here") < html.index("The chunk itself") < html.index("After")


def test_colours_follow_the_palette(qapp):
    dark = QPalette()
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    light = QPalette()
    light.setColor(QPalette.ColorRole.Window, QColor("#f6f6f6"))
    assert colors_for(dark) == DARK and colors_for(light) == LIGHT


def test_errors_read_as_sentences_a_person_can_act_on():
    import errno

    from desktop_rag.core.llm.models import ModelUnavailable
    from desktop_rag.ui.errors import readable

    assert readable(OSError(errno.ENOSPC, "No space left on device")).startswith("The disk is full.")
    assert "Permission denied: /srv/docs" in readable(PermissionError(13, "Permission denied", "/srv/docs"))
    assert readable(ModelUnavailable("no file x.gguf")) == "The language model is not available: no file x.gguf"
    # Anything else is a bug: said as such, the details left to the log (the task runner wrote the traceback there).
    assert readable(RuntimeError("decode failed")) == (
        "An internal error occurred (RuntimeError: decode failed). The window's log (logs/window.log in the data "
        "folder) has the details.")


def test_qt_calls_keep_their_references_to_none(qapp):
    """PySide6 6.12.0 on Python 3.11 lost a reference to None at each call of a method returning nothing: a
    long-running app died with "none_dealloc". The pinned version must not."""
    import sys

    from PySide6.QtWidgets import QLabel

    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(5000):
        label.setText("x")
    assert sys.getrefcount(None) > before - 500  # other threads come and go; a leak would be 5,000

"""What the embedder is given for a chunk: the context first, then the text, cut into windows that fit."""

from desktop_rag.core.dense.dense_text import EMBEDDER_TEXT_PIECES, dense_windows
from desktop_rag.core.dense.tokens import token_counter


def test_short_text_is_one_window_with_context_first():
    assert dense_windows("Guide — Install.", "Run the installer.", token_counter()) == [
        "Guide — Install.\n\nRun the installer."
    ]


def test_long_text_is_cut_into_windows_that_each_carry_the_context_and_fit():
    counter = token_counter()
    context = "Handbook — Chain (page 3)."
    text = " ".join(f"sentence{i} about chains." for i in range(200))
    windows = dense_windows(context, text, counter)
    assert len(windows) > 2
    assert all(w.startswith(context + "\n\n") for w in windows)
    assert max(counter.count(windows)) <= EMBEDDER_TEXT_PIECES < counter.text_limit == 512 - 2 - 3  # e5 reads 512
    rebuilt = " ".join(w[len(context) + 2:] for w in windows)
    assert rebuilt.split() == text.split()

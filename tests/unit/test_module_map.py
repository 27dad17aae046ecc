"""The module map (docs/module-map.md) is made from the modules' docstrings (tests/module_map.py): every module has
one, and the map on disk is the one they make now."""

from module_map import MAP, docstrings, first_sentence, module_map, undocumented

REMAKE = "run `python tests/module_map.py` and commit docs/module-map.md"


def test_every_module_says_what_it_is():
    assert undocumented(docstrings()) == []


def test_the_module_map_is_the_one_the_docstrings_make():
    assert MAP.read_text(encoding="utf-8") == module_map(docstrings()), REMAKE


def test_the_map_check_catches_a_module_without_a_docstring_and_a_stale_map():
    found = docstrings()
    found["desktop_rag/core/newcomer.py"] = None
    assert "desktop_rag/core/newcomer.py" in undocumented(found)
    found["desktop_rag/core/newcomer.py"] = "A module that came after the map was made."
    assert MAP.read_text(encoding="utf-8") != module_map(found)
    assert first_sentence("The first. The second.") == "The first."
    assert first_sentence("A reader (e.g. the window's) reads.\nMore.") == "A reader (e.g. the window's) reads."

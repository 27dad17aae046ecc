"""Settings are declared once (config.py): each entry's type, default, limits, help and effect give the CLI's
parsing, the checks on load and on set, and what a change does."""

from dataclasses import fields

import pytest

from desktop_rag.config import OPTIONS, Settings, check_setting, parse_setting, what_changing_does
from desktop_rag.errors import BadInput


def test_every_setting_has_its_entry_and_a_fresh_list_of_its_own():
    assert [f.name for f in fields(Settings)] == list(OPTIONS)
    assert all(option.help for option in OPTIONS.values())
    one, other = Settings(), Settings()
    one.ignore_patterns.append("*.bak")
    assert "*.bak" not in other.ignore_patterns and other.ocr_skip_folders == []


def test_a_value_in_words_becomes_the_setting_s_own_type_within_its_limits():
    assert parse_setting("chunk_tokens", "150") == 150
    assert parse_setting("fusion_bm25_weight", "0.4") == 0.4
    assert parse_setting("rerank", "on") is True and parse_setting("ocr", "no") is False
    assert parse_setting("ocr_skip_folders", "~/Photos, ~/Scans ,") == ["~/Photos", "~/Scans"]
    assert parse_setting("contexts", "rules") == "rules"
    for name, words, message in [("chunk_tokens", "many", "a whole number"), ("chunk_tokens", "8", "at least 32"),
                                 ("llm_cap_minutes_per_hour", "61", "at most 60"), ("rerank", "maybe", "true or"),
                                 ("contexts", "magic", "pick one of"), ("ocr_languages", "eng jpn", "joined by +")]:
        with pytest.raises(BadInput, match=message):
            parse_setting(name, words)


def test_the_limits_every_front_end_shows_are_the_ones_checked():
    for name, option in OPTIONS.items():
        if option.minimum is not None:
            with pytest.raises(BadInput):
                check_setting(name, option.minimum - 1)
        if option.maximum is not None:
            check_setting(name, option.maximum)
            with pytest.raises(BadInput):
                check_setting(name, option.maximum + 1)


def test_what_a_change_does_comes_from_the_setting_s_entry():
    said = what_changing_does(["chunk_tokens", "rerank", "embedding_model"])
    # rerank changes nothing stored; each named as a person does (the window showed "chunk_tokens: …")
    assert [line.split(":")[0] for line in said] == ["Passage size", "Meaning model"]
    assert "made searchable by meaning again" in said[1]


def test_a_change_is_checked_whole_before_any_value_is_set_and_saved_once(tmp_path):
    settings = Settings()
    with pytest.raises(BadInput, match=r"chunk_tokens.* should be int"):
        settings.change({"rerank": True, "chunk_tokens": "many"}, tmp_path)
    with pytest.raises(BadInput, match="at most 60"):
        settings.change({"rerank": True, "llm_cap_minutes_per_hour": 61}, tmp_path)
    with pytest.raises(BadInput, match="unknown setting 'colour'"):
        settings.change({"rerank": True, "colour": "blue"}, tmp_path)
    assert settings == Settings() and not any(tmp_path.iterdir())  # nothing set, nothing written

    changed = settings.change({"rerank": True, "chunk_tokens": Settings().chunk_tokens, "llm_idle_minutes": 5},
                              tmp_path)
    assert changed == ["rerank", "llm_idle_minutes"]  # the value it had already is no change
    assert settings.llm_idle_minutes == 5.0 and isinstance(settings.llm_idle_minutes, float)
    assert Settings.load(tmp_path) == settings
    saved = next(tmp_path.iterdir()).stat().st_mtime_ns
    assert settings.change({"rerank": True}, tmp_path) == [] and next(tmp_path.iterdir()).stat().st_mtime_ns == saved


def test_starting_at_login_writes_the_autostart_entry_and_turning_it_off_removes_it(tmp_path, monkeypatch):
    from desktop_rag.platform import autostart, autostart_xdg

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    settings, data_dir = Settings(), tmp_path / "data"
    settings.change({"start_at_login": True}, data_dir)
    assert autostart.is_enabled(data_dir) and autostart_xdg.command_of(autostart_xdg.entry_path(data_dir))[-1] == "service"
    settings.change({"start_at_login": False}, data_dir)
    assert not autostart.is_enabled(data_dir) and not settings.start_at_login


def test_a_default_since_changed_follows_the_new_one_and_a_chosen_value_stays(tmp_path):
    """Every value is saved, so a library saved before issue 48 holds the fusion's old default (0.6): it takes the
    new one (0.65); a value a person chose (0.4) stays."""
    import json

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "settings.json").write_text(json.dumps({"fusion_bm25_weight": 0.6, "candidates": 50}))
    loaded = Settings.load(data)
    assert loaded.fusion_bm25_weight == Settings().fusion_bm25_weight == 0.65 and loaded.candidates == 50
    (data / "settings.json").write_text(json.dumps({"fusion_bm25_weight": 0.4}))
    assert Settings.load(data).fusion_bm25_weight == 0.4

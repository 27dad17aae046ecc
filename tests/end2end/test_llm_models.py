import hashlib
import sys

import pytest

from desktop_rag.core.llm.models import PACKAGED_MODELS, ModelUnavailable, PackagedModel, assemble, resolve_model


@pytest.fixture
def fake_part_packages(tmp_path, monkeypatch):
    """Three tiny installed 'part' packages, laid out like the real ones (injected: the real parts are 1.1 GB)."""
    site = tmp_path / "site"
    contents = [b"GGUF-part-one|", b"part-two|", b"part-three"]
    for n, data in enumerate(contents, start=1):
        package = site / f"fake_model_part{n}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{n:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    for n in range(1, 4):
        sys.modules.pop(f"fake_model_part{n}", None)
    return site, b"".join(contents)


def test_parts_are_joined_in_order_and_verified(fake_part_packages, tmp_path):
    site, whole = fake_part_packages
    model = PackagedModel("fake", "", hashlib.sha256(whole).hexdigest(), None, "fake_model_part{n}", 3)
    target = assemble(model, tmp_path / "models")
    assert target.read_bytes() == whole
    (site / "fake_model_part2" / "data" / "part02.bin").write_bytes(b"changed!")
    assert assemble(model, tmp_path / "models") == target  # verified before: not re-hashed at every start


def test_a_wrong_checksum_or_missing_part_is_refused(fake_part_packages, tmp_path):
    _site, _ = fake_part_packages
    wrong = PackagedModel("fake", "", "0" * 64, None, "fake_model_part{n}", 3)
    with pytest.raises(ModelUnavailable, match="does not match its sha256"):
        assemble(wrong, tmp_path / "models")
    assert not list((tmp_path / "models").glob("*.gguf*"))  # no half file left behind
    missing = PackagedModel("fake", "", "0" * 64, None, "fake_model_part{n}", 4)
    with pytest.raises(ModelUnavailable, match="'fake-model-part4' is not installed"):
        assemble(missing, tmp_path / "models")


def test_a_user_file_or_a_clear_error(tmp_path):
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model(str(gguf), tmp_path) == gguf
    with pytest.raises(ModelUnavailable, match="no model file at"):
        resolve_model(str(tmp_path / "nope.gguf"), tmp_path)


def test_the_shipped_default_model_assembles_and_matches_its_checksum(tmp_path):
    path = resolve_model("qwen2.5-coder-0.5b-instruct-q4_k_m", tmp_path)
    assert path.stat().st_size > 400_000_000
    assert path.read_bytes()[:4] == b"GGUF"
    assert PACKAGED_MODELS["qwen2.5-coder-0.5b-instruct-q4_k_m"].sha256 in (path.with_suffix(".verified.json")).read_text()

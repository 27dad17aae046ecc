"""The install resolves from wheels alone on Linux x86_64, Windows x86_64 and macOS on Apple silicon
(packaging/wheels_resolve.py, issue 52), and the check fails when a dependency lacks a wheel for one of them. Reads
the package index, as the install does."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

# The offline bundle's tests run where no index is reached (packaging/install-offline.sh --test says so).
pytestmark = pytest.mark.skipif(bool(os.environ.get("DESKTOP_RAG_NO_INDEX")), reason="no package index on this laptop")
ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "packaging" / "wheels_resolve.py"


def _check(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK), *arguments], capture_output=True, text=True, timeout=900)


def test_the_install_resolves_from_wheels_on_linux_windows_and_macos():
    done = _check()
    assert done.returncode == 0, done.stdout + done.stderr
    for platform in ("linux x86_64", "windows x86_64", "macos arm64"):
        assert f"{platform}: " in done.stdout and "all from wheels" in done.stdout.split(f"{platform}: ")[1].split("\n")[0]


def test_a_dependency_with_linux_only_wheels_fails_the_check_for_windows_and_macos():
    # pysqlite3-binary publishes manylinux wheels only: what a new dependency without Windows or macOS wheels is.
    done = _check("--with", "pysqlite3-binary==0.5.4", "--platform", "windows x86_64", "--platform", "macos arm64",
                  "--platform", "linux x86_64")
    assert done.returncode == 1
    assert "linux x86_64: " in done.stdout and "all from wheels" in done.stdout.split("linux x86_64: ")[1][:80]
    for platform in ("windows x86_64", "macos arm64"):
        said = done.stdout.split(f"{platform}: ")[1]
        assert said.startswith("does not resolve from wheels alone") and "pysqlite3-binary" in said.split("\n\n")[0]

#!/usr/bin/env bash
# Create ./.venv and install desktop-rag with everything it needs, offline-capable models included.
# Idempotent: a stamp records what was installed; when pyproject.toml and this script are unchanged, it returns
# in well under a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV="${DESKTOP_RAG_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
# CPU build of torch, pinned and installed FIRST: with no torch present, any package asking for `torch` would
# pull a multi-GB CUDA build. With 2.13.0 installed, later requirements are satisfied by it.
TORCH_PIN="torch==2.13.0"

if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating $VENV" >&2
    "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.desktop-rag-installed"
wanted="$(cat pyproject.toml packaging/bootstrap.sh | sha256sum | cut -c1-32)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$wanted" ]; then
    echo "setup: installing (first time: a few minutes; llama-cpp-python compiles from source)" >&2
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet "$TORCH_PIN"
    "$VENV/bin/python" -m pip install --quiet -e ".[llm,test]"
    echo "$wanted" > "$stamp"
fi

#!/usr/bin/env bash
# Install what is needed (once) and run the whole test suite: the fast tier (lint, types, tests/unit) first, so that
# a broken build fails in a minute, then the tests with the real parts (tests/end2end). Arguments are passed to
# pytest; arguments naming tests run just those.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/bootstrap.sh"
cd "$here/.."
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1
for argument in "$@"; do
    if [[ "$argument" == tests* ]]; then
        exec .venv/bin/python -m pytest "$@"
    fi
done
.venv/bin/ruff check --quiet desktop_rag tests bench  # lint (pyproject.toml), a second
.venv/bin/mypy desktop_rag  # types (pyproject.toml), ~15 s the first time, ~3 s after
.venv/bin/python -m pytest tests/unit "$@"
exec .venv/bin/python -m pytest tests/end2end "$@"

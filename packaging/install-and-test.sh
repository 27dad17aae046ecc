#!/usr/bin/env bash
# Install what is needed (once) and run the whole test suite. Arguments are passed to pytest.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/bootstrap.sh"
cd "$here/.."
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1
exec .venv/bin/python -m pytest "$@"

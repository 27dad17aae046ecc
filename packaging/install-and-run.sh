#!/usr/bin/env bash
# Install what is needed (once) and launch desktop-rag. Arguments are passed to the `desktop-rag` command.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/bootstrap.sh"
exec "$here/../.venv/bin/desktop-rag" "$@"

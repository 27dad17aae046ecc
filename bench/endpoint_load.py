"""Many local clients at once against `desktop-rag serve`: connections refused, errors, and search latency.

    python bench/endpoint_load.py [--chunks 2000] [--clients 10,30,60] [--searches 10]

A library of synthetic Markdown (bench/synthetic.py, rules contexts) is indexed in a temporary data folder and
served. For each client count, that many processes connect at the same moment and each runs `--searches` hybrid
searches (10 hits, its own queries) one after the other on its connection. Prints per count: refused
connections, errors, p50 / p95 / worst latency of a search, and searches per second overall.
"""

from __future__ import annotations

import argparse
import multiprocessing
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


def one_client(data_dir: str, texts: list[str], start_at: float, results) -> None:
    from desktop_rag.service.endpoint import EndpointClient

    time.sleep(max(0.0, start_at - time.time()))
    client = EndpointClient.for_library(Path(data_dir))
    if client is None:
        results.put(("refused", None))
        return
    for text in texts:
        started = time.perf_counter()
        try:
            client.call("search", query=text, limit=10)
            results.put(("ok", time.perf_counter() - started))
        except Exception as exc:
            results.put(("error", repr(exc)))
    client.close()


def run_load(data_dir: Path, clients: int, per_client: int, vocab: list[str]) -> dict:
    texts = queries(vocab, clients * per_client, seed=clients)
    results = multiprocessing.Manager().Queue()
    start_at = time.time() + 2.0  # every process started and waiting: they connect together
    processes = [multiprocessing.Process(target=one_client, args=(str(data_dir), texts[i::clients], start_at,
                                                                  results)) for i in range(clients)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=600)
    wall = time.time() - start_at
    outcomes = []
    while not results.empty():
        outcomes.append(results.get())
    latencies = sorted(value for kind, value in outcomes if kind == "ok")
    p95 = latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))] if latencies else float("nan")
    return {"clients": clients, "searches": len(latencies),
            "refused": sum(kind == "refused" for kind, _ in outcomes),
            "errors": sum(kind == "error" for kind, _ in outcomes),
            "p50_ms": statistics.median(latencies) * 1000 if latencies else float("nan"), "p95_ms": p95 * 1000,
            "worst_ms": latencies[-1] * 1000 if latencies else float("nan"), "per_s": len(latencies) / wall}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--clients", default="10,30,60")
    parser.add_argument("--searches", type=int, default=10, help="searches per client")
    args = parser.parse_args()

    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library
    from desktop_rag.service.endpoint import EndpointClient

    with tempfile.TemporaryDirectory() as tmp:
        folder, data_dir = Path(tmp) / "notes", Path(tmp) / "data"
        vocab = write_corpus(folder, args.chunks)
        Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
        with Library(data_dir) as library:
            library.index([folder])
        server = subprocess.Popen([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "serve"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        try:
            deadline = time.monotonic() + 300
            while EndpointClient.for_library(data_dir) is None:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("serve did not start listening")
                time.sleep(0.2)
            EndpointClient.for_library(data_dir).call("search", query="warm up", limit=1)
            rows = [run_load(data_dir, int(n), args.searches, vocab) for n in args.clients.split(",")]
        finally:
            server.terminate()
            server.wait(timeout=60)
    print(f"\n{args.chunks} chunks, {args.searches} hybrid searches per client, clients connecting at once\n")
    print("| clients | searches | refused | errors | p50 ms | p95 ms | worst ms | searches/s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['clients']} | {row['searches']} | {row['refused']} | {row['errors']} | {row['p50_ms']:.0f} "
              f"| {row['p95_ms']:.0f} | {row['worst_ms']:.0f} | {row['per_s']:.1f} |")


if __name__ == "__main__":
    main()

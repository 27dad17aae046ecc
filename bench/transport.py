"""The endpoint's transport, side by side (issue 49: a seam Windows can fill): what a call costs on each way two
local processes can talk, with the answer a search gives (~6 KB of JSON) and nothing else in the way.

    .venv/bin/python bench/transport.py [--calls 2000] [--connects 200]

- unix socket, JSON lines: today's endpoint (platform/local_socket.py, service/connection_loop.py);
- multiprocessing.connection over AF_UNIX: the standard library's one API for AF_UNIX and Windows' named pipes
  (AF_PIPE), length-framed messages; with an authkey, every connection first answers an HMAC challenge;
- TCP on 127.0.0.1, JSON lines: what works on every system (but any local user may connect: a secret is needed).

The server echoes a fixed answer from a process of its own (the service's place); the client is this process.
Prints, per way: the round trip p50 / p95 and the connection's cost, in microseconds.
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.connection as mpc
import os
import socket
import tempfile
import time
from pathlib import Path

ANSWER = b'{"result": {"results": [' + b",".join([b'{"text": "' + b"x" * 280 + b'"}'] * 20) + b"]}}\n"
REQUEST = b'{"method": "search", "params": {"query": "boiler pressure valve settings", "limit": 10}}\n'
AUTHKEY = os.urandom(32)


def _lines_server(family: int, address, ready) -> None:
    listener = socket.socket(family, socket.SOCK_STREAM)
    if family == socket.AF_INET:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(address)
    listener.listen(64)
    ready.set()
    while True:
        connection, _ = listener.accept()
        stream = connection.makefile("rwb")
        while stream.readline():
            stream.write(ANSWER)
            stream.flush()
        connection.close()


def _messages_server(address: str, authkey: bytes | None, ready) -> None:
    listener = mpc.Listener(address, "AF_UNIX", authkey=authkey)
    ready.set()
    while True:
        connection = listener.accept()
        try:
            while True:
                connection.recv_bytes()
                connection.send_bytes(ANSWER)
        except EOFError:
            connection.close()


def _lines_client(family: int, address):
    def connect():
        connection = socket.socket(family, socket.SOCK_STREAM)
        connection.connect(address)
        return connection, connection.makefile("rwb")

    def call(client) -> None:
        _connection, stream = client
        stream.write(REQUEST)
        stream.flush()
        stream.readline()

    def close(client) -> None:
        client[1].close()
        client[0].close()

    return connect, call, close


def _messages_client(address: str, authkey: bytes | None):
    def call(client) -> None:
        client.send_bytes(REQUEST)
        client.recv_bytes()

    return (lambda: mpc.Client(address, "AF_UNIX", authkey=authkey)), call, (lambda client: client.close())


def measure(name: str, server, server_args, client, calls: int, connects: int) -> tuple:
    ready = multiprocessing.Event()
    process = multiprocessing.Process(target=server, args=(*server_args, ready), daemon=True)
    process.start()
    ready.wait(10)
    connect, call, close = client
    connect_times = []
    for _ in range(connects):
        started = time.perf_counter()
        connection = connect()
        call(connection)  # the first answer: a connection that cannot answer is not counted as made
        connect_times.append(time.perf_counter() - started)
        close(connection)
    connection = connect()
    for _ in range(50):
        call(connection)  # warm
    round_trips = []
    for _ in range(calls):
        started = time.perf_counter()
        call(connection)
        round_trips.append(time.perf_counter() - started)
    close(connection)
    process.terminate()
    return name, _us(round_trips, 50), _us(round_trips, 95), _us(connect_times, 50)


def _us(values: list[float], percentile: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * percentile / 100))] * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--connects", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="transport-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ways = [
        ("unix socket, JSON lines (today)", _lines_server, (socket.AF_UNIX, str(folder / "a.sock")),
         _lines_client(socket.AF_UNIX, str(folder / "a.sock"))),
        ("multiprocessing.connection, AF_UNIX", _messages_server, (str(folder / "b.sock"), None),
         _messages_client(str(folder / "b.sock"), None)),
        ("multiprocessing.connection, AF_UNIX + authkey", _messages_server, (str(folder / "c.sock"), AUTHKEY),
         _messages_client(str(folder / "c.sock"), AUTHKEY)),
        ("TCP 127.0.0.1, JSON lines", _lines_server, (socket.AF_INET, ("127.0.0.1", port)),
         _lines_client(socket.AF_INET, ("127.0.0.1", port))),
    ]
    rows = [measure(name, server, server_args, client, args.calls, args.connects)
            for name, server, server_args, client in ways]
    print(f"{args.calls} calls of a {len(REQUEST)}-byte request and a {len(ANSWER):,}-byte answer; "
          f"{args.connects} connections (to the first answer); {os.cpu_count()} CPUs")
    print(f"| {'transport':<48} | round trip p50 µs | p95 µs | connect p50 µs |")
    print(f"|{'-' * 50}|-------------------|--------|----------------|")
    for name, p50, p95, connect in rows:
        print(f"| {name:<48} | {p50:17.0f} | {p95:6.0f} | {connect:14.0f} |")
    print("(median round trip relative to today: "
          + ", ".join(f"{name}: {p50 / rows[0][1]:.2f}×" for name, p50, _p95, _c in rows[1:]) + ")")


if __name__ == "__main__":
    main()

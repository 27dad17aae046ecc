"""The local endpoint's transport (service/endpoint.py, connection_loop.py, request_lines.py): who may connect, how
errors travel, a server that goes away mid-call, a second server, a socket left by a killed process, and what a
hostile client sends. The handlers here are fakes standing in for the library's tools (end2end/test_mcp.py and
end2end/test_endpoint_faults.py drive the real ones)."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time

import pytest

from desktop_rag.errors import BadInput, NoIndexError
from desktop_rag.service.endpoint import EndpointClient, EndpointGone, EndpointServer, endpoint_path


def fake_handler(method: str, params: dict):
    if method == "echo":
        return {"echo": params}
    if method == "empty":
        raise NoIndexError("nothing is indexed yet")
    if method == "bug":
        raise ZeroDivisionError("a bug")
    raise BadInput(f"unknown method {method!r}")


@pytest.fixture
def server(tmp_path):
    endpoint = EndpointServer(tmp_path / "data", fake_handler)
    assert endpoint.start()
    yield endpoint
    endpoint.stop()


def test_only_the_user_may_connect_and_answers_and_errors_travel_as_they_were(server, tmp_path):
    assert server.path == endpoint_path(tmp_path / "data")
    assert server.path.stat().st_mode & 0o777 == 0o600 and server.path.parent.stat().st_mode & 0o077 == 0
    client = EndpointClient.for_library(tmp_path / "data")
    assert client.call("echo", query="héron 物流", k=3) == {"echo": {"query": "héron 物流", "k": 3}}
    with pytest.raises(NoIndexError, match="nothing is indexed yet"):
        client.call("empty")
    with pytest.raises(BadInput, match="unknown method 'nope'"):
        client.call("nope")
    with pytest.raises(Exception, match=r"internal error .ZeroDivisionError"):
        client.call("bug")
    assert client.call("echo") == {"echo": {}}  # the connection survives every failure
    client.close()


def test_a_malformed_or_oversized_request_is_refused_and_the_connection_kept(server):
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.connect(str(server.path))
    stream = raw.makefile("rwb")
    stream.write(b"this is not json\n")
    stream.flush()
    assert b"BadInput" in stream.readline()
    stream.write(b'{"method": "echo", "params": {"q": "' + b"x" * 1_100_000 + b'"}}\n')
    stream.flush()
    assert b"over 1,000,000 bytes" in stream.readline()
    raw.close()


def test_a_server_that_stops_mid_call_is_an_endpoint_gone_error(tmp_path):
    entered = threading.Event()

    def slow(method, params):
        entered.set()
        time.sleep(5)
        return "too late"

    endpoint = EndpointServer(tmp_path / "data", slow)
    assert endpoint.start()
    client = EndpointClient.connect(endpoint.path)
    threading.Thread(target=lambda: (entered.wait(), endpoint.stop()), daemon=True).start()
    started = time.monotonic()
    with pytest.raises(EndpointGone):
        client.call("anything")
    assert time.monotonic() - started < 4  # told at once, not after the answer would have come
    assert EndpointClient.for_library(tmp_path / "data") is None  # and nobody answers any more


def test_one_server_per_data_folder_and_a_dead_ones_socket_is_taken_over(server, tmp_path):
    second = EndpointServer(tmp_path / "data", fake_handler)
    assert not second.start()  # the first one answers
    other = EndpointServer(tmp_path / "other-data", fake_handler)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(other.path))  # a socket file whose process was killed: nobody listens
    stale.close()
    assert other.start() and EndpointClient.connect(other.path).call("echo") == {"echo": {}}
    other.stop()


def test_two_servers_starting_at_once_leave_one_answering(tmp_path, monkeypatch):
    probe = EndpointClient.connect

    def slow_probe(path):  # widens the moment between "nobody answers" and the bind
        found = probe(path)
        time.sleep(0.3)
        return found

    monkeypatch.setattr(EndpointClient, "connect", staticmethod(slow_probe))
    servers = [EndpointServer(tmp_path / "data", fake_handler) for _ in range(2)]
    started: list[bool] = []
    threads = [threading.Thread(target=lambda s=s: started.append(s.start())) for s in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    monkeypatch.undo()
    try:
        assert sorted(started) == [False, True]
        assert EndpointClient.connect(servers[0].path).call("echo") == {"echo": {}}
    finally:
        for endpoint in servers:
            endpoint.stop()


def raw_connection(server) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(str(server.path))
    connection.settimeout(10)
    return connection


def answer_to(stream, line: bytes) -> bytes:
    stream.write(line)
    stream.flush()
    return stream.readline()


HOSTILE_LINES = {
    "deeply nested": b"[" * 200_000 + b"\n",  # ended the endpoint with a RecursionError
    "nested in params": b'{"method": "echo", "params": {"a": ' + b"[" * 50 + b"]" * 50 + b"}}\n",
    "malformed JSON": b'{"method": "echo", "params": {\n',
    "not an object": b'"echo"\n',
    "a number for the method": b'{"method": 5}\n',
    "params a list": b'{"method": "echo", "params": [1, 2]}\n',
    "not UTF-8": b"\xff\xfe\x00{\n",
    "a NUL byte": b'{"method": "echo\x00"}\n',
    "a huge number": b'{"method": "echo", "params": {"limit": 1e999}}\n',
    "a megabyte and more": b'{"method": "echo", "params": {"q": "' + b"x" * 1_100_000 + b'"}}\n',
    "only a newline": b"\n",
}


@pytest.mark.parametrize("what", HOSTILE_LINES)
def test_a_hostile_line_gets_a_clear_error_and_the_next_request_is_answered(server, what):
    connection = raw_connection(server)
    other = EndpointClient.connect(server.path)  # another client, connected before the hostile line
    stream = connection.makefile("rwb")
    answer = json.loads(answer_to(stream, HOSTILE_LINES[what]))
    assert answer.get("error", {}).get("type") in ("BadInput", "InternalError") or "result" in answer, answer
    if "error" in answer:
        assert "Traceback" not in answer["error"]["message"] and len(answer["error"]["message"]) < 400
    assert json.loads(answer_to(stream, b'{"method": "echo", "params": {"after": "that"}}\n')) == {
        "result": {"echo": {"after": "that"}}}
    assert other.call("echo", still="here") == {"echo": {"still": "here"}}
    assert server.failures == 0
    connection.close()


def test_a_silent_client_and_a_stalled_half_line_hold_no_worker_and_are_closed(tmp_path):
    endpoint = EndpointServer(tmp_path / "data", fake_handler, workers=1, idle_timeout_s=1.5, stall_timeout_s=0.5)
    assert endpoint.start()
    silent = [raw_connection(endpoint) for _ in range(5)]
    stalled = raw_connection(endpoint)
    stalled.sendall(b'{"method": "echo", "par')
    client = EndpointClient.connect(endpoint.path)
    started = time.monotonic()
    assert client.call("echo", n=1) == {"echo": {"n": 1}}  # the one worker was not taken by any of them
    assert time.monotonic() - started < 0.5
    assert b"not finished within 0.5 s" in stalled.makefile("rb").readline()
    for connection in silent:
        assert connection.recv(1) == b""  # closed by the endpoint after 1.5 s of nothing
    time.sleep(2)  # the client's own connection idles out too: its next call connects again
    assert client.call("echo", n=2) == {"echo": {"n": 2}}
    endpoint.stop()


def test_sixty_clients_connecting_at_once_are_all_taken(tmp_path):
    def busy_handler(method, params):
        deadline = time.monotonic() + 0.05  # holds the GIL, as a search's Python does
        while time.monotonic() < deadline:
            pass
        return params

    endpoint = EndpointServer(tmp_path / "data", busy_handler)
    assert endpoint.start()
    refused, answered = [], []
    go = threading.Event()

    def one_client(n: int) -> None:
        go.wait()
        client = EndpointClient.connect(endpoint.path)
        if client is None:
            refused.append(n)
            return
        answered.extend(client.call("search", n=n, round=r)["n"] for r in range(3))
        client.close()

    threads = [threading.Thread(target=one_client, args=(n,)) for n in range(60)]
    for thread in threads:
        thread.start()
    go.set()
    for thread in threads:
        thread.join(timeout=60)
    endpoint.stop()
    assert refused == [] and sorted(answered) == sorted(list(range(60)) * 3)


def test_a_failure_past_the_answer_ends_only_that_connection_and_is_logged_once(tmp_path, caplog):
    def exiting_handler(method, params):
        if method == "exit":
            raise SystemExit("a handler that ends its thread")  # not an Exception: passes the answer's catch
        return params

    endpoint = EndpointServer(tmp_path / "data", exiting_handler)
    assert endpoint.start()
    caplog.set_level(logging.ERROR, logger="desktop_rag.service.connection_loop")
    for _ in range(3):
        client = EndpointClient.connect(endpoint.path)
        with pytest.raises(EndpointGone):
            client.call("exit")
        client.close()
    assert EndpointClient.connect(endpoint.path).call("echo", x=1) == {"x": 1}
    assert endpoint.failures == 3
    assert len([r for r in caplog.records if "SystemExit" in r.getMessage()]) == 1
    endpoint.stop()


def test_long_polls_and_hundreds_of_idle_connections_do_not_keep_a_search_waiting(tmp_path):
    """Issue 61: ten long polls held the eight workers (a `hello` waited 29.5 s); 256 idle connections turned a
    normal client away for up to a minute. The long polls here are a fake's sleep, as the event stream's wait."""
    def polling_handler(method, params):
        if method in ("events", "status"):
            time.sleep(params.get("wait_s", 0))
        return {"method": method}

    endpoint = EndpointServer(tmp_path / "data", polling_handler)  # 8 workers, 256 clients: the service's own
    assert endpoint.start()
    polls = [raw_connection(endpoint) for _ in range(20)]
    for poll in polls:
        poll.sendall(b'{"method": "events", "params": {"wait_s": 30}}\n')
    idle = [raw_connection(endpoint) for _ in range(300)]  # held open until the end
    time.sleep(0.3)  # every one of them taken by the endpoint's loop
    started = time.monotonic()
    client = EndpointClient.connect(endpoint.path)
    assert client is not None and client.call("search", q="harbour") == {"method": "search"}
    took = time.monotonic() - started
    still_polling = [poll for poll in polls if not _closed(poll)]
    endpoint.stop()
    for connection in idle:
        connection.close()
    assert took < 1.0, took
    assert len(still_polling) == 20  # the waiting requests were not the ones closed to make way


def _closed(connection: socket.socket) -> bool:
    connection.setblocking(False)
    try:
        return connection.recv(1) == b""
    except BlockingIOError:
        return False
    finally:
        connection.setblocking(True)

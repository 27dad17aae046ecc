"""The local endpoint's transport (service/endpoint.py): who may connect, how errors travel, a server that goes
away mid-call, a second server, a socket left by a killed process. The handlers here are fakes standing in for
the library's tools (end2end/test_mcp.py drives the real ones)."""

from __future__ import annotations

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
    with pytest.raises(Exception, match="internal error .ZeroDivisionError"):
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

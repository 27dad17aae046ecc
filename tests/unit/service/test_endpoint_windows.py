"""The endpoint's Windows transport (platform/local_socket.py with SYSTEM "win32", issue 52), run here: a
loopback socket any local user could reach, its port and secret in a private file, and the loop admitting only a
client whose first line is that secret. The handler is a fake standing in for the library's tools."""

from __future__ import annotations

import json
import socket

import pytest

from desktop_rag.platform import local_socket
from desktop_rag.service.endpoint import EndpointClient, EndpointServer


def fake_handler(method: str, params: dict):
    return {"method": method, "params": params}


@pytest.fixture
def windows_endpoint(tmp_path, monkeypatch):
    monkeypatch.setattr(local_socket, "SYSTEM", "win32")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "profile"))  # where user_cache_dir points here
    endpoint = EndpointServer(tmp_path / "data", fake_handler)
    assert endpoint.start()
    yield endpoint
    endpoint.stop()


def test_a_client_that_read_the_secret_is_answered_and_a_second_server_is_refused(windows_endpoint, tmp_path):
    path = windows_endpoint.path
    assert path.parent == tmp_path / "profile" / "desktop-rag" / "run"
    address = json.loads(path.read_text())
    assert set(address) == {"port", "secret"} and len(address["secret"]) == 64
    assert path.stat().st_mode & 0o077 == 0 and path.parent.stat().st_mode & 0o077 == 0
    client = EndpointClient.for_library(tmp_path / "data")
    assert client.call("echo", q="東京") == {"method": "echo", "params": {"q": "東京"}}
    assert client.call("again") == {"method": "again", "params": {}}
    client.close()
    assert not EndpointServer(tmp_path / "data", fake_handler).start()  # one answers already


def _raw(port: int) -> socket.socket:
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    return raw


def test_a_client_without_the_secret_is_closed_unanswered(windows_endpoint):
    port = json.loads(windows_endpoint.path.read_text())["port"]
    for first in (b'{"method": "echo", "params": {}}\n', b"0" * 64 + b"\n", b"x" * 2_000_000):
        raw = _raw(port)
        try:
            raw.sendall(first + b'{"method": "echo", "params": {}}\n')
        except OSError:
            pass  # closed while it was still sending: refused all the same
        assert _heard(raw) == b""  # closed, and no answer came
        raw.close()


def _heard(raw: socket.socket) -> bytes:
    try:
        return raw.recv(4096)
    except ConnectionResetError:  # closed with our unread request in its buffer: a reset, no answer either
        return b""


def test_a_file_left_by_a_killed_service_reads_as_nobody_answering(tmp_path, monkeypatch):
    monkeypatch.setattr(local_socket, "SYSTEM", "win32")
    left = tmp_path / "desktop-rag-x.sock"
    unused = socket.socket()
    unused.bind(("127.0.0.1", 0))
    port = unused.getsockname()[1]
    unused.close()  # nobody listens there now
    left.write_text(json.dumps({"port": port, "secret": "ab" * 32}))
    assert local_socket.connect(left) is None
    left.write_text('{"port": ')  # half written
    assert local_socket.connect(left) is None

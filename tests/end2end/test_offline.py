"""Offline proof: indexing and searching make no network connection at all.

Every Python process of the commands (their children included) starts with a guard (a sitecustomize module) that
refuses any connection but loopback and Unix sockets, and writes down who tried: a library that caught the error
and went on quietly would still be seen. Where the system allows it, the commands also run in a network namespace
with no interface up (`unshare -n`), as on an air-gapped laptop.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

GUARD = textwrap.dedent('''
    import os, socket, traceback

    _LOG = os.environ["DESKTOP_RAG_NETWORK_LOG"]
    _LOCAL = ("127.", "::1", "localhost", "0.0.0.0")


    def _refuse(what, address):
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(f"{what} {address!r} in process {os.getpid()}\\n{''.join(traceback.format_stack(limit=12))}\\n")
        raise OSError(f"network access refused by the test: {what} {address!r}")


    def _is_local(address):
        if isinstance(address, (str, bytes)):  # a Unix socket's path
            return True
        host = str(address[0]) if address else ""
        return host.startswith(_LOCAL)


    _connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


    def connect(self, address):
        if self.family != getattr(socket, "AF_UNIX", None) and not _is_local(address):
            _refuse("connect", address)
        return _connect(self, address)


    def connect_ex(self, address):
        if self.family != getattr(socket, "AF_UNIX", None) and not _is_local(address):
            _refuse("connect_ex", address)
        return _connect_ex(self, address)


    _getaddrinfo = socket.getaddrinfo


    def getaddrinfo(host, *args, **kwargs):
        if host is not None and not str(host).startswith(_LOCAL):
            _refuse("getaddrinfo", host)
        return _getaddrinfo(host, *args, **kwargs)


    socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
''')


def _network_namespace() -> list[str]:
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []  # not allowed here (no privilege): the guard alone proves it


@pytest.mark.slow
def test_index_and_search_make_no_network_connection(tmp_path, docs, data_dir):
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "network.log"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(guard), os.environ.get("PYTHONPATH", "")]),
               DESKTOP_RAG_NETWORK_LOG=str(log))
    env.pop("HF_HUB_OFFLINE", None)  # the app must set it itself
    (docs / "tides.md").write_text("# Tides\n\nSpring tides follow the full and new moon.\n")
    (docs / "潮汐.md").write_text("# 潮汐\n\n大潮は満月と新月の後に起こる。\n")
    prefix = _network_namespace()

    def run(*args):
        result = subprocess.run([*prefix, sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), *args],
                                capture_output=True, text=True, env=env, timeout=600)
        assert result.returncode == 0, result.stderr
        return result.stdout

    run("index", str(docs), "--contexts", "rules")
    hits = json.loads(run("search", "when are tides strongest", "--json"))["results"]
    assert hits[0]["path"].endswith("tides.md")
    assert json.loads(run("search", "大潮", "--json"))["results"][0]["path"].endswith("潮汐.md")
    assert json.loads(run("stats", "--json"))["chunks"] == 2
    assert not log.exists(), log.read_text()

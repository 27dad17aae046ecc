"""A stand-in for an OpenAI-compatible chat server (the protocol the app speaks to llama.cpp's server, vLLM and
Ollama), for tests of the window and the service while the LLM writes contexts: the service under test is a real
process and talks to it as to a real server. Its answers are built from the prompt so that they score as usable
contexts (tests/fake_models.py); after `fast_calls` requests, each is held `seconds` — as long as a real step on 2
cores — so a test can see the service make way, pause and resume (the service abandons a held request, as it does
a real server's: core/llm/openai_backend.py)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_models import _answer


class SlowChatServer:
    def __init__(self, seconds: float = 120.0, fast_calls: int = 0):
        self.seconds = seconds
        self.fast_calls = fast_calls
        self.calls = 0  # chat requests begun
        self.working = threading.Event()  # set while a request is held
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> SlowChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._released.set()  # held requests end
        self._server.shutdown()
        self._server.server_close()

    def _chat(self, body: dict) -> dict:
        with self._lock:
            self.calls += 1
            slow = self.calls > self.fast_calls
        if slow:
            self.working.set()
            self._released.wait(self.seconds)
            self.working.clear()
        text = _answer(body["messages"][-1]["content"])
        return {"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 12}}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def _send(self, answer: dict) -> None:
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:  # the service abandoned the request
                    pass

            def do_GET(self) -> None:
                self._send({"data": [{"id": "slow-fake-model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if self.path.endswith("/chat/completions"):
                    self._send(server._chat(body))
                elif "tokenize" in self.path:
                    text = body.get("content") or body.get("input") or body.get("prompt") or ""
                    self._send({"tokens": list(range(len(str(text).split())))})
                else:
                    self.send_error(404)

        return Handler


def wait_until(condition, timeout_s: float = 60.0) -> float:
    """Seconds until `condition()` held (for threads and processes: no Qt events needed)."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"not true after {timeout_s} s: {condition}")
        time.sleep(0.02)
    return time.monotonic() - started

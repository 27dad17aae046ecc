"""The one door of the front ends that do not hold a library themselves (the CLI's `search` and `stats`, `mcp`): an
operation of service/tools.py goes to the process that holds the library warm (the service, `watch` or `serve`: its
local endpoint) when one answers — a re-indexing run is then that process's, through its one writer — and to a
library of this process's own otherwise, opened on first use. Either way the answer has the same shape (the
operation's dict). A library of its own is opened again when another process has written the dense index since
it was read, so a long-lived client (`mcp`) never answers from a stale view.

`mcp` starts the data folder's service when none answers (issue 49: the service is the one writer; with
DESKTOP_RAG_START_SERVICE=0, or when it cannot start, it answers with a library of its own as before).
`mcp` calls from several threads at once: the library of its own is opened again (or closed for the endpoint)
only when no call is answering with it, and one endpoint connection is shared (its calls take turns).
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_rag.core.library.access import MEANING_INDEX_FOLDER
from desktop_rag.service.endpoint import EndpointClient, EndpointGone
from desktop_rag.service.runs import RunRegistry
from desktop_rag.service.wire import A, Request, run_through

if TYPE_CHECKING:
    from desktop_rag.service.host import LibraryHost

log = logging.getLogger(__name__)


class LibraryClient:
    def __init__(self, data_dir: Path, local_only: bool = False, max_limit: int | None = None,
                 served_by: str = "mcp", start_service: bool = False, read_only: bool = False):
        """`local_only`: never ask the endpoint (the CLI's --local); `max_limit`: the most hits a search of its own
        library gives (the endpoint gives at most operations.MAX_LIMIT); `served_by`: this process, as answers name
        it; `read_only`: a library of its own that it only reads (the window's, where no service may write)."""
        self.data_dir = data_dir
        self.local_only = local_only
        self.max_limit = max_limit
        self.served_by = served_by
        self.start_service = start_service  # when none answers, start the data folder's service (`mcp`)
        self.read_only = read_only
        self._tried_starting = False
        self._client: EndpointClient | None = None
        self._local: LibraryHost | None = None  # without an endpoint, opened on first need
        self._seen_written: int | None = None  # the dense index's last write when this process last read it
        self._local_runs: set[str] = set()
        self._runs = RunRegistry()  # this process's runs: kept when its library is opened again
        self._lock = threading.Lock()  # over _client, _local and _answering
        self._answering = 0  # calls answering with the library of its own right now

    def run(self, request: Request[A]) -> A:
        """A declared operation (service/wire.py), its answer typed as declared."""
        return run_through(self.call, request)

    def call(self, method: str, **params):
        if not (method == "progress" and params.get("run_id") in self._local_runs):
            for _ in range(2):  # a read is asked once more of whoever answers now (it closed an idle connection)
                client = self._endpoint()
                if client is None:
                    break
                try:
                    return client.call(method, **params)
                except EndpointGone:
                    with self._lock:
                        if self._client is client:
                            self._client = None
                    client.close()
                    if method in ("reindex", "generate_context"):
                        raise  # it may have started, or stored: not done a second time here
        return self._call_locally(method, params)

    def _endpoint(self) -> EndpointClient | None:
        if self.local_only:
            return None
        with self._lock:
            if self._client is None:
                self._client = EndpointClient.for_library(self.data_dir)
                if self._client is None and self._may_start_service():
                    self._client = self._started_service()
                if self._client is not None and self._local_unused():
                    self._close_local()  # the service (or serve) answers now: its view is the current one
            return self._client

    def _may_start_service(self) -> bool:
        """`mcp` starts the service once when none answers (issue 49: the one writer); DESKTOP_RAG_START_SERVICE=0
        keeps its library in this process, as before; so does a library that cannot be written (searched here)."""
        from desktop_rag.service.background_process import may_start_service
        from desktop_rag.core.library.access import library_writable

        return (self.start_service and not self._tried_starting and may_start_service()
                and library_writable(self.data_dir))

    def _started_service(self) -> EndpointClient | None:
        from desktop_rag.service.background_process import answering_or_started

        self._tried_starting = True
        if answering_or_started(self.data_dir) is None:
            log.warning("the background service of %s did not answer: this process answers on its own",
                        self.data_dir)
            return None
        return EndpointClient.for_library(self.data_dir)

    def _call_locally(self, method: str, params: dict):
        with self._lock:
            if self._local_unused() and self._written_since_opened():
                self._close_local()  # another process wrote the dense index: this one's view of it is old
            host = self._local_host()
            self._answering += 1
        try:
            result = host.handle(method, params)
        finally:
            with self._lock:
                self._answering -= 1
        if method == "reindex":
            self._local_runs.add(result["run_id"])
        elif not self._local_busy(host):
            self._seen_written = self._dense_index_written()  # as it was when this process last read it
        return result

    def _local_unused(self) -> bool:
        """A library of its own that no call answers with and no run writes with: it may be closed."""
        return self._local is not None and self._answering == 0 and not self._local_busy(self._local)

    def _local_host(self):
        from desktop_rag.core.library.library import Library
        from desktop_rag.service.host import LibraryHost

        if self._local is None:
            library = Library(self.data_dir, read_in_child=True, read_only=self.read_only)
            self._local = LibraryHost(library, f"desktop-rag {self.served_by} (process {os.getpid()}, its own "
                                               "library)", runs=self._runs)
            if self.max_limit is not None:
                self._local.tools.max_limit = self.max_limit
            self._local.after_run = library.writer.release  # the service may start meanwhile: it must be able to write
        return self._local

    def _dense_index_written(self) -> int | None:
        try:
            return (self.data_dir / MEANING_INDEX_FOLDER / "chroma.sqlite3").stat().st_mtime_ns
        except OSError:
            return None

    def _written_since_opened(self) -> bool:
        return self._seen_written is not None and self._dense_index_written() != self._seen_written

    @staticmethod
    def _local_busy(host) -> bool:
        state = host.runs.state_of()
        return state is not None and state["state"] in ("queued", "running")

    def _close_local(self) -> None:
        host, self._local, self._seen_written = self._local, None, None
        if host is not None:
            host.stop()
            host.library.close()

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
            if self._local is not None:
                self._close_local()

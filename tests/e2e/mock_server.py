"""What the two loopback mock APIs share: a scripted reply queue, a request log the tests
wait on, and the HTTP plumbing. `mock_api.MockAnthropic` (Claude Code) and
`codex_mock.MockResponses` (Codex) add their wire formats on top.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Generic, TypeVar

Step = Any  # a reply, or a callable taking the request body and returning one


class Logged(dict[str, Any]):
    """One logged request: keys ``seq``, ``ts``, ``method``, ``path``, ``body``, ``kind``."""

    @property
    def body(self) -> dict[str, Any]:
        return self["body"] if isinstance(self["body"], dict) else {}

    @property
    def is_main(self) -> bool:
        return bool(self["kind"] == "main")


R = TypeVar("R", bound=Logged)


class ScriptedServer(Generic[R]):
    """A mock server. ``start()`` binds a free port on 127.0.0.1; ``stop()`` ends it.

    Subclasses set ``handler`` (the request handler class), ``record`` (the logged
    request class), ``url_path`` (what ``base_url`` ends with) and ``normalise`` (a
    scripted step as the reply's items).
    """

    handler: type[MockHandler]
    record: type[R]
    url_path = ""
    name = "mock"

    def __init__(self, log_path: Path | None = None) -> None:
        self.log_path = log_path
        self.requests: list[R] = []
        self.errors: list[str] = []
        self._script: list[Step] = []
        self._lock = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @staticmethod
    def normalise(reply: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.url_path}"

    def start(self) -> Any:
        handler = type("Handler", (self.handler,), {"mock": self})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"{self.name}-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- script ------------------------------------------------------------------------
    def script(self, steps: Iterable[Step]) -> None:
        """Replace the remaining script with ``steps``."""
        with self._lock:
            self._script = list(steps)

    def add(self, *steps: Step) -> None:
        """Append steps to the script."""
        with self._lock:
            self._script.extend(steps)

    @property
    def pending_steps(self) -> int:
        with self._lock:
            return len(self._script)

    def _next_step(self, body: dict[str, Any]) -> Any:
        """The next scripted step, called with ``body`` when it is a callable (None when
        the script is used up)."""
        with self._lock:
            step = self._script.pop(0) if self._script else None
        return step(body) if callable(step) else step

    def _next_reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        return self.normalise(self._next_step(body))

    # -- log ---------------------------------------------------------------------------
    def _log(self, method: str, path: str, body: Any, kind: str) -> R:
        with self._lock:
            entry = self.record(
                seq=len(self.requests),
                ts=time.time(),
                method=method,
                path=path,
                body=body,
                kind=kind,
            )
            self.requests.append(entry)
            if self.log_path is not None:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry, ensure_ascii=False) + "\n")
            self._lock.notify_all()
            return entry

    def main_requests(self, since: int = 0) -> list[R]:
        """Main-loop requests (those carrying ``tools``) with ``seq >= since``."""
        with self._lock:
            return [r for r in self.requests if r.is_main and r["seq"] >= since]

    def mark(self) -> int:
        """A position in the log, for ``since=`` arguments."""
        with self._lock:
            return len(self.requests)

    def wait_for(self, predicate: Callable[[R], bool], since: int = 0, timeout: float = 60.0) -> R:
        """Block until a logged request with ``seq >= since`` satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for r in self.requests[since:]:
                    if predicate(r):
                        return r
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"no matching request within {timeout:.0f}s "
                        f"({len(self.requests) - since} requests since #{since})"
                    )
                self._lock.wait(min(left, 0.5))

    def wait_main(self, since: int = 0, timeout: float = 60.0) -> R:
        return self.wait_for(lambda r: r.is_main, since=since, timeout=timeout)


class MockHandler(BaseHTTPRequestHandler):
    """Quiet, keep-alive, JSON in and out; subclasses answer GET and POST."""

    mock: Any
    protocol_version = "HTTP/1.1"
    timeout = 30  # idle keep-alive connections end by themselves

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # quiet

    def _read_body(self) -> Any:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _headers(self) -> dict[str, str]:
        """Extra response headers."""
        return {}

    def _send(self, status: int, payload: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        for key, value in self._headers().items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

"""A scripted mock of the OpenAI Responses API, for driving the real Codex CLI.

The real ``codex`` binary is pointed at this server through a ``[model_providers.mock]``
entry in ``$CODEX_HOME/config.toml`` (``base_url = http://127.0.0.1:<port>/v1``,
``wire_api = "responses"``). Every request is logged (in memory and to a jsonl file).
``POST /v1/responses`` carrying ``tools`` is the agent loop and is answered from a
per-test *script*: a list of steps, each one model turn. A ``/responses`` request without
tools is a side call (the TUI asks for a thread title with a JSON schema) and gets
``{"title": …}``; anything else gets an empty JSON object.

A step is one of:

- a ``str``: an assistant message;
- an output item dict (see :func:`message`, :func:`exec_command`, :func:`function_call`)
  or a list of them;
- a callable ``step(body) -> str | item | list[item]`` that sees the request body, so a
  step can e.g. pull the exact command the skill prescribes out of the request.

The reply is a server-sent event stream: ``response.created``, one
``response.output_item.done`` per item, ``response.completed``. A turn holding a
``function_call`` makes Codex run the tool and send ``function_call_output`` in the next
request, which the next step answers. When the script is exhausted the answer is ``ok``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Item = dict[str, Any]
Step = Any  # str | Item | list[Item] | Callable[[dict], str | Item | list[Item]]

_ids = itertools.count(1)


def message(text: str) -> Item:
    """An assistant message output item."""
    return {
        "type": "message",
        "role": "assistant",
        "id": f"msg_mock{next(_ids):06d}",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def function_call(name: str, arguments: dict[str, Any], call_id: str | None = None) -> Item:
    """A function call output item; ``arguments`` go over the wire as a JSON string."""
    n = next(_ids)
    return {
        "type": "function_call",
        "id": f"fc_mock{n:06d}",
        "call_id": call_id or f"call_mock{n:06d}",
        "name": name,
        "arguments": json.dumps(arguments),
    }


def exec_command(cmd: str, **extra: Any) -> Item:
    """Codex's shell tool (``exec_command {"cmd": …}``), run as ``/bin/bash -lc``."""
    return function_call("exec_command", {"cmd": cmd, **extra})


def update_plan(plan: list[tuple[str, str]], explanation: str | None = None) -> Item:
    """Codex's plan tool: ``[(step, pending|in_progress|completed), …]``."""
    args: dict[str, Any] = {"plan": [{"step": s, "status": st} for s, st in plan]}
    if explanation:
        args["explanation"] = explanation
    return function_call("update_plan", args)


def _normalise(reply: Any) -> list[Item]:
    if reply is None:
        return [message("ok")]
    if isinstance(reply, str):
        return [message(reply)]
    if isinstance(reply, dict):
        return [reply]
    items = list(reply)
    for it in items:
        if not isinstance(it, dict) or it.get("type") not in ("message", "function_call"):
            raise TypeError(f"bad output item in mock script: {it!r}")
    return items or [message("ok")]


def response_sse(items: list[Item]) -> bytes:
    """One Responses API turn as a server-sent event stream."""
    rid = f"resp_mock{next(_ids):06d}"
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"type": "response.created", "response": {"id": rid}})
    ]
    for i, it in enumerate(items):
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": i, "item": it},
            )
        )
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    events.append(
        (
            "response.completed",
            {"type": "response.completed", "response": {"id": rid, "usage": usage}},
        )
    )
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def flatten_text(obj: Any) -> str:
    """Every text a model would read in a Responses API structure, newline-joined:
    message texts, function call arguments and function call outputs."""
    out: list[str] = []

    def walk(o: Any) -> None:
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, list):
            for x in o:
                walk(x)
        elif isinstance(o, dict):
            if o.get("type") == "function_call":
                out.append(str(o.get("arguments") or ""))
                return
            for key in ("text", "content", "output"):
                if key in o:
                    walk(o[key])

    walk(obj)
    return "\n".join(out)


class LoggedRequest(dict[str, Any]):
    """One logged request: keys ``seq``, ``ts``, ``method``, ``path``, ``body``, ``kind``."""

    @property
    def body(self) -> dict[str, Any]:
        return self["body"] if isinstance(self["body"], dict) else {}

    @property
    def is_main(self) -> bool:
        return bool(self["kind"] == "main")

    @property
    def input(self) -> list[dict[str, Any]]:
        items = self.body.get("input")
        return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []

    def text(self) -> str:
        """Everything the model would read: instructions and input, as one string."""
        return flatten_text(self.body.get("instructions")) + "\n" + flatten_text(self.input)

    def messages(self, role: str) -> list[str]:
        """The text of every input message of ``role`` (``user``, ``developer``, …)."""
        return [
            flatten_text(i.get("content"))
            for i in self.input
            if i.get("type") == "message" and i.get("role") == role
        ]

    def last_user_text(self) -> str:
        users = self.messages("user")
        return users[-1] if users else ""

    def last_output(self) -> str | None:
        """The output of the newest ``function_call_output`` item, if any."""
        for i in reversed(self.input):
            if i.get("type") == "function_call_output":
                out = i.get("output")
                return out if isinstance(out, str) else flatten_text(out)
        return None

    def tool_names(self) -> list[str]:
        return [str(t.get("name") or t.get("type") or "") for t in self.body.get("tools") or []]


class MockResponses:
    """The mock server. ``start()`` binds a free port on 127.0.0.1; ``stop()`` ends it."""

    def __init__(self, log_path: Path | None = None, title: str = "Mock task") -> None:
        self.log_path = log_path
        self.title = title
        self.requests: list[LoggedRequest] = []
        self.errors: list[str] = []
        self._script: list[Step] = []
        self._lock = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> MockResponses:
        mock = self

        class Handler(_Handler):
            pass

        Handler.mock = mock
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"mock-responses-{self.port}",
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

    def __enter__(self) -> MockResponses:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- script ------------------------------------------------------------------------
    def script(self, steps: Iterable[Step]) -> None:
        """Replace the remaining script with ``steps``."""
        with self._lock:
            self._script = list(steps)

    def add(self, *steps: Step) -> None:
        with self._lock:
            self._script.extend(steps)

    @property
    def pending_steps(self) -> int:
        with self._lock:
            return len(self._script)

    def _next_reply(self, body: dict[str, Any]) -> list[Item]:
        with self._lock:
            step = self._script.pop(0) if self._script else None
        if callable(step):
            step = step(body)
        return _normalise(step)

    # -- log ---------------------------------------------------------------------------
    def _log(self, method: str, path: str, body: Any, kind: str) -> LoggedRequest:
        with self._lock:
            entry = LoggedRequest(
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

    def main_requests(self, since: int = 0) -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.requests if r.is_main and r["seq"] >= since]

    def mark(self) -> int:
        with self._lock:
            return len(self.requests)

    def wait_for(
        self,
        predicate: Callable[[LoggedRequest], bool],
        since: int = 0,
        timeout: float = 60.0,
    ) -> LoggedRequest:
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

    def wait_main(self, since: int = 0, timeout: float = 60.0) -> LoggedRequest:
        return self.wait_for(lambda r: r.is_main, since=since, timeout=timeout)


def _classify(path: str, body: Any) -> str:
    if not path.split("?", 1)[0].endswith("/responses") or not isinstance(body, dict):
        return "other"
    return "main" if body.get("tools") else "side"


class _Handler(BaseHTTPRequestHandler):
    mock: MockResponses
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _read_body(self) -> Any:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send(self, status: int, payload: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def do_GET(self) -> None:  # noqa: N802
        self.mock._log("GET", self.path, None, "other")
        if self.path.split("?", 1)[0].endswith("/models"):
            self._json(200, {"object": "list", "data": [], "models": []})
            return
        self._json(404, {"error": {"message": "mock: not found"}})

    def do_POST(self) -> None:  # noqa: N802
        body = self._read_body()
        kind = _classify(self.path, body)
        self.mock._log("POST", self.path, body, kind)
        if kind == "other":
            self._json(200, {})
            return
        try:
            assert isinstance(body, dict)
            if kind == "main":
                items = self.mock._next_reply(body)
            else:
                items = [message(json.dumps({"title": self.mock.title}))]
            self._send(200, response_sse(items), "text/event-stream")
        except Exception as e:  # a broken step must show up in the test, not hang it
            self.mock.errors.append(f"{type(e).__name__}: {e}")
            self._json(400, {"error": {"message": f"mock: {e}", "type": "invalid_request_error"}})

"""A scripted mock of the Anthropic Messages API, for driving the real Claude Code CLI.

The real ``claude`` binary is pointed at this server with ``ANTHROPIC_BASE_URL``. Every
request is logged (in memory and to a jsonl file). Requests that carry ``tools`` are the
main agent loop and are answered from a per-test *script*: a list of steps, each one
model turn. Anything else (title generation, side calls) gets a short text reply.

A step is one of:

- a ``str``: a text reply (``stop_reason: end_turn``);
- a block dict (see :func:`text` and :func:`tool_use`) or a list of them;
- a callable ``step(body) -> str | block | list[block]`` that sees the request body, so a
  step can e.g. pull the exact command the skill prescribes out of the request.

A turn that holds a ``tool_use`` block ends with ``stop_reason: tool_use``; Claude Code
runs the tool and sends its result in the next request, which the next step answers.
When the script is exhausted the main loop gets the text ``ok``.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from mock_server import Logged, MockHandler, ScriptedServer

Block = dict[str, Any]
Step = Any  # str | Block | list[Block] | Callable[[dict], str | Block | list[Block]]

_ids = itertools.count(1)


def text(s: str) -> Block:
    """A text content block."""
    return {"type": "text", "text": s}


def tool_use(name: str, input: dict[str, Any], id: str | None = None) -> Block:  # noqa: A002
    """A tool_use content block (the id is generated when not given)."""
    return {
        "type": "tool_use",
        "id": id or f"toolu_mock{next(_ids):06d}",
        "name": name,
        "input": input,
    }


def _normalise(reply: Any) -> list[Block]:
    if reply is None:
        return [text("ok")]
    if isinstance(reply, str):
        return [text(reply)]
    if isinstance(reply, dict):
        return [reply]
    blocks = list(reply)
    for b in blocks:
        if not isinstance(b, dict) or b.get("type") not in ("text", "tool_use"):
            raise TypeError(f"bad content block in mock script: {b!r}")
    return blocks or [text("ok")]


def _usage(output_tokens: int = 1) -> dict[str, int]:
    return {
        "input_tokens": 10,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def message_json(blocks: list[Block], model: str) -> dict[str, Any]:
    """A non-streaming Messages API response."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {
        "id": f"msg_mock{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(5),
    }


def message_sse(blocks: list[Block], model: str) -> bytes:
    """The same response as a server-sent event stream."""
    events: list[tuple[str, dict[str, Any]]] = []
    msg = message_json(blocks, model)
    start = dict(msg, content=[], stop_reason=None, usage=_usage(1))
    events.append(("message_start", {"type": "message_start", "message": start}))
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "text_delta", "text": b["text"]},
                    },
                )
            )
        else:
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {
                            "type": "tool_use",
                            "id": b["id"],
                            "name": b["name"],
                            "input": {},
                        },
                    },
                )
            )
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {
                            "type": "input_json_delta",
                            "partial_json": json.dumps(b["input"]),
                        },
                    },
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


class LoggedRequest(Logged):
    """One logged request: keys ``seq``, ``ts``, ``method``, ``path``, ``body``, ``kind``."""

    def text(self) -> str:
        """Everything the model would read: system prompt and messages, as one string."""
        return (
            flatten_text(self.body.get("system")) + "\n" + flatten_text(self.body.get("messages"))
        )

    def last_user_text(self) -> str:
        msgs = self.body.get("messages") or []
        for m in reversed(msgs):
            if m.get("role") == "user":
                return flatten_text(m.get("content"))
        return ""

    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.body.get("tools") or []]


def flatten_text(obj: Any) -> str:
    """All ``text`` / ``content`` strings in a message structure, newline-joined."""
    out: list[str] = []

    def walk(o: Any) -> None:
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, list):
            for x in o:
                walk(x)
        elif isinstance(o, dict):
            if o.get("type") == "tool_use":
                out.append(json.dumps(o.get("input"), ensure_ascii=False))
                return
            for key in ("text", "content"):
                if key in o:
                    walk(o[key])

    walk(obj)
    return "\n".join(out)


class MockAnthropic(ScriptedServer[LoggedRequest]):
    """The mock Anthropic API. ``start()`` binds a free port on 127.0.0.1; ``stop()`` ends it."""

    record = LoggedRequest
    name = "mock-anthropic"
    normalise = staticmethod(_normalise)

    def __init__(self, log_path: Path | None = None, side_reply: str = "ok") -> None:
        super().__init__(log_path)
        self.side_reply = side_reply


def _classify(path: str, body: Any) -> str:
    p = path.split("?", 1)[0]
    if p.endswith("/count_tokens"):
        return "count_tokens"
    if p.endswith("/v1/messages"):
        return "main" if isinstance(body, dict) and body.get("tools") else "side"
    return "other"


class _Handler(MockHandler):
    mock: MockAnthropic

    def _headers(self) -> dict[str, str]:
        return {"request-id": f"req_mock{next(_ids):06d}"}

    def do_GET(self) -> None:  # noqa: N802
        self.mock._log("GET", self.path, None, "other")
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "mock"}})

    def do_HEAD(self) -> None:  # noqa: N802
        self.mock._log("HEAD", self.path, None, "other")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        body = self._read_body()
        kind = _classify(self.path, body)
        self.mock._log("POST", self.path, body, kind)
        try:
            if kind == "count_tokens":
                self._json(200, {"input_tokens": 100})
                return
            if kind == "other":
                self._json(200, {})
                return
            assert isinstance(body, dict)
            model = body.get("model") or "claude-mock"
            if kind == "main":
                blocks = self.mock._next_reply(body)
            else:
                blocks = [text(self.mock.side_reply)]
            if body.get("stream"):
                self._send(200, message_sse(blocks, model), "text/event-stream")
            else:
                self._json(200, message_json(blocks, model))
        except Exception as e:  # a broken step must show up in the test, not hang it
            self.mock.errors.append(f"{type(e).__name__}: {e}")
            self._json(
                400,
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": f"mock: {e}"},
                },
            )


MockAnthropic.handler = _Handler

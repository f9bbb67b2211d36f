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

- a :class:`Reply` (see :func:`reply`): any of the above with its own ``usage`` figures,
  e.g. ``reply("Done.", input_tokens=60_000)`` to make the client think its context is full
  (automatic compaction).

A turn that holds a ``tool_use`` block ends with ``stop_reason: tool_use``; Claude Code
runs the tool and sends its result in the next request, which the next step answers.
When the script is exhausted the main loop gets the text ``ok``.

Compaction (``/compact`` or automatic): Claude Code asks for the summary with a main-loop
request (``tools`` included) whose last user message is the summarisation prompt
(``CRITICAL: Respond with TEXT ONLY…``, see :data:`COMPACT_NEEDLE`). Those are logged with
kind ``compact`` (not ``main``) and answered with :attr:`MockAnthropic.summary`, not from
the script, so a test needs no step for them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass
class Reply:
    """A scripted turn with the ``usage`` figures the response reports."""

    content: Any  # str | Block | list[Block] | None
    input_tokens: int = 10
    output_tokens: int = 5
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def usage(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


def reply(content: Any, *, input_tokens: int = 10, output_tokens: int = 5, **usage: int) -> Reply:
    """A step whose response reports these token counts (``message_start`` and
    ``message_delta`` both carry them). Claude Code takes the context size from them:
    ``reply("…", input_tokens=60_000)`` with ``CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000`` and
    ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50`` makes it compact before the next request."""
    return Reply(content, input_tokens=input_tokens, output_tokens=output_tokens, **usage)


def _normalise(reply: Any) -> list[Block]:
    if isinstance(reply, Reply):
        reply = reply.content
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
    return Reply(None, output_tokens=output_tokens).usage()


def message_json(
    blocks: list[Block], model: str, usage: dict[str, int] | None = None
) -> dict[str, Any]:
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
        "usage": usage or _usage(5),
    }


def message_sse(blocks: list[Block], model: str, usage: dict[str, int] | None = None) -> bytes:
    """The same response as a server-sent event stream."""
    events: list[tuple[str, dict[str, Any]]] = []
    msg = message_json(blocks, model, usage)
    start = dict(msg, content=[], stop_reason=None, usage=dict(msg["usage"], output_tokens=1))
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
                "usage": msg["usage"],
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


COMPACT_NEEDLE = "create a detailed summary of the conversation so far"
"""In the last user message of Claude Code's (2.1.328) compaction request."""


def is_compaction(body: Any) -> bool:
    """Whether ``body`` is Claude Code asking for a compaction summary."""
    if not isinstance(body, dict):
        return False
    msgs = body.get("messages") or []
    last = msgs[-1] if msgs else {}
    return last.get("role") == "user" and COMPACT_NEEDLE in flatten_text(last.get("content"))


def typed_prompts(body: dict[str, Any]) -> list[str]:
    """The user's own prompts in a request: user text that is not a tool result, a
    ``<system-reminder>``, a slash command record or the summarisation prompt."""
    out = []
    for m in body.get("messages") or []:
        if m.get("role") != "user":
            continue
        c = m.get("content")
        blocks = [{"type": "text", "text": c}] if isinstance(c, str) else c or []
        for b in blocks:
            t = b.get("text", "") if b.get("type") == "text" else ""
            if t and not t.startswith("<") and COMPACT_NEEDLE not in t:
                out.append(t)
    return out


SUMMARY_MARKER = "Mock compaction summary"


def default_summary(body: dict[str, Any]) -> str:
    """A plausible answer to the compaction request: ``<analysis>`` then ``<summary>``
    (2.1.328 asks again, with a stricter paragraph, when the ``<summary>`` tags are
    missing), listing the user's prompts it saw. Starts with :data:`SUMMARY_MARKER`."""
    prompts = typed_prompts(body)
    listed = "\n".join(f"    - {p}" for p in prompts) or "    - (none)"
    return (
        f"<analysis>\n{SUMMARY_MARKER}: {len(prompts)} user message(s) read.\n</analysis>\n\n"
        "<summary>\n"
        f"1. Primary Request and Intent:\n   {SUMMARY_MARKER}. "
        f"{prompts[0] if prompts else 'No request yet.'}\n\n"
        f"6. All user messages:\n{listed}\n\n"
        "7. Pending Tasks:\n   - None recorded by the mock.\n\n"
        f"8. Current Work:\n   {prompts[-1] if prompts else 'Nothing.'}\n"
        "</summary>"
    )


class LoggedRequest(Logged):
    """One logged request: keys ``seq``, ``ts``, ``method``, ``path``, ``body``, ``kind``
    (``main``, ``compact``, ``side``, ``count_tokens`` or ``other``)."""

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
        # the compaction requests' answer: a text or a function of the request body
        self.summary: str | Callable[[dict[str, Any]], str] = default_summary
        self.summary_usage = Reply(None, input_tokens=10, output_tokens=200)

    def compactions(self, since: int = 0) -> list[LoggedRequest]:
        """The compaction (summary) requests with ``seq >= since``."""
        with self._lock:
            return [r for r in self.requests if r["kind"] == "compact" and r["seq"] >= since]

    def _next_turn(self, body: dict[str, Any]) -> tuple[list[Block], dict[str, int] | None]:
        step = self._next_step(body)
        usage = step.usage() if isinstance(step, Reply) else None
        return _normalise(step), usage

    def _summary_turn(self, body: dict[str, Any]) -> tuple[list[Block], dict[str, int]]:
        s = self.summary(body) if callable(self.summary) else self.summary
        return [text(s)], self.summary_usage.usage()


def _classify(path: str, body: Any) -> str:
    p = path.split("?", 1)[0]
    if p.endswith("/count_tokens"):
        return "count_tokens"
    if p.endswith("/v1/messages"):
        if isinstance(body, dict) and body.get("tools"):
            return "compact" if is_compaction(body) else "main"
        return "side"
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
            usage: dict[str, int] | None = None
            if kind == "main":
                blocks, usage = self.mock._next_turn(body)
            elif kind == "compact":
                blocks, usage = self.mock._summary_turn(body)
            else:
                blocks = [text(self.mock.side_reply)]
            if body.get("stream"):
                self._send(200, message_sse(blocks, model, usage), "text/event-stream")
            else:
                self._json(200, message_json(blocks, model, usage))
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

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
A :class:`Reply` (see :func:`reply`) is any of the above with its own ``usage`` figures,
e.g. ``reply("Done.", total_tokens=6000)`` to push Codex over
``model_auto_compact_token_limit`` (automatic compaction).

Compaction (``/compact`` or automatic): codex-cli 0.171.0 asks for the summary with a
``/responses`` request without tools whose last user message is the compaction prompt
(``You are performing a CONTEXT CHECKPOINT COMPACTION…``) and whose
``client_metadata["x-codex-turn-metadata"]`` says ``"request_kind":"compaction"``. Those are
logged with kind ``compact`` and answered with :attr:`MockResponses.summary`, not from the
script (nor with the title a side call gets).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mock_server import Logged, MockHandler, ScriptedServer

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


@dataclass
class Reply:
    """A scripted turn with the ``usage`` its ``response.completed`` reports."""

    content: Any  # str | Item | list[Item] | None
    input_tokens: int = 10
    output_tokens: int = 5
    total_tokens: int | None = None  # input + output when None

    def usage(self) -> dict[str, Any]:
        total = self.input_tokens + self.output_tokens
        return {
            "input_tokens": self.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": self.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": total if self.total_tokens is None else self.total_tokens,
        }


def reply(
    content: Any,
    *,
    input_tokens: int | None = None,
    output_tokens: int = 5,
    total_tokens: int | None = None,
) -> Reply:
    """A step whose ``response.completed`` reports these token counts. Codex compares the
    total with ``model_auto_compact_token_limit``: ``reply("…", total_tokens=6000)`` with
    ``-c model_auto_compact_token_limit=2000`` makes it compact (``input_tokens`` defaults
    to the total less the output)."""
    if input_tokens is None:
        input_tokens = 10 if total_tokens is None else max(total_tokens - output_tokens, 0)
    return Reply(content, input_tokens, output_tokens, total_tokens)


def _normalise(reply: Any) -> list[Item]:
    if isinstance(reply, Reply):
        reply = reply.content
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


def response_sse(items: list[Item], usage: dict[str, Any] | None = None) -> bytes:
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
    usage = usage or Reply(None).usage()
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


class LoggedRequest(Logged):
    """One logged request: keys ``seq``, ``ts``, ``method``, ``path``, ``body``, ``kind``."""

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


COMPACT_NEEDLE = "CONTEXT CHECKPOINT COMPACTION"
"""In the last user message of Codex's (0.171.0) compaction request."""


def is_compaction(body: Any) -> bool:
    """Whether ``body`` is Codex asking for a compaction summary."""
    if not isinstance(body, dict):
        return False
    meta = (body.get("client_metadata") or {}).get("x-codex-turn-metadata")
    if isinstance(meta, str) and '"request_kind":"compaction"' in meta.replace(" ", ""):
        return True
    req = LoggedRequest(body=body)
    users = req.messages("user")
    return bool(users) and COMPACT_NEEDLE in users[-1]


SUMMARY_MARKER = "Mock compaction summary"


def default_summary(body: dict[str, Any]) -> str:
    """A plausible handoff summary (what the compaction prompt asks for) naming the user
    messages it saw; starts with :data:`SUMMARY_MARKER`."""
    users = [
        m
        for m in LoggedRequest(body=body).messages("user")
        if not m.startswith("<") and COMPACT_NEEDLE not in m
    ]
    listed = "\n".join(f"- {m}" for m in users) or "- (none)"
    return (
        f"{SUMMARY_MARKER}.\n\nUser messages so far:\n{listed}\n\n"
        "Progress: the conversation above, nothing written yet.\n"
        "Next step: answer the newest user message."
    )


class MockResponses(ScriptedServer[LoggedRequest]):
    """The mock Responses API. ``start()`` binds a free port on 127.0.0.1; ``stop()`` ends it."""

    record = LoggedRequest
    url_path = "/v1"
    name = "mock-responses"
    normalise = staticmethod(_normalise)

    def __init__(self, log_path: Path | None = None, title: str = "Mock task") -> None:
        super().__init__(log_path)
        self.title = title
        # the compaction requests' answer: a text or a function of the request body
        self.summary: str | Callable[[dict[str, Any]], str] = default_summary
        self.summary_usage = Reply(None, input_tokens=10, output_tokens=100)

    def compactions(self, since: int = 0) -> list[LoggedRequest]:
        """The compaction (summary) requests with ``seq >= since``."""
        with self._lock:
            return [r for r in self.requests if r["kind"] == "compact" and r["seq"] >= since]

    def _next_turn(self, body: dict[str, Any]) -> tuple[list[Item], dict[str, Any] | None]:
        step = self._next_step(body)
        usage = step.usage() if isinstance(step, Reply) else None
        return _normalise(step), usage

    def _summary_turn(self, body: dict[str, Any]) -> tuple[list[Item], dict[str, Any]]:
        s = self.summary(body) if callable(self.summary) else self.summary
        return [message(s)], self.summary_usage.usage()


def _classify(path: str, body: Any) -> str:
    if not path.split("?", 1)[0].endswith("/responses") or not isinstance(body, dict):
        return "other"
    if is_compaction(body):
        return "compact"
    return "main" if body.get("tools") else "side"


class _Handler(MockHandler):
    mock: MockResponses

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
            usage: dict[str, Any] | None = None
            if kind == "main":
                items, usage = self.mock._next_turn(body)
            elif kind == "compact":
                items, usage = self.mock._summary_turn(body)
            else:
                items = [message(json.dumps({"title": self.mock.title}))]
            self._send(200, response_sse(items, usage), "text/event-stream")
        except Exception as e:  # a broken step must show up in the test, not hang it
            self.mock.errors.append(f"{type(e).__name__}: {e}")
            self._json(400, {"error": {"message": f"mock: {e}", "type": "invalid_request_error"}})


MockResponses.handler = _Handler

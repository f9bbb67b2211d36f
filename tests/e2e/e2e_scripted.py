"""Building blocks for the scripted model: read what the client sent, decide the next turn.

A "model" here is a list of steps for :class:`mock_api.MockAnthropic`. The helpers below
make steps that act on the request the real client sent — e.g. run exactly the command
the skill text (as expanded by Claude Code) prescribes, or exactly the command the brief
printed — so the tests exercise the product's instructions, not a copy of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mock_api import Block, flatten_text, text, tool_use

FENCE = re.compile(r"^```[ \t]*([\w+-]*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")

INJECT_PREFIX = "SessionStart hook additional context:"


class ScriptError(AssertionError):
    """A step could not find what it needs in the request (shows up in ``mock.errors``)."""


def fenced_blocks(s: str) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced code block in ``s``."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(s)]


def message_texts(body: dict[str, Any]) -> list[str]:
    """The text of every content block of every message, in order."""
    out: list[str] = []
    for m in body.get("messages") or []:
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
            continue
        for b in c or []:
            if b.get("type") == "text":
                out.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                out.append(flatten_text(b.get("content")))
    return out


def skill_text(body: dict[str, Any]) -> str:
    """The expanded skill body the client put after the ``<command-name>`` block."""
    texts = message_texts(body)
    for i in range(len(texts) - 1, -1, -1):
        if "<command-name>" in texts[i]:
            following = [t for t in texts[i + 1 :] if "Base directory for this skill" in t]
            if following:
                return following[0]
    raise ScriptError("no expanded skill text in the request")


def _last_tool_result_block(body: dict[str, Any]) -> dict[str, Any]:
    for m in reversed(body.get("messages") or []):
        c = m.get("content")
        if not isinstance(c, list):
            continue
        for b in reversed(c):
            if b.get("type") == "tool_result":
                return b
    raise ScriptError("no tool_result in the request")


def last_tool_result(body: dict[str, Any]) -> str:
    """The text of the newest tool_result in the request."""
    return flatten_text(_last_tool_result_block(body).get("content"))


def last_tool_is_error(body: dict[str, Any]) -> bool:
    """Whether the newest tool_result is flagged ``is_error`` (a non-zero exit for Bash)."""
    return bool(_last_tool_result_block(body).get("is_error"))


def block_with(s: str, needle: str) -> str:
    """The first fenced block in ``s`` containing ``needle``."""
    for _lang, b in fenced_blocks(s):
        if needle in b:
            return b.rstrip("\n")
    raise ScriptError(f"no fenced block containing {needle!r} in:\n{s[:3000]}")


def fill_heredoc(block: str, payload: str) -> str:
    """Keep the command line of a heredoc block and feed it ``payload``.

    ``session-skill dump … --file - <<'X'\\n<the doc>\\nX`` → the same command with the
    placeholder replaced; a command without a heredoc gets one.
    """
    first, _, _rest = block.partition("\n")
    m = HEREDOC.search(first)
    if m:
        delim = m.group(2)
    else:
        delim = "SESSION_DOC"
        first = f"{first} <<'{delim}'"
    return f"{first}\n{payload.rstrip()}\n{delim}"


def run_skill_command(
    needle: str = "session-skill dispatch", log: list[str] | None = None
) -> Callable[[dict[str, Any]], Block]:
    """Step: run, with Bash, the fenced command from the skill text that holds ``needle``."""

    def step(body: dict[str, Any]) -> Block:
        cmd = block_with(skill_text(body), needle)
        if log is not None:
            log.append(cmd)
        return tool_use("Bash", {"command": cmd, "description": "Run /session"})

    return step


def run_command_from_result(
    needle: str, payload: str, log: list[str] | None = None
) -> Callable[[dict[str, Any]], Block]:
    """Step: run the fenced command holding ``needle`` that the last tool printed, with
    ``payload`` as its heredoc body."""

    def step(body: dict[str, Any]) -> Block:
        cmd = fill_heredoc(block_with(last_tool_result(body), needle), payload)
        if log is not None:
            log.append(cmd)
        return tool_use("Bash", {"command": cmd, "description": "Write the handover"})

    return step


def relay_result(prefix: str = "") -> Callable[[dict[str, Any]], Block]:
    """Step: reply with the last tool's output, verbatim (as the skill asks for dump)."""

    def step(body: dict[str, Any]) -> Block:
        return text(prefix + last_tool_result(body).rstrip())

    return step


def injected_context(body: dict[str, Any]) -> str | None:
    """The SessionStart ``additionalContext`` as the client placed it in the request.

    v2.1.328 puts it at the top of a system-role message as
    ``SessionStart hook additional context: <text>`` followed by a blank line and the
    ``# Environment`` section. Returns None when there is none.
    """
    for t in message_texts(body):
        if INJECT_PREFIX in t:
            after = t.split(INJECT_PREFIX, 1)[1]
            return after.split("\n\n# Environment\n", 1)[0].strip()
    return None

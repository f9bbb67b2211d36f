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


# what 2.1.328 puts after the hook context in the same system message
INJECT_ENDS = ("\n\n# Environment\n", "\n\nToday's date is ")


def _cut_context(after: str) -> str:
    for end in INJECT_ENDS:
        after = after.split(end, 1)[0]
    return after.strip()


def injected_context(body: dict[str, Any]) -> str | None:
    """The SessionStart ``additionalContext`` as the client placed it in the request.

    v2.1.328 puts it in a system-role message as ``SessionStart hook additional context:
    <text>``, followed by a blank line and the ``# Environment`` section (startup, /clear),
    by ``Today's date is …`` (after a plan approval that cleared context, after /compact),
    or by nothing (after automatic compaction). Returns None when there is none.
    """
    found = hook_contexts(body)
    return found[0] if found else None


# --- plan mode -------------------------------------------------------------------------------

PLAN_FILE = re.compile(
    r"(?:create your plan at|A plan file already exists at) (/\S+?\.md)(?=[\s.,]|$)"
)


def plan_file_path(body: dict[str, Any]) -> str:
    """The plan file plan mode names in the request (2.1.328: ``No plan file exists yet.
    You should create your plan at <path> using the Write tool.``, a file under
    ``~/.claude/plans/``)."""
    for t in reversed(message_texts(body)):
        m = PLAN_FILE.search(t)
        if m:
            return m.group(1)
    raise ScriptError("no plan file named in the request (is plan mode on?)")


def write_plan(plan: str, log: list[str] | None = None) -> Callable[[dict[str, Any]], Block]:
    """Step: write ``plan`` into the plan file the request names, with Write — what a model
    in plan mode does before ``ExitPlanMode`` (plan mode allows edits of that file only).
    The path is appended to ``log``."""

    def step(body: dict[str, Any]) -> Block:
        path = plan_file_path(body)
        if log is not None:
            log.append(path)
        return tool_use("Write", {"file_path": path, "content": plan})

    return step


def exit_plan_mode(plan: str | None = None) -> Block:
    """An ``ExitPlanMode`` tool_use. 2.1.328 ignores what the model puts in ``input``: it
    shows, records (transcript, hook payloads) and hands on ``input.plan`` = the plan
    file's content and ``input.planFilePath``; with no plan file the menu only asks "Exit
    plan mode?" and offers no clearing option."""
    return tool_use("ExitPlanMode", {} if plan is None else {"plan": plan})


def plan_steps(plan: str, log: list[str] | None = None) -> list[Any]:
    """The turns of a model that plans: write the plan file, then ``ExitPlanMode`` (the
    client then shows the approval menu and waits)."""
    return [write_plan(plan, log), exit_plan_mode(plan)]


def system_texts(body: dict[str, Any]) -> list[str]:
    """The text of every ``system``-role message in ``messages`` (where 2.1.328 puts the
    hook context, the environment and the date; not the top-level ``system`` prompt)."""
    out = []
    for m in body.get("messages") or []:
        if m.get("role") == "system":
            out.append(flatten_text(m.get("content")))
    return out


def hook_contexts(body: dict[str, Any]) -> list[str]:
    """Every SessionStart ``additionalContext`` in the request, in order (see
    :func:`injected_context` for where 2.1.328 puts it: at the top of the system message on
    startup and after /clear, at its end after a compaction)."""
    out = []
    for t in message_texts(body):
        out.extend(_cut_context(part) for part in t.split(INJECT_PREFIX)[1:])
    return out

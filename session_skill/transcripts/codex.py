"""The Codex rollout parser, beside the Claude Code one in `claude`; `reader` picks one.

Codex writes `session_meta`, `turn_context`, `response_item` and `event_msg` records in a
`{"type", "payload"}` envelope; early rollouts had none (a header line, then bare items).
codex-cli 0.171.0 adds `world_state` and `token_usage_record` records and an `ordinal` on
every line (see tests/fixtures/transcripts/codex_0171_rollout.jsonl, from a real run).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator

from session_skill import recache
from session_skill.transcripts.events import (
    CODEX,
    CompactBoundary,
    Event,
    Interrupted,
    PatchApplied,
    ReadStats,
    SessionMeta,
    ThreadGoal,
    ToolCall,
    ToolResult,
    UserText,
    assistant_text,
    blocks_text,
    first_type,
    mentions,
    str_or_none,
)
from session_skill.transcripts.lazyre import Lazy

TYPE_CHECKING = False  # `typing` costs a hook ~7 ms to import
if TYPE_CHECKING:
    from typing import Any

_CODEX_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "world_state",
        "token_usage_record",
    }
)
# Records that say nothing of the conversation, skipped before parsing: the environment and
# skill list the model was shown (a full copy of it can run to kilobytes), token counts.
_CODEX_STATE = frozenset({b"world_state", b"token_usage_record"})
# The user typing the skill (`$session park …`, or the plugin's `$session-skill:session …`):
# a command, like a typed `/session`, not a request of theirs.
_CODEX_SKILL = recache.compile(r"\$(?:session-skill:)?session(?=\s|$)")
# Early Codex rollouts had no envelope: a header line, then bare response items.
_CODEX_LEGACY_ITEMS = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "local_shell_call"}
)


def looks_codex(record: dict[str, Any]) -> bool:
    if "payload" in record and record.get("type") in _CODEX_TYPES:
        return True
    if "instructions" in record and "id" in record and "type" not in record:
        return True
    return record.get("type") in _CODEX_LEGACY_ITEMS and "uuid" not in record


# User-role messages Codex injects itself (environment, AGENTS.md, aborted turns, what its
# harness tells the model: a thread goal set or cleared, "Continue working toward the active
# thread goal").
_CODEX_INJECTED = tuple(
    "<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS.md instructions|"
    "<user_shell_command>|<turn_aborted>|<permissions instructions>|<skill>|"
    "<codex_internal_context".split("|")
)
# The thread's goal cleared (`/goal clear`): Codex records no event for it, only this line in
# the `<codex_internal_context source="user_goal">` message it gives the model.
_GOAL_CLEARED = "\nUser cleared the goal."
# …and `/goal <objective>`: 'User set the goal: "<objective>"', then its status on a line.
_GOAL_SET = Lazy(
    r'\nUser set the goal: "(.*)"\n(?:User set goal status|</codex_internal)', re.DOTALL
)
_CODEX_REASONING = b'"payload":{"type":"reasoning"'
_CODEX_OUTPUT = b'"payload":{"type":"function_call_output"'


class CodexParser:
    agent = CODEX

    def __init__(self, stats: ReadStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.cwd: str | None = None

    def cheap_skip(self, raw: bytes, wanted: Collection[str] | None) -> str | None:
        # event_msg lines repeat what response_item lines say (and token counts).
        start, value = first_type(raw, 256)
        if value == b"event_msg":
            if raw.find(b'"patch_apply_end"', start, start + 200) != -1:
                return None  # the files a patch changed, and whether it applied
            if raw.find(b'"thread_goal_updated"', start, start + 200) != -1:
                return None  # the thread's goal and where it stands
            return "event_msg"
        if value in _CODEX_STATE:
            return value.decode()
        if value != b"response_item":
            return None
        head = raw[start : start + 96]
        if _CODEX_REASONING in head:
            return "response_item:reasoning"
        if wanted is not None and _CODEX_OUTPUT in head and not mentions(raw, wanted):
            return "response_item:function_call_output"
        return None

    def feed(self, record: dict[str, Any]) -> Iterator[Event]:
        kind = record.get("type")
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        payload = record.get("payload")
        if not isinstance(payload, dict):
            if kind in _CODEX_LEGACY_ITEMS:
                kind, payload = "response_item", record
            elif "instructions" in record and "id" in record:
                kind, payload = "session_meta", record
            else:
                self.stats.skip(str(kind))
                return
        if kind == "session_meta":
            self.session_id = str_or_none(payload.get("id")) or self.session_id
            self.cwd = str_or_none(payload.get("cwd")) or self.cwd
            yield SessionMeta(self.session_id, self.cwd, ts, CODEX)
        elif kind == "turn_context":
            cwd = str_or_none(payload.get("cwd"))
            if cwd and cwd != self.cwd:
                self.cwd = cwd
                yield SessionMeta(self.session_id, cwd, ts, CODEX)
        elif kind == "response_item":
            yield from self._item(payload, ts)
        elif kind == "compacted":
            yield CompactBoundary(ts)
        elif kind == "event_msg" and payload.get("type") == "thread_goal_updated":
            goal = payload.get("goal")
            goal = goal if isinstance(goal, dict) else {}
            objective, status = str_or_none(goal.get("objective")), str_or_none(goal.get("status"))
            if objective and objective.strip() and status:
                yield ThreadGoal(objective.strip(), _snake(status), ts)
        elif kind == "event_msg" and payload.get("type") == "patch_apply_end":
            changes = payload.get("changes")
            paths = (
                tuple(p for p in changes if isinstance(p, str)) if isinstance(changes, dict) else ()
            )
            yield PatchApplied(
                str_or_none(payload.get("call_id")), paths, payload.get("success") is True, ts
            )
        else:
            self.stats.skip(str(kind))

    def _item(self, item: dict[str, Any], ts: str | None) -> Iterator[Event]:
        itype = item.get("type")
        if itype == "message":
            text = blocks_text(item.get("content")).strip()
            role = item.get("role")
            if not text:
                return
            if text.startswith("<turn_aborted>") and role in ("user", "developer"):
                # The user stopped the turn: a user message in earlier rollouts, a developer
                # one in later ("The previous turn was interrupted on purpose. …").
                yield Interrupted(ts)
            elif role == "user":
                if not text.startswith(_CODEX_INJECTED):
                    yield _user_text(text, ts)
                elif text.startswith('<codex_internal_context source="user_goal">'):
                    if _GOAL_CLEARED in text:
                        yield ThreadGoal(None, "cleared", ts)
                    found = _GOAL_SET.search(text)
                    if found is not None and found.group(1).strip():
                        yield UserText(found.group(1).strip(), ts)  # they typed `/goal <this>`
            elif role == "assistant":
                more = item.get("phase") == "commentary"  # not the turn's final answer
                yield assistant_text(text, ts, str_or_none(item.get("id")), more)
        elif itype == "function_call":
            yield ToolCall(
                str(item.get("name") or ""),
                _arguments(item.get("arguments")),
                str_or_none(item.get("call_id")),
                ts,
            )
        elif itype == "custom_tool_call":
            patch = item.get("input")
            name = str(item.get("name") or "")
            call_id = str_or_none(item.get("call_id"))
            yield ToolCall(name, {"input": patch if isinstance(patch, str) else ""}, call_id, ts)
            if name == "exec" and isinstance(patch, str) and "tools." in patch:
                yield from _scripted(patch, call_id, ts)
        elif itype == "local_shell_call":
            action = item.get("action")
            action = action if isinstance(action, dict) else {}
            yield ToolCall(
                "shell",
                {"command": action.get("command"), "workdir": action.get("working_directory")},
                str_or_none(item.get("call_id")),
                ts,
            )
        elif itype in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            yield ToolResult(str_or_none(item.get("call_id")), output, ts, _failed(output))
        else:
            self.stats.skip(f"response_item:{itype}")


# Code mode: a reply's `exec` script calls the tools itself — `await tools.exec_command({…})`,
# `tools.update_plan({…})` — each with a JSON object. Their effects show nowhere else: the
# plan's steps, the commands run (commits, a plan's checks). (A patch is reported by
# `patch_apply_end`; a question's answer comes back inside the script's output, unread.)
_SCRIPTED = Lazy(r"\btools\.(exec_command|update_plan|shell|shell_command)\(\s*(?=\{)")
_DECODER = json.JSONDecoder()


def _scripted(script: str, call_id: str | None, ts: str | None) -> Iterator[ToolCall]:
    """The tool calls an `exec` script makes, each as its own call (with the script's id:
    the script's output says how they ended)."""
    for found in _SCRIPTED.finditer(script):
        try:
            args, _end = _DECODER.raw_decode(script, found.end())
        except (ValueError, RecursionError):  # not JSON, or nested past any real call
            continue
        if isinstance(args, dict):
            yield ToolCall(found.group(1), args, call_id, ts)


# How a command ended, as its output says: exec_command's "Process exited with code 1" (after
# a few header lines), the shell tool's `{"output": …, "metadata": {"exit_code": 1, …}}`,
# code mode's "Script failed", and an apply_patch whose hunks did not fit the file, which
# Codex reports with no `patch_apply_end` ("apply_patch verification failed: Failed to find
# expected lines in …"): nothing was written.
_EXITED = Lazy(
    r"^Process exited with code ([1-9]\d*)$"
    r"|\A\s*(?:Script failed|apply_patch verification failed)\b",
    re.MULTILINE,
)
_EXIT_CODE = Lazy(r'"metadata":\s*\{[^{}]*"exit_code":\s*([1-9]\d*)')


def _failed(output: object) -> bool:
    """Did the call whose `output` this is fail (a command that exited non-zero)? Codex
    marks no result as an error; Claude Code's `is_error` says as much."""
    text = output if isinstance(output, str) else blocks_text(output)
    return bool(_EXITED.search(text[:400]) or _EXIT_CODE.search(text[-300:]))


def _snake(status: str) -> str:
    """A goal status as the state database spells it: "budgetLimited" is "budget_limited"."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in status).lstrip("_")


def _user_text(text: str, ts: str | None) -> UserText:
    typed = _CODEX_SKILL.match(text)
    if typed is None:
        return UserText(text, ts)
    args = text[typed.end() :].strip()
    return UserText(text, ts, is_command=True, command_name=typed.group(0), command_args=args)


def _arguments(raw: object) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError):
            return {"raw": raw}
        if isinstance(parsed, dict):
            return parsed
    return {}

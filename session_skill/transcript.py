"""Stream a Claude Code transcript or a Codex rollout as one sequence of events.

Both formats are internal to their tools and change between versions, so the reader is
defensive: a record it does not know is counted and skipped, a line that is not JSON is
counted as malformed, and nothing here raises on odd content. Only the main conversation
is produced: sub-agent turns (`isSidechain`, or nested inside `progress` records) are not
what the user and the model said to each other.

Memory stays flat in the file's size: the file is read line by line and no record outlives
its line, except a short window of recent assistant message ids used to merge one response
that Claude Code wrote over several lines.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

CLAUDE = "claude-code"
CODEX = "codex"


@dataclass(frozen=True)
class SessionMeta:
    """The session the following events belong to; emitted when its id or cwd changes."""

    session_id: str | None
    cwd: str | None
    ts: str | None
    agent: str


@dataclass(frozen=True)
class UserText:
    """Something the user typed: a request, or a slash command (`is_command`)."""

    text: str
    ts: str | None
    is_command: bool = False
    command_name: str | None = None
    command_args: str | None = None


@dataclass(frozen=True)
class AssistantText:
    text: str
    ts: str | None
    msg_id: str | None


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: dict[str, Any]
    id: str | None
    ts: str | None


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str | None
    content: object
    ts: str | None
    is_error: bool = False
    # Claude Code's structured `toolUseResult` (e.g. TaskCreate's `{"task": {"id": …}}`).
    meta: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        # Built on demand: most results are never read, and some are megabytes long.
        return _blocks_text(self.content)


@dataclass(frozen=True)
class CompactBoundary:
    ts: str | None


@dataclass(frozen=True)
class ClearSplit:
    """A `/clear` command record: what precedes it belongs to an earlier conversation."""

    ts: str | None


Event: TypeAlias = (
    SessionMeta | UserText | AssistantText | ToolCall | ToolResult | CompactBoundary | ClearSplit
)


@dataclass
class ReadStats:
    lines: int = 0
    records: int = 0
    malformed: int = 0
    sidechain: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    format: str | None = None

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1


def iter_events(
    path: Path,
    stats: ReadStats | None = None,
    *,
    wanted_results: Collection[str] | None = None,
) -> Iterator[Event]:
    """Yield the main-thread events of the transcript or rollout at `path`.

    `stats`, when given, is filled in as the file is read. The format is detected from the
    first record that parses. Raises OSError only for a file that cannot be opened.

    `wanted_results`, when given, names the tool-call ids whose results the caller needs;
    it may change while the iteration runs. Records holding only other tool results are
    then skipped unparsed: they carry most of a transcript's bytes (file contents, command
    output) and parsing them is most of the cost of a pass.
    """
    stats = stats if stats is not None else ReadStats()
    parser: _ClaudeParser | _CodexParser | None = None
    with open(path, "rb") as fh:
        for raw in fh:
            stats.lines += 1
            if parser is not None:
                kind = parser.cheap_skip(raw, wanted_results)
                if kind is not None:
                    stats.records += 1
                    if kind == "sidechain":
                        stats.sidechain += 1
                    else:
                        stats.skip(kind)
                    continue
            try:
                record = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                if raw.strip():
                    stats.malformed += 1
                continue
            if not isinstance(record, dict):
                stats.malformed += 1
                continue
            stats.records += 1
            if parser is None:
                parser = _CodexParser(stats) if _looks_codex(record) else _ClaudeParser(stats)
                stats.format = parser.agent
            yield from parser.feed(record)


def detect_format(path: Path, max_lines: int = 20) -> str | None:
    """`"claude-code"`, `"codex"`, or None when no record in the first lines parses."""
    with open(path, "rb") as fh:
        for i, raw in enumerate(fh):
            if i >= max_lines:
                break
            try:
                record = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(record, dict):
                return CODEX if _looks_codex(record) else CLAUDE
    return None


_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
# Early Codex rollouts had no envelope: a header line, then bare response items.
_CODEX_LEGACY_ITEMS = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "local_shell_call"}
)


def _looks_codex(record: dict[str, Any]) -> bool:
    if "payload" in record and record.get("type") in _CODEX_TYPES:
        return True
    if "instructions" in record and "id" in record and "type" not in record:
        return True
    return record.get("type") in _CODEX_LEGACY_ITEMS and "uuid" not in record


def _blocks_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block["text"]
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


def _first_type(raw: bytes, limit: int = 4096) -> tuple[int, bytes | None]:
    """Position and value of the first `"type":"…"` in a compact JSON line."""
    start = raw.find(b'"type":"', 0, limit)
    if start == -1:
        return -1, None
    end = raw.find(b'"', start + 8, start + 72)
    if end == -1:
        return start, None
    return start, raw[start + 8 : end]


def _mentions(raw: bytes, ids: Collection[str]) -> bool:
    return any(tool_id.encode() in raw for tool_id in ids)


# ---------------------------------------------------------------- Claude Code

# Top-level record types that never carry the main conversation. Skipping them before
# json.loads matters: in current versions most lines are `progress` records, and the
# agent_progress ones embed whole sub-agent messages.
_CLAUDE_SKIP = frozenset(
    kind.encode()
    for kind in "progress file-history-snapshot queue-operation summary attachment last-prompt "
    "cost-state api-request api-request-shape api-request-blob atis-latch custom-title "
    "ai-title".split()
)

_COMMAND_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_BASH_INPUT = re.compile(r"^\s*<bash-input>(.*?)</bash-input>", re.DOTALL)
_SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
# User-role text Claude Code writes itself: command output, caveats, notifications.
_CLAUDE_NOISE = tuple(
    "<local-command-stdout>|<local-command-stderr>|<local-command-caveat>|<bash-stdout>|"
    "<bash-stderr>|<task-notification>|<user-prompt-submit-hook>|[Request interrupted|"
    "Caveat: The messages below were generated".split("|")
)
# How many recent assistant message ids are remembered to merge split records. Parts of
# one response can be interleaved with tool results, but never far apart.
_MESSAGE_WINDOW = 64


class _ClaudeParser:
    agent = CLAUDE

    def __init__(self, stats: ReadStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.seen_blocks: OrderedDict[str, set[tuple[str, int | str]]] = OrderedDict()

    def cheap_skip(self, raw: bytes, wanted: Collection[str] | None) -> str | None:
        start, value = _first_type(raw)
        if value is None:
            return None
        if value in _CLAUDE_SKIP:
            return value.decode("ascii", "replace")
        # isSidechain sits in the envelope, before the record's first nested object.
        if raw.find(b'"isSidechain":true', 0, min(start, 512)) != -1:
            return "sidechain"
        # A user record of tool results only: no text block the user typed (a quote inside
        # a JSON string is escaped, so `"type":"text"` here is structure, not content).
        if value == b"user" and wanted is not None and raw.find(b'"tool_result"', start) != -1:
            # toolUseResult (after the message) may itself say "type":"text" (Read results).
            end = raw.rfind(b'"toolUseResult":')
            if raw.find(b'"type":"text"', start, end if end > start else len(raw)) == -1:
                if not _mentions(raw, wanted):
                    return "user:tool_result"
        return None

    def feed(self, record: dict[str, Any]) -> Iterator[Event]:
        kind = record.get("type")
        if kind not in ("user", "assistant", "system"):
            self.stats.skip(str(kind))
            return
        if record.get("isSidechain") is True:
            self.stats.sidechain += 1
            return
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        session_id, cwd = record.get("sessionId"), record.get("cwd")
        if isinstance(session_id, str) and (session_id, cwd) != (self.session_id, self.cwd):
            self.session_id = session_id
            self.cwd = cwd if isinstance(cwd, str) else self.cwd
            yield SessionMeta(session_id, self.cwd, ts, CLAUDE)
        if kind == "user":
            yield from self._user(record, ts)
        elif kind == "assistant":
            yield from self._assistant(record, ts)
        else:
            yield from self._system(record, ts)

    def _user(self, record: dict[str, Any], ts: str | None) -> Iterator[Event]:
        if (
            record.get("isMeta")
            or record.get("isCompactSummary")
            or record.get("isVisibleInTranscriptOnly")
        ):
            self.stats.skip("user:meta")
            return
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            event = _user_text(content, ts)
            if event is not None:
                yield event
            return
        if not isinstance(content, list):
            return
        results = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
        meta = record.get("toolUseResult")
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                event = _user_text(block["text"], ts)
                if event is not None:
                    yield event
            elif block.get("type") == "tool_result":
                yield ToolResult(
                    tool_use_id=_str_or_none(block.get("tool_use_id")),
                    content=block.get("content"),
                    ts=ts,
                    is_error=bool(block.get("is_error")),
                    # With several results in one record, whose toolUseResult it is is unknown.
                    meta=meta if isinstance(meta, dict) and results == 1 else None,
                )

    def _assistant(self, record: dict[str, Any], ts: str | None) -> Iterator[Event]:
        if record.get("isApiErrorMessage"):
            self.stats.skip("assistant:api-error")
            return
        message = record.get("message")
        if not isinstance(message, dict):
            return
        msg_id = _str_or_none(message.get("id"))
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return
        seen = self._seen_for(msg_id)
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text" and isinstance(block.get("text"), str):
                key: tuple[str, int | str] = ("text", hash(block["text"]))
                if key in seen:
                    continue
                seen.add(key)
                if block["text"].strip():
                    yield AssistantText(block["text"], ts, msg_id)
            elif btype == "tool_use" and isinstance(block.get("name"), str):
                tool_id = _str_or_none(block.get("id"))
                key = ("tool", tool_id or hash(json.dumps(block, sort_keys=True, default=str)))
                if key in seen:
                    continue
                seen.add(key)
                tool_input = block.get("input")
                yield ToolCall(
                    block["name"], tool_input if isinstance(tool_input, dict) else {}, tool_id, ts
                )

    def _seen_for(self, msg_id: str | None) -> set[tuple[str, int | str]]:
        if msg_id is None:
            return set()
        seen = self.seen_blocks.get(msg_id)
        if seen is None:
            seen = self.seen_blocks[msg_id] = set()
            if len(self.seen_blocks) > _MESSAGE_WINDOW:
                self.seen_blocks.popitem(last=False)
        return seen

    def _system(self, record: dict[str, Any], ts: str | None) -> Iterator[Event]:
        subtype = record.get("subtype")
        if subtype == "compact_boundary":
            yield CompactBoundary(ts)
        elif subtype == "local_command" and isinstance(record.get("content"), str):
            # Current versions record local commands (/model, /mcp, /clear…) as system records.
            event = _user_text(record["content"], ts)
            if event is not None:
                yield event
            else:
                self.stats.skip("system:local_command")
        else:
            self.stats.skip(f"system:{subtype}")


def _user_text(text: str, ts: str | None) -> UserText | ClearSplit | None:
    stripped = text.lstrip()
    name_match = _COMMAND_NAME.search(text) if stripped.startswith("<command-") else None
    if name_match is not None:
        name = name_match.group(1).strip()
        if name == "/clear":
            return ClearSplit(ts)
        args_match = _COMMAND_ARGS.search(text)
        args = args_match.group(1).strip() if args_match is not None else ""
        return UserText(text.strip(), ts, True, name, args)
    if stripped.startswith(_CLAUDE_NOISE):
        return None
    bash = _BASH_INPUT.match(text)
    if bash is not None:
        return UserText(text.strip(), ts, True, "!", bash.group(1).strip())
    if "<system-reminder>" in text:
        text = _SYSTEM_REMINDER.sub("", text)
    text = text.strip()
    return UserText(text, ts) if text else None


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


# ---------------------------------------------------------------- Codex

# User-role messages Codex injects itself (environment, AGENTS.md, aborted turns).
_CODEX_INJECTED = tuple(
    "<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS.md instructions|"
    "<user_shell_command>|<turn_aborted>|<permissions instructions>|<skill>".split("|")
)
_CODEX_REASONING = b'"payload":{"type":"reasoning"'
_CODEX_OUTPUT = b'"payload":{"type":"function_call_output"'


class _CodexParser:
    agent = CODEX

    def __init__(self, stats: ReadStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.cwd: str | None = None

    def cheap_skip(self, raw: bytes, wanted: Collection[str] | None) -> str | None:
        # event_msg lines repeat what response_item lines say (and token counts).
        start, value = _first_type(raw, 256)
        if value == b"event_msg":
            return "event_msg"
        if value != b"response_item":
            return None
        head = raw[start : start + 96]
        if _CODEX_REASONING in head:
            return "response_item:reasoning"
        if wanted is not None and _CODEX_OUTPUT in head and not _mentions(raw, wanted):
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
            self.session_id = _str_or_none(payload.get("id")) or self.session_id
            self.cwd = _str_or_none(payload.get("cwd")) or self.cwd
            yield SessionMeta(self.session_id, self.cwd, ts, CODEX)
        elif kind == "turn_context":
            cwd = _str_or_none(payload.get("cwd"))
            if cwd and cwd != self.cwd:
                self.cwd = cwd
                yield SessionMeta(self.session_id, cwd, ts, CODEX)
        elif kind == "response_item":
            yield from self._item(payload, ts)
        elif kind == "compacted":
            yield CompactBoundary(ts)
        else:
            self.stats.skip(str(kind))

    def _item(self, item: dict[str, Any], ts: str | None) -> Iterator[Event]:
        itype = item.get("type")
        if itype == "message":
            text = _blocks_text(item.get("content")).strip()
            role = item.get("role")
            if not text:
                return
            if role == "user":
                if not text.startswith(_CODEX_INJECTED):
                    yield UserText(text, ts)
            elif role == "assistant":
                yield AssistantText(text, ts, _str_or_none(item.get("id")))
        elif itype == "function_call":
            yield ToolCall(
                str(item.get("name") or ""),
                _arguments(item.get("arguments")),
                _str_or_none(item.get("call_id")),
                ts,
            )
        elif itype == "custom_tool_call":
            patch = item.get("input")
            yield ToolCall(
                str(item.get("name") or ""),
                {"input": patch if isinstance(patch, str) else ""},
                _str_or_none(item.get("call_id")),
                ts,
            )
        elif itype == "local_shell_call":
            action = item.get("action")
            action = action if isinstance(action, dict) else {}
            yield ToolCall(
                "shell",
                {"command": action.get("command"), "workdir": action.get("working_directory")},
                _str_or_none(item.get("call_id")),
                ts,
            )
        elif itype in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            yield ToolResult(_str_or_none(item.get("call_id")), output, ts)
        else:
            self.stats.skip(f"response_item:{itype}")


def _arguments(raw: object) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"raw": raw}
        if isinstance(parsed, dict):
            return parsed
    return {}

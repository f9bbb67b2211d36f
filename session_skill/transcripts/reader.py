"""Stream a Claude Code transcript or a Codex rollout as one sequence of events.

Both formats are internal to their tools and change between versions, so the reader is
defensive: a record it does not know is counted and skipped, a line that is not JSON is
counted as malformed, and nothing here raises on odd content. Only the main conversation
is produced: sub-agent turns (`isSidechain`, or nested inside `progress` records) are not
what the user and the model said to each other.

Memory stays flat in the file's size: the file is read line by line and no record outlives
its line, except a short window of recent assistant message ids used to merge one response
that Claude Code wrote over several lines.

This module holds the reader and the Claude Code parser; the events are defined in
`transcript_events` (re-exported here) and the Codex parser lives in `codex`.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from session_skill.transcripts.codex import CodexParser, looks_codex
from session_skill.transcripts.events import (
    CLAUDE,
    CODEX,
    AssistantText,
    ClearSplit,
    CompactBoundary,
    Event,
    ReadStats,
    SessionMeta,
    ToolCall,
    ToolResult,
    UserText,
    first_type,
    mentions,
    str_or_none,
)

__all__ = [
    "CLAUDE",
    "CODEX",
    "AssistantText",
    "ClearSplit",
    "CompactBoundary",
    "Event",
    "ReadStats",
    "SessionMeta",
    "ToolCall",
    "ToolResult",
    "UserText",
    "detect_format",
    "iter_events",
]


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
    parser: _ClaudeParser | CodexParser | None = None
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
                parser = CodexParser(stats) if looks_codex(record) else _ClaudeParser(stats)
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
                return CODEX if looks_codex(record) else CLAUDE
    return None


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
        start, value = first_type(raw)
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
                if not mentions(raw, wanted):
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
                    tool_use_id=str_or_none(block.get("tool_use_id")),
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
        msg_id = str_or_none(message.get("id"))
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
                tool_id = str_or_none(block.get("id"))
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

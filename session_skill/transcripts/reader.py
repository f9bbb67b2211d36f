"""Stream a Claude Code transcript or a Codex rollout as one sequence of events.

Both formats are internal to their tools and change between versions, so the reader is
defensive: a record it does not know is counted and skipped, a line that is not JSON is
counted as malformed, and nothing here raises on odd content. Only the main conversation
is produced: sub-agent turns (`isSidechain`, or nested inside `progress` records) are not
what the user and the model said to each other.

Memory stays flat in the file's size: the file is read line by line and no record outlives
its line, except a short window of recent assistant message ids used to merge one response
that Claude Code wrote over several lines.

This module holds the reader; the events are defined in `events` (re-exported here), the
parsers in `claude` and `codex`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

from session_skill.transcripts.claude import ClaudeParser
from session_skill.transcripts.codex import CodexParser, looks_codex
from session_skill.transcripts.events import (
    CLAUDE,
    CODEX,
    AssistantText,
    ClearSplit,
    CommandPrompt,
    CompactBoundary,
    Event,
    Interrupted,
    PatchApplied,
    ReadStats,
    Recap,
    SessionMeta,
    ThreadGoal,
    ToolCall,
    ToolResult,
    UserText,
    desurrogate,
)

TYPE_CHECKING = False  # `typing` costs a hook ~7 ms to import
if TYPE_CHECKING:
    from typing import Any

# Could a JSON line decode to a lone surrogate? Claude Code (JSON.stringify, since ES2019)
# escapes one as lowercase `\udXXX`; a Codex rollout (serde) holds none.
_SURROGATE = b"\\ud"

__all__ = [
    "CLAUDE",
    "CODEX",
    "AssistantText",
    "ClearSplit",
    "CommandPrompt",
    "CompactBoundary",
    "Recap",
    "ThreadGoal",
    "Event",
    "Interrupted",
    "PatchApplied",
    "ReadStats",
    "SessionMeta",
    "ToolCall",
    "ToolResult",
    "UserText",
    "detect_format",
    "iter_events",
    "line_start",
]


def iter_events(
    path: Path,
    stats: ReadStats | None = None,
    *,
    wanted_results: Collection[str] | None = None,
    start: int = 0,
    first_line: int = 1,
    stop: int | None = None,
) -> Iterator[Event]:
    """Yield the main-thread events of the transcript or rollout at `path`.

    `stats`, when given, is filled in as the file is read. The format is detected from the
    first record that parses. Raises OSError only for a file that cannot be opened.

    `wanted_results`, when given, names the tool-call ids whose results the caller needs;
    it may change while the iteration runs. Records holding only other tool results are
    then skipped unparsed: they carry most of a transcript's bytes (file contents, command
    output) and parsing them is most of the cost of a pass.

    `start` is a byte offset to begin at (the start of a line: `stats.offset` as it was
    when that line's events came); `stats.offset` always holds where the line being read
    starts, and `stats.line` its number (`first_line` for the line at `start`). With `stop`,
    the lines that start at or after that offset are not read.
    """
    stats = stats if stats is not None else ReadStats()
    parser: ClaudeParser | CodexParser | None = None
    skip: Callable[[bytes, Collection[str] | None], str | list[Event] | None] | None = None
    lines = 0  # counted here, added to stats at the end (the loop is the hot path)
    offset = start
    limit = stop if stop is not None else 1 << 62
    # stats.line and stats.offset are set just before a line's events are handed out: they
    # are read while an event is handled, and most lines yield none.
    try:
        with open(path, "rb", buffering=1 << 20) as fh:
            if start:
                fh.seek(start)
            for raw in fh:
                if offset >= limit:
                    break
                lines += 1
                here = offset
                offset += len(raw)
                # The fast paths decline a line whose decoded text holds a lone surrogate
                # (`events.lone_surrogate`): it is parsed, and cleaned, below.
                kind = skip(raw, wanted_results) if skip is not None else None
                if kind is not None:
                    stats.records += 1
                    if not isinstance(kind, str):
                        stats.line, stats.offset = first_line + lines - 1, here
                        yield from kind
                    elif kind == "sidechain":
                        stats.sidechain += 1
                    else:
                        stats.skip(kind)
                    continue
                surrogate = _SURROGATE in raw
                try:
                    record = json.loads(raw.decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    if raw.strip():
                        stats.malformed += 1
                    continue
                if not isinstance(record, dict):
                    stats.malformed += 1
                    continue
                if surrogate:
                    record = desurrogate(record)
                stats.records += 1
                if parser is None:
                    parser = parser_for(record, stats)
                    stats.format = parser.agent
                    skip = parser.quick if isinstance(parser, ClaudeParser) else parser.cheap_skip
                stats.line, stats.offset = first_line + lines - 1, here
                yield from parser.feed(record)
        if isinstance(parser, ClaudeParser):
            yield from parser.end()  # what the last lines left pending
    finally:
        stats.lines += lines


def line_start(path: Path, offset: int) -> int:
    """The start of the first line at or after `offset`."""
    if offset <= 0:
        return 0
    with open(path, "rb") as fh:
        fh.seek(offset - 1)
        while True:
            block = fh.read(1 << 16)
            if not block:
                return fh.tell()
            at = block.find(b"\n")
            if at != -1:
                return fh.tell() - len(block) + at + 1


def parser_for(record: dict[str, Any], stats: ReadStats) -> ClaudeParser | CodexParser:
    """The parser for a file whose records look like this one."""
    return CodexParser(stats) if looks_codex(record) else ClaudeParser(stats)


def detect_format(path: Path, max_lines: int = 20) -> str | None:
    """`"claude-code"`, `"codex"`, or None when no record in the first lines parses."""
    with open(path, "rb") as fh:
        for i, raw in enumerate(fh):
            if i >= max_lines:
                break
            try:
                record = json.loads(raw.decode("utf-8", "replace"))
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict):
                return CODEX if looks_codex(record) else CLAUDE
    return None

"""The capture a hook can afford on a transcript of any size (issue 20): one byte-level pass.

A hook at a session boundary has a fixed budget — Claude Code kills a plugin's SessionEnd
hook at ~1.5 s — and the sessions worth saving are the long ones. So a transcript larger
than `QUICK_FROM` is not read whole:

- the head (`HEAD_BYTES`) is read in full, for the goal: the first requests, the plan;
- the tail (`TAIL_BYTES`) is read in full, for the loose ends, the last request, where the
  session stopped: what is open is mostly said at the end;
- in between, only the lines of tool calls that change what is kept are found — by
  `bytes.find` over the raw bytes, in fixed-size chunks (memory stays flat) — and parsed:
  file writes (and, close after each, a failed result), the task list, the plan.

What the middle said in prose (a deferral in hour two of a ten-hour session) is not read
here; `sweep` reads it (`scan.analyze`). Everything else is the same `_Sweep` as the sweep's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from session_skill.records import replace
from session_skill.transcripts.claude import ClaudeParser
from session_skill.transcripts.codex import CodexParser
from session_skill.transcripts.events import (
    CODEX,
    WRITE_TOOLS,
    PatchApplied,
    ReadStats,
    ToolCall,
    ToolResult,
)
from session_skill.transcripts.loose import Loose
from session_skill.transcripts.reader import iter_events, parser_for
from session_skill.transcripts.scan import TranscriptFacts, _Sweep, analyze
from session_skill.transcripts.toolcalls import ToolState

QUICK_FROM = 12 << 20  # bytes: a smaller transcript is read whole (as fast, or faster)
HEAD_BYTES = 1 << 20
TAIL_BYTES = 3 << 20
_CHUNK = 8 << 20
# How far after a write call its result is looked for (it comes right after, or after the
# other calls of the same response).
_RESULT_WINDOW = 256 << 10

# Tool calls whose lines are parsed in the middle: (pattern, names), per format.
_CLAUDE_CALL = b'"type":"tool_use","id":"'
_CLAUDE_NAMES = frozenset(
    name.encode()
    for name in (*WRITE_TOOLS, "TodoWrite", "TaskCreate", "TaskUpdate", "ExitPlanMode")
)
_CODEX_PATTERNS = (b'"name":"apply_patch"', b'"name":"update_plan"', b'"patch_apply_end"',
                   b"*** Begin Patch")  # fmt: skip


def analyze_quick(path: Path) -> TranscriptFacts:
    """`scan.analyze`, at a cost that barely grows with the file beyond one byte pass."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size <= QUICK_FROM:
        return analyze(path)
    stats = ReadStats()
    # No switch to the cheap reading of very long conversations: the middle is skipped here.
    state = _Sweep(stats, size, go_cheap=False)
    head_end = _line_start(path, HEAD_BYTES)
    tail_start = max(_line_start(path, size - TAIL_BYTES), head_end)
    for event in iter_events(path, stats, wanted_results=state.watched, stop=head_end):
        state.feed(event)
    # The loose ends are the tail's; the tools (files, tasks) and the goal go on. The head's
    # loose ends are let go before the middle, so its calls are not read for them either.
    # Lines are not counted in the middle: the tail's candidates say no line.
    state.loose = None
    _feed_middle(path, state, stats, head_end, tail_start)
    state.loose = Loose(ToolState(set(), files=False), stats)
    tail = ReadStats()
    stats.line = 0  # the tail's lines are counted in `tail`
    for event in iter_events(path, tail, wanted_results=state.watched, start=tail_start):
        state.feed(event)
    for name in ("lines", "records", "malformed", "sidechain"):
        setattr(stats, name, getattr(stats, name) + getattr(tail, name))
    for kind, n in tail.skipped.items():
        stats.skipped[kind] = stats.skipped.get(kind, 0) + n
    stats.format = stats.format or tail.format
    facts = state.finish(path, stats)
    facts.agent = stats.format
    facts.candidates = [replace(c, line=None) for c in facts.candidates]
    return facts


def _line_start(path: Path, offset: int) -> int:
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


def _feed_middle(path: Path, state: _Sweep, stats: ReadStats, start: int, stop: int) -> None:
    """Parse only the tool-call lines of [start, stop) and feed their calls."""
    codex = stats.format == CODEX
    parser: ClaudeParser | CodexParser | None = None
    buf = bytearray(_CHUNK + _RESULT_WINDOW)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as fh:
        fh.seek(start)
        pos = start  # the file offset of buf[0]
        keep = 0
        while pos + keep < stop:
            want = min(_CHUNK, stop - pos - keep)
            if keep + want > len(buf):  # a line longer than the chunk: the buffer grows
                view.release()  # a bytearray with a view on it cannot be resized
                buf.extend(bytes(keep + want - len(buf)))
                view = memoryview(buf)
            got = fh.readinto(view[keep : keep + want])
            if not got:
                break
            end = keep + got
            last = buf.rfind(b"\n", 0, end)
            if last == -1:
                keep = end  # one line longer than the chunk: read on
                continue
            for at, raw in _call_lines(buf, last + 1, codex):
                parser = _feed_line(raw, at, state, stats, parser, buf, last + 1, codex)
            tail = end - (last + 1)
            buf[0:tail] = buf[last + 1 : end]
            pos += last + 1
            keep = tail


def _call_lines(buf: bytearray, end: int, codex: bool) -> list[tuple[int, bytes]]:
    """(where, line) for the whole lines of buf[:end] holding a tool call the capture keeps,
    in order."""
    found: dict[int, bytes] = {}
    patterns = _CODEX_PATTERNS if codex else (_CLAUDE_CALL,)
    for pattern in patterns:
        at = buf.find(pattern, 0, end)
        while at != -1:
            if not codex:
                name_at = buf.find(b'"name":"', at, at + 200)
                name_end = buf.find(b'"', name_at + 8, name_at + 48) if name_at != -1 else -1
                if name_end == -1 or bytes(buf[name_at + 8 : name_end]) not in _CLAUDE_NAMES:
                    at = buf.find(pattern, at + len(pattern), end)
                    continue
            first = buf.rfind(b"\n", 0, at) + 1
            last = buf.find(b"\n", at, end)
            last = end if last == -1 else last
            if codex or _main_thread(buf, first, at):
                found.setdefault(first, bytes(buf[first:last]))
            at = buf.find(pattern, last, end)
    return [(k, found[k]) for k in sorted(found)]


def _main_thread(buf: bytearray, first: int, at: int) -> bool:
    """Is the call at `at` an assistant record's own (not a sub-agent's, nested in a
    `progress` record, or a sidechain's)? The record's first "type" says (as in the
    reader's `quick`)."""
    head = buf.find(b'"type":"', first, at + 1)
    if head == -1:
        return False
    value_end = buf.find(b'"', head + 8, head + 40)
    if value_end == -1 or bytes(buf[head + 8 : value_end]) not in (b"assistant", b"message"):
        return False
    return buf.find(b'"isSidechain":true', first, min(head, first + 512)) == -1


def _feed_line(raw: bytes, at: int, state: _Sweep, stats: ReadStats,
               parser: ClaudeParser | CodexParser | None, buf: bytearray, end: int,
               codex: bool) -> ClaudeParser | CodexParser | None:  # fmt: skip
    if not codex:
        write = _claude_write(raw)
        if write is not None:  # a file write: its path, without parsing a file's content
            state.feed(write)
            if write.id and _failed(buf, at, end, write.id):
                state.feed(ToolResult(write.id, "", write.ts, is_error=True))
            return parser
    try:
        record = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return parser
    if not isinstance(record, dict):
        return parser
    if parser is None:
        parser = parser_for(record, stats)
    for event in parser.feed(record):
        if isinstance(event, (ToolCall, PatchApplied)):
            state.feed(event)
            if isinstance(event, ToolCall) and event.id:
                state.watched.discard(event.id)  # the middle's results are not read
    return parser


_WRITE_CALL = re.compile(
    rb'"type":"tool_use","id":"([^"]+)","name":"(Write|Edit|MultiEdit|NotebookEdit)",'
    rb'"input":\{"(?:file_path|notebook_path)":"((?:[^"\\]|\\.)*)"'
)


def _claude_write(raw: bytes) -> ToolCall | None:
    """A write call read off its line by shape, or None (then the line is parsed)."""
    found = _WRITE_CALL.search(raw)
    if found is None or raw.find(b'"isSidechain":true', 0, 512) != -1:
        return None
    try:
        path = json.loads(b'"' + found.group(3) + b'"')
    except ValueError:
        return None
    name = found.group(2).decode()
    return ToolCall(name, {WRITE_TOOLS[name]: path}, found.group(1).decode(), None)


def _failed(buf: bytearray, start: int, end: int, call_id: str) -> bool:
    """Is the result of this write call (its line at `start`), close after it, an error?"""
    needle = f'"tool_use_id":"{call_id}"'.encode()
    hit = buf.find(needle, start, min(end, start + _RESULT_WINDOW))
    if hit == -1:
        return False
    first = buf.rfind(b"\n", 0, hit) + 1
    last = buf.find(b"\n", hit, end)
    return buf.find(b'"is_error":true', first, end if last == -1 else last) != -1

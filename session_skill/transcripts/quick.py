"""The capture a hook can afford on a transcript of any size (issue 20): one byte-level pass.

A hook at a session boundary has a fixed budget — Claude Code kills a plugin's SessionEnd
hook at ~1.5 s — and the sessions worth saving are the long ones. So a transcript larger
than `QUICK_FROM` is not read whole:

- the head (`HEAD_BYTES`) is read in full, for the goal: the first requests, the plan;
- the tail (`TAIL_BYTES`) is read in full, for the loose ends, the last request, where the
  session stopped: what is open is mostly said at the end;
- in between, only the lines of tool calls that change what is kept are found — by
  `bytes.find` over the raw bytes, in fixed-size chunks (memory stays flat) — and parsed:
  file writes (and, close after each, a failed result), the task list (and what TaskCreate
  and TaskList answered), the plan, commits (and whether a hook refused them), Claude Code's
  recaps and `/goal`s (the Goal as the session stands), a /clear the file goes on after, and
  the user's requests (the Goal until one names the work; the last request, when a turn of
  work runs longer than the tail) with the text each one's turn closed on (a reply answers
  its question and goes on with the thread of work, as a full read links it; the line is
  parsed only if that is asked), and the calls handing work to a sub-agent (work on that
  request, when the tail holds only the sub-agent's progress) — in both layouts a call is
  written in, the client's and that of a provider that sorts the message's keys. A big
  middle is read by two processes, the second one forked to read the later part on the
  machine's other core (`forked.Forked`); what it finds is fed in the file's order, and a
  helper that fails only costs the time of reading its part here.

What the middle said in prose (a deferral in hour two of a ten-hour session) is not read
here; `sweep` reads it (`scan.analyze`). Everything else is the same `_Sweep` as the sweep's.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from session_skill.records import replace
from session_skill.transcripts.candidates import Candidate
from session_skill.transcripts.claude import ClaudeParser
from session_skill.transcripts.codex import CodexParser
from session_skill.transcripts.events import (
    CODEX,
    WRITE_TOOLS,
    AssistantText,
    ClearSplit,
    CommandPrompt,
    PatchApplied,
    ReadStats,
    Recap,
    ThreadGoal,
    ToolCall,
    ToolResult,
    UserText,
)
from session_skill.transcripts.forked import Forked
from session_skill.transcripts.loose import Loose
from session_skill.transcripts.reader import iter_events, parser_for
from session_skill.transcripts.reader import line_start as _line_start
from session_skill.transcripts.scan import TranscriptFacts, _Sweep, analyze
from session_skill.transcripts.toolcalls import ToolState

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import TypeAlias

    # A write (tool, path, id, failed), the text a turn closed on (its line), a line to parse.
    Found: TypeAlias = tuple[str, str, str, bool] | tuple[bytes] | bytes
    Parser: TypeAlias = ClaudeParser | CodexParser | None

QUICK_FROM = 12 << 20  # bytes: a smaller transcript is read whole (as fast, or faster)
HEAD_BYTES = 1 << 20
TAIL_BYTES = 3 << 20
_CHUNK = 8 << 20
# A middle at least this big is read by two processes (`Forked`); below it there is little
# to share out, and the fork, the pipe and the marshalling cost a few milliseconds.
SPLIT_FROM = 16 << 20
# How far after a write call its result is looked for (it comes right after, or after the
# other calls of the same response).
_RESULT_WINDOW = 256 << 10

# Tool calls whose lines are parsed in the middle: (pattern, names), per format. (Task and
# Agent: a sub-agent's call, named so in different Claude Code versions.)
_CLAUDE_CALL = b'"type":"tool_use","id":"'
_CLAUDE_NAMES = frozenset(
    name.encode()
    for name in (*WRITE_TOOLS, "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "ExitPlanMode",
                 "Bash", "Task", "Agent")
)  # fmt: skip
_CLAUDE_BASH = b"Bash"  # kept only when it commits
# The calls whose results change what is kept, read in the middle too (found as a write's
# failure is): the number TaskCreate gave (a new list counts from #1 again), TaskList's
# answer (a teammate's work, a team's end), an update or a plan refused, a commit that
# failed (a hook said no: nothing committed, the Goal does not name it).
_ANSWERED = rb"Task(?:Create|Update|List)|ExitPlanMode|Bash"
_ANSWERED_ID = re.compile(
    rb'"type":"tool_use","id":"([^"]+)","name":"(?:' + _ANSWERED + rb')"'
    rb'|"id":"([^"]+)","input":\{.*?"name":"(?:' + _ANSWERED + rb')","type":"tool_use"\}',
    re.DOTALL,
)
# A shell command that commits (`toolcalls._COMMIT`, on the raw line: a quote, newline or
# tab inside the command is escaped there, so a word opening a line of the command follows
# `\n` — no word boundary — as `git` does in "git add -A\ngit commit …"): the Goal names
# what the session committed.
_COMMIT_BYTES = re.compile(rb"(?:\b|(?<=\\[nrt]))git\b[^;&|\n]*?(?:\b|(?<=\\[nrt]))commit\b")
_CODEX_CALL_ID = re.compile(rb'"call_id":"([^"]+)"')
# The same call as a provider returns its message with sorted keys (Amazon Bedrock's
# `toolu_bdrk_…` calls): `{"id":…,"input":{…},"name":"Edit","type":"tool_use"}`, and the
# record's own "type" after its message.
_CLAUDE_CALL_SORTED = b'","type":"tool_use"}'
# Claude Code's recap for a user coming back (`Recap`): the Goal, as the session stands.
_CLAUDE_RECAP = b'"subtype":"away_summary"'
# What the user typed: a /clear the file goes on after (a client that kept one file across
# it) makes what came before another conversation's — its files, tasks and commits are not
# this one's; until a request names the work (the head held none, or a /clear began another
# conversation), one that does is the Goal; and the last request may be in the middle (a
# turn of work longer than the tail). Typed as a string, or as blocks: a text block first
# (an IDE's selection, a paste), an image then the text — not a tool's results. Found by
# one pattern (each pattern is a pass over the bytes), then told apart by what follows.
_CLAUDE_PROMPT = b'"role":"user","content":'
_PROMPT_FORMS = (b'"', b'[{"type":"text"', b'[{"type":"image"')
# …typed while the assistant worked (a `queued_command` attachment); the goal `/goal` set,
# with its Stop hook's judgements (`goal_status`).
_CLAUDE_ATTACHMENT = b'"attachment":{"type":"'
_ATTACHMENT_FORMS = (b'queued_command"', b'goal_status"')
_CLAUDE_PROMPTS = {_CLAUDE_PROMPT: _PROMPT_FORMS, _CLAUDE_ATTACHMENT: _ATTACHMENT_FORMS}
# Codex: patches, plans, the thread's goal (`/goal`: set, where it stands, cleared), and
# the commands that commit (their line parsed, their output read) — a code-mode `exec`
# script's too (`tools.exec_command({…})`, a `custom_tool_call`).
_CODEX_CALLS = (
    b'"type":"function_call","',
    b'"type":"local_shell_call","',
    b'"type":"custom_tool_call","',
)
_CODEX_PROMPT = b'"role":"user"'
# …a plan a reply proposed (`<proposed_plan>`) and what the user typed: told to carry it
# out, the plan is the one the session followed (its title the Goal).
_CODEX_PATTERNS = (b'"name":"apply_patch"', b'"name":"update_plan"', b'"patch_apply_end"',
                   b"*** Begin Patch", b"tools.update_plan(", b'"thread_goal_updated"',
                   b'source=\\"user_goal\\"', *_CODEX_CALLS, b"<proposed_plan>",
                   _CODEX_PROMPT)  # fmt: skip


def analyze_quick(path: Path, carried: tuple[Candidate, ...] = ()) -> TranscriptFacts:
    """`scan.analyze`, at a cost that barely grows with the file beyond one byte pass."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size <= QUICK_FROM:
        return analyze(path, carried)
    stats = ReadStats()
    # No switch to the cheap reading of very long conversations: the middle is skipped here.
    state = _Sweep(stats, size, go_cheap=False, carried=carried)
    head_end = _command_before(path, _line_start(path, HEAD_BYTES))
    tail_start = max(_command_before(path, _line_start(path, size - TAIL_BYTES)), head_end)
    calls: set[str] = set()  # the head's: their results may begin the middle
    for event in iter_events(path, stats, wanted_results=state.watched, stop=head_end):
        if isinstance(event, ToolCall) and event.id is not None:
            calls.add(event.id)
        state.feed(event)
    # The middle reads the results of its own calls only: those of the head's last calls
    # are read here, from the lines after it (a write there that failed touched no file).
    window = min(_line_start(path, head_end + _RESULT_WINDOW), tail_start)
    read = ReadStats()
    for event in iter_events(path, read, wanted_results=state.watched, start=head_end, stop=window):
        if isinstance(event, ToolResult) and event.tool_use_id in calls:
            state.feed(event)
    # The loose ends are the tail's; the tools (files, tasks) and the goal go on. The head's
    # loose ends are let go before the middle, so its calls are not read for them either.
    # Lines are not counted in the middle: the tail's candidates say no line.
    if state.loose is not None:
        carried = state.loose.still_open(carried)  # what the head left open, for the tail
    state.loose = None
    _feed_middle(path, state, stats, head_end, tail_start)
    state.loose = Loose(ToolState(set(), files=False), stats, carried)
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


def _feed_middle(path: Path, state: _Sweep, stats: ReadStats, start: int, stop: int) -> None:
    """Feed the kept tool calls of [start, stop). A big middle is read by two processes — the
    machine's other core — and fed in the file's order."""
    codex = stats.format == CODEX
    # The helper takes the larger part: this process also feeds what it found.
    big = stop - start >= SPLIT_FROM
    split = _line_start(path, start + (stop - start) * 2 // 5) if big else stop
    helper = Forked(lambda: list(_scan(path, split, stop, codex))) if split < stop else None
    try:
        parser = _feed(_scan(path, start, split, codex), state, stats, None)
        if helper is not None:
            found = helper.result()  # None: no second process, or it failed
            if not isinstance(found, list):
                found = _scan(path, split, stop, codex)
            _feed(found, state, stats, parser)
    finally:
        if helper is not None:
            helper.close()


# What the middle's kept lines say that is fed as read: the calls, the client's reports, and
# the user's requests (a command's expanded prompt too) — the last request may be there.
_FED = (ToolCall, PatchApplied, Recap, ThreadGoal, ClearSplit, UserText, CommandPrompt)


def _feed(found: Iterable[Found], state: _Sweep, stats: ReadStats, parser: Parser) -> Parser:
    for item in found:
        if isinstance(item, tuple) and len(item) == 1:  # the text a turn closed on
            if not state.clear_pending:
                state.last_text = _ClosingText(item[0])
            continue
        if isinstance(item, tuple):  # a file write: its path, without a file's content
            name, file, call_id, failed = item
            state.feed(ToolCall(name, {WRITE_TOOLS[name]: file}, call_id, None))
            if failed:
                state.feed(ToolResult(call_id, "", None, is_error=True))
            continue
        try:
            record = json.loads(item.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        if parser is None:
            parser = parser_for(record, stats)
        for event in parser.feed(record):
            if isinstance(event, ToolResult):
                # Read with its call (`_ANSWERED`): one waited for, or one saying it failed.
                if event.tool_use_id in state.watched or event.is_error:
                    state.feed(event)
            elif isinstance(event, _FED):
                requests = state.requests
                state.feed(event)
                if state.requests != requests:
                    # A request in the middle: the reply read before it is no last reply,
                    # and those after it are prose the middle does not read (the tail's
                    # replies, if any, are).
                    state.final_text = None
            elif isinstance(event, AssistantText) and "<proposed_plan>" in event.text:
                state.turns.assistant(event)
    return parser


class _ClosingText:
    """The text a turn of the middle closed on, as the request after it is fed: its line is
    parsed only if the question it asks is looked for — for the requests of the thread left
    unfinished, a few of a big transcript's thousands (`_Sweep._taken`)."""

    __slots__ = ("raw",)

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    @property
    def text(self) -> str:
        """The text as a full read has it: read by the client's own parser (its blocks
        joined, its typographic apostrophe made plain)."""
        try:
            record = json.loads(self.raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return ""
        if not isinstance(record, dict):
            return ""
        said = parser_for(record, ReadStats()).feed(record)
        return next((e.text for e in said if isinstance(e, AssistantText)), "")


def _scan(path: Path, start: int, stop: int, codex: bool) -> Iterator[Found]:
    """The kept tool calls of the lines starting in [start, stop), in order: a Claude write
    read off its line by shape (failed or not: its result is looked for up to
    `_RESULT_WINDOW` after it, past a chunk's end or `stop` too), any other call as its
    line (to be parsed)."""
    buf = bytearray(_CHUNK + _RESULT_WINDOW)
    view = memoryview(buf)
    limit = stop + _RESULT_WINDOW  # read past `stop` only to see the last calls' results
    with open(path, "rb", buffering=0) as fh:
        fh.seek(start)
        pos = start  # the file offset of buf[0]
        keep = 0
        answered: set[int] = set()  # the file offsets of the result lines read with calls
        while pos < stop:
            want = min(_CHUNK, limit - pos - keep)
            if keep + want > len(buf):  # a line longer than the chunk: the buffer grows
                view.release()  # a bytearray with a view on it cannot be resized
                buf.extend(bytes(keep + want - len(buf)))
                view = memoryview(buf)
            got = fh.readinto(view[keep : keep + want]) if want > 0 else 0
            end = keep + got
            last_read = not got or pos + end >= limit
            # The lines taken now: those whose results (a window on) are in the buffer.
            cut = buf.rfind(b"\n", 0, end if last_read else max(0, end - _RESULT_WINDOW)) + 1
            cut = min(cut, stop - pos)  # `stop` is a line's start
            if cut <= 0:
                if last_read:
                    break
                keep = end  # no whole line yet (one longer than the chunk): read on
                continue
            whole = buf.rfind(b"\n", 0, end) + 1  # results are read from whole lines

            def before(here: int = pos) -> bytes:  # the file before the chunk, to look back
                n = min(_LOOK_BACK, here)
                return os.pread(fh.fileno(), n, here - n)

            for at, raw, closing, kept in _call_lines(buf, cut, codex, before):
                if closing:
                    if kept:  # a line kept for itself too (Codex: a plan proposed)
                        yield raw
                    yield (raw,)  # parsed only if its question is asked for
                    continue
                if pos + at in answered:
                    continue  # read already, as the answer of the call before it
                write = None if codex else _claude_write(raw)
                if write is None:
                    yield raw
                    call_id = _answered_call(raw, codex)
                    if call_id is not None:
                        answer = _result_line(buf, at, whole, call_id, codex)
                        if answer is not None and not (
                            # Codex's `patch_apply_end` holds the call's id too: a line the
                            # scan keeps for itself, in whichever part of a split middle
                            # holds it, and fed once, as that.
                            codex and buf.find(b'"patch_apply_end"', *answer) != -1
                        ):
                            answered.add(pos + answer[0])  # not fed again as a line of its own
                            yield bytes(buf[answer[0] : answer[1]])
                else:
                    name, file, call_id = write
                    yield name, file, call_id, bool(call_id) and _failed(buf, at, whole, call_id)
            if last_read:
                break
            buf[0 : end - cut] = buf[cut:end]
            pos += cut
            keep = end - cut


def _call_lines(
    buf: bytearray, end: int, codex: bool, before: Callable[[], bytes] | None = None
) -> list[tuple[int, bytes, bool, bool]]:
    """(where, line, closing, kept) for the whole lines of buf[:end] holding a tool call
    the capture keeps, in order — and, `closing`, the text each request's turn closed on
    (`_closing_text`; `before` reads the file before the chunk), which may be `kept` too."""
    found: dict[int, bytes] = {}
    closings: set[int] = set()
    kept_lines: set[int] = set()
    patterns = (
        _CODEX_PATTERNS
        if codex
        else (_CLAUDE_CALL, _CLAUDE_CALL_SORTED, _CLAUDE_RECAP, *_CLAUDE_PROMPTS)
    )
    for pattern in patterns:
        at = buf.find(pattern, 0, end)
        while at != -1:
            name = b""
            if pattern is _CLAUDE_CALL:
                name_at = buf.find(b'"name":"', at, at + 200)
                name_end = buf.find(b'"', name_at + 8, name_at + 48) if name_at != -1 else -1
                name = bytes(buf[name_at + 8 : name_end]) if name_end != -1 else b""
            elif pattern is _CLAUDE_CALL_SORTED:
                name_at = buf.rfind(b'"name":"', max(0, at - 48), at)
                name = bytes(buf[name_at + 8 : at]) if name_at != -1 else b""
            if pattern in _CLAUDE_PROMPTS:
                # Parsed: a command record, a /clear, a request — in one of its forms.
                if not buf.startswith(_CLAUDE_PROMPTS[pattern], at + len(pattern)):
                    at = buf.find(pattern, at + len(pattern), end)
                    continue
            elif pattern is not _CLAUDE_RECAP and not codex and name not in _CLAUDE_NAMES:
                at = buf.find(pattern, at + len(pattern), end)
                continue
            first = buf.rfind(b"\n", 0, at) + 1
            last = buf.find(b"\n", at, end)
            last = end if last == -1 else last
            if name == _CLAUDE_BASH or pattern in _CODEX_CALLS:
                # A shell call is kept when it commits.
                if _COMMIT_BYTES.search(buf, first, last) is None:
                    at = buf.find(pattern, last, end)
                    continue
            if codex:
                kept = True
            elif pattern in _CLAUDE_PROMPTS:
                kept = buf.find(b'"isSidechain":true', first, min(at, first + 512)) == -1 and (
                    _own_record(buf, first, at)
                )
            elif pattern is _CLAUDE_CALL_SORTED:
                kept = _main_thread_sorted(buf, first, last)
            else:
                kept = _main_thread(buf, first, at, pattern is _CLAUDE_RECAP)
            if kept:
                found.setdefault(first, bytes(buf[first:last]))
                kept_lines.add(first)
                closing = (
                    _closing_line(buf, first, before, codex)
                    if pattern is _CLAUDE_PROMPT or pattern is _CODEX_PROMPT
                    else None
                )
                if closing is not None:
                    found.setdefault(closing[0], closing[1])
                    closings.add(closing[0])
            at = buf.find(pattern, last, end)
    return [(k, found[k], k in closings, k in kept_lines) for k in sorted(found)]


# How many lines before a request its turn's closing text is looked for: between them stand
# only the client's own records (the turn's duration, a hook's summary, a file snapshot).
_CLOSING_LINES = 8
_TEXT_ONLY = b'"content":[{"type":"text","text":"'
_TEXT_ONLY_SORTED = b'"message":{"content":[{"text":"'
_ONE_TEXT_SORTED = b'"type":"text"}],'
_NOT_HERE = -1
_QUEUED = _CLAUDE_ATTACHMENT + b'queued_command"'
_COMMAND = _CLAUDE_PROMPT + b'"<command-'
# How far before a chunk its first request's closing text is looked for.
_LOOK_BACK = 128 << 10


def _closing_line(
    buf: bytearray, first: int, before: Callable[[], bytes] | None, codex: bool = False
) -> tuple[int, bytes] | None:
    """(where, line) of the text the turn before the request at `first` closed on: in the
    buffer, or — where the chunk begins between them — in what the file holds before it
    (`before`; where -1, ahead of the chunk's lines)."""
    closing_text = _codex_closing_text if codex else _closing_text
    at = closing_text(buf, first)
    if at != _NOT_HERE:
        return None if at is None else (at, bytes(buf[at : buf.find(b"\n", at)]))
    if before is None:
        return None
    fed = before()
    earlier = fed + bytes(buf[:first])
    at = closing_text(earlier, len(earlier), len(fed))
    if at is None or at == _NOT_HERE:
        return None
    return -1, earlier[at : earlier.find(b"\n", at)]


def _closing_text(data: bytes | bytearray, first: int, fed: int = 0) -> int | None:
    """Where the line of the text the turn before the request at `first` closed on begins,
    when it closed on one: the last assistant record of the main thread before the request,
    a record of one text block. The question it ends on is what a reply to it answers (the
    full read links the request to the work the question was about). A slash command
    between them leaves the turn open, as a full read does; another message of the user's
    (one typed meanwhile, a tool's result) closes it. None: no such text within
    `_CLOSING_LINES`; `_NOT_HERE`: `data` begins before the walk got there. `fed`: the bytes
    before it were fed already (read back from the file before a chunk) — a command there
    is not passed: its text would be fed after it, out of order."""
    for line in _lines_before(data, first, fed):
        if line is None:
            return _NOT_HERE
        start, end = line
        kind = data.find(b'"type":"', start, end)
        if data.startswith(b'"type":"user"', kind) or data.find(_QUEUED, start, end) != -1:
            if start < fed or data.find(_COMMAND, start, end) == -1:
                return None  # a message of the user's between
        elif _main_thread(data, start, end):
            at = data.find(_TEXT_ONLY, start, end)
            if at == -1 or data.find(b'},{"type":"', at, end) != -1:
                return None
            return start
        elif _main_thread_sorted(data, start, end):
            # A provider's sorted keys: the block's "type" after its text (a quote inside
            # the text is escaped, so the first `"type":"` after it is the block's).
            at = data.find(_TEXT_ONLY_SORTED, start, end)
            if at == -1 or not data.startswith(_ONE_TEXT_SORTED, data.find(b'"type":"', at, end)):
                return None
            return start
    return None


def _lines_before(
    data: bytes | bytearray, first: int, fed: int | bool
) -> Iterator[tuple[int, int] | None]:
    """(start, end) of the lines before the one at `first`, the nearest first, at most
    `_CLOSING_LINES`; None, and no more, where `data` begins before the walk got there
    (`fed`: what it holds begins mid-file, so its first line may be cut)."""
    end = first - 1  # the newline ending the line before
    for _ in range(_CLOSING_LINES):
        if end <= 0:
            yield None
            return
        start = data.rfind(b"\n", 0, end) + 1
        if start == 0 and fed:
            yield None  # a line cut where the read began
            return
        yield start, end
        end = start - 1


# Codex: the records a rollout writes between a turn's closing message and the next request
# (the turn's end and token count, the next turn's context, the request's own event), and an
# item no event is read from.
_CODEX_ITEM = b'"type":"response_item","payload":{"type":"'
_CODEX_PASSED = (b'"type":"event_msg"', b'"type":"turn_context"', b'"type":"world_state"')


def _codex_closing_text(data: bytes | bytearray, first: int, fed: int = 0) -> int | None:
    """`_closing_text` in a Codex rollout: the assistant message the turn before the
    request at `first` closed on, past the records of the client's own only. Another item
    (a call, its output, a message of the user's or the developer's) says it closed on none."""
    for line in _lines_before(data, first, fed):
        if line is None:
            return _NOT_HERE
        start, end = line
        kind = data.find(b'"type":"', start, end)
        if kind == -1:
            return None
        if data.startswith(_CODEX_ITEM, kind):
            item = kind + len(_CODEX_ITEM)
            if data.startswith(b'message"', item):
                role = data.find(b'"role":"', item, min(end, item + 160))
                mine = role != -1 and data.startswith(b'"role":"assistant"', role)
                return start if mine else None
            if not data.startswith(b'reasoning"', item):
                return None
        elif not data.startswith(_CODEX_PASSED, kind):
            return None
    return None


# A line longer than this before a boundary is no slash command (a call's input, a result).
_COMMAND_LINE_MAX = 64 << 10


def _command_before(path: Path, at: int) -> int:
    """Where the slash command begins whose expanded prompt (`isMeta`, the next message)
    may be the line at `at` — the last message before `at`, when it is one — else `at`. Each
    part of the capture reads with a parser of its own, which reads that prompt as the
    command's work only after the command: a part does not begin between them."""
    if at <= 0:
        return at
    size = min(_LOOK_BACK, at)
    try:
        with open(path, "rb") as fh:
            data = os.pread(fh.fileno(), size, at - size)
    except OSError:
        return at
    for line in _lines_before(data, len(data), size < at):
        if line is None or line[1] - line[0] > _COMMAND_LINE_MAX:
            return at  # not within reach, or a line too long to be a command
        start, end = line
        try:
            record = json.loads(data[start:end].decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return at
        if not isinstance(record, dict):
            return at
        kind = record.get("type")
        if kind in ("user", "assistant") and record.get("isSidechain") is not True:
            if kind == "assistant":
                return at
            parser = ClaudeParser(ReadStats())
            for _event in parser.feed(record):
                pass
            return at - size + start if parser.after_command else at
    return at


def _own_record(buf: bytearray, first: int, at: int) -> bool:
    """Is what was found at `at` the record's own message or attachment, not one a progress
    record carries (a sub-agent's, `"type":"progress","data":{"message":{…}}`)? The record's
    first "type" says what it is: a message's or attachment's own comes after it."""
    kind = buf.find(b'"type":"', first, at)
    return kind == -1 or buf.startswith((b'"type":"user"', b'"type":"attachment"'), kind)


def _main_thread(buf: bytes | bytearray, first: int, at: int, system: bool = False) -> bool:
    """Is the call at `at` an assistant record's own — or, `system`, the recap at `at` a
    system record's — not a sub-agent's (nested in a `progress` record) or a sidechain's?
    The record's first "type" says (as in the reader's `quick`)."""
    head = buf.find(b'"type":"', first, at + 1)
    if head == -1:
        return False
    value_end = buf.find(b'"', head + 8, head + 40)
    kinds = (b"system",) if system else (b"assistant", b"message")
    if value_end == -1 or bytes(buf[head + 8 : value_end]) not in kinds:
        return False
    return buf.find(b'"isSidechain":true', first, min(head, first + 512)) == -1


def _main_thread_sorted(buf: bytes | bytearray, first: int, last: int) -> bool:
    """`_main_thread` for a record whose message has sorted keys: its message comes before
    its own "type", which is then the line's last ("…},"type":"assistant","uuid":…")."""
    head = buf.rfind(b'"type":"', first, last)
    if head == -1 or not buf.startswith(b'"type":"assistant"', head):
        return False
    return buf.find(b'"isSidechain":true', first, min(last, first + 512)) == -1


# The path is the input's first key, or comes after others (`{"replace_all":false,
# "file_path":…}`, as the client writes an Edit now and then).
_WRITE_CALL = re.compile(
    rb'"type":"tool_use","id":"([^"]+)","name":"(Write|Edit|MultiEdit|NotebookEdit)",'
    rb'"input":\{.*?"(?:file_path|notebook_path)":"((?:[^"\\]|\\.)*)"',
    re.DOTALL,
)


# …with sorted keys: the id first (after a "caller", if any), the path wherever the input's
# keys put it ("content" before "file_path"), the name last. A quote outside a JSON string
# is never escaped, so `"file_path":"` is the input's key, not the text of a file.
_WRITE_CALL_SORTED = re.compile(
    rb'"id":"([^"]+)","input":\{.*?"(?:file_path|notebook_path)":"((?:[^"\\]|\\.)*)".*?'
    rb'"name":"(Write|Edit|MultiEdit|NotebookEdit)","type":"tool_use"\}',
    re.DOTALL,
)


def _claude_write(raw: bytes) -> tuple[str, str, str] | None:
    """A write call read off its line by shape — (tool, path, call id) — or None (then the
    line is parsed)."""
    if raw.find(b'"isSidechain":true', 0, 512) != -1:
        return None
    found = _WRITE_CALL.search(raw)
    if found is not None:
        name, quoted, call_id = found.group(2), found.group(3), found.group(1)
    else:
        found = _WRITE_CALL_SORTED.search(raw) if _CLAUDE_CALL_SORTED in raw else None
        if found is None:
            return None
        name, quoted, call_id = found.group(3), found.group(2), found.group(1)
    try:
        path = json.loads(b'"' + quoted + b'"')
    except ValueError:
        return None
    if not isinstance(path, str):
        return None
    return name.decode(), path, call_id.decode()


def _answered_call(raw: bytes, codex: bool) -> str | None:
    """The id of the call on this line whose result is read with it (`_ANSWERED`; Codex:
    a command that commits, or a patch — its output may be the only word that it failed),
    if it is one."""
    if codex:
        patch = b'"name":"apply_patch"' in raw or b"*** Begin Patch" in raw
        call = any(kind in raw for kind in _CODEX_CALLS) and (patch or _COMMIT_BYTES.search(raw))
        found = _CODEX_CALL_ID.search(raw) if call else None
        return None if found is None else found[1].decode()
    found = _ANSWERED_ID.search(raw)
    return None if found is None else (found[1] or found[2]).decode()


def _result_line(
    buf: bytearray, start: int, end: int, call_id: str, codex: bool = False
) -> tuple[int, int] | None:
    """Where in `buf` the line of this call's result begins and ends (the call's line at
    `start`), close after it."""
    key = b'"call_id":"' if codex else b'"tool_use_id":"'
    needle = key + call_id.encode() + b'"'
    after = buf.find(b"\n", start, end)  # the result is on a later line than the call
    if after == -1:
        return None
    # The window opens where the call's line ends: a Write's line holds the file's text.
    hit = buf.find(needle, after, min(end, after + _RESULT_WINDOW))
    if hit == -1:
        return None
    first = buf.rfind(b"\n", 0, hit) + 1
    last = buf.find(b"\n", hit, end)
    return first, end if last == -1 else last


def _failed(buf: bytearray, start: int, end: int, call_id: str) -> bool:
    """Is the result of this write call (its line at `start`), close after it, an error?
    (Looked for in place: a write's result carries the file's text.)"""
    answer = _result_line(buf, start, end, call_id)
    return answer is not None and buf.find(b'"is_error":true', *answer) != -1

"""The Claude Code transcript parser, beside the Codex one in `codex`; `reader` picks one.

A transcript is JSON lines of `user`, `assistant` and `system` records, most of them
`progress`, snapshots and attachments the conversation never needed. What is skipped is
known from a few bytes of the line (`quick`), and a plain text record, or a call writing a
file, is read without parsing the whole of it (`FAST_PATH`); everything else takes
`json.loads` and `feed`.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator

from session_skill import recache
from session_skill.transcripts.events import (
    CLAUDE,
    WRITE_TOOLS,
    ClearSplit,
    CommandPrompt,
    CompactBoundary,
    Event,
    Interrupted,
    ReadStats,
    Recap,
    SessionMeta,
    ThreadGoal,
    ToolCall,
    ToolResult,
    UserText,
    assistant_text,
    blocks_text,
    lone_surrogate,
    mentions,
    str_or_none,
)

TYPE_CHECKING = False  # `typing` costs a hook ~7 ms to import
if TYPE_CHECKING:
    from typing import Any, Literal

# Top-level record types that never carry the main conversation. Skipping them before
# json.loads matters: in current versions most lines are `progress` records, and the
# agent_progress ones embed whole sub-agent messages.
_CLAUDE_SKIP = frozenset(
    kind.encode()
    for kind in "progress file-history-snapshot summary attachment last-prompt "
    "cost-state api-request api-request-shape api-request-blob atis-latch custom-title "
    "ai-title".split()
)

_COMMAND_NAME = recache.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS = recache.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_BASH_INPUT = recache.compile(r"^\s*<bash-input>(.*?)</bash-input>", re.DOTALL)
_SYSTEM_REMINDER = recache.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
# User-role text Claude Code writes itself: command output, caveats, notifications, a
# `#` memory note, an agent team's teammate reporting in; an interrupt becomes its own event.
_CLAUDE_NOISE = tuple(
    "<local-command-stdout>|<local-command-stderr>|<local-command-caveat>|<bash-stdout>|"
    "<bash-stderr>|<task-notification>|<user-prompt-submit-hook>|<user-memory-input>|"
    "<teammate-message|Caveat: The messages below were generated".split("|")
)
_INTERRUPTED = "[Request interrupted"
_ATTACHMENT = b'"attachment":{'
_ATTACHMENT_TYPE = _ATTACHMENT + b'"type":"'
_ATTACHMENTS_READ = frozenset({b"queued_command", b"goal_status"})
# System records the sweep reads; the others (turn_duration, stop_hook_summary…) are
# skipped before parsing.
_SYSTEM_READ = frozenset({b"compact_boundary", b"local_command", b"away_summary"})
_THINKING = (b'thinking"', b'redacted_thinking"')
# Plain text records (most lines of a conversation) are read without parsing the whole
# record: its text is decoded where it stands, its few envelope fields found by name. The
# shapes are exact (one text block, no flags); anything else takes the full parse. Tests
# turn it off to check both paths give the same events.
FAST_PATH = True
_CONTENT = b'"content":[{"type":"'
_ASSISTANT_TEXT = _CONTENT + b'text","text":"'
_USER_TEXT = b'"message":{"role":"user","content":"'
_TOOL_USE = _CONTENT + b'tool_use","id":"'
# A write call's name (as bytes) -> (name, the input field naming the file, what follows
# the name when that field comes first, as Claude Code writes it).
_WRITE_SHAPES = {
    name.encode(): (name, field, f',"input":{{"{field}":"'.encode())
    for name, field in WRITE_TOOLS.items()
}
_INPUT = b',"input":{'
_NO_REPLACE_ALL = _INPUT + b'"replace_all":false,'
# …and what follows the name when the input opens on `"replace_all":false` (`_write_call`).
_WRITE_SHAPES_NO_REPLACE_ALL = {
    key: (name, field, _NO_REPLACE_ALL + opening[len(_INPUT) :])
    for key, (name, field, opening) in _WRITE_SHAPES.items()
}
# The kinds `quick` skips, as it names them (decoded once, not for every line).
_SKIP_KINDS = {kind: kind.decode("ascii", "replace") for kind in _CLAUDE_SKIP}
_ATTACHMENT_LEN = len(_ATTACHMENT)
_CONTENT_LEN = len(_CONTENT)
_ASSISTANT_TEXT_LEN = len(_ASSISTANT_TEXT)
_USER_TEXT_LEN = len(_USER_TEXT)
_TOOL_USE_LEN = len(_TOOL_USE)
# The C string scanner json itself uses (not in the type stubs): decodes one JSON string.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.__dict__["scanstring"]
# How many recent assistant message ids are remembered to merge split records. Parts of
# one response can be interleaved with tool results, but never far apart.
_MESSAGE_WINDOW = 64
_QUEUE_KEPT = 16  # prompts waiting in the queue, at most (a user types a few)
# A slash command typed while the assistant works is run after the turn, not handed over.
_QUEUED_COMMAND = recache.compile(r"\s*/[\w:.-]+(?:\s|$)")


class ClaudeParser:
    agent = CLAUDE

    def __init__(self, stats: ReadStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.seen_blocks: OrderedDict[str, set[tuple[str, int | str]]] = OrderedDict()
        # The last record was a slash command: an isMeta record right after it is the
        # prompt the command expanded to.
        self.after_command = False
        self._envelope: bytes | None = None  # `"cwd":"…","sessionId":"…"` of the session
        # Prompts typed while the assistant worked (`queue-operation` "enqueue"), as (text,
        # ts, line, offset), and those of them handed to the model mid-turn ("remove") that
        # no `queued_command` attachment has carried yet: older versions wrote none, and the
        # queue's record is all that keeps the user's words (`_queue_operation`).
        self._queue: list[tuple[str, str | None, int, int]] = []
        self._delivered: list[tuple[str, str | None, int, int]] = []
        self._delivered_result = False  # a tool result since: the model has read them

    def quick(self, raw: bytes, wanted: Collection[str] | None) -> str | list[Event] | None:
        """A line read without parsing it, when its shape allows; None: parse it.

        A str: the line is skipped, of that kind (a record type the sweep never reads, a
        sidechain, a thinking block, tool results nobody waits for). A list: the events of
        a record holding one text (an assistant's text block, a user's typed message) and
        no flag. Field names are found as structure: inside a JSON string every quote is
        escaped, so `"timestamp":"` cannot be content. This runs for every line.
        """
        if self._delivered:
            return None  # a prompt handed over mid-turn: every record is read until it lands
        start = raw.find(b'"type":"', 0, 4096)
        if start == -1:
            return None
        end = raw.find(b'"', start + 8, start + 72)
        if end == -1:
            return None
        value = raw[start + 8 : end]
        if raw.startswith(_ATTACHMENT, start - _ATTACHMENT_LEN):
            # An attachment record (its first "type" is the attachment's): only a prompt the
            # user typed while the assistant worked is read; the rest are file snapshots,
            # reminders, diagnostics.
            # The goal `/goal` set and the Stop hook's judgement of it are read too.
            return None if value in _ATTACHMENTS_READ else "attachment"
        if value == b"attachment":  # the envelope's type first: find the attachment's
            at = raw.find(_ATTACHMENT_TYPE, end)
            skip = len(_ATTACHMENT_TYPE)
            kind = raw[at + skip : raw.find(b'"', at + skip, at + 80)] if at != -1 else b""
            return None if kind in _ATTACHMENTS_READ else "attachment"
        skipped = _SKIP_KINDS.get(value)
        if skipped is not None:
            return skipped
        # isSidechain sits in the envelope, before the record's first nested object.
        if raw.find(b'"isSidechain":true', 0, start if start < 512 else 512) != -1:
            return "sidechain"
        # An assistant record's first "type" is its message's (or, in older files, the
        # envelope's); a user record's is the envelope's.
        if value == b"message" or value == b"assistant":
            at = raw.find(_CONTENT, start)
            if at == -1:
                return None
            block = at + _CONTENT_LEN
            if raw.startswith(b'text","text":"', block):
                return self._text(raw, at, _ASSISTANT_TEXT_LEN, True) if FAST_PATH else None
            if raw.startswith(b'tool_use","id":"', block):
                return self._write_call(raw, at) if FAST_PATH else None
            # Only a thinking block (no second block after it): most of a response's
            # bytes, nothing the sweep reads.
            if raw.startswith(_THINKING, block):
                if raw.find(b'},{"type":"', at) == -1:
                    return "assistant:thinking"
            return None
        if value == b"user":
            if FAST_PATH:
                at = raw.find(_USER_TEXT, start)
                if at != -1:
                    return self._text(raw, at, _USER_TEXT_LEN, False)
            if raw.find(b'"tool_result"', start) != -1:
                # Tool results only, no text block the user typed (toolUseResult, after the
                # message, may itself say "type":"text": Read results).
                if wanted is None:
                    return None
                tail = raw.rfind(b'"toolUseResult":')
                if raw.find(b'"type":"text"', start, tail if tail > start else len(raw)) == -1:
                    # An error (a failed or rejected edit touched no file) is always read.
                    if not (wanted and mentions(raw, wanted)) and (
                        raw.find(b'"is_error":true', start) == -1
                    ):
                        return "user:tool_result"
            return None
        if value == b"system":
            at = raw.find(b'"subtype":"')
            if at != -1:
                end = raw.find(b'"', at + 11, at + 80)
                subtype = raw[at + 11 : end] if end != -1 else b""
                if subtype and subtype not in _SYSTEM_READ:
                    return "system:" + subtype.decode("ascii", "replace")
        return None

    def _text(self, raw: bytes, at: int, opening: int, assistant: bool) -> list[Event] | None:
        body = raw[at + opening :].decode("utf-8", "replace")
        try:
            text, end = _scanstring(body, 0)
        except ValueError:
            return None
        if not text.isascii() and lone_surrogate(text):
            return None  # the full parse cleans it
        # `end` is past the closing quote: the block (or the message) must end right there.
        if not body.startswith("}]" if assistant else "}", end):
            return None
        # A flag set (an API error, a meta or summary record, a sidechain) takes the full
        # parse; flags sit in the envelope, around the message, never in the text.
        if raw.find(b":true", 0, at) != -1 or body.find(":true", end) != -1:
            return None
        # The timestamp is top-level (no nested object of a text record has one), most
        # often after the message: look for it from the end.
        ts_at = raw.rfind(b'"timestamp":"')
        ts = raw[ts_at + 13 : raw.find(b'"', ts_at + 13)].decode() if ts_at != -1 else None
        events: list[Event] = []
        # The session: unchanged when the line holds the same cwd-and-id text as the last.
        # The envelope stands before the message or, in current versions, after it; a quote
        # inside the text is escaped, so `"cwd":"` found in the raw line is the field.
        if self._envelope is None or raw.find(self._envelope) == -1:
            meta = self._session(raw[:at].decode("utf-8", "replace") + body[end:], ts)
            if meta is False:
                return None
            if meta is not None:
                events.append(meta)
        self.after_command = False
        if assistant:
            id_at = raw.rfind(b'"id":"', 0, at)
            msg_id = raw[id_at + 6 : raw.find(b'"', id_at + 6)].decode() if id_at != -1 else None
            seen = self._seen_for(msg_id)
            key: tuple[str, int | str] = ("text", hash(text))
            if key not in seen:
                seen.add(key)
                if text and not text.isspace():  # `text.strip()`, without the copy
                    more = body.find('"stop_reason":"tool_use"', end) != -1
                    events.append(assistant_text(text, ts, msg_id, more))
        else:
            event = _user_text(text, ts)
            if event is not None:
                self.after_command = isinstance(event, UserText) and event.is_command
                events.append(event)
        return events

    def _write_call(self, raw: bytes, at: int) -> list[Event] | None:
        """A record whose one block is a call writing a file (`WRITE_TOOLS`): its path read
        where it stands, the content written left unparsed. None: parse it (another tool,
        more than one block, a flag, a session not seen on an earlier line)."""
        pos = at + _TOOL_USE_LEN
        id_end = raw.find(b'"', pos, pos + 128)
        if id_end <= pos or not raw.startswith(b',"name":"', id_end + 1):
            return None
        name_at = id_end + 10
        name_end = raw.find(b'"', name_at, name_at + 16)
        if name_end == -1:
            return None
        # `{"replace_all":false,"file_path":…}`: how most Edit calls of Claude Code's
        # transcripts are laid out (939 of 952 in the corpus); the flag says nothing.
        shapes = (
            _WRITE_SHAPES_NO_REPLACE_ALL
            if raw.startswith(_NO_REPLACE_ALL, name_end + 1)
            else _WRITE_SHAPES
        )
        shape = shapes.get(raw[name_at:name_end])
        if shape is None:
            return None
        name, field, opening = shape
        # One block only (a second is `},{"type":"`: a quote in a string is escaped), no
        # flag anywhere (`"…":true`, in the envelope or the input), the session known.
        if (
            not raw.startswith(opening, name_end + 1)
            or raw.find(b'},{"type":"', at) != -1
            or raw.find(b'":true') != -1
            or self._envelope is None
            or raw.find(self._envelope) == -1
        ):
            return None
        path = _json_string(raw, name_end + 1 + len(opening), 8192)
        if path is None or (not path.isascii() and lone_surrogate(path)):
            return None
        tool_id = raw[pos:id_end].decode("utf-8", "replace")
        if "\\" in tool_id:
            return None
        ts_at = raw.rfind(b'"timestamp":"')
        ts = raw[ts_at + 13 : raw.find(b'"', ts_at + 13)].decode() if ts_at != -1 else None
        id_at = raw.rfind(b'"id":"', 0, at)
        msg_id = raw[id_at + 6 : raw.find(b'"', id_at + 6)].decode() if id_at != -1 else None
        self.after_command = False
        seen = self._seen_for(msg_id)
        key: tuple[str, int | str] = ("tool", tool_id)
        if key in seen:
            return []
        seen.add(key)
        return [ToolCall(name, {field: path}, tool_id, ts)]

    def _session(self, line: str, ts: str | None) -> SessionMeta | Literal[False] | None:
        """Read `cwd` and `sessionId` off a line: a SessionMeta when they changed, False
        when they cannot be read simply (the full parse will)."""
        sid_at = line.find('"sessionId":"')
        if sid_at == -1:
            return None
        sid_end = line.find('"', sid_at + 13)
        session_id = line[sid_at + 13 : sid_end]
        if "\\" in session_id:
            return False
        cwd_at = line.find('"cwd":"')
        cwd: str | None = None
        if cwd_at != -1:
            try:
                cwd, cwd_end = _scanstring(line, cwd_at + 7)
            except ValueError:
                return False
            if lone_surrogate(cwd):
                return False
            # Claude Code writes them side by side; that text marks the same session later.
            if line.startswith(',"sessionId":"', cwd_end):
                self._envelope = line[cwd_at : sid_end + 1].encode("utf-8")
        if (session_id, cwd) == (self.session_id, self.cwd):
            return None
        self.session_id = session_id
        self.cwd = cwd if cwd is not None else self.cwd
        return SessionMeta(session_id, self.cwd, ts, CLAUDE)

    def feed(self, record: dict[str, Any]) -> Iterator[Event]:
        kind = record.get("type")
        if kind == "queue-operation":
            self._queue_operation(record)
            return
        if self._delivered:
            yield from self._landed(kind, record)
        if kind == "attachment":
            yield from self._queued(record)
            return
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
            self._envelope = None
            yield SessionMeta(session_id, self.cwd, ts, CLAUDE)
        if kind == "user":
            yield from self._user(record, ts)
        elif kind == "assistant":
            yield from self._assistant(record, ts)
        else:
            yield from self._system(record, ts)

    def _queue_operation(self, record: dict[str, Any]) -> None:
        """Claude Code's queue of prompts typed while the assistant works: "enqueue" (the
        text), then "dequeue" (sent as the next request: a user record follows), "remove"
        (handed to the model with the next tool result) or "popAll" (taken back to edit)."""
        operation, content = record.get("operation"), record.get("content")
        if operation == "enqueue":
            if isinstance(content, str) and content.strip():
                ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
                self._queue.append((content, ts, self.stats.line, self.stats.offset))
                del self._queue[:-_QUEUE_KEPT]
        elif operation == "dequeue" and self._queue:
            del self._queue[0]
        elif operation == "remove" and self._queue:
            text = self._queue.pop(0)
            if not _QUEUED_COMMAND.match(text[0]):  # a command queued runs after the turn
                self._delivered.append(text)
                self._delivered_result = False
        elif operation == "popAll":
            self._queue.clear()
        self.stats.skip("queue-operation")

    def _landed(self, kind: object, record: dict[str, Any]) -> Iterator[Event]:
        """A prompt handed to the model mid-turn is the user's words: a `queued_command`
        attachment carries it (and is read as such), or, when the client wrote none, it
        is read where it was typed once the model has gone on from the tool result that
        brought it."""
        if kind == "attachment":
            attachment = record.get("attachment")
            prompt = attachment.get("prompt") if isinstance(attachment, dict) else None
            self._delivered = [d for d in self._delivered if d[0] != prompt]
        elif kind == "user":
            message = record.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            ):
                self._delivered_result = True
        elif kind == "assistant" and self._delivered_result:
            yield from self._hand_over()

    def end(self) -> Iterator[Event]:
        """At the end of what is read: a prompt handed over that nothing answered yet is
        the user's last words (the transcript stops before the model went on)."""
        if self._delivered:
            yield from self._hand_over()

    def _hand_over(self) -> Iterator[Event]:
        stats, delivered, self._delivered = self.stats, self._delivered, []
        line, offset = stats.line, stats.offset
        for text, ts, typed_line, typed_offset in delivered:
            event = _user_text(text, ts)
            if event is not None:
                stats.line, stats.offset = typed_line, typed_offset  # where it was typed
                yield event
        stats.line, stats.offset = line, offset

    def _queued(self, record: dict[str, Any]) -> Iterator[Event]:
        """A prompt typed while the assistant worked (`queued_command`): the user's words."""
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "goal_status":
            if record.get("isSidechain") is not True:
                yield from _goal_status(attachment, record.get("timestamp"))
            return
        prompt = attachment.get("prompt") if isinstance(attachment, dict) else None
        if record.get("isSidechain") is True or not (
            isinstance(attachment, dict) and attachment.get("type") == "queued_command"
        ):
            self.stats.skip("attachment")
            return
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        text = prompt if isinstance(prompt, str) else blocks_text(prompt)
        event = _user_text(text, ts) if text.strip() else None
        if event is not None:
            yield event
        else:
            self.stats.skip("attachment:queued_command")

    def _user(self, record: dict[str, Any], ts: str | None) -> Iterator[Event]:
        after_command, self.after_command = self.after_command, False
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if (
            record.get("isMeta")
            or record.get("isCompactSummary")
            or record.get("isVisibleInTranscriptOnly")
        ):
            prompt = blocks_text(content).strip() if after_command and record.get("isMeta") else ""
            if prompt:
                yield CommandPrompt(prompt, ts)
            else:
                self.stats.skip("user:meta")
            return
        if isinstance(content, str):
            event = _user_text(content, ts)
            if event is not None:
                self.after_command = isinstance(event, UserText) and event.is_command
                yield event
            return
        if not isinstance(content, list):
            return
        results = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
        meta = record.get("toolUseResult")
        told: set[str] = set()  # what the user said rejecting the calls (once, if several)
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                event = _user_text(block["text"], ts)
                if event is not None:
                    self.after_command = isinstance(event, UserText) and event.is_command
                    yield event
            elif block.get("type") == "tool_result":
                result = ToolResult(
                    tool_use_id=str_or_none(block.get("tool_use_id")),
                    content=block.get("content"),
                    ts=ts,
                    is_error=bool(block.get("is_error")),
                    # With several results in one record, whose toolUseResult it is is unknown.
                    meta=meta if isinstance(meta, dict) and results == 1 else None,
                )
                yield result
                said = _rejected_with(result) if result.is_error else None
                if said is not None and said not in told:
                    told.add(said)
                    yield UserText(said, ts, refusing=True)

    def _assistant(self, record: dict[str, Any], ts: str | None) -> Iterator[Event]:
        self.after_command = False
        if record.get("isApiErrorMessage"):
            self.stats.skip("assistant:api-error")
            return
        message = record.get("message")
        if not isinstance(message, dict):
            return
        msg_id = str_or_none(message.get("id"))
        more = message.get("stop_reason") == "tool_use"
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
                    yield assistant_text(block["text"], ts, msg_id, more)
            elif btype == "tool_use" and isinstance(block.get("name"), str):
                tool_id = str_or_none(block.get("id"))
                key = ("tool", tool_id or hash(json.dumps(block, sort_keys=True, default=str)))
                if key in seen:
                    continue
                seen.add(key)
                tool_input = block.get("input")
                if not isinstance(tool_input, dict):
                    tool_input = {}
                field = WRITE_TOOLS.get(block["name"])
                if field is not None:  # a file written: its path is all that is read
                    tool_input = {field: tool_input[field]} if field in tool_input else {}
                yield ToolCall(block["name"], tool_input, tool_id, ts)

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
        elif subtype == "away_summary" and isinstance(record.get("content"), str):
            yield Recap(record["content"], ts)
        elif subtype == "local_command" and isinstance(record.get("content"), str):
            # Current versions record local commands (/model, /mcp, /clear…) as system records.
            event = _user_text(record["content"], ts)
            if event is not None:
                yield event
            else:
                self.stats.skip("system:local_command")
        else:
            self.stats.skip(f"system:{subtype}")


def _json_string(raw: bytes, at: int, most: int) -> str | None:
    """The JSON string whose text begins at `at` (after its opening quote), as
    `_scanstring` reads it from the decoded `raw[at : at + most]`; None where it cannot.

    Most of what follows a path is the content written (an Edit's strings, a Write's
    file): the text up to the first quote is decoded first, and is the string when that
    quote closes it. A quote ends no UTF-8 sequence, so what that shorter text decodes to
    begins what the longer does, and the scanner reads the same string from both. When
    that quote is escaped (or there is none) the longer text is read, as it always was."""
    quote = raw.find(b'"', at, at + most)
    if quote != -1:
        try:
            return _scanstring(raw[at : quote + 1].decode("utf-8", "replace"), 0)[0]
        except ValueError:
            pass  # an escaped quote: the string goes on
    try:
        return _scanstring(raw[at : at + most].decode("utf-8", "replace"), 0)[0]
    except ValueError:
        return None


def _goal_status(attachment: dict[str, Any], ts: object) -> Iterator[ThreadGoal]:
    """`/goal <condition>` (2.1.3xx): the condition set (`sentinel`, not met), each check of
    the Stop hook's (`met`, its `reason`; `failed` when judged impossible), cleared (a
    `sentinel` marked met)."""
    condition = attachment.get("condition")
    if not isinstance(condition, str) or not condition.strip():
        return
    stamp = ts if isinstance(ts, str) else None
    reason = str_or_none(attachment.get("reason"))
    if attachment.get("met") is True:
        cleared = attachment.get("sentinel") is True
        yield ThreadGoal(None if cleared else condition.strip(), "cleared" if cleared else
                         "complete", stamp)  # fmt: skip
    elif attachment.get("failed") is True:
        yield ThreadGoal(condition.strip(), "blocked", stamp, reason)
    else:
        yield ThreadGoal(condition.strip(), "active", stamp, reason)


# A call the user refused, saying what to do instead: Claude Code's result is its refusal,
# then this, then the user's words (and, behind a flag, a note of its own after them).
_REFUSED = "The user doesn't want to proceed with this tool use."
_REJECTED_WITH = "To tell you how to proceed, the user said:\n"
_REJECTED_NOTE = "\n\nNote: The user's next message may contain a correction or preference."
# …which AskUserQuestion fills with a text of its own when the user picks "clarify".
_CLARIFY = "The user wants to clarify these questions."


def _rejected_with(result: ToolResult) -> str | None:
    """What the user said refusing the call, when they said something: their words."""
    text = result.text.lstrip()
    if not text.startswith(_REFUSED):  # not a command's output quoting one
        return None
    at = text.find(_REJECTED_WITH, 0, 400)
    if at == -1:
        return None
    said = text[at + len(_REJECTED_WITH) :].split(_REJECTED_NOTE, 1)[0].strip()
    return said if said and not said.startswith(_CLARIFY) else None


def _user_text(text: str, ts: str | None) -> UserText | ClearSplit | Interrupted | None:
    stripped = text.lstrip()
    name_match = _COMMAND_NAME.search(text) if stripped.startswith("<command-") else None
    if name_match is not None:
        name = name_match.group(1).strip()
        if name == "/clear":
            return ClearSplit(ts)
        args_match = _COMMAND_ARGS.search(text)
        args = args_match.group(1).strip() if args_match is not None else ""
        return UserText(text.strip(), ts, True, name, args)
    if stripped.startswith(_CLAUDE_NOISE) or stripped == "(no content)":
        return None
    if stripped.startswith(_INTERRUPTED):
        return Interrupted(ts)
    bash = _BASH_INPUT.match(text) if "<bash-input>" in text[:64] else None
    if bash is not None:
        return UserText(text.strip(), ts, True, "!", bash.group(1).strip())
    if "<system-reminder>" in text:
        text = _SYSTEM_REMINDER.sub("", text)
    text = text.strip()
    return UserText(text, ts) if text else None

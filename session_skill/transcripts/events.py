"""The events a transcript is read as, shared by the Claude Code and the Codex parsers.

Kept apart from the reader (`reader`) and the Codex parser (`codex`) so that both can
build events without importing each other; `reader` re-exports the event classes.

The events made for nearly every line (texts, tool calls and results) are slotted and not
frozen: a frozen record costs twice as much to build, and a long conversation builds
tens of thousands of them. Treat them as read-only all the same.
"""

from __future__ import annotations

from collections.abc import Collection

from session_skill.records import field, record
from session_skill.transcripts.lazyre import Lazy

TYPE_CHECKING = False  # `typing` costs a hook ~7 ms to import
if TYPE_CHECKING:
    from typing import Any, TypeAlias

CLAUDE = "claude-code"
CODEX = "codex"
# Claude Code's tools that write a file, each with the input field naming it. A call to one
# is read as its path only (`ToolCall.input` holds that one field): the content written is
# never read, and on an edit-heavy session it is most of what would be parsed.
WRITE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}


@record(frozen=True)
class SessionMeta:
    """The session the following events belong to; emitted when its id or cwd changes."""

    session_id: str | None
    cwd: str | None
    ts: str | None
    agent: str


@record
class UserText:
    """Something the user typed: a request, or a slash command (`is_command`)."""

    text: str
    ts: str | None
    is_command: bool = False
    command_name: str | None = None
    command_args: str | None = None
    # Said refusing a call of the work on the request in hand ("don't use Playwright for
    # this"): how to go on with it, not another request.
    refusing: bool = False


@record
class AssistantText:
    text: str
    ts: str | None
    msg_id: str | None
    # The reply goes on to call a tool: Claude Code's record of it says `"stop_reason":
    # "tool_use"`, Codex's says `"phase": "commentary"`. Work in progress, not a closing.
    more: bool = False


def assistant_text(
    text: str, ts: str | None, msg_id: str | None, more: bool = False
) -> AssistantText:
    """The assistant's text, its typographic apostrophe made plain: Codex writes "isn’t",
    "I’ll", "What’s left", and every phrase the sweep reads is spelt "isn't"."""
    return AssistantText(plain(text), ts, msg_id, more)


def plain(text: str) -> str:
    """`text` with its typographic apostrophe made plain ("isn’t" → "isn't")."""
    return text.replace("\u2019", "'") if "\u2019" in text else text


@record
class ToolCall:
    name: str
    input: dict[str, Any]
    id: str | None
    ts: str | None


@record
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
        return blocks_text(self.content)


@record(frozen=True)
class PatchApplied:
    """Codex reports a patch applied (`patch_apply_end`): the files it changed, and whether
    it succeeded — what a patch given through a code-mode `exec` call shows no other way."""

    call_id: str | None
    paths: tuple[str, ...]
    success: bool
    ts: str | None


@record(frozen=True)
class CompactBoundary:
    ts: str | None


@record(frozen=True)
class Recap:
    """Claude Code's recap for a user coming back (a `system` record, subtype
    `away_summary`): its model asked to "lead with the overall goal and current task, then
    the one next action", in one or two sentences."""

    text: str
    ts: str | None


@record(frozen=True)
class ThreadGoal:
    """A goal the user set the session with `/goal` — Codex's objective for the thread,
    Claude Code's condition its Stop hook checks — and where it stands: `active` (not met
    yet), `paused`, `blocked`, `usage_limited`, `budget_limited`, `complete`; or `cleared`
    (no objective) when the user cleared it. `reason`: why it is not met, as judged."""

    objective: str | None
    status: str
    ts: str | None
    reason: str | None = None


@record(frozen=True)
class ClearSplit:
    """A `/clear` command record: what precedes it belongs to an earlier conversation."""

    ts: str | None


@record(frozen=True)
class CommandPrompt:
    """The prompt a slash command expanded to (the record right after the command)."""

    text: str
    ts: str | None


@record(frozen=True)
class Interrupted:
    """The user stopped the turn in progress (Claude Code's `[Request interrupted…]`)."""

    ts: str | None


Event: TypeAlias = (
    SessionMeta
    | UserText
    | AssistantText
    | ToolCall
    | ToolResult
    | PatchApplied
    | CompactBoundary
    | Recap
    | ThreadGoal
    | ClearSplit
    | CommandPrompt
    | Interrupted
)


@record
class ReadStats:
    lines: int = 0
    records: int = 0
    malformed: int = 0
    sidechain: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    format: str | None = None
    # Where the line being read starts, in bytes (the one whose events are being handed
    # out): what a second pass over the tail of a file seeks to.
    offset: int = field(default=0, compare=False)
    # The 1-based number of that line: where a candidate came from (a key cites it).
    line: int = field(default=0, compare=False)

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1


# ---------------------------------------------------------------- helpers for the parsers


def blocks_text(content: object) -> str:
    """The text of a message's content: a plain string, or its text blocks joined."""
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


def first_type(raw: bytes, limit: int = 4096) -> tuple[int, bytes | None]:
    """Position and value of the first `"type":"…"` in a compact JSON line."""
    start = raw.find(b'"type":"', 0, limit)
    if start == -1:
        return -1, None
    end = raw.find(b'"', start + 8, start + 72)
    if end == -1:
        return start, None
    return start, raw[start + 8 : end]


def mentions(raw: bytes, ids: Collection[str]) -> bool:
    """Does the raw line name any of these tool-call ids?"""
    return any(tool_id.encode() in raw for tool_id in ids)


_LONE = Lazy("[\ud800-\udfff]")  # a lone UTF-16 surrogate


def desurrogate(value: Any) -> Any:
    """`value` (a parsed record, or part of one) with every lone UTF-16 surrogate — which
    JSON's `\\udXXX` escapes can make, and real transcripts hold (anthropics/claude-code
    #61670) — replaced by U+FFFD: text that cannot be written as UTF-8 is never kept."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {desurrogate(k): desurrogate(v) for k, v in value.items()}
    if isinstance(value, list):
        return [desurrogate(v) for v in value]
    return value


def lone_surrogate(text: str) -> bool:
    """Does `text`, decoded from a JSON string, hold a lone surrogate? Never when it is all
    ASCII, which Python knows without reading it."""
    return not text.isascii() and _LONE.search(text) is not None


def str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None

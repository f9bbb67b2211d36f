"""Who asked for what: the session's goal, and its last request with whether it was finished.

The goal is the first request, read the way a person would: a session opened with a slash
command asks for the command's arguments, or for what the command does when it has none
(`/init` analyses the codebase and writes CLAUDE.md); a message that only points at a file
("@plan.md ultrathink this") is not a goal by itself, so the assistant's restatement of the
task ("I'll help you with the Phase 0 investigation…") or the next request completes it.

A request is unfinished when its turn did not end on the assistant's closing text: the user
interrupted it, or the transcript stops in the middle of the work (a tool call or result
with nothing after it). The sweep's own command (`/session …`,
`$session …`) is not a request, and the turn it starts is not the user's work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from session_skill.transcripts.events import AssistantText, CommandPrompt, UserText
from session_skill.transcripts.landed import STOPWORDS
from session_skill.transcripts.phrasing import Lazy
from session_skill.transcripts.prose import clip, redact

_REQUEST_CHARS = 1000
_MENTION = Lazy(r"(?<![\w.])@[\w./~-]+")
# Words that only say how to read a mentioned file, not what to do.
_FILLER = frozenset(
    "really ultrathink think hard harder carefully look read check file files see what "
    "says said it's please follow instructions instruction there here given prompt "
    "attached this that the and do it at in on of to".split()
)
_INTENT = Lazy(
    r"^(?:sure[,!.]?\s+|okay[,!.]?\s+|great[,!.]?\s+)?(?:i'll|i\s+will|i'm\s+going\s+to"
    r"|let\s+me|i\s+can|i'm\s+(?:going|about)\s+to)\b",
    re.IGNORECASE,
)
_FIRST_SENTENCE = Lazy(r"^(.+?[.!?])(?:\s|$)", re.DOTALL)
_ACK = Lazy(
    r"^\s*(?:(?:thanks?|thank\s+you|thx|ty|great|nice|perfect|cool|awesome|excellent|good"
    r"|lgtm|ok(?:ay)?|sounds\s+good|looks\s+good|works(?:\s+(?:great|now|fine))?"
    r"|(?:it|that)\s+(?:worked|works)|got\s+it|understood|wonderful|amazing|brilliant|sweet"
    r"|so\s+much|a\s+lot|very\s+much|all\s+good|yay)[\s!.,:)]*)+$",
    re.IGNORECASE,
)
# The names our own skill is typed as (agent.skill() in each client).
_OWN_COMMANDS = frozenset({"/session", "/session-skill:session"})
_OWN_CODEX = Lazy(r"^\s*\$session\b")


def is_own_command(event: UserText) -> bool:
    """Is this the sweep's own skill being run (`/session …`, `$session …`)?"""
    if event.is_command:
        return (event.command_name or "") in _OWN_COMMANDS
    return "$session" in event.text[:64] and _OWN_CODEX.match(event.text) is not None


@dataclass(frozen=True)
class Unfinished:
    text: str  # the request, redacted and clipped
    why: str
    ts: str | None
    seq: int  # when it was made, in events: newer than a task list change or not


class Turns:
    """Follows the requests of one conversation (reset on /clear)."""

    def __init__(self) -> None:
        self.goal_command: str | None = None  # the opening command's args or purpose
        self.command_had_args = False
        self.first_text: str | None = None  # the first typed request, redacted
        self.mention_only = False
        self.restatement: str | None = None
        self.second_text: str | None = None
        self._pending_command: UserText | None = None
        self._request: tuple[str, str | None, int] | None = None
        self._ended_on: str | None = None  # "text" | "tool" | None since the request
        self._interrupted = False
        self._frozen = False  # our own command is running: its turn is not the user's work

    # ---------------------------------------------------------------- events

    def user(self, event: UserText, seq: int, asked: str | None) -> None:
        """A typed message; `asked` is the question the previous turn ended on, if any."""
        self._pending_command = None
        self._frozen = False
        text = event.text.strip()
        ack = len(text) <= 80 and _ACK.match(text) is not None
        if self.first_text is None:
            head = redact(text[: 4 * _REQUEST_CHARS])
            self.first_text = clip(head, _REQUEST_CHARS)
            self.mention_only = _mention_only(text)
        elif self.mention_only and self.second_text is None and not ack:
            self.second_text = clip(redact(text[: 4 * _REQUEST_CHARS]), _REQUEST_CHARS)
        if ack:
            self._request = None
            return
        if asked is not None and (len(text.split()) <= 4):
            text = f"{asked} — {text}"
        self._start(text, event.ts, seq)

    def command(self, event: UserText, seq: int) -> None:
        """A slash command: ours freezes the request state; another may open with a prompt."""
        if is_own_command(event):
            self._frozen = True
            self._pending_command = None
            return
        self._pending_command = event

    def prompt(self, event: CommandPrompt, seq: int) -> None:
        """The expansion of the command just typed: a prompt command, so a request."""
        command, self._pending_command = self._pending_command, None
        if command is None:
            return
        name = command.command_name or ""
        args = (command.command_args or "").strip()
        purpose = _first_sentence(_purpose(event.text))
        if args and not _mention_only(args):
            wanted = f"{args} ({name})"
        elif purpose:
            wanted = f"{purpose} ({name}{' ' + args if args else ''})"
        else:
            wanted = f"{name} {args}".strip()
        wanted = clip(redact(wanted), _REQUEST_CHARS)
        if self.goal_command is None and self.first_text is None:
            self.goal_command = wanted
            self.command_had_args = bool(args)
        self._start(wanted, command.ts, seq)

    def assistant(self, event: AssistantText) -> None:
        if self.mention_only and self.restatement is None:
            sentence = _first_sentence(event.text.strip())
            if sentence and _INTENT.match(sentence):
                self.restatement = clip(redact(sentence), 300)
        if not self._frozen and self._request is not None:
            self._ended_on = "text"

    def tool(self) -> None:
        if not self._frozen and self._request is not None:
            self._ended_on = "tool"

    def interrupted(self) -> None:
        if not self._frozen and self._request is not None:
            self._interrupted = True

    # ---------------------------------------------------------------- results

    def goal(self) -> str | None:
        first = self.first_text
        if first is not None and self.mention_only:
            if self.restatement:
                first = f"{first} — {self.restatement}"
            elif self.second_text:
                first = f"{first} — {self.second_text}"
        if self.goal_command is None:
            return first
        if first and not self.command_had_args:
            return f"{self.goal_command} Then: {first}"
        return self.goal_command

    def unfinished(self) -> Unfinished | None:
        if self._request is None:
            return None
        raw, ts, seq = self._request
        text = clip(redact(raw), 300)
        if self._interrupted:
            why = "the user interrupted it"
        elif self._ended_on == "tool":
            why = "the transcript ends in the middle of the work on it"
        else:
            # Answered, or not begun: a message with nothing after it may still be
            # being read when the file is swept, and says nothing of work left half done.
            return None
        return Unfinished(text, why, ts, seq)

    def _start(self, text: str, ts: str | None, seq: int) -> None:
        # Redacted and clipped only if it is reported: most requests are finished.
        self._request = (text[: 4 * _REQUEST_CHARS], ts, seq)
        self._ended_on = None
        self._interrupted = False


def _mention_only(text: str) -> bool:
    """A message that points at files and says nothing else ("@plan.md ultrathink this")."""
    if not _MENTION.search(text):
        return False
    rest = _MENTION.sub(" ", text).lower()
    words = [w.strip(".,;:!?()\"'") for w in rest.split()]
    return not any(w and w not in _FILLER and w not in STOPWORDS for w in words)


def _purpose(prompt: str) -> str:
    """The first line of a command's prompt that says what it does (no frontmatter)."""
    lines = prompt.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((n for n, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1 :]
    for line in lines:
        line = line.strip().lstrip("#>*- ").strip()
        if line and not line.lower().startswith(("base directory for this skill", "arguments:")):
            return line
    return ""


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    found = _FIRST_SENTENCE.match(text)
    return (found.group(1) if found else text).strip()

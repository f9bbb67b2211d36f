"""Who asked for what: the session's goal, and its last request with whether it was finished.

The goal names the work, read the way a person would: the plan the session followed (its
title); a session opened with a slash command asks for the command's arguments, or for what
the command does when it has none or only a name ("PR 90"); else the first substantive
request — not an opener that only orients ("where did we leave off", "continue"), a chore
that only brings the branch up to date, a message no word of which names work ("read
CLAUDE.md and get familiar with the codebase", "good morning!", "create a new branch for
this", "install the dependencies first"), a one-line reply ("ok go ahead"), a pasted error or
log, Claude Code's "Implement the following plan:" wrapper, or an IDE's or a skill's tags
around the words. (A first question the session answered in prose without changing anything
still counts: taking the first request it wrote for instead measured no better on the
labelled sessions, and named worse Goals, "can we just implement both?".) A
message that only points at a file ("@plan.md ultrathink this") is completed by the
assistant's restatement of the task or the next request. The first request often only opens
the work ("what about level 3 plans"), so when the session committed, the subjects of its
commits follow it: they say what the work was, in the words the session chose for it.

A request is unfinished when its turn did not end on the assistant's closing text (the user
interrupted it, the transcript stops in the middle of the work, or before any reply: the
session ended on it — a thanks or "that fixed it" is no request), or when that text hands
it back — asks the user something before its work changed any file (after changes, what it
asks — "Want me to commit?" — is the loose end, not the request; so it is after a request
the reply answered in words: a question, "why does it fail?", a review or an explanation
asked for with no change, "review the diff", or "don't make any changes yet"), or asks them
to try it —
or when the request reported a failure: the user's last words are that it fails, and no one
has seen a fix work since, whatever the reply claims (a short report, "still broken", is
shown after the request it reports on), or when the reply says the work stopped undone (shown
with the sentence that says where). A reply that only goes on with a thread of work — a
go-ahead, "ok go", or an answer to the question its turn was asked that asks for nothing of
its own — is shown after the request the thread began with. The sweep's own command (`/session …`,
`$session …`) is not a request, and the turn it starts is not the user's work.
"""

from __future__ import annotations

import re

from session_skill.records import record
from session_skill.transcripts.abroad import DONE_FOR_NOW, still_fails, takes_on
from session_skill.transcripts.events import (
    AssistantText,
    CommandPrompt,
    ToolCall,
    ToolResult,
    UserText,
    plain,
)
from session_skill.transcripts.landed import STOPWORDS
from session_skill.transcripts.lazyre import Lazy
from session_skill.transcripts.prose import (
    _ANSWER_START,
    _FENCE,
    QUESTION_WORDS,
    THANKS,
    THANKS_ABROAD,
    clip,
    is_pasted_line,
    mostly_pasted,
    redact,
    without_pastes,
)

_REQUEST_CHARS = 1000
# A Goal with commits: the request that opened the work, then what the commits say was done
# (a dump's Goal holds 300 characters).
_GOAL_ASKED = 120
_GOAL_MADE = 160
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    Asked: TypeAlias = "str | Callable[[], str | None] | None"
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
# Claude Code's word for more thinking, typed before or after the request ("ultrathink:
# design the retry policy"): it says how hard to think, not what the work is.
_THINK_WORD = Lazy(r"^\s*ultrathink\b[\s:,.;—–-]*|[\s,.;—–-]*\bultrathink[\s.!]*$", re.IGNORECASE)
_FIRST_SENTENCE = Lazy(r"^(.+?[.!?])(?:\s|$)", re.DOTALL)
# What Claude Code adds to its first recaps ("(disable recaps in /config)" in 2.1.10x, "(turn
# off recaps in /config)" in 2.1.3xx), and a label its model may lead with ("Goal: …").
_RECAP_TAIL = Lazy(r"\s*\((?:disable|turn\s+off)\s+recaps\s+in\s+/config\)\s*$", re.IGNORECASE)
_RECAP_LABEL = Lazy(r"^(?:overall\s+)?goal\s*:\s*", re.IGNORECASE)
_ACK = Lazy(
    rf"^\s*(?:(?:{THANKS}|great|perfect|excellent|good"
    r"|lgtm|ok(?:ay)?|sounds\s+good|looks\s+good|works(?:\s+(?:great|now|fine))?"
    r"|(?:it|that)\s+(?:worked|works|fixed\s+it|did\s+it|did\s+the\s+trick)|nailed\s+it"
    r"|(?:(?:it's|it\s+is)\s+)?(?:working|fixed)(?:\s+now)?|all\s+(?:working|green|passing)"
    r"|got\s+it|understood|wonderful|amazing|brilliant|all\s+good|yay"
    # a job well done, and a goodbye: "great job", "that's all for today", "bye"
    r"|(?:good|great|nice|awesome)\s+(?:job|work)|cya|(?:we're|we\s+are|i'm|i\s+am)\s+done"
    r"(?:\s+(?:here|for\s+(?:now|today|tonight)))?|[👍🙏🎉✅🙌💯❤️👌🚀🔥💪✨🥳👏🤝🙂😊😄]"
    # what the user does next themselves: "great, pushing", "merged, thanks", "sent"
    r"|(?:pushing|merging|deploying|shipping|releasing|pushed|merged|deployed|shipped|released"
    r"|sent|applied)(?:\s+(?:it|this|that|them|now|it\s+now|this\s+now))?"
    r"|looks\s+(?:great|right|fine)"
    r")[\s!.,:)]*)+$",
    re.IGNORECASE,
)
# The names our own skill is typed as (agent.skill() in each client).
_OWN_COMMANDS = frozenset(
    {"/session", "/session-skill:session", "$session", "$session-skill:session"}
)
_OWN_CODEX = Lazy(r"^\s*\$session\b")


def is_own_command(event: UserText) -> bool:
    """Is this the sweep's own skill being run (`/session …`, `$session …`)?"""
    if event.is_command:
        return (event.command_name or "") in _OWN_COMMANDS
    return "$session" in event.text[:64] and _OWN_CODEX.match(event.text) is not None


# A reply that only picks from what our own command showed ("drop 1", "park 1,3", "none",
# "ok park both"): the skill asks so in Codex (numbered options, in plain text), and a user
# may type it in Claude Code too. It is our command's turn going on, not a request.
_PICK = Lazy(
    r"^\W*(?:(?:park|drop|close|keep|leave|skip|all|none|both|nothing|and|or|the|rest|them"
    r"|it|only|just|please|items?|yes|ok(?:ay)?|\#?\d{1,3})\b[\s,.&+/;:!#-]*)+$",
    re.IGNORECASE,
)
_PICKED = Lazy(r"\d|\b(?:park|drop|close|all|none|both|nothing)\b", re.IGNORECASE)


def answers_own(event: UserText) -> bool:
    """Does this message, right after our own command's output, only pick from it?"""
    text = event.text
    return (
        not event.is_command
        and len(text) <= 80
        and _PICK.match(text) is not None
        and _PICKED.search(text) is not None
    )


@record(frozen=True)
class Unfinished:
    text: str  # the request, redacted and clipped
    why: str
    ts: str | None
    seq: int  # when it was made, in events: newer than a task list change or not
    line: int | None = None  # the transcript line of the request
    stopped: str | None = None  # the reply's sentence that says where the work stopped


# Tags an IDE or a skill wraps around what the user typed.
_IDE_TAGS = Lazy(
    r"^\s*<(ide_[a-z_]+|system-reminder|user-prompt-submit-hook)>.*?(?:</\1>|\Z)\s*", re.DOTALL
)
_WRAPPER = Lazy(r"^\s*<([a-z_][\w-]*)>\s*(.*?)\s*</\1>\s*$", re.DOTALL)
_PLAN_WRAPPER = "Implement the following plan:"
# A line of prose: no list, table, code, nor a tree drawn with box-drawing lines.
_PLAN_PROSE = Lazy(r"^(?![-*+>|`~\u2500-\u257f]|\d+[.)]\s|#)\W*\w")


def plan_title(plan: str) -> str:
    """What a plan is about, for a Goal: its first heading, and — titles are often bare
    ("Implementation Plan") — the first sentence of prose after it (its overview or
    context), redacted and clipped."""
    # A code block's lines are neither its title nor its prose.
    lines = [ln.strip() for ln in _FENCE.sub("\n", plan[:4000]).strip().splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        return ""
    at = next((i for i, ln in enumerate(lines) if ln.startswith("#")), 0)
    title = lines[at].lstrip("#").strip() or lines[at]
    about = next(
        (ln for ln in lines[at + 1 : at + 40] if _PLAN_PROSE.match(ln) and len(ln.split()) >= 4),
        None,
    )
    if about is not None:
        about = _FIRST_SENTENCE_OF.split(about.replace("**", ""))[0].strip()
    text = f"{title} — {about}" if about else title
    return clip(redact(text), 300)


_FIRST_SENTENCE_OF = Lazy(r"(?<=[.!?])\s+")
# Openers that only orient or continue: the work comes after them.
_ORIENT = Lazy(
    r"""^\W*(?:(?:ok(?:ay)?|so|hey|hi|alright|now|please|let'?s)[,.!\s]+)*
      (?:where\s+(?:did|were)\s+we\s+(?:leave|left)|where\s+we\s+(?:left|last\s+left)
      |(?:let'?s\s+)?(?:pick|get)\s+(?:back\s+up|back\s+to|going)|continue\b|carry\s+on
      |resume\b|go\s+on\b|(?:let'?s\s+)?get\s+back\s+to\s+main|back\s+to\s+main
      |(?:can\s+you\s+)?(?:learn|read\s+up)\s+about\s+(?:this|the)\s+(?:current\s+)?project
      |catch\s+(?:me\s+)?up|what\s+(?:were|was)\s+we\s+(?:doing|working))""",
    re.IGNORECASE | re.VERBOSE,
)
# A request that only brings the branch up to date with another: the chore before the work
# ("update from our parent branch", "pull the latest main", "rebase onto origin/main").
_CHORE = Lazy(
    r"""^\W*(?:(?:ok(?:ay)?|so|hey|hi|first|now|please|can\s+you|could\s+you|let'?s)[,.!\s]+)*
      (?:update|sync|pull|merge|rebase|fetch)\b[^.?!\n]{0,40}?
      \b(?:parent|upstream|base|main|master|origin(?:/\S+)?|develop|trunk|latest)\b
      (?:\s+(?:branch|changes|code|version))?
      (?:\s+(?:in|into|to|on|onto|with)
         \s+(?:(?:(?:this|our|my|the)\s+)?(?:current\s+)?(?:branch|one)|this|it))?
      (?:\s+please)?\W*$""",
    re.IGNORECASE | re.VERBOSE,
)
_CHORE_WORDS = 10
# A request that reports something still wrong.
_FAILING = Lazy(
    r"""\b(?:still\s+(?:not|no|doesn'?t|does\s+not|isn'?t|is\s+not|fails?|failing|broken|empty|the\s+same
          |shows?|says|getting|get|gets|hangs?|crash\w*|wrong|missing|there|red|error\w*)
      | not\s+working | doesn'?t\s+(?:work|show|load|appear|change|render|fire|run|start)
      | does\s+not\s+(?:work|show|load|appear|change|render|fire|run|start)
      | (?:isn'?t|aren'?t|is\s+not|are\s+not)\s+(?:working|showing|loading|there|shown|visible)
      | no\s+longer\s+(?:works?|working|shows?|loads?|appears?|renders?|fires?|runs?|starts?
          |builds?|compiles?|passes|responds?|connects?|there|visible)
      | nothing\s+(?:happens|changed|shows|works) | keeps?\s+(?:failing|crashing)
      | same\s+(?:error|issue|problem|failure) | hangs | stuck | broken)\b""",
    re.IGNORECASE | re.VERBOSE,
)

# What the work should still do is asked, not reported wrong: "search should still show
# them", "it must still work offline" (as against "it still shows the old banner").
_REQUIRED = Lazy(r"\b(?:should|must|would|will|needs?\s+to|has\s+to|have\s+to)\s+$", re.I)


def _fails(said: str) -> bool:
    """Do the user's words report something still wrong (`_FAILING`), not ask for it?"""
    text = said[:2000]
    if still_fails(text):  # "всё ещё падает", "还是报错", "sigue fallando"
        return True
    return any(
        not _REQUIRED.search(text[max(0, m.start() - 20) : m.start()])
        for m in _FAILING.finditer(text)
    )


class Turns:
    """Follows the requests of one conversation (reset on /clear)."""

    def __init__(self) -> None:
        self.goal_command: str | None = None  # the opening command's args or purpose
        self.command_had_args = False
        self.first_text: str | None = None  # the first typed request, redacted
        self.mention_only = False
        # The first message is pasted output and nothing typed ("$ kubectl get pods …"): the
        # paste's first line, completed, as a lone mention is, by what the reply says of it.
        self.paste_only: str | None = None
        self.restatement: str | None = None
        self.second_text: str | None = None
        self._pending_command: UserText | None = None
        # text, ts, seq, line, and the question a short reply answers (or how to find it)
        self._request: tuple[str, str | None, int, int, Asked] | None = None
        self._prev: tuple[Any, ...] | None = None  # the request before it, as it ended
        self._acked: tuple[Any, ...] | None = None  # the request a "thanks" closed, as it ended
        self._before: str | None = None  # the request the last one followed
        # The request in hand as a node of its thread of work: (text, the question it
        # answers, its words up to 13, the node of the request before, how many before)
        self._thread: tuple[Any, ...] | None = None
        self._ended_on: str | None = None  # "text" | "tool" | None since the request
        self._closing: str | None = None  # the reply's last text, when nothing came after it
        self._interrupted = False
        self._answering: Asked = None  # the question a reply of a few words may answer
        self._writes_at = 0  # the conversation's file writes when the request was made
        self._frozen = False  # our own command is running: its turn is not the user's work
        self._asking_answered = False  # the user's last words answered what it offered
        # The Goal's candidates: the followed plan's title, the first request that could be
        # the goal.
        self.plan_title: str | None = None
        self._plan_call: str | None = None  # the ExitPlanMode call that gave it
        self._proposed: str | None = None  # the last plan a Codex reply proposed
        self._goal: str | None = None  # the first request that could be the goal
        # …when it only asked something ("how does the limiter pick its key?"): the file
        # writes then, so a request of work after an answer that changed nothing replaces it
        self._goal_asked: int | None = None
        self.recap_lead: str | None = None  # of Claude Code's latest recap (`recap`)
        self.thread_goal: str | None = None  # what `/goal` set (Codex, Claude Code), redacted

    # ---------------------------------------------------------------- events

    def user(self, event: UserText, seq: int, asked: Asked, line: int = 0, writes: int = 0) -> None:
        """A typed message; `asked` is the question the previous turn ended on, if any — or
        a function finding it, called only if this request is the one reported unfinished.
        `writes`: the file writes of the conversation so far (`ToolState.writes`)."""
        self._pending_command = None
        self._frozen = False
        text = _unwrap(event.text)
        if text.startswith(_PLAN_WRAPPER):
            if self.plan_title is None:
                self.plan_title = plan_title(text[len(_PLAN_WRAPPER) :]) or None
            return self._start(text, event.ts, seq, line, writes=writes)
        if self._proposed is not None and self.plan_title is None and implements_plan(text):
            self.plan_title = plan_title(self._proposed) or None  # Codex's plan, carried out
        # (Read with a plain apostrophe: "sweet, that’s all" typed with smart quotes; and
        # lowered: a long alternation, tried on every message.)
        ack = False
        if len(text) <= 80:
            typed = plain(text)
            ack = _ACK.match_lowered(typed, typed.lower()) is not None
        if self.first_text is None:
            head = redact(text[: 4 * _REQUEST_CHARS])
            self.first_text = clip(head, _REQUEST_CHARS)
            self.mention_only = _mention_only(text)
            if pasted_whole(text):
                first = next(ln for ln in head.splitlines() if ln.strip())
                self.paste_only = f"{clip(first.strip(), 100)} […]"
        elif self.mention_only and self.second_text is None and not ack:
            self.second_text = clip(redact(text[: 4 * _REQUEST_CHARS]), _REQUEST_CHARS)
        if ack:
            self._acked = self._state() if self._request is not None else None
            self._request = None
            self._thread = None
            return
        if event.refusing and self._request is not None:
            # How to go on with the request in hand: the request is still what is asked.
            text = f"{self._request[0][:_REQUEST_CHARS]} — {text}"
        if (self._goal is None or self._goal_asked == writes) and could_be_goal(text):
            asking = _ONLY_ASKS.match(text) is not None and "\n" not in text.strip()
            if self._goal is None or not asking:
                said = text[: 4 * _REQUEST_CHARS]
                if "ultrathink" in said.lower():
                    said = _THINK_WORD.sub("", said)
                goal = without_pastes(said)
                if self._goal is not None and _POINTS_BACK.search(goal[:200]):
                    goal = f"{self._goal} — {goal}"  # "… the bucket key? — make it use …"
                self._goal = goal
                self._goal_asked = writes if asking and self._goal_asked is None else -1
        words = len(text.split(None, 12))  # without splitting it all
        short = words <= 4
        # A reply of a few more words to the question the turn ended on ("segmented control,
        # like ios settings") goes on with the request the question was about.
        self._start(text, event.ts, seq, line, asked if short else None, writes, words)
        self._answering = asked if 4 < words <= 12 and not _OWN_ASK.match(text) else None
        thread = self._prev[-1] if self._prev is not None else None
        if thread is not None and thread[4] >= 2 * _THREAD_MAX:
            thread = _newest(thread, _THREAD_MAX)  # the chain kept short, never cut here
        depth = thread[4] + 1 if thread is not None else 0
        self._thread = (text, asked, words, thread, depth)

    def command(self, event: UserText, seq: int, own: bool = False) -> None:
        """A slash command: ours (or a reply picking from its output, `own`) freezes the
        request state; another may open with a prompt."""
        if own or is_own_command(event):
            self._frozen = True
            self._pending_command = None
            return
        self._pending_command = event

    def prompt(self, event: CommandPrompt, seq: int, line: int = 0, writes: int = 0) -> None:
        """The expansion of the command just typed: a prompt command, so a request."""
        command, self._pending_command = self._pending_command, None
        if command is None:
            return
        name = command.command_name or ""
        args = given = (command.command_args or "").strip()
        purpose = _first_sentence(_purpose(event.text))
        if "$ARGUMENTS" in purpose:
            # "Review the pull request $ARGUMENTS thoroughly." names the work once filled in
            purpose, args = " ".join(purpose.replace("$ARGUMENTS", args).split()), ""
        if args and not _mention_only(args) and (len(args.split()) >= 4 or not purpose):
            wanted = f"{args} ({name})"
        elif purpose:
            wanted = f"{purpose} ({name}{' ' + args if args else ''})"
        else:
            wanted = f"{name} {args}".strip()
        wanted = clip(redact(wanted), _REQUEST_CHARS)
        if self.goal_command is None and self.first_text is None:
            self.goal_command = wanted
            self.command_had_args = bool(given)
        self._start(wanted, command.ts, seq, line, writes=writes)

    def assistant(self, event: AssistantText) -> None:
        proposed = proposed_plan(event.text) if "<proposed_plan>" in event.text else None
        if proposed is not None:
            self._proposed = proposed
        if (self.mention_only or self.paste_only) and self.restatement is None:
            sentence = _first_sentence(event.text.strip())
            if sentence and _INTENT.match(sentence):
                self.restatement = clip(redact(sentence), 300)
            elif self.paste_only and sentence and not event.more and len(sentence.split()) > 4:
                # The reply to a paste: its first sentence says what the paste shows ("The
                # workers are being OOM-killed at the container limit, …").
                self.restatement = clip(redact(sentence), 300)
        if not self._frozen and self._request is not None:
            # A text the reply goes on from to call a tool ("Now let me run the tests.") is
            # work in progress: if the transcript ends on it, it ends in the middle.
            self._ended_on = "tool" if event.more else "text"
            self._closing = None if event.more else event.text

    def tool(self, call: ToolCall | None = None) -> None:
        if call is not None:
            if call.name == "ExitPlanMode" and self.plan_title is None:
                plan = call.input.get("plan")
                if isinstance(plan, str):
                    self.plan_title = plan_title(plan) or None
                    self._plan_call = call.id
        if not self._frozen and self._request is not None:
            self._ended_on = "tool"
            self._closing = None

    def result(self, result: ToolResult) -> None:
        """A plan the user rejected is not the plan the session followed: the next one is."""
        if result.is_error and result.tool_use_id is not None:
            if result.tool_use_id == self._plan_call:
                self.plan_title = self._plan_call = None

    def recap(self, text: str) -> None:
        """Claude Code's recap for a user coming back: its first sentence is "the overall
        goal and current task" (the client's own prompt says to lead with them). The
        latest is kept: the session's goal as it stands, not as the first request put it."""
        lead = _first_sentence(_RECAP_LABEL.sub("", recap_text(text)))
        if len(lead.split()) >= 3:
            self.recap_lead = clip(redact(lead), _REQUEST_CHARS)

    def let_go(self, request: str) -> None:
        """The user let the request in hand go (cleared the goal it set): nothing waits."""
        if self._request is not None and redact(self._request[0]) == request:
            self._request = None

    def interrupted(self) -> None:
        if not self._frozen and self._request is not None:
            self._interrupted = True

    # ---------------------------------------------------------------- results

    def goal(self, commits: list[str] | None = None) -> str | None:
        """The Goal; with the session's `commits`, what its work was said to be as well."""
        # The objective the user set the thread (Codex's `/goal`), the plan followed, the
        # client's recap (its source said), or the request the session's work answered.
        said, source = self.thread_goal, " (/goal)"
        if not said and self.plan_title:
            return f"{self.plan_title} (the plan the session followed)"
        if not said:
            said, source = self.recap_lead, " (Claude Code's recap)"
        if not said:
            said, source = self._asked(), ""
        if said is None:
            return None
        if not commits:
            return f"{said}{source}"
        made = clip("; ".join(commits), _GOAL_MADE)
        return f"{clip(said, _GOAL_ASKED)}{source} — committed: {made}"

    def guessed(self) -> bool:
        """Is the Goal the first words typed, for want of anything naming the work — no
        request that could be the goal, no plan, recap, `/goal` or opening command?"""
        return self._goal is None and not (
            self.thread_goal
            or self.plan_title
            or self.recap_lead
            or self.goal_command
            or self.mention_only
            or (self.paste_only and self.restatement)
        )

    def _asked(self) -> str | None:
        chosen = self._goal
        if self.goal_command is None and chosen is not None and not self.mention_only:
            return clip(redact(str(chosen)), _REQUEST_CHARS)
        first = self.first_text
        if self.paste_only and self.restatement and chosen is None:
            first = f"{self.paste_only} — {self.restatement}"
        elif first is not None and self.mention_only:
            if self.restatement:
                first = f"{first} — {self.restatement}"
            elif self.second_text:
                first = f"{first} — {self.second_text}"
        if self.goal_command is None:
            return first
        # What the user typed after it that names work: not a menu's "2", not a "yes".
        then = first if self.mention_only else chosen and clip(redact(str(chosen)), _REQUEST_CHARS)
        if then and not self.command_had_args:
            return f"{self.goal_command} Then: {then}"
        return self.goal_command

    def unfinished(self, writes: int = 0) -> Unfinished | None:
        """The last request, when its work did not finish; `writes` as for `user`."""
        if self._request is None:
            return self._stopped_before_thanks(writes)
        said, ts, seq, line, asked = self._request
        closing = self._closing
        then: str | None = None
        joiner = "then"
        if self._interrupted:
            why = "the user interrupted it"
        elif self._ended_on == "tool":
            why = "the transcript ends in the middle of the work on it"
        elif self._ended_on == "text" and closing is not None:
            from session_skill.transcripts.asks import asks, extra_work
            from session_skill.transcripts.ending import (
                announced,
                changed_nothing,
                hands_back,
                stopped,
            )

            if _fails(said):  # the user's words, not the question they answer
                why = "it reported something still wrong; no one has seen the fix work since"
            elif (then := announced(closing)) is not None:
                why = "the reply ends announcing more work; nothing came after it"
            elif (then := stopped(closing)) is not None:
                why = "the reply says the work stopped undone"
                joiner = "stopped"  # …and where, in its words
            elif (
                (asked_now := [a for a in asks(closing) if not extra_work(a)])
                and writes <= self._writes_at
                and not _asks_to_know(said)
                # an offer the user's last words declined leaves nothing waiting
                and not (self._asking_answered and all(a.offer for a in asked_now))
            ):
                # Asked before anything was changed: the work waits on the answer. After
                # changes, what it asks (commit? also update the docs?) is the loose end.
                why = "the reply ends by asking the user"
            elif (
                writes <= self._writes_at
                and not _asks_to_know(self._origin() or said)
                and changed_nothing(closing) is not None
            ):
                # Work asked for, none done: "I couldn't reproduce the failure, so I haven't
                # changed anything." (A review or a question asked is answered in words.) The
                # sentence is listed on its own, with what else the reply says around it.
                why = "the reply says it changed nothing"
            elif hands_back(closing) and not _asks_to_know(said) and not self._asking_answered:
                # (A question answered in words hands back a check of the user's, which is
                # listed itself: "tell me if the Jest run still throws".)
                why = "the reply hands it back to be tried"
            else:
                return None
        elif self._ended_on is None:
            # Nothing after it: the session ended on it (a checkpoint, a /clear before any
            # reply) and it is the work in hand — in the user's last words, if they say it
            # still fails. (A sweep run from inside the session comes after our own command,
            # which is no request; one run by a turn of work comes after that turn's call.)
            if _fails(said):
                why = "it reported something still wrong; the transcript ends before any reply"
            elif _asks_nothing_new(said):
                own = _OWN_STEP.match(said.strip()) is not None or takes_on(said.lower())
                return self._before_that(writes, answered=not own)
            else:
                why = "the transcript ends before any reply to it"
        else:
            return None
        lead = asked() if callable(asked) else asked
        # What a reply goes on with: the thread's first request, or the one before it
        before = self._origin() or self._before
        if lead is not None and before:
            # "yes" to "Want me to fix those before moving on to iOS?": the work in hand is
            # the request that question was about, and the question says what "yes" took on
            lead = f"{clip(before, 150)} — {lead}"
        elif (
            lead is None
            and len(said.split(None, 6)) <= 6
            and (
                why.startswith("it reported")
                or (
                    self._ended_on != "tool"
                    and not self._interrupted
                    and not _ASKS_WORK.search(said)
                )
            )
            and (before is None or _goes_on(said, before) or self._prev_wanted_input())
        ):
            # "still broken", "didn't work", "same thing on firefox" say little alone: a few
            # words that ask for no work of their own — none was begun on them — are of the
            # request before them
            lead = before
        elif lead is None and self._answering is not None and before:
            answering = self._answering
            if (answering() if callable(answering) else answering) is not None:
                lead = before  # the request the question it answers was about
        if lead is None and before and before != self._before:
            lead = before  # "ok go": the thread's request, which the reply went on with
        # "yes" says little alone: the question it answers leads
        raw = said
        if lead:  # clipped first: the user's own last words must show in the item's line
            said_chars = len(" ".join(said[:_SHOWN].split()))
            raw = f"{clip(lead, max(60, _SHOWN - said_chars - 3))} — {said}"
        if then:  # …and what the reply was about to do, or where it stopped
            then = redact(then)
            return Unfinished(f"{clip(redact(raw), 150)} — {joiner}: {clip(then, 150)}", why, ts,
                              seq, line or None, then if joiner == "stopped" else None)  # fmt: skip
        return Unfinished(clip(redact(raw), 300), why, ts, seq, line or None)

    def _prev_wanted_input(self) -> bool:
        """Did the reply to the request before end asking the user something — a question,
        "send me its id", "try it" — so that a few words after it answer it ("INV-2231")?"""
        closing = self._prev[1] if self._prev is not None else None
        if not closing:
            return False
        from session_skill.transcripts.ending import hands_back

        tail = closing[-300:]
        return "?" in tail or _WANTS_INPUT.search(tail) is not None or hands_back(closing)

    def _before_that(self, writes: int, answered: bool) -> Unfinished | None:
        """The request before the user's last words, as its turn ended (`_prev`); when
        those words `answered` what its reply offered (declined, signed off — not a step the
        user takes first, "let me find one"), the offer left nothing waiting."""
        prev = self._prev
        if prev is None or prev[0] is None or prev[2] is None:
            return None
        return self._as_it_ended(prev, writes, answered)

    def _stopped_before_thanks(self, writes: int) -> Unfinished | None:
        """The request a "thanks" or an "ok" closed, when its reply said the work stopped
        undone ("38 of 40 pass; the other two need a new dependency, so I stopped there."):
        thanking for it finishes nothing. (Other ways a reply leaves work waiting — a question,
        a check handed back, a failure reported as still there — are the thanks' to answer.)"""
        from session_skill.transcripts.ending import gave_up

        if self._acked is None:
            return None
        found = self._as_it_ended(self._acked, writes)
        if found is None or found.stopped is None or not gave_up(found.stopped):
            return None
        return found

    def _as_it_ended(
        self, state: tuple[Any, ...], writes: int, answered: bool = False
    ) -> Unfinished | None:
        """`unfinished` of an earlier request, its turn's `state` as it ended (`_state`), as
        if the session had ended there; the state in hand is put back after."""
        kept = (self._state(), self._prev, self._acked)
        self._restore(state)
        self._prev = self._acked = None
        self._asking_answered = answered
        try:
            return self.unfinished(writes)
        finally:
            self._restore(kept[0])
            self._prev, self._acked = kept[1], kept[2]
            self._asking_answered = False

    def _state(self) -> tuple[Any, ...]:
        """The request in hand and how its turn went: what `unfinished` reads."""
        return (self._request, self._closing, self._ended_on, self._interrupted,
                self._answering, self._writes_at, self._before, self._thread)  # fmt: skip

    def _restore(self, state: tuple[Any, ...]) -> None:
        (self._request, self._closing, self._ended_on, self._interrupted, self._answering,
         self._writes_at, self._before, self._thread) = state  # fmt: skip

    def _origin(self) -> str | None:
        """The request the one in hand goes on with, when it only replies — a go-ahead ("ok
        go"), or an answer to the question its turn was asked that asks for no work of its
        own ("CI uses --shard=3/4 and TZ is UTC"): the first request of the thread before
        such replies, which is the work the thread is about."""
        node = self._thread
        if node is None or node[3] is None or not _replies(node):
            return None
        node = node[3]
        for _ in range(_THREAD_MAX - 1):
            if node[3] is None or not _replies(node):
                break
            node = node[3]
        return str(node[0])

    def _start(
        self,
        text: str,
        ts: str | None,
        seq: int,
        line: int = 0,
        asked: Asked = None,
        writes: int = 0,
        words: int | None = None,
    ) -> None:
        # The request before, as its turn ended: the work in hand, if the session ends on
        # words of the user's that ask for nothing new ("let me find one", "exact is enough").
        self._prev = self._state()
        self._acked = None
        # Redacted and clipped only if it is reported: most requests are finished.
        self._before = self._request[0] if self._request is not None else None
        self._request = (text[: 4 * _REQUEST_CHARS], ts, seq, line, asked)
        # A thread of its own, until `user` links it to the one before
        if words is None:
            words = len(text.split(None, 12))
        self._thread = (self._request[0], None, words, None, 0)
        self._answering = None
        self._ended_on = None
        self._closing = None
        self._interrupted = False
        self._writes_at = writes


def _unwrap(text: str) -> str:
    """What the user typed, without an IDE's tags before it or a skill's tag around it."""
    text = text.strip()
    while text.startswith("<"):
        found = _IDE_TAGS.match(text)
        if found is None:
            break
        text = text[found.end() :]
    wrapped = _WRAPPER.match(text) if text.startswith("<") else None
    return wrapped.group(2).strip() if wrapped else text


# Codex's plan mode: the plan comes as the assistant's `<proposed_plan>…</proposed_plan>`,
# and the prompt Codex offers to carry it out is "Implement the plan."
_IMPLEMENT = Lazy(
    r"^\W*(?:(?:ok(?:ay)?|yes|great|sure|please|go\s+ahead\s+and|now)[,.!\s]+)*"
    r"implement\s+(?:the|this|that|your)\s+(?:proposed\s+)?plan\b",
    re.IGNORECASE,
)


def proposed_plan(text: str) -> str | None:
    """The plan a Codex reply proposes (`<proposed_plan>…</proposed_plan>`), or None."""
    start = text.find("<proposed_plan>")
    if start < 0:
        return None
    start += len("<proposed_plan>")
    end = text.find("</proposed_plan>", start)
    plan = text[start : end if end >= 0 else len(text)].strip()
    return plan or None


def implements_plan(text: str) -> bool:
    """Does this message tell the agent to carry out the plan it proposed?"""
    return len(text) <= 200 and _IMPLEMENT.match(text) is not None


def is_plan_request(text: str) -> bool:
    """Is this message Claude Code's "Implement the following plan: …" (tags around it or
    not), the plan a cleared session starts on?"""
    return _PLAN_WRAPPER in text[:200] and _unwrap(text).startswith(_PLAN_WRAPPER)


# A reply that asks for work of its own ("can we do a full export first", "please also
# bump the version"), not an answer going on with the request the question was about.
_OWN_ASK = Lazy(
    r"\s*(?:(?:can|could|would|will)\s+(?:we|you|u)\b|please\b|pls\b|let'?s\b|also\b"
    r"|instead\b|first\b)",
    re.IGNORECASE,
)


# The user's last words that ask for no new work: signing off after an answer ("no Maybe is
# fine. thanks that was helpful", "just the chrome for now. i gotta go, thx"), declining
# more ("exact is enough", "nah, leave it") or for now ("not today, I need to think about
# it"), taking the next step on themselves or waiting ("let me find one", "let me ask the
# team", "ok ping me when done").
_SIGNED_OFF = Lazy(
    rf"""(?:^|[.!,;:，。！、]\s*|\s)(?:(?:ok(?:ay)?|anyway|alright)[,\s]+)?(?:thanks?|thx|ty|thank\s+you
      |{THANKS_ABROAD}|{DONE_FOR_NOW}
      |cheers|bye|(?:i\s+)?(?:gotta|have\s+to|need\s+to)\s+go|(?:that's|thats)\s+(?:it|all|enough)
      |done\s+for\s+(?:now|today)|see\s+(?:you|ya)
      # …or a thumbs-up alone: "deployed, no restarts for 20 min. 👍"
      |[👍🙏🎉✅🙌👌🚀💪🥳👏🤝🙂😊😄]+)
      (?:[\s,]+(?:so\s+much|a\s+lot|very\s+much|that\s+was\s+(?:helpful|great|useful)
        |for\s+(?:now|today|the\s+help|your\s+help)))*[\s!.。！~～🙏👍]*$""",
    re.IGNORECASE | re.VERBOSE,
)
# Thanks the message opens on: "thank you, …", "thx! …", "ok thanks. …"
_THANKED = Lazy(
    rf"""^\W*(?:(?:ok(?:ay)?|great|perfect|cool|nice)[,.!\s]+)?(?:thanks?|thank\s+you|thx|ty
      |{THANKS_ABROAD})(?:\s+(?:so|very)\s+much|\s+a\s+lot)?[,.!\s，。！、]+""",
    re.IGNORECASE | re.VERBOSE,
)
# …after which words of a step taken on, or of something not quite right, ask it still.
_WILL = Lazy(
    r"\b(?:i'll|ill|i\s+will|will|gonna|going\s+to|but|still|though|however|except)\b",
    re.IGNORECASE,
)
_DECLINED = Lazy(
    r"""(?:^|[.!,;]\s*)(?:(?:no|nah|nope)\b[,.!\s]*(?:\w+\s+){0,3}?)?(?:\w+\s+){0,3}?
        (?:is|are|'s|s)\s+(?:enough|fine|ok(?:ay)?|good(?:\s+enough)?)\b
      | \bnot\s+needed\b | \bleave\s+it(?:\s+as\s+is)?\W*$ | ^\W*(?:no|nah|nope)\W*$
      | ^\W*(?:(?:no|nah|nope)[,.!\s]+)?(?:not\s+(?:(?:right\s+)?now|today|tonight|yet
          |this\s+(?:week|sprint))|(?:maybe\s+)?later)\b
      # "nvm, it's fine", "that's fine", "no need", "don't bother", "fine as is"
      | ^\W*(?:(?:no|nah|nope|ok(?:ay)?|oh|ah|hmm+)[,.!\s]+)?(?:nvm|never\s*mind|no\s+need
          |not\s+necessary|no\s+thanks?|no\s+thank\s+you|don'?t\s+bother|forget\s+(?:it|about\s+it)
          |(?:that'?s|it'?s|that\s+is|it\s+is)\s+(?:fine|ok(?:ay)?|enough|good(?:\s+enough)?)
          |(?:fine|good|ok(?:ay)?)\s+as\s+(?:is|it\s+is))\b
      # "yep, next week": the work put off, nothing asked now
      | ^\W*(?:(?:yes|yep|yeah|ok(?:ay)?|sure)[,.!\s]+)?(?:next\s+(?:week|sprint|month|time)
          |tomorrow|another\s+(?:day|time))\W*$""",
    re.IGNORECASE | re.VERBOSE,
)
_OWN_STEP = Lazy(
    r"""^\W*(?:(?:ok(?:ay)?|sure|cool|alright|hmm+|idk)[,.!\s]+)*
      (?:let\s+me\s+(?!know\b)|i'll\s+|ill\s+|i\s+will\s+|gonna\s+|i'm\s+going\s+to\s+
      # "will do", "ok will schedule it": the "I" left out
      |will\s+(?!(?:you|u|it|this|that|there|we|they|i)\b)[a-z]
      |(?:ping|tell)\s+me\s+when\b|let\s+me\s+know\s+when\b|keep\s+me\s+posted)""",
    re.IGNORECASE | re.VERBOSE,
)
# …which they do when nothing in them asks for work: "can you", "please", "one more
# thing", a clause that opens on a verb of doing.
_ASKS_WORK = Lazy(
    r"""\b(?:can|could|would)\s+(?:you|u|we)\b|\bplease\b|\bpls\b|\bone\s+more\s+thing\b
      |(?:^|[.!?;,]\s*)(?:(?:ok(?:ay)?|so|and|also|now|then|but|first|just)[,\s]+)*
        (?:add|fix|make|change
        |update|remove|delete|create|write|implement|run|deploy|push|commit|merge|move|rename
        |refactor|bump|revert|try|check|look|do|build|set|use|switch|keep\s+an\s+eye|start
        |stop|put|send|open|install|upgrade|test|translate|go\s+ahead|go\s+with)\b
        # …a verb, not the thing: "push is arriving now", "the build works"
        (?!\s+(?:is|are|was|were|has|had|have|works?|worked|seems?|looks?)\b)""",
    re.IGNORECASE | re.VERBOSE,
)


# Of an unfinished request's text, what a table row surely shows (it clips at
# `prose.CLIP_CHARS`, 160): the user's own words go there.
_SHOWN = 150
# How many replies a thread of work is followed back through (`Turns._origin`).
_THREAD_MAX = 12


def _newest(node: tuple[Any, ...], n: int) -> tuple[Any, ...]:
    """The newest `n` requests of a thread (`Turns._thread` nodes), linked afresh: the
    chain is kept short without cutting the link between two requests, which would lose
    the thread of a reply that happened to fall on the cut."""
    nodes: list[tuple[Any, ...]] = []
    at: tuple[Any, ...] | None = node
    while at is not None and len(nodes) < n:
        nodes.append(at)
        at = at[3]
    kept: tuple[Any, ...] | None = None
    for depth, (text, asked, words, _, _) in enumerate(reversed(nodes)):
        kept = (text, asked, words, kept, depth)
    assert kept is not None
    return kept


# A go-ahead of a few words: "ok go", "yes do it", "sure, go for it", "proceed".
GO_AHEAD = Lazy(
    r"""^\W*(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|great|cool|perfect|sounds\s+good)[,.!\s]+)*
      (?:go(?:\s+(?:ahead|for\s+it|on))?|do\s+it|proceed|ship\s+it|please\s+do|continue)\W*$""",
    re.IGNORECASE | re.VERBOSE,
)


def _replies(node: tuple[Any, ...]) -> bool:
    """Does this request (a `Turns._thread` node) only reply: a go-ahead, an answer to the
    question its turn was asked that asks for no work of its own, or a question back about
    the work ("is 1 really a bug?")?"""
    from session_skill.transcripts.asks import asks_back

    text, asked, words = node[0], node[1], node[2]
    if _OWN_ASK.match(text):
        return False
    if (words <= 4 and GO_AHEAD.match(text)) or asks_back(text):
        return True
    if (asked() if callable(asked) else asked) is None:
        return False
    return words <= 4 or _ASKS_WORK.search(text[:1000]) is None


# Words that point back at the work before ("same thing on firefox", "that broke the build",
# "continue implementation").
_POINTS_BACK = Lazy(
    r"""\b(?:still|same|again|that|this|it|its|it's|those|these|didn'?t|doesn'?t|won'?t
      |isn'?t|broke|broken|no\s+longer|anymore|too|either|also|now|continue|continuing|keep
      |carry|resume|proceed|rest|remaining|next)\b""",
    re.IGNORECASE | re.VERBOSE,
)


# What a reply asks the user for: "send me its id", "paste the log", "let me know which".
_WANTS_INPUT = Lazy(
    r"\b(?:(?:send|paste|share|give|show|tell)\s+(?:me|us)|let\s+me\s+know|which\s+one)\b",
    re.IGNORECASE,
)


def _goes_on(said: str, before: str) -> bool:
    """Do the user's few words go on with the request `before` — point back at it, share a
    word of its subject, or name nothing of their own — rather than raise something new
    ("our docker build takes 9 minutes")?"""
    from session_skill.transcripts.landed import subject

    own = subject(said)
    if not own or _POINTS_BACK.search(said):
        return True
    return not own.keys().isdisjoint(subject(before))


def _asks_nothing_new(said: str) -> bool:
    """Do the user's last words, which nothing answered, ask for no new work?"""
    text = plain(said.strip())
    if len(text) > 200 or "\n" in text:
        return False
    found = _SIGNED_OFF.search(text)
    if found is not None and found.start() > 0:
        return not _asks(text[: found.start()])
    thanked = _THANKED.match(text)
    if thanked is not None and thanked.end() < len(text):
        # "thank you, it reads very natural": thanks, then how it went — not a step the
        # user takes on ("thanks, ill clear them after the deploy"), nor a failure
        after = text[thanked.end() :]
        return not (_asks(after) or _fails(after) or _OWN_STEP.match(after) or _WILL.search(after))
    own = _OWN_STEP.match(text)
    if own is not None:  # what they do themselves, then maybe what they ask for
        rest = re.split(r"(?<=[.;!?])\s|,\s+(?:then|and)\s", text[own.end() :], maxsplit=1)
        return len(rest) < 2 or not _asks(rest[1])
    if _asks(text):
        return False
    # ("el apply lo hago yo ahora": a step taken on, in another language.)
    return _DECLINED.search(text) is not None or _only_puts_off(text) or takes_on(text.lower())


_SENTENCES = Lazy(r"(?<=[.!?])\s+")
# A question of the user's own: "not now, thanks. do the tests pass?"
_OWN_QUESTION = Lazy(r"\w[^.!?\n]*\?")


def _asks(text: str) -> bool:
    """Do these words of the user's ask for work, or ask something?"""
    return _ASKS_WORK.search(text) is not None or _OWN_QUESTION.search(text) is not None


# Stopping for now: "let's stop here for today", "let's call it a day".
_STOP_HERE = Lazy(
    r"\b(?:let'?s|lets)\s+(?:stop|call\s+it|wrap\s+up)\s*(?:here|there|a\s+day)?"
    r"(?:\s+for\s+(?:now|today|tonight))?\W*$",
    re.IGNORECASE,
)


# A sentence that ends by accepting how things are: "we only ship English, fine."
_CONCEDED = Lazy(
    r"[,;—–-]\s*(?:that'?s\s+|it'?s\s+)?(?:fine|ok(?:ay)?|good|agreed|noted"
    r"|makes\s+sense)\W*$",
    re.IGNORECASE,
)


def _only_puts_off(text: str) -> bool:
    """Words that only thank, stop for now and put work off ("good, let's stop here for
    today. tomorrow we add the xlsx variant", "great. remind me to drop the old index once
    this is in prod"): nothing asked now — what is put off is listed as such."""
    from session_skill.transcripts.candidates import DEFERRED
    from session_skill.transcripts.prose import classify

    put_off = False
    for sentence in _SENTENCES.split(text):
        if not sentence.strip() or _ACK.match(sentence) or _STOP_HERE.search(sentence):
            continue
        if _CONCEDED.search(sentence):
            continue  # "we only ship English, fine.": an answer that settles, asks nothing
        hit = classify(sentence)
        if hit is None or hit[1] != DEFERRED:
            return False
        put_off = True
    return put_off


# A request that only asks how things are: "how does the rate limiter pick the bucket key?"
# (not "can you …?", which asks for work).
_ONLY_ASKS = Lazy(
    rf"^\W*(?:(?:hey|hi|ok|so|and|also|but|quick\s+question)[,.!:\s]+)*(?:{QUESTION_WORDS})\b"
    r"[^\n]*\?\W*$",
    re.IGNORECASE,
)


def could_be_goal(text: str) -> bool:
    """A request that may name the session's work: not an opener that orients, not a
    branch brought up to date, not pasted output, not a one-line reply — a request of three
    words or fewer only when it makes or changes something named ("add dark mode")."""
    if "://" in text and _TICKET.search(text):
        return not mostly_pasted(text)  # "https://github.com/o/r/issues/42": that work
    bare = text
    if "```" in text or "~~~" in text or "[Image #" in text:
        # "[Image #1] fix this", "Here's the error: ```…```": the words the user typed
        bare = _IMAGE.sub(" ", _FENCE.sub(" ", text))
    words = len(bare.split())
    if words < 4 and _SHORT_WORK.match(bare) is None:
        return False  # "continue", "ok go ahead" — but "add dark mode", "fix issue #42"
    if _ORIENT.match(text) or _names_no_work(bare):
        return False
    if words <= _CHORE_WORDS and _CHORE.match(text):
        return False  # "update from our parent branch": the chore before the work
    if words < 12 and _ANSWER_START.match(text):
        rest = _AFTER_ANSWER.sub("", bare)
        if rest == bare:
            rest = _ANSWER_WORDS.sub("", bare)  # "ok add the csv export": no comma after "ok"
        if rest == bare or len(rest.split()) < 3 or _SHORT_WORK.match(rest) is None:
            return False  # "ok sounds good, go ahead": a reply, not the work's name
        # "right. finish the french strings": the answer, then a request that names work
    return not (mostly_pasted(text) or pasted_whole(text))


def pasted_whole(text: str) -> bool:
    """Output pasted and nothing typed: it opens on an output line ("$ kubectl get pods"),
    and every paragraph of it is pasted."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    return is_pasted_line(first) and "\n" in text.strip() and without_pastes(text) == text


# The answer a reply opens on ("right.", "ok,", "yes —"), and the words that join what follows.
_AFTER_ANSWER = Lazy(r"^[^.!?;,—–]*[.!?;,—–]\s+(?:(?:and|also|then|but)\s+)*", re.IGNORECASE)
_ANSWER_WORDS = Lazy(
    r"^\W*(?:(?:ok(?:ay)?|yes|yeah|yep|yup|sure|alright|right|great|cool|good|perfect|nice)\s+)+",
    re.IGNORECASE,
)
# A link to an issue, a pull or merge request, a ticket: the work it names (GitHub, GitLab,
# Jira's browse/KEY-1, Linear's issue/KEY-1).
_TICKET = Lazy(r"https?://\S+?/(?:issues?|pull|pulls|merge_requests|browse)/[\w-]*\d")
# A request of a few words that names its work: a verb of making or changing, and what.
# Verbs of making or changing something, as a request puts them.
_MAKING = (
    "add|fix|finish|implement|refactor|deploy|write|build|create|remove|delete|rename|update"
    "|upgrade"
)
_SHORT_WORK = Lazy(
    rf"""^\W*(?:(?:please|pls|now|ok(?:ay)?|so)[,.!\s]+)*
      (?:{_MAKING}|migrate|port|convert|optimi[sz]e|debug|document|redesign|rewrite|translate)
      \s+(?!(?:it|this|that|them|these|those|everything|all|again)\W*$)\S""",
    re.IGNORECASE | re.VERBOSE,
)
# The words of a message that names no work: getting to know the project ("read CLAUDE.md
# and get familiar with the codebase", "what's the current state of the project?"), small
# talk ("good morning! ready to work?", "can you help me with something?"), a branch or a
# setup chore ("create a new branch for this", "install the dependencies first", "start the
# dev server"). A path or a branch name
# ("src/api.py", "feature/rate-limit") is only where.
_NO_WORK = frozenset(
    """read reading look looking around explore exploring study scan skim browse go check
    familiar familiarize familiarise yourself understand understanding learn overview
    architecture structure layout codebase code repo repository project docs doc
    documentation readme handoff handover notes context current state status progress
    summary summarize summarise recap tell show session time today yesterday left off
    continue continuing resume pick back start started begin ready work working task tasks
    give going what's where's how's hey hello morning afternoon evening good doing thanks
    thank git checkout switch branch branches feature create called named pull fetch rebase sync
    install dependencies deps packages requirements npm pnpm yarn pip bun dev server run
    running setup set env environment virtualenv venv main master develop origin upstream
    latest help something things thing few couple question questions quick stuff contributing
    pls plz whats forgot vs versus""".split()
)
_WORD = Lazy(r"[\w'’./-]+")


def _names_no_work(text: str) -> bool:
    """Is every word of `text` one of getting to know the project, small talk or a branch
    or setup chore (`_NO_WORK`), or a stopword?"""
    for found in _WORD.finditer(text[:400].lower()):
        word = found.group().strip(".'’-").replace("’", "'")
        if len(word) <= 2 or "/" in word or "." in word:
            continue
        if word not in _NO_WORK and word not in STOPWORDS:
            return False
    return len(text) <= 400


# The words a message may open on before what it asks: "ok so why …", "good. does …".
_OPENERS = r"ok(?:ay)?|so|hmm+|and|but|also|hey|wait"
_ACKS = r"good|great|nice|cool|perfect|thanks|alright|yeah|yes|ah|right"
# A question that asks to be told something ("why does the login test fail?", "should we
# cache it?"), not to have something done ("can you add a retry?").
_TO_KNOW = Lazy(
    rf"""^\W*(?:(?:{_OPENERS}|{_ACKS})[,.!\s]+)*
      (?:{QUESTION_WORDS}|should|would\s+(?:it|this|that)|could\s+(?:it|this|that))\b""",
    re.IGNORECASE | re.VERBOSE,
)


# A request to be told, shown or given a review ("review the diff", "check whether the
# migration is safe", "explain how the cache is invalidated") — when it asks for no change.
_TO_TELL = Lazy(
    rf"""^\W*(?:(?:{_OPENERS}|now|please|pls|{_ACKS})[,.!\s]+)*
      (?:(?:can|could|would)\s+you\s+(?:please\s+)?|please\s+|let'?s\s+(?:just\s+)?)?
      (?:check\s+(?:if|whether|what|why|how)|explain|review|summari[sz]e|analy[sz]e
      |investigate|compare|assess|evaluate|tell\s+me|show\s+me|walk\s+me\s+through
      |look\s+(?:at|into)|take\s+a\s+look|think\s+(?:about|through)|brainstorm|explore
      |discuss|figure\s+out\s+(?:why|what|how|whether|if)|find\s+out|diagnose)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_TO_CHANGE = Lazy(
    rf"""\b(?:{_MAKING}|change|make|move|commit|push|install|apply|merge|wire|replace
      |set\s+up|bump|clean\s+up)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# A text asked for, which the reply is: "write a short summary for the PR description",
# "draft a reply to their email" — not into a file ("… in docs/summary.md").
_TO_WRITE_TEXT = Lazy(
    r"""^\W*(?:(?:ok(?:ay)?|so|and|also|great|nice|cool|now|please|pls)[,.!\s]+)*
      (?:(?:can|could|would)\s+you\s+(?:please\s+)?)?
      (?:(?:write|draft|compose|give)\s+(?:me\s+|us\s+)?(?:a|an|the)\s+(?:short\s+|quick\s+
          |brief\s+|one-line\s+|concise\s+)?(?:summary|description|pr\s+description|reply
          |response|email|message|note|explanation|tweet|announcement|post|changelog\s+entry
          |release\s+notes?|commit\s+message|standup\s+update)
      | (?:reply|respond)\s+to\b)""",
    re.IGNORECASE | re.VERBOSE,
)
_A_FILE = Lazy(r"\b[\w-]+\.(?:md|txt|rst|adoc|html)\b|\s(?:\.{0,2}/)?[\w.-]+/[\w./-]+")
# "how about …", "what if we …": a suggestion, not a question.
_SUGGESTING = Lazy(
    rf"^\W*(?:(?:{_OPENERS})[,.!\s]+)*(?:how\s+about|what\s+about"
    r"|what\s+if\s+(?:we|you|i)|why\s+(?:not|don't\s+(?:we|you)))\b",
    re.IGNORECASE,
)
# …or one that says to change nothing: "don't make any changes yet, just explain".
_HANDS_OFF = Lazy(
    r"""\b(?:don'?t|do\s+not)\s+(?:make|making)\s+(?:any\s+)?changes\b
      | \b(?:don'?t|do\s+not)\s+(?:change|touch|edit|modify|implement|code)\s+(?:anything|yet)\b
      | \bwithout\s+(?:making\s+)?(?:any\s+)?changes\b
      | \bjust\s+(?:analy[sz]e|think|brainstorm|discuss|explore|explain)\b""",
    re.IGNORECASE | re.VERBOSE,
)


def _asks_to_know(said: str) -> bool:
    """A request the reply answers in words, whatever it offers after ("Want me to fix
    it?"): a question ("why does it fail?"), a request to be told or given a review that
    asks for no change ("review the diff", "check whether it is safe"), or one that says to
    change nothing. Its work is the reply: it is not left waiting on the offer."""
    head = said[:600]
    if _HANDS_OFF.search(head):
        return True
    if _TO_TELL.match(head):
        return _TO_CHANGE.search(said[:2000]) is None
    if _TO_WRITE_TEXT.match(head):
        return _A_FILE.search(said[:2000]) is None
    if _TO_KNOW.match(said) is None:
        return _asks_last(said)
    if _SUGGESTING.match(said):
        return False
    # A question, typed with its question mark or not ("how do i roll this out safely").
    return (
        said.rstrip().endswith("?") and len(said) <= 600 or (len(said) <= 200 and "\n" not in said)
    )


# Where a topic ends and the question about it begins: "the blurry preview thing - whats
# causing that".
_TOPIC_THEN = Lazy(r"\s[-—–]\s+|:\s+")


def _asks_last(said: str) -> bool:
    """A message of a line whose last sentence asks to know ("cors is fine i checked. thx.
    the blurry preview thing - whats causing that"), the sentences before it asking for no
    work: a question too."""
    if len(said) > 300 or "\n" in said.strip():
        return False
    text = said.strip()
    asked = _TOPIC_THEN.split(_SENTENCES.split(text)[-1])[-1]
    before = text[: -len(asked)]  # the sentences before, and the topic the question is about
    if not before or _ASKS_WORK.search(before):
        return False
    return _TO_KNOW.match(asked) is not None and _SUGGESTING.match(asked) is None


# Claude Code's marker for an image pasted into the prompt.
_IMAGE = Lazy(r"\[Image #\d+\]")


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
        # A skill's sections are tags ("<objective>", its text, "</objective>"): the text.
        line = _TAG_HEAD.sub("", line.strip())
        while line.endswith(">") and (tag := _TAG_TAIL.search(line)) is not None:
            line = line[: tag.start()].rstrip()
        line = line.lstrip("#>*- ").strip()
        if line.startswith(("<!--", "```", "~~~")):
            continue  # a comment ("<!-- Powered by … -->"), a fence: nothing it does
        if line and not line.lower().startswith(("base directory for this skill", "arguments:")):
            return line
    return ""


_TAG_HEAD = Lazy(r"^(?:</?[a-z_][\w-]*>\s*)+", re.IGNORECASE)
_TAG_TAIL = Lazy(r"</?[a-z_][\w-]*>$", re.IGNORECASE)


def recap_text(text: str) -> str:
    """A recap of Claude Code's without the note the client adds to its first ones."""
    return _RECAP_TAIL.sub("", text.strip())


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    found = _FIRST_SENTENCE.match(text)
    return (found.group(1) if found else text).strip()

"""What a transcript says is still open: one streaming pass for sweep and the dump brief.

`analyze` reads the file once (see `reader.iter_events`) and keeps only small state: the
files written and the task list (`toolcalls`), the goal and the last request (`turns`),
and a bounded pool of loose ends — questions the user never answered, things put off for
later, side ideas (`loose`). Which sentences are loose ends is decided in `prose`, whether
one landed later in `landed`, how they fold and show in `candidates`; the public names
are re-exported here, the API callers import.

A loose end leaves the pool when the session later does it (the deferred fix is reported
done or committed, the user takes the question up), whichever side of a compaction it was
raised on; it is then kept in `settled`, for the quality report.

Everything lifted from the transcript passes through `redact.redact` before it is kept.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from session_skill.records import field, record, replace
from session_skill.transcripts.anchors import DONE_WORDS
from session_skill.transcripts.asks import asks, closing_offer, takes, waits
from session_skill.transcripts.candidates import (
    CANDIDATE_TYPES,
    DEFERRED,
    DIVERGING,
    UNANSWERED,
    UNFINISHED,
    Candidate,
    filter_known,
    merge_near_duplicates,
    render_table,
    to_json,
)
from session_skill.transcripts.forked import Forked
from session_skill.transcripts.landed import WORD, content_stems, subject
from session_skill.transcripts.lazyre import Lazy
from session_skill.transcripts.loose import POOL_MAX, dated, loose_end, parse_ts
from session_skill.transcripts.loose import Loose as _Loose
from session_skill.transcripts.phrasing import DONE, UNDONE
from session_skill.transcripts.prose import (
    _FENCE,
    CLIP_CHARS,
    PARAGRAPH_BREAK,
    _units,
    clip,
    redact,
)
from session_skill.transcripts.reader import (
    AssistantText,
    ClearSplit,
    CommandPrompt,
    Interrupted,
    PatchApplied,
    ReadStats,
    Recap,
    SessionMeta,
    ThreadGoal,
    ToolCall,
    ToolResult,
    UserText,
    iter_events,
    line_start,
)
from session_skill.transcripts.toolcalls import PendingTask, ToolState
from session_skill.transcripts.turns import (
    Turns,
    Unfinished,
    answers_own,
    is_own_command,
    plan_title,
    recap_text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Said(Protocol):
        """Something said whose text can be read: an assistant's text, or its line."""

        @property
        def text(self) -> str: ...


__all__ = [
    "CANDIDATE_TYPES",
    "CLIP_CHARS",
    "DEFERRED",
    "DIVERGING",
    "UNANSWERED",
    "UNFINISHED",
    "Candidate",
    "PendingTask",
    "ReadStats",
    "TranscriptFacts",
    "Unfinished",
    "analyze",
    "clip",
    "filter_known",
    "merge_near_duplicates",
    "parse_ts",
    "render_table",
    "to_json",
]

_REQUEST_CHARS = 1000
# Requests read in full before a very long conversation is read cheaply (see `analyze`),
# and the bounds and safety factor of the tail read again.
_DEEP_REQUESTS = 300
# Task-list tools: a call to one may change what is still pending.
_TASK_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate", "update_plan"})
_DONE_CHARS = 16_000  # of an assistant text read for reports of work done
_DONE_KEPT = 64  # reports of work done kept, the newest
# Where a sentence's clauses part: what one reports done, the next may put ahead.
_CLAUSE = Lazy(r"\s*[;:—–]\s*|,?\s+(?:but|then|next|and\s+then|and\s+next)\b\s*", re.IGNORECASE)
_TAIL_MIN = 500
_TAIL_MAX = 20_000
_TAIL_FACTOR = 2.0


@record(frozen=True)
class PlanExit:
    """The transcript ends on the plan the user was shown (`ExitPlanMode`), and nothing after
    it but its refusal or an interrupt: what a plan approved with "clear context" leaves."""

    title: str  # its first heading and the sentence after it (`turns.plan_title`), redacted
    path: str | None  # `planFilePath`: where Claude Code keeps the plan
    text: str  # the plan, redacted


@record
class TranscriptFacts:
    """What one pass over a transcript found; every text in it is already redacted.

    `written_files` are in first-write order, as the transcript names them: absolute for
    Claude Code; Codex patch paths are joined to the session's cwd when it is known. The
    caller makes them relative to the project root.
    """

    path: str
    agent: str | None = None
    session_id: str | None = None
    cwd: str | None = None
    first_user_request: str | None = None
    # The session's request as a person would state it (see `turns`), and whether it is only
    # the first words typed, nothing having named the work ("continue where we left off").
    goal: str | None = None
    goal_guessed: bool = False
    # When the conversation began (its first timestamped event; after a /clear, the new one).
    started: datetime | None = None
    written_files: list[str] = field(default_factory=list)
    # How many successful writes each of them got: the table keeps the most worked on.
    written_weights: dict[str, int] = field(default_factory=dict)
    pending_tasks: list[PendingTask] = field(default_factory=list)
    # The last request, when its turn never finished; and whether it came after the last
    # change to the task list (then it, not the task list, is what was being worked on).
    unfinished: Unfinished | None = None
    unfinished_is_latest: bool = False
    candidates: list[Candidate] = field(default_factory=list)
    # Where the conversation stopped, verbatim (redacted, clipped): the user's last request
    # and the last paragraphs the assistant wrote; what extraction misses is still there.
    last_request: str | None = None
    last_reply: str | None = None
    # Claude Code's recap for the user coming back, when it came after the last request:
    # the state as its model put it, and the one next action.
    recap: str | None = None
    # Set when the session ends on the plan it was about to carry out (see PlanExit).
    plan: PlanExit | None = None
    # Loose ends that landed later in the session (newest last), with why in `why`.
    settled: list[Candidate] = field(default_factory=list)
    stats: ReadStats = field(default_factory=ReadStats)


def analyze(path: Path, carried: tuple[Candidate, ...] = ()) -> TranscriptFacts:
    """Read the transcript or rollout at `path` and return what it shows is open.

    One pass, except in a very long conversation: past its first _DEEP_REQUESTS requests
    only what the session did is followed, and the loose ends are read from a second pass
    over the tail that holds the newest of them (enough of them to fill the pool twice,
    at the rate the first requests raised them). The pool keeps only the newest loose
    ends in any case; reading the prose of the older ones is what made long sessions slow.
    On a machine with a second core the tail is read by a forked helper while the first
    pass goes on (`_tail_in_helper`); its reading is used only when it began where this
    pass says the tail begins and the file has not grown, so the result is the same. When
    the tail would be most of the conversation, a helper goes on reading its loose ends
    from the same point instead (`_Sweep._go_on_in_helper`).
    `carried`: loose ends open when the session began, weighed against what it did.
    """
    stats = ReadStats()
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    state = _Sweep(stats, size, path=path, carried=carried)
    try:
        for event in iter_events(path, stats, wanted_results=state.watched):
            state.feed(event)
        facts = state.finish(path, stats)
    finally:
        state.close_helper()
    facts.agent = stats.format
    return facts


def transcript_records(stats: ReadStats) -> int:
    """How many records read were of a kind a Claude Code transcript or a Codex rollout
    holds: 0 means the file is not one (a README, `/etc/passwd`, some other JSON lines)."""
    # The parsers count a record of a type they do not know under that bare type name;
    # kinds they know and skip on purpose are top-level types of theirs, or `kind:detail`.
    from session_skill.transcripts.claude import _CLAUDE_SKIP
    from session_skill.transcripts.codex import _CODEX_LEGACY_ITEMS, _CODEX_TYPES

    known = {k.decode() for k in _CLAUDE_SKIP} | _CODEX_TYPES | _CODEX_LEGACY_ITEMS
    unknown = sum(n for kind, n in stats.skipped.items() if ":" not in kind and kind not in known)
    return stats.records - unknown


# ---------------------------------------------------------------- the pass


class _Sweep:
    """The pass: what the session did (tools, tasks, requests) over the whole conversation,
    its loose ends (`loose.Loose`) over the whole of it or, in a very long one, its tail."""

    def __init__(
        self,
        stats: ReadStats,
        size: int = 0,
        go_cheap: bool = True,
        path: Path | None = None,
        carried: tuple[Candidate, ...] = (),
    ) -> None:
        self.carried = carried  # loose ends open when the session began (`analyze`)
        self.stats = stats  # the reader's: where the line being read starts
        self.size = size  # of the file, in bytes: how much is left to read
        self.go_cheap = go_cheap  # may read the loose ends of a very long one from its tail
        # The file, when a forked helper may read the tail while this pass goes on.
        self.path = path
        self.helper: Forked | None = None
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.clear_pending = False
        self.watched: set[str] = set()
        self.seq = 0
        self._reset()

    def _reset(self) -> None:
        self.close_helper()  # a tail it reads would be the conversation left by /clear
        self.started: str | None = None
        self.first_request: str | None = None
        self.tools = ToolState(self.watched)
        self.turns = Turns()
        # The text the last turn closed on, while nothing followed it (`_taken`); in the
        # hooks' quick read of a middle, one whose line is parsed only if asked for.
        self.last_text: AssistantText | Said | None = None
        self.final_text: str | None = None  # the last text the assistant wrote, whatever came after
        # Since our own command (`/session park …`): its reply is no reply to the last request.
        self.own_turn = False
        self.last_request: str | None = None
        self.last_request_ts: str | None = None
        self.recap: str | None = None  # Claude Code's, since the last request
        # The goal `/goal` set: (objective, status, ts, line, reason), None once cleared.
        self.thread_goal: tuple[str, str, str | None, int, str | None] | None = None
        self.exit_plan: ToolCall | None = None  # the last call, when it is ExitPlanMode
        # The content stems of each sentence reporting work done since the task list last
        # changed (`_done_said`): a task reported done is done, ticked or not.
        self.done_since: list[set[str]] = []
        self.loose: _Loose | None = _Loose(
            ToolState(self.watched, files=False), self.stats, self.carried
        )
        self.early: _Loose | None = None  # the loose ends read before going cheap
        self.requests = 0
        # Once cheap: where the newest requests start (offset, line); the tail is read again
        # from the oldest of them (or, when they still reach back to the switch, the switch).
        self.tail: deque[tuple[int, int]] | None = None
        self.switched_at = 0
        # Once a helper goes on reading the loose ends (`_go_on_in_helper`): where (offset,
        # line) it took over from this pass.
        self.handed_on: tuple[int, int] | None = None
        # Where this conversation begins in the file (after a /clear, not at 0): its pace is
        # its requests over its own bytes.
        self.began_at = self.stats.offset

    def feed(self, event: object) -> None:
        self.seq += 1
        if isinstance(event, AssistantText) and self.started is not None:
            if not self.clear_pending:
                self.last_text = event
                if not self.own_turn:
                    self.final_text = event.text
                self.turns.assistant(event)
                if self.loose is not None:
                    self.loose.feed(event)
                self._done_said(event.text)
                return
        if isinstance(event, SessionMeta):
            self.session_id = event.session_id or self.session_id
            self.cwd = event.cwd or self.cwd
            self.started = self.started or event.ts
            return
        if isinstance(event, ClearSplit):
            if self.loose is not None:
                self.loose.feed(event)
            # Reset only when the new conversation has begun: a file that ends on /clear
            # (the conversation being left) keeps what it holds.
            self.clear_pending = True
            return
        if self.clear_pending and isinstance(event, (UserText, AssistantText, ToolCall)):
            self._reset()
            self.clear_pending = False
        if self.started is None:
            self.started = getattr(event, "ts", None)
        if isinstance(event, UserText):
            self.exit_plan = None
            self._user(event)
            return
        if isinstance(event, AssistantText):
            self.exit_plan = None
            self.last_text = event
            if not self.own_turn:
                self.final_text = event.text
            self.turns.assistant(event)
            self._done_said(event.text)
        elif isinstance(event, ToolCall):
            self.exit_plan = event if event.name == "ExitPlanMode" else None
            if event.name in _TASK_TOOLS:
                self.done_since.clear()
            self.last_text = None
            self.turns.tool(event)
            self.tools.call(event, self.cwd, self.seq, self.stats.line)
        elif isinstance(event, ToolResult):
            self.tools.result(event)
            self.turns.result(event)
        elif isinstance(event, PatchApplied):
            self.tools.patched(event, self.cwd)
        elif isinstance(event, CommandPrompt):
            self.turns.prompt(event, self.seq, self.stats.line, self._changes())
        elif isinstance(event, Interrupted):
            self.turns.interrupted()
        elif isinstance(event, Recap):
            if not self.clear_pending:  # after /clear, a recap of the conversation left
                self.turns.recap(event.text)
                self.recap = event.text
            return
        elif isinstance(event, ThreadGoal):
            if event.objective is None:  # cleared: no longer open, still what it was about
                if self.thread_goal is not None:
                    self.turns.let_go(self.thread_goal[0])
                self.thread_goal = None
                return
            said = redact(event.objective)
            if self.thread_goal is not None and self.thread_goal[0] == said:
                line = self.thread_goal[3]  # where it was set, not each check of it
            else:
                line = self.stats.line
            reason = redact(event.reason) if event.reason else None
            self.thread_goal = (said, event.status, event.ts, line, reason)
            self.turns.thread_goal = clip(said, _REQUEST_CHARS)
            return
        if self.loose is not None:
            self.loose.feed(event)

    def _done_said(self, text: str) -> None:
        """Keep the sentences of an assistant text that report work done, while the task
        list holds anything: its last item is often left in progress when the closing text
        says it is done ("Added the export and wrote its test")."""
        tools = self.tools
        if not (tools.todos or tools.tasks or tools.plan):
            return
        head = text[:_DONE_CHARS]
        tokens = self.loose.tokens_of(text) if self.loose is not None else None
        if DONE_WORDS.isdisjoint(tokens if tokens is not None else head.lower().split()):
            return  # the cheap test: no word a report of work done needs
        for sentence, _ in _units(head):
            # Clause by clause: "The layout is in place; next is the CLI entry point."
            for clause in _CLAUSE.split(sentence):
                low = clause.lower()
                if DONE.search_lowered(clause, low) and not UNDONE.search_lowered(clause, low):
                    self.done_since.append(content_stems(clause))
        del self.done_since[:-_DONE_KEPT]

    def _reported_done(self, task: PendingTask) -> bool:
        """Does a report since the list last changed name all of the task's object? Its
        leading verb is left out ("Write a test for the export": "wrote the export's test");
        "Added /healthz" is not "Add a test for /healthz"."""
        words = WORD.findall(task.text.lower())
        wanted = set(subject(task.text, words[1:]))
        return bool(wanted) and any(wanted <= stems for stems in self.done_since)

    def _changes(self) -> int:
        """The work done so far that a turn can be judged by: file writes and commits."""
        return self.tools.writes + self.tools.committed

    def _user(self, event: UserText) -> None:
        own = is_own_command(event) or (self.own_turn and answers_own(event))
        taken = self.loose.user(event, own) if self.loose is not None else self._taken(event, own)
        if own or not event.is_command:
            # (/model, /compact…: the turn is not over, as `Loose.user` keeps it open: the
            # message after the command answers what the turn closed on.)
            self.last_text = None
        if event.is_command or own:
            self.own_turn = self.own_turn or own
            self.turns.command(event, self.seq, own)
            return
        self.own_turn = False
        if self.first_request is None:
            head = event.text[: 4 * _REQUEST_CHARS]
            self.first_request = clip(redact(head), _REQUEST_CHARS)
        self.last_request, self.last_request_ts = event.text, event.ts
        self.recap = None
        self.turns.user(event, self.seq, taken, self.stats.line, self._changes())
        self.requests += 1
        if self.tail is not None:
            self.tail.append((self.stats.offset, self.stats.line))
        elif self.requests == _DEEP_REQUESTS + 1 and self.loose is not None and self.go_cheap:
            self._go_cheap()

    def _taken(self, event: UserText, own: bool) -> Callable[[], str | None] | None:
        """How to find the question a reply answers, read cheaply (the loose ends are not
        read): only the requests of the thread reported unfinished need it, so only they
        look. Of any length, as `Loose.user` finds it: a reply of thirteen words to "Want to
        play this pass first, or talk scale?" goes on with the work the question was about."""
        last = self.last_text
        if last is None or own or event.is_command:
            return None
        reply = event.text
        return lambda: _first_taken(last.text, reply)

    def _go_cheap(self) -> None:
        """A very long conversation: from here on only what the session did is followed;
        its loose ends are read again at the end, from where the newest of them begin.

        Only when it pays: the tail (its requests, from the rate of loose ends so far) must
        be under a third of the requests the whole conversation holds at this pace, else one
        pass reads it all anyway — shared with a helper, when more is left than was read.
        """
        assert self.loose is not None
        done = max(self.requests - 1, 1)
        rate = self.loose.inserts / done
        tail = int(min(max(_TAIL_FACTOR * POOL_MAX / max(rate, 1e-3), _TAIL_MIN), _TAIL_MAX))
        read = max(self.stats.offset - self.began_at, 1)
        expected = done * (self.size - self.began_at) / read  # requests in all of it, at this pace
        if tail * 3 > expected:
            if self.size - self.stats.offset > read:  # more left than read: worth a helper
                self._go_on_in_helper()
            return
        self.tail = deque([(self.stats.offset, self.stats.line)], maxlen=tail)
        self.switched_at = self.stats.offset
        self.early, self.loose = self.loose, None
        # The tail is read afresh: what it weighs is what the part read so far left open.
        self.carried = self.early.still_open(self.carried)
        # The tail is read by a helper on the other core while this pass goes on, from a
        # guess of where it begins with room to spare (see `_tail_in_helper`).
        guess = self.size - int(tail * read / done * _GUESS_MARGIN)
        if self.path is not None and guess > self.switched_at and _cores() > 1:
            path, size, carried = self.path, self.size, self.carried
            self.helper = Forked(lambda: _tail_in_helper(path, guess, size, tail, carried))

    def _go_on_in_helper(self) -> None:
        """Reading the tail again would read most of the conversation: one pass reads it,
        and with a second core it is shared. A forked helper goes on reading the loose ends
        from here, with what was read so far (the fork's copy of it), while this pass
        follows only what the session did; each reads the rest, doing part of the work."""
        if self.path is None or _cores() < 2:
            return
        start, line = self.stats.offset, self.stats.line
        early, path = self.loose, self.path
        assert early is not None
        helper = Forked(lambda: (start, *map(_frozen_all, _go_on(early, path, start, line))))
        if helper.pid == 0:
            return  # no fork: one pass, as without a second core
        self.helper = helper
        self.early, self.loose = early, None
        self.handed_on = (start, line)

    def close_helper(self) -> None:
        if self.helper is not None:
            self.helper.close()
            self.helper = None

    def _helper_tail(
        self, path: Path, start: int
    ) -> tuple[list[Candidate], list[Candidate]] | None:
        """The helper's reading of the tail from `start` (or of the rest, going on from
        there), when it began there and read what this pass read (the file has not grown
        since); None: read it here."""
        helper, self.helper = self.helper, None
        if helper is None:
            return None
        try:
            found = helper.result()
        finally:
            helper.close()
        try:
            unchanged = path.stat().st_size == self.size
        except OSError:
            unchanged = False
        if not (unchanged and isinstance(found, tuple) and len(found) == 3 and found[0] == start):
            return None
        shift = self.tail[0][1] - 1 if self.tail else 0
        try:
            return _thawed(found[1], shift), _thawed(found[2], shift)
        except (TypeError, ValueError):
            return None

    def finish(self, path: Path, stats: ReadStats) -> TranscriptFacts:
        loose = self.loose
        if loose is None and self.handed_on is not None and self.early is not None:
            start, first_line = self.handed_on
            read = self._helper_tail(path, start) or _go_on(self.early, path, start, first_line)
        elif loose is None and self.tail is not None and self.early is not None:
            start, first_line = self.tail[0]
            if start == self.switched_at:
                # The requests kept reach back to the switch: go on.
                read = _go_on(self.early, path, start, first_line)
            else:
                read = self._helper_tail(path, start) or _read_tail(
                    path, start, first_line, carried=self.carried
                )
        else:
            read = loose.finish() if loose is not None else ([], [])
        self.close_helper()
        pool, settled = read
        pending = [t for t in self.tools.pending() if not self._reported_done(t)]
        tasks = [
            loose_end(t.text, UNFINISHED, _task_why(t), line=t.line, rule="task-list")
            for t in pending
        ]
        plan = _plan_exit(self.exit_plan) if self.exit_plan is not None else None
        unfinished = self.turns.unfinished(self._changes())
        if plan is not None and unfinished is not None:
            # Approved with "clear context", the plan is the next session's work (issue 20)
            # and the request it answers is still to do: not a task interrupted, but open.
            # (Refused, the transcript reads the same, and the request is open too.)
            unfinished = replace(unfinished, why=_PLANNED)
        latest = unfinished is not None and unfinished.seq > self.tools.task_seq
        if self.thread_goal is not None and self.thread_goal[1] != "complete":
            # The goal the user set the session, not met: the work in hand.
            objective, status, ts, line, reason = self.thread_goal
            why = f"its /goal, {_GOAL_STATUS.get(status, status)}"
            why = f"{why}: {clip(reason, 160)}" if reason else why
            tasks.insert(0, loose_end(objective, UNFINISHED, why, ts, line, "goal"))
        if unfinished is not None:
            if unfinished.stopped is not None:  # said once: in the request it stopped
                pool = [c for c in pool if not _same_sentence(c.text, unfinished.stopped)]
            why = f"the last request; {unfinished.why}"
            request = loose_end(unfinished.text, UNFINISHED, why, unfinished.ts, unfinished.line,
                                "unfinished")  # fmt: skip
            tasks = [request, *tasks] if latest else [*tasks, request]
        return TranscriptFacts(
            path=str(path),
            session_id=self.session_id,
            cwd=self.cwd,
            first_user_request=self.first_request,
            goal=self.turns.goal([redact(c) for c in self.tools.commits]),
            goal_guessed=self.turns.guessed(),
            started=parse_ts(self.started),
            written_files=self.tools.files(),
            written_weights=self.tools.weights(),
            pending_tasks=pending,
            unfinished=unfinished,
            unfinished_is_latest=latest,
            candidates=dated(
                merge_near_duplicates(tasks + pool), self.started, self.last_request_ts
            ),
            last_request=clip(redact(self.last_request[:4000]), _STOPPED_CHARS)
            if self.last_request
            else None,
            last_reply=_last_paragraphs(self.final_text) if self.final_text else None,
            recap=clip(redact(recap_text(self.recap)), _STOPPED_CHARS) if self.recap else None,
            plan=plan,
            settled=settled,
            stats=stats,
        )


# The helper's guess at where the tail begins: this much more room than the pace of the
# requests so far says it needs.
_GUESS_MARGIN = 1.5


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _read_into(
    loose: _Loose,
    path: Path,
    start: int,
    first_line: int,
    stop: int | None = None,
    *,
    read_first: bool = True,
) -> None:
    """Feed `loose` the events from `start` on; not the user's message there, unless
    `read_first` (going on from where it switched, it has read that message)."""
    for event in iter_events(path, loose.stats, wanted_results=loose.tools.watched,
                             start=start, first_line=first_line, stop=stop):  # fmt: skip
        if not read_first and isinstance(event, UserText) and loose.stats.line == first_line:
            read_first = True
            continue
        loose.feed(event)


def _go_on(
    loose: _Loose, path: Path, start: int, first_line: int
) -> tuple[list[Candidate], list[Candidate]]:
    """The loose ends `loose` holds and those of the rest of the file, read from the switch
    at `start` (after the user's message it switched on, which it has read already)."""
    loose.stats = ReadStats()
    _read_into(loose, path, start, first_line, read_first=False)
    return loose.finish()


def _read_tail(
    path: Path,
    start: int,
    first_line: int,
    stop: int | None = None,
    carried: tuple[Candidate, ...] = (),
) -> tuple[list[Candidate], list[Candidate]]:
    """The loose ends of the conversation's tail, from the line at `start` on."""
    loose = _Loose(ToolState(set(), files=False), ReadStats(), carried)
    _read_into(loose, path, start, first_line, stop)
    return loose.finish()


def _first_taken(closing: str, reply: str) -> str | None:
    """The first question of `closing` that `reply` answers, as `Loose._close_turn` settles
    a turn (`asks.takes`)."""
    if waits(reply):
        return None
    here = asks(closing)
    offer = closing_offer(here)
    return next((ask.text for ask in here if takes(ask, reply, offer)), None)


def _tail_in_helper(
    path: Path, guess: int, size: int, tail: int, carried: tuple[Candidate, ...] = ()
) -> object:
    """In the helper: where the newest `tail` requests of the first `size` bytes begin, found
    from `guess` on the way the pass finds them, and the loose ends read from there — lines
    counted from 1 at that start. None when fewer than `tail` requests follow the guess."""
    start = _tail_start(path, line_start(path, guess), size, tail)
    if start is None:
        return None
    pool, settled = _read_tail(path, start, 1, size, carried)
    return start, _frozen_all(pool), _frozen_all(settled)


def _tail_start(path: Path, begin: int, size: int, tail: int) -> int | None:
    """Where the newest `tail` requests of [begin, size) begin, counted as the pass counts
    them (`_Sweep.feed`, `_Sweep._user`): a message typed, not a command, after the last
    /clear; None when fewer follow `begin`, or a /clear began a conversation there. Only
    the requests are followed (not the tools, the turns): the helper's part of its work
    the parent waits on. A count that differs from the pass's only costs time: the parent
    uses the helper's reading when it began where the pass says the tail begins."""
    stats = ReadStats()
    starts: deque[int] = deque(maxlen=tail)
    clear_pending = False
    for event in iter_events(path, stats, wanted_results=set(), start=begin, stop=size):
        if isinstance(event, ClearSplit):
            clear_pending = True
        elif clear_pending and isinstance(event, (UserText, AssistantText, ToolCall)):
            return None  # the pass begins another conversation here: its tail is not this
        elif isinstance(event, UserText) and not (event.is_command or is_own_command(event)):
            starts.append(stats.offset)
    return starts[0] if len(starts) == tail else None


def _frozen(c: Candidate) -> tuple[object, ...]:
    return (c.text, c.type, c.why, c.ts, c.full, c.line, c.rule)


def _frozen_all(found: list[Candidate]) -> list[tuple[object, ...]]:
    return [_frozen(c) for c in found]


def _thawed(rows: object, shift: int) -> list[Candidate]:
    if not isinstance(rows, list):
        raise TypeError("not a list of candidates")
    found = []
    for text, kind, why, ts, full, line, rule in rows:
        line = line + shift if isinstance(line, int) else None
        found.append(Candidate(text, kind, why, ts, full=full, line=line, rule=rule))
    return found


_STOPPED_CHARS = 400
# Where a `/goal` stands, said for a reader ("complete" is not open).
_GOAL_STATUS = {
    "active": "not met yet",
    "paused": "paused",
    "blocked": "blocked",
    "usage_limited": "stopped at the usage limit",
    "budget_limited": "stopped at its token budget",
}
_PLANNED = "a plan for it was shown for approval, not carried out yet"
_PLAN_CHARS = 6000  # of the plan's text kept in the facts (the doc clips it to its cap)


def _plan_exit(call: ToolCall) -> PlanExit | None:
    plan = call.input.get("plan")
    if not isinstance(plan, str) or not plan.strip():
        return None
    path = call.input.get("planFilePath")
    return PlanExit(
        title=plan_title(plan),
        path=path if isinstance(path, str) and path else None,
        text=redact(plan.strip()[:_PLAN_CHARS]),
    )


def _last_paragraphs(text: str) -> str | None:
    """The last paragraphs of prose in `text` (code blocks and tables left out), redacted:
    as many whole paragraphs from the end as fit in `_STOPPED_CHARS` ("… " between them) —
    the last one alone, clipped, when it does not fit by itself. What a closing text says
    before its last paragraph ("The Windows build was not tried.", then "Want me to open the
    PR?") is as much where the work stopped."""
    body = _FENCE.sub("\n\n", text[-16_000:])
    kept: list[str] = []
    room = _STOPPED_CHARS
    for para in reversed(PARAGRAPH_BREAK.split(body)):
        lines = [ln for ln in para.splitlines() if ln.strip() and not ln.lstrip().startswith("|")]
        if not lines or sum(len(ln.split()) for ln in lines) < 3:
            continue
        said = redact(" ".join(ln.strip() for ln in lines))
        if kept and len(said) + 3 > room:
            break  # the paragraph before does not fit whole: the last ones are quoted
        kept.insert(0, said)
        room -= len(said) + 3
        if room <= 0:
            break
    return clip(" … ".join(kept), _STOPPED_CHARS) if kept else None


def _same_sentence(listed: str, sentence: str) -> bool:
    """Is `listed` (a candidate's text, perhaps clipped) this sentence?"""
    listed = listed.rstrip("…").rstrip()
    return len(listed) >= 12 and sentence.startswith(listed)


def _task_why(task: PendingTask) -> str:
    where = "the plan" if task.source == "update_plan" else "the task list"
    state = "in progress" if task.status == "in_progress" else "still pending"
    return f"{state} in {where}"

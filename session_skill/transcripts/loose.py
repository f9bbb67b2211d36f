"""The loose ends of one conversation, for `scan`'s pass: questions the user never answered,
things put off for later, side ideas — and the evidence later in the session that settles
them. Which sentences count is decided in `prose` and `phrasing`, whether one landed in
`landed`.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from session_skill.transcripts.candidates import (
    DEFERRED,
    PRIORITY,
    UNANSWERED,
    Candidate,
)
from session_skill.transcripts.landed import Ledger, content_stems, settles, stem, subject
from session_skill.transcripts.phrasing import ANCHOR_FORMS, DONE, DONE_WORDS, TRIGGERS, UNDONE
from session_skill.transcripts.prose import (
    WORD,
    answers,
    classify,
    clip,
    final_question,
    listed_items,
    marked_sentences,
    redact,
    still_open,
)
from session_skill.transcripts.prose import _units as sentences
from session_skill.transcripts.reader import (
    AssistantText,
    ClearSplit,
    SessionMeta,
    ToolCall,
    ToolResult,
    UserText,
)
from session_skill.transcripts.toolcalls import ToolState
from session_skill.transcripts.turns import is_own_command

_SCAN_CHARS = 16_000
# Loose ends kept during the pass (newest win); bounds memory on a huge transcript.
POOL_MAX = 200
_SETTLED_MAX = 50


def loose_end(text: str, kind: str, why: str, ts: str | None = None) -> Candidate:
    """A candidate shown clipped, its whole text kept in `full` (for `sweep --park`)."""
    return Candidate(clip(text), kind, why, ts, full=text)


def parse_ts(ts: str | None) -> datetime | None:
    """A transcript timestamp (`2026-11-29T14:02:00.123Z`) as an aware datetime, or None."""
    if not ts:
        return None
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _at(ts: str | None) -> str:
    """` at HH:MM` in local time, or "" when the timestamp is missing or odd."""
    moment = parse_ts(ts)
    if moment is None:
        return ""
    # The local offset, looked up once an hour of the transcript (it changes with DST).
    hour = ts[:13] if ts else ""
    offset = _OFFSETS.get(hour)
    if offset is None:
        offset = moment.astimezone().utcoffset() or timedelta(0)
        if len(_OFFSETS) > 4096:
            _OFFSETS.clear()
        _OFFSETS[hour] = offset
    return f" at {moment.astimezone(timezone.utc) + offset:%H:%M}"


_OFFSETS: dict[str, timedelta] = {}


class Loose:
    """The loose ends of one conversation: questions left open, things put off, side
    ideas; and the evidence, later in the session, that settles them."""

    def __init__(self, tools: ToolState) -> None:
        # Its own view of the tool calls: questions put to the user, and what the calls
        # report done (completed tasks, commits), read alongside the messages.
        self.tools = tools
        self.clear_pending = False
        self._reset()

    def _reset(self) -> None:
        self.last_text: AssistantText | None = None
        self.pool: dict[str, Candidate] = {}
        self.ledger = Ledger()
        self.settled: list[Candidate] = []
        self.inserts = 0
        self.seq = 0
        self.cwd: str | None = None

    def feed(self, event: object) -> None:
        """Every event of the part read (the pass hands user texts to `user`)."""
        self.seq += 1
        if isinstance(event, AssistantText):
            if self.clear_pending:
                self._begin()
            self.last_text = event
            self._read(event.text, event.ts, "assistant")
        elif isinstance(event, UserText):
            self.user(event, is_own_command(event))
        elif isinstance(event, ToolCall):
            if self.clear_pending:
                self._begin()
            self.last_text = None
            self.tools.call(event, self.cwd, self.seq)
            self._tool_evidence()
        elif isinstance(event, ToolResult):
            self.tools.result(event)
            for text, ts in self.tools.dismissed:
                why = f"asked{_at(ts)}; the user dismissed the question"
                self._add(loose_end(redact(text), UNANSWERED, why, ts))
            self.tools.dismissed.clear()
        elif isinstance(event, ClearSplit):
            self._close_turn(None, "the user moved on")
            self.clear_pending = True
        elif isinstance(event, SessionMeta):
            self.cwd = event.cwd or self.cwd

    def _begin(self) -> None:
        """A new conversation after /clear: what the old one left is not this one's."""
        self.tools = ToolState(self.tools.watched)
        self._reset()
        self.clear_pending = False

    def user(self, event: UserText, own: bool) -> str | None:
        """A typed message: it settles the last turn; returns the question it answers."""
        if self.clear_pending:
            self._begin()
        taken = self._close_turn(event if not own else None, "the user moved on")
        if not (event.is_command or own):
            self._read(event.text, event.ts, "user")
        return taken

    def _read(self, text: str, ts: str | None, role: str) -> None:
        """Scan one message: the loose ends it raises, and those it shows have landed."""
        low = (text if len(text) <= _SCAN_CHARS else text[:_SCAN_CHARS]).lower()
        tokens = set(low.split())
        ledger = self.ledger
        ledger.messages += 1
        if not ledger.messages & 7:
            ledger.sample(tokens)
        found = TRIGGERS & tokens
        # A closing text reports work done with one of a few words; a user's message may
        # take up anything.
        if ledger.index and (role == "user" or (found and not DONE_WORDS.isdisjoint(found))):
            self._evidence(text, tokens, role)
        if not found:
            return
        words = found & ANCHOR_FORMS
        if not words:
            return
        for kind, sentence in marked_sentences(text, words, low):
            why = f"deferred{_at(ts)}" if kind == DEFERRED else f"raised{_at(ts)}; not pursued"
            self._add(loose_end(sentence, kind, why, ts))
        for kind, item, heading in listed_items(text, words, low):
            self._add(loose_end(item, kind, f"listed under “{heading}”{_at(ts)}", ts))

    def _close_turn(self, reply: UserText | None, ending: str) -> str | None:
        """Settle the turn that just ended: did its last text ask or leave something open?

        Returns the question when `reply` takes it up (so "yes" reads as its answer).
        """
        last, self.last_text = self.last_text, None
        if last is None:
            return None
        for sentence in still_open(last.text) if "still" in last.text else ():
            self._add(loose_end(sentence, DEFERRED, f"left open{_at(last.ts)}", last.ts))
        found = final_question(last.text)
        if found is None:
            return None
        question, options = found
        if reply is not None and not reply.is_command and answers(question, options, reply.text):
            return question
        why = f"asked{_at(last.ts)}; {ending}"
        self._add(loose_end(redact(question), UNANSWERED, why, last.ts))
        return None

    # ---------------------------------------------------------------- the pool

    def _add(self, candidate: Candidate) -> None:
        words = WORD.findall(candidate.text.lower())
        key = " ".join(words)
        held = self.pool.get(key)
        if held is not None:
            if PRIORITY[candidate.type] < PRIORITY[held.type]:
                self.pool[key] = candidate
            return
        self.inserts += 1
        self.pool[key] = candidate
        self.ledger.watch(key, subject(candidate.text, words))
        if len(self.pool) > POOL_MAX:
            oldest = next(iter(self.pool))
            del self.pool[oldest]
            self.ledger.forget(oldest)

    def _settle(self, key: str, how: str) -> None:
        candidate = self.pool.pop(key, None)
        self.ledger.forget(key)
        if candidate is not None:
            self.settled.append(Candidate(candidate.text, candidate.type, how, candidate.ts))
            del self.settled[:-_SETTLED_MAX]

    def _evidence(self, text: str, tokens: set[str], role: str) -> None:
        """Settle the loose ends this message shows done (assistant) or taken up (user)."""
        ledger = self.ledger
        keys = ledger.hits(tokens)
        if not keys:
            return
        # The whole message first, then its sentences.
        stems = {stem(t) for t in tokens}
        keys = {k for k in keys if settles(ledger.subjects[k], stems)}
        if not keys:
            return
        how = "done later" if role == "assistant" else "taken up"
        for sentence, _ in sentences(text[:_SCAN_CHARS]):
            if role == "assistant" and (not DONE.search(sentence) or UNDONE.search(sentence)):
                continue
            if classify(sentence) is not None:
                continue  # putting it off again, or another loose end, lands nothing
            self._match(sentence, keys, how)
            keys = {k for k in keys if k in self.pool}
            if not keys:
                return

    def _match(self, sentence: str, keys: set[str] | list[str], how: str) -> None:
        stems = content_stems(sentence)
        for key in list(keys):
            wanted = self.ledger.subjects.get(key)
            if wanted is not None and settles(wanted, stems):
                self._settle(key, f"{how}: {clip(redact(sentence), 100)}")

    def _tool_evidence(self) -> None:
        """Completed tasks and commit messages report work done, like a closing text."""
        done, self.tools.done_texts = self.tools.done_texts, []
        for text in done:
            if not self.ledger:
                return
            for line in text.splitlines():
                keys = list(self.ledger.hits(set(line.lower().split())))
                if keys:
                    self._match(line, keys, "done later")

    def finish(self) -> tuple[list[Candidate], list[Candidate]]:
        """The loose ends still open (oldest first) and those settled."""
        self._close_turn(None, "the session ended")
        for text, ts in self.tools.questions.values():
            why = f"asked{_at(ts)}; the session ended"
            self._add(loose_end(redact(text), UNANSWERED, why, ts))
        return sorted(self.pool.values(), key=lambda c: c.ts or "~"), list(self.settled)

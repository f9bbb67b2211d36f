"""The loose ends of one conversation, for `scan`'s pass, and the evidence later in the
session that settles them.

Evidence over phrase lists: what a session leaves open is mostly said where it stops. So the
closing text of every turn is read for what it asks the user (`asks`: a question anywhere in
it, an offer) and whether the user's next message took that up, for the caveats of its
summary and the work it puts off (`ending`), and — the session's last closing text only —
for side ideas ("we could also …"); a "Next steps" list is read in any text of the
assistant's. Elsewhere the assistant's "for now" or "later" is mostly narration of the next
step, so it is not read there; the user's deferrals are read wherever they say them (their
side ideas are requests, not loose ends). Whatever the session later does — a
commit, a completed task, a "done" sentence naming it, the user taking it up — settles a
loose end (`landed`). What the assistant put off or listed in passing long ago and never
raised again is dropped at the end (`LIST_TURNS`), and so are the caveats of all but the
last closing texts (`CAVEAT_TURNS`): the session has mostly dealt with them or let them go
since. A list under a lead that says what is left ("Still open:", "Loose ends:") says so in
so many words: it stands until something settles it (`OPEN_LIST_TURNS`). The
plan the session followed names its own checks: a verification step with a command no shell
call ever ran is left open (`plancheck`). Every candidate keeps the transcript line it came
from.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from itertools import pairwise

from session_skill.records import replace
from session_skill.transcripts.abroad import puts_off
from session_skill.transcripts.anchors import ANCHOR_FORMS, DONE_WORDS, TRIGGERS
from session_skill.transcripts.asks import Ask, asked_for, asks, closing_offer, takes, waits
from session_skill.transcripts.candidates import (
    DEFERRED,
    DIVERGING,
    PRIORITY,
    UNANSWERED,
    UNFINISHED,
    Candidate,
)
from session_skill.transcripts.ending import (
    AS_THEY_SAID,
    caveats,
    inline_lists,
    open_lists,
    ticked,
    unticked,
)
from session_skill.transcripts.events import WRITE_TOOLS
from session_skill.transcripts.landed import (
    GENERIC_STEMS,
    IRREGULAR,
    Ledger,
    content_stems,
    might_settle,
    settles,
    stem,
    subject,
)
from session_skill.transcripts.lazyre import Lazy
from session_skill.transcripts.phrasing import DONE, STILL_OPEN, UNDONE
from session_skill.transcripts.plancheck import checks
from session_skill.transcripts.prose import (
    WORD,
    classify,
    clip,
    deferred_clause,
    is_pasted_line,
    listed_items,
    marked_sentences,
    redact,
    with_next_clause,
)
from session_skill.transcripts.prose import _units as sentences
from session_skill.transcripts.reader import (
    AssistantText,
    ClearSplit,
    PatchApplied,
    ReadStats,
    SessionMeta,
    ToolCall,
    ToolResult,
    UserText,
)
from session_skill.transcripts.toolcalls import ToolState
from session_skill.transcripts.turns import (
    GO_AHEAD,
    answers_own,
    implements_plan,
    is_own_command,
    is_plan_request,
    proposed_plan,
)

_SCAN_CHARS = 16_000
# The caveats of how many of the last closing texts are kept (None: all of them).
CAVEAT_TURNS: int | None = 2
# The assistant's deferrals, the lists it offers ("If you want, I can: …") and those under a
# "Next steps" or "Remaining" heading (`prose.listed_items`): of how many of the last turns
# they are kept (None: all). Measured on the train split: the right ones came from the last
# six turns, and from 6 to 16 turns back the result is the same (all kept, they add wrong
# candidates); the user's own deferrals are kept.
LIST_TURNS: int | None = 10
# …and its lists under a lead that says what is left ("Still open:", "Loose ends:", "What's
# left:"; `ending.open_lists`): all, until the work or the user settles them. On the train
# split the 12 such items said 13 to 37 turns before the end and never settled are open by
# the second key, all 12, and by the first key 7 (5 borderline, none answered); kept 10
# turns, they were let go.
OPEN_LIST_TURNS: int | None = None
# Questions carried over replies that ask back ("is 1 really a bug?"): at most this many.
_CARRIED = 4
# A reply that takes up a whole list of the assistant's: "do all 3", "go ahead with all
# three", "yes, do them", "both please"…
_TAKES_UP_ALL = Lazy(
    r"""(?:^|[,.;!]\s*|\band\s+)(?:(?:yes|yeah|yep|yup|ok(?:ay)?|sure|great|cool|perfect|nice|please
        |pls|sounds\s+good|lgtm|go|alright)[,.!\s]+)*
      (?:(?:go\s+ahead|do|proceed|implement|tackle|fix|handle|let's\s+do|let's\s+go|make)\b
          [^.?!\n]{0,30}?\b(?:all|both|them|those|these|everything|the\s+(?:list|rest|lot))
          (?:\s+of\s+(?:them|those|these|it)|\s+(?:two|three|four|five|\d))?(?:\s+please)?
          \s*(?:[.,;!]|$)
        | ^\W*(?:(?:yes|yeah|yep|ok(?:ay)?|sure|go)[,.!\s]+)*(?:all|both)(?:\s+of\s+(?:them|those
          |these|it)|\s+(?:two|three|four|five|\d))?(?:\s+please)?\W*$)""",
    re.IGNORECASE | re.VERBOSE,
)
# …or the items it names by number: "do 1 2 and 4", "fix 1 and 3 on the branch", "yes to
# 1+2", "let's do 1", "convert 2 and 3 too" — each the item numbered so in the list it
# answers, when one numbered list of that text holds it.
_NUMBERS = r"\#?([1-9](?:\s*(?:,\s*(?:and\s+)?|and\s+|&\s*|\+\s*|\s)\s*\#?[1-9])*)(?![\w%/:-]|\.\d)"
_TAKES_UP_NUMBERS = Lazy(
    rf"""(?:^|[.;!]\s+)\W*(?:(?:yes|yeah|yep|ok(?:ay)?|sure|great|cool|perfect|nice|alright
        |go)[,.!\s]+)*
      (?:(?:let's\s+|please\s+|pls\s+)?(?:do|fix|address|handle|implement|tackle|apply|take
          |convert|go\s+(?:ahead\s+)?with|yes\s+to)\s+(?:(?:options?|items?|points?|numbers?)\s+)?
          {_NUMBERS}
        | ^\W*(?:(?:yes|yeah|yep|ok(?:ay)?|sure|go)[,.!\s]+)*(?:(?:options?|items?|points?)\s+)?
          {_NUMBERS}\s*(?:please|pls|too|only|then)?\W*$)""",
    re.IGNORECASE | re.VERBOSE,
)
_NUMBERED = Lazy(r"^\s*(?:[-*+]\s+)?\**([1-9])[.)]\s+(.+)$", re.MULTILINE)
# The user's words that open on a step handed to them, done: "merged. second PR took 5m",
# "deployed, looks fine", "ok ran it" — a past form first, not "added to …" (a place).
_DID_IT = Lazy(
    r"^\W*(?:(?:ok(?:ay)?|yes|yep|yeah|done|so)[,.!\s]+)*([a-z]+)\b(?!\s+(?:to|by|for|in)\b)",
    re.IGNORECASE,
)
# A deferral of what the sentence before names: "I'd hold that until …", "leave it for now".
_HOLDS_THAT = Lazy(
    r"""\b(?:hold|leave|park|defer|skip|save|keep|put|punt|shelve|table|do|revisit|tackle)
      \s+(?:off\s+)?(?:on\s+)?(?:that|it|this|those|them)\b(?!\s+(?:is|was|are|works?)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# …or, with a bare go-ahead ("great. go on"), the step the reply said it would take next:
# "Next I'll look at the CSV export.", "I'll do the docs next."
_MY_NEXT = Lazy(
    r"""\bnext,?\s+(?:i'll|we'll|i\s+will|we\s+will)\b
      | \b(?:i'll|i\s+will|we'll|we\s+will)\s+(?:\w+\s+){1,5}?next\W*$""",
    re.IGNORECASE | re.VERBOSE,
)
# The user taking a step on themselves: "ill push and open the pr myself", "i'll kick off
# the base run on the cluster tonight", "i'll send them to the translation agency".
_MINE_TOKENS = frozenset({"i'll", "ill", "will", "going"})
_MINE_WORDS = Lazy(r"\b(?:i'll|ill|i\s+will|i'm\s+going\s+to)\s", re.IGNORECASE)
_MINE = Lazy(
    r"""\b(?:i'll|ill|i\s+will|i'm\s+going\s+to)\s+(?:just\s+|then\s+|also\s+)?
      (?:(?:send|ask|ping|email|message|tell|talk\s+to|check\s+with|kick\s+off|schedule|file
          |forward|loop\s+in|raise)\b(?!\s+(?:you|u)\b)  # not "I'll tell you what I saw"
        | (?:do|handle|push|merge|deploy|open|run|start|measure|test|review|write|update|fix
          |rotate|renew|regenerate|take\s+care\s+of|look\s+at|deal\s+with|bump|set|raise
          |lower|increase|change|add)\b[^.?!\n]{0,80}?
          \b(?:myself|manually|by\s+hand|tonight|tomorrow|later|on\s+my\s+(?:end|side)|there
          |this\s+(?:week|afternoon|evening)|after\s+(?:lunch|the\s+meeting))\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# What a closing text leaves open in passing, which the user's reply can take up by name.
_SAID_BACK = frozenset({"deferral", "caveat"})
_LISTS = frozenset({"listed", "open-list", "deferral", "caveat"})
_WRITING = frozenset({*WRITE_TOOLS, "apply_patch"})
# Loose ends kept during the pass (newest win); bounds memory on a huge transcript.
POOL_MAX = 200
_SETTLED_MAX = 50


def loose_end(
    text: str,
    kind: str,
    why: str,
    ts: str | None = None,
    line: int | None = None,
    rule: str = "",
) -> Candidate:
    """A candidate shown clipped, its whole text kept in `full` (for `sweep --park`), with
    the transcript line it came from and the rule that took it."""
    return Candidate(clip(text), kind, why, ts, full=text, line=line or None, rule=rule)


# "maybe we do that later..but": dots typed as a separator, with no space after them.
_ELLIPSIS = Lazy(r"\.{2,}(?=\w)")
# A sentence typed in lower case ("nice. let's leave no_std for later. bump the version"):
# its end, unless the word before the dot is an abbreviation or a letter ("e.g. the login").
_LOWER_END = Lazy(r"(?<=\S)([.!?])([ \t]+)(?=[a-zà-öø-ÿα-ωа-яё])")  # (and other scripts')
_ABBREVIATIONS = frozenset(
    "e.g eg i.e ie etc vs cf approx incl esp resp no nr fig ex al min max mr mrs ms dr st".split()
)
_SHORT = 4  # words: shorter is not read as a sentence of its own (`prose._is_prose`)


def _lower_case_lines(text: str) -> str:
    """`text` with a line for each sentence typed in lower case, where that sentence and the
    one after it are both long enough to be read ("hsts later. run it on web1 first" stays
    one: "hsts later." alone says too little to be read). Nothing else of it changes."""
    cuts = [0]
    for end in _LOWER_END.finditer(text):
        before = text[cuts[-1] : end.start()].split()
        word = before[-1].lower().lstrip("(\"'") if before else ""
        if end.group(1) == "." and (len(word) <= 1 or word in _ABBREVIATIONS):
            continue
        cuts.append(end.end(1))
    if len(cuts) == 1:
        return text
    cuts.append(len(text))
    lines = [text[: cuts[1]]]
    for start, stop in pairwise(cuts[1:]):
        piece = text[start:stop]
        if len(lines[-1].split()) < _SHORT or len(piece.split()) < _SHORT:
            lines[-1] += piece
        else:
            lines.append(piece.lstrip(" \t"))
    return "\n".join(lines)


def _pool_key(text: str) -> str:
    """A loose end's key in the pool: its words, lowercased (`Loose._add`)."""
    return " ".join(WORD.findall(text.lower()))


def _as_typed(sentence: str, typed: str | None) -> str:
    """`sentence`, read from a message whose dots ("later..but") were spaced out to split
    it, as the user typed it (redacted): what is parked keeps their words."""
    if typed is None or (". " not in sentence and not sentence.endswith(".")):
        return sentence
    pattern = re.escape(sentence).replace(re.escape(". "), r"(?:\.\ |\.{2,})")
    if sentence.endswith("."):
        pattern = pattern[: -len(re.escape("."))] + r"\.+"  # "later..": a line of its own
    found = re.search(pattern, redact(typed))
    return found.group() if found else sentence


def _sentence_before(text: str, sentence: str) -> str | None:
    """The sentence of `text` right before `sentence` (as `marked_sentences` gives it,
    redacted), when it names something."""
    before = None
    for unit, _ in sentences(text):
        said = redact(unit)
        if said == sentence or sentence in said:
            return before if before and subject(before) else None
        before = said
    return None


def _typed(text: str) -> str:
    """A user's message without the lines they pasted (a log, a prompt, a command's output):
    "warning: … not yet supported" in a pasted log is not the user putting work off."""
    if "\n" not in text:
        return text
    return "\n".join(line for line in text.splitlines() if not is_pasted_line(line))


def parse_ts(ts: str | None) -> datetime | None:
    """A transcript timestamp (`2026-11-29T14:02:00.123Z`) as an aware datetime, or None."""
    if not ts:
        return None
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _local(ts: str | None) -> datetime | None:
    """A transcript timestamp in local time (as a naive datetime), or None."""
    moment = parse_ts(ts)
    if moment is None or ts is None:
        return None
    # The local offset, looked up once an hour of the transcript (it changes with DST).
    hour = ts[:13]
    offset = _OFFSETS.get(hour)
    if offset is None:
        offset = moment.astimezone().utcoffset() or timedelta(0)
        if len(_OFFSETS) > 4096:
            _OFFSETS.clear()
        _OFFSETS[hour] = offset
    return (moment.astimezone(timezone.utc) + offset).replace(tzinfo=None)


def _at(ts: str | None) -> str:
    """` at HH:MM` in local time, or "" when the timestamp is missing or odd."""
    return _clock(_local(ts))


def _clock(moment: datetime | None) -> str:
    return "" if moment is None else f" at {moment:%H:%M}"


def dated(candidates: list[Candidate], *moments: str | None) -> list[Candidate]:
    """`candidates`, each "at HH:MM" of theirs naming its day too ("deferred on 2026-12-05
    at 14:02") when they and `moments` (when the session began, its last request) span more
    than one day: "at 14:02" alone reads as today's."""
    times = [_local(c.ts) for c in candidates]
    days = {m.date() for m in (*map(_local, moments), *times) if m}
    if len(days) < 2:
        return candidates
    out = []
    for c, moment in zip(candidates, times, strict=True):
        said = _clock(moment)
        if said and said in c.why:
            c = replace(c, why=c.why.replace(said, f" on {moment:%Y-%m-%d}{said}", 1))
        out.append(c)
    return out


_OFFSETS: dict[str, timedelta] = {}


# What a deferred clause may name only by pointing at the rest of its sentence ("the rest
# later", "the others next week"): no subject that later work could be weighed against.
_POINTERS = frozenset({"rest", "remain", "remaind", "other", "one", "else"})


class Loose:
    """The loose ends of one conversation: questions left open, things put off, side
    ideas; and the evidence, later in the session, that settles them."""

    def __init__(
        self,
        tools: ToolState,
        stats: ReadStats | None = None,
        carried: tuple[Candidate, ...] = (),
    ) -> None:
        # Its own view of the tool calls: questions put to the user, and what the calls
        # report done (completed tasks, commits), read alongside the messages.
        self.tools = tools
        # The reader's: `line` is the line whose events are being handed out.
        self.stats = stats if stats is not None else ReadStats()
        self.clear_pending = False
        self._typed_as: str | None = None  # the user's message as typed, while it is read
        self._reply_to: str | None = None  # the question the message being read answers
        self._reset()
        # The loose ends of the handover this session carried on (`commands.sweep.carried`):
        # open from the start, settled as any other is, never let go for their age.
        for candidate in carried:
            self._add(candidate)
        self.inserts = 0  # the pace of the session's own (a long one's tail is sized by it)

    def _reset(self) -> None:
        # The current turn's closing text (text, ts, line): its last text with no tool call
        # after it, or None.
        self.closing: tuple[str, str | None, int] | None = None
        # Our own command's turn (`/session recall`, `$session sweep`): what the model says
        # in it relays our output — a handover's Outstanding, the sweep's table — and is
        # none of the session's loose ends, nor evidence that any landed.
        self.own_turn = False
        self.pool: dict[str, Candidate] = {}
        self.ledger = Ledger()
        self.settled: list[Candidate] = []
        self.inserts = 0
        self.seq = 0
        self.cwd: str | None = None
        self.turns = 0  # closing texts read so far: each caveat and list remembers its turn
        # (key, "caveat" | "list" | "open") -> the turn the assistant said it in, for letting
        # old ones go
        self.said_in: dict[tuple[str, str], int] = {}
        # The last assistant text read, lowercased and split (`_read`): its caveats reuse them.
        self._words: tuple[str, str, set[str]] | None = None
        # The last plan a Codex reply proposed (text, line, ts): its checks, once carried out.
        self.proposed: tuple[str, int | None, str | None] | None = None
        # The listed items the user took up whole ("do all 3"), and the file writes then:
        # the turn of work that follows settles them, if it changes files and finishes.
        self.taken_up: tuple[set[str], int] | None = None
        # File-writing calls, less those that failed or were rejected. A call counts when it
        # is made: the reader skips a result nobody waits for, and an error is always read.
        self.edits = 0
        self._writing: set[str] = set()  # the ids of file-writing calls awaiting their result
        self.list_line: int | None = None  # the line of the last item of `_LISTS` pooled
        self.caveat_line: int | None = None  # …and of the last caveat
        # Questions a reply asked back over, with where they were asked (`_close_turn`)
        self.carried: list[tuple[Ask, str | None, int]] = []
        # The closing text the user's last message answered, and whether nothing came after
        # that message (the session ends on it).
        self.last_closed: tuple[str, str | None, int] | None = None
        self.ended_on_user = False
        # The key of a deferral the user's last message said ("yeah agreed, not now"): the
        # reply's own deferral after it that says it back ("Virtualization is parked, as
        # agreed") names what is put off, and stands for it.
        self.user_put_off: str | None = None

    def feed(self, event: object) -> None:
        """Every event of the part read (the pass hands user texts to `user`)."""
        self.seq += 1
        if isinstance(event, AssistantText):
            if self.clear_pending:
                self._begin()
            self.ended_on_user = False
            if self.own_turn:
                self.closing = None
                return
            self.closing = (event.text, event.ts, self.stats.line)
            self._read(event.text, event.ts, "assistant")
        elif isinstance(event, UserText):
            self.user(event, is_own_command(event) or (self.own_turn and answers_own(event)))
        elif isinstance(event, ToolCall):
            if self.clear_pending:
                self._begin()
            if self.closing is not None:
                self._progress_list(*self.closing)
            self.closing = None
            self.ended_on_user = False
            if event.name in _WRITING:
                self.edits += 1
                if event.id is not None:
                    self._writing.add(event.id)
            self.tools.call(event, self.cwd, self.seq, self.stats.line)
            self._tool_evidence()
        elif isinstance(event, ToolResult):
            if self._writing and event.tool_use_id in self._writing:
                self._writing.discard(event.tool_use_id)
                self.edits -= event.is_error
            self.tools.result(event)
        elif isinstance(event, PatchApplied):
            # Codex says whether a patch applied — one sent through code mode's `exec` too,
            # which no writing call announced; its result, after this, is not counted again.
            if event.call_id in self._writing:
                self._writing.discard(event.call_id)
                self.edits -= not event.success
            else:
                self.edits += event.success
        elif isinstance(event, ClearSplit):
            self.clear_pending = True
        elif isinstance(event, SessionMeta):
            self.cwd = event.cwd or self.cwd

    def tokens_of(self, text: str) -> set[str] | None:
        """The split words of `text`, lowered, when it is the assistant text just read."""
        words = self._words
        return words[2] if words is not None and words[0] is text else None

    def _begin(self) -> None:
        """A new conversation after /clear: what the old one left is not this one's."""
        self.tools = ToolState(self.tools.watched, files=self.tools.follow_files)
        self._reset()
        self.clear_pending = False

    def user(self, event: UserText, own: bool) -> str | None:
        """A typed message: it settles the last turn; returns the question it answers."""
        if self.clear_pending:
            self._begin()
        if event.is_command and not own:
            return None  # /model, /compact…: not an answer, and the turn is not over
        answering = self.closing[2] if self.closing is not None else None
        taken = self._close_turn(None if own else event, ended=False)
        self.user_put_off = None
        self.own_turn = own
        self.ended_on_user = not (own or event.is_command)
        if not own:
            # AskUserQuestion calls the user rejected: a message of theirs answers them.
            self.tools.dismissed.clear()
        if not (event.is_command or own):
            if is_plan_request(event.text):
                self.tools.plan_checks = checks(event.text, self.stats.line or None, event.ts)
            elif self.proposed is not None and implements_plan(event.text):
                self.tools.plan_checks = checks(*self.proposed)  # Codex's plan, carried out
            if ".." in event.text:
                # Split where the dots are ("later..but"), but keep what they typed.
                self._typed_as = event.text
                text = _ELLIPSIS.sub(". ", event.text)
            else:
                text = event.text
            if ". " in text or "? " in text or "! " in text:
                # A line each for sentences typed in lower case: the deferral is
                # "let's leave no_std for later", not the whole message.
                text = _lower_case_lines(text)
            self._reply_to = taken
            self._read(_typed(text), event.ts, "user")
            self._typed_as = self._reply_to = None
            if answering is not None and answering in (self.list_line, self.caveat_line):
                self._taken_up_in_reply(text, answering)
            if taken is not None and len(text.split()) < 4:
                self._put_off(taken, event.text.strip(), event.ts)
        return taken

    def _put_off(self, asked: str, said: str, ts: str | None) -> None:
        """A reply of a few words that puts off what was asked ("not now, thanks", "maybe
        later" to "Want me to batch the lookups?"): too short to be read as a sentence of its
        own, it is shown after the question, and weighed against what the question names."""
        hit = classify(said)
        if hit is None or hit[1] != DEFERRED:
            return
        why = f"deferred{_at(ts)}"
        shown = f"{asked} — {redact(said)}"
        candidate = loose_end(shown, DEFERRED, why, ts, self.stats.line, "user-deferral")
        self._add(candidate, about=subject(asked))

    def _put_off_abroad(self, text: str, ts: str | None) -> None:
        """The sentences of a user's message in another language that put work off
        ("ретраи давай потом сделаем", "暗黑模式后面再说"), each pooled as it was typed."""
        for sentence, _ in sentences(text[:_SCAN_CHARS]):
            if puts_off(sentence.lower()):
                why = f"deferred{_at(ts)}"
                said = _as_typed(sentence, self._typed_as)
                candidate = loose_end(said, DEFERRED, why, ts, self.stats.line, "user-deferral")
                key = self._add(candidate)
                if key is not None:
                    self.user_put_off = key

    def _listed_just_before(self, sentence: str) -> bool:
        """Is the step the user takes on ("ok I'll ping Dana for approval") one the reply
        before already left open ("… needs approval from someone on the platform team")? It
        is listed there, once."""
        if self.last_closed is None:
            return False
        line = self.last_closed[2]
        own = subject(sentence).keys() - GENERIC_STEMS
        return bool(own) and any(
            c.line == line and 3 * len(own & subject(c.text).keys()) >= len(own)
            for c in self.pool.values()
        )  # a third of its words: "ping Dana for approval", not "the docs team" for "team"

    def _read(self, text: str, ts: str | None, role: str) -> None:
        """Scan one message: the loose ends it raises, and those it shows have landed."""
        if role == "assistant":
            for item, lead in open_lists(text):
                why = f"listed under “{lead}”{_at(ts)}"
                self._said(loose_end(item, DEFERRED, why, ts, self.stats.line, "open-list"), "open")
        low = (text if len(text) <= _SCAN_CHARS else text[:_SCAN_CHARS]).lower()
        tokens = set(low.split())
        if role == "assistant":
            self._words = (text, low, tokens)  # for its caveats, when it closes the turn
            if "[x]" in low or "✅" in text:
                for item in ticked(text):
                    how = f"ticked later: {clip(redact(item), 100)}"
                    if (done := _pool_key(item)) in self.pool:
                        self._settle(done, how)
                        continue
                    # The list shown again, its items said shorter or longer ("Modelo
                    # `Coupon` e `CouponRedemption` + migração", for "… no Prisma + migração").
                    for same in self._unticked_before(item):
                        self._settle(same, how)
            if "<proposed_plan>" in text:
                plan = proposed_plan(text)
                if plan is not None:
                    self.proposed = (plan, self.stats.line or None, ts)
        ledger = self.ledger
        ledger.messages += 1
        if not ledger.messages & 7:
            ledger.sample(tokens)
        found = TRIGGERS & tokens
        # A closing text reports work done with one of a few words; a user's message may
        # take up anything.
        if ledger.index and (role == "user" or (found and not DONE_WORDS.isdisjoint(found))):
            self._evidence(text, tokens, role)
        if role == "user" and not _MINE_TOKENS.isdisjoint(tokens) and _MINE_WORDS.search(low):
            # The user taking a step on themselves ("ill push and open the pr myself", "i'll
            # send them to the translation agency"): theirs to do, not the session's.
            for sentence, _ in sentences(text[:_SCAN_CHARS]):
                if _MINE.search(sentence) and not self._listed_just_before(sentence):
                    why = f"the user took it on{_at(ts)}"
                    said = _as_typed(sentence, self._typed_as)
                    self._add(loose_end(said, DEFERRED, why, ts, self.stats.line, "user-deferral"))
        if role == "user" and puts_off(low):
            self._put_off_abroad(text, ts)
        if not found:
            return
        words = found & ANCHOR_FORMS
        if not words:
            return
        line = self.stats.line
        if role == "user":
            # The user putting something off; their "another way?" is a request, not a side
            # idea left behind.
            for kind, sentence in marked_sentences(text, words, low):
                if kind == DEFERRED:
                    why = f"deferred{_at(ts)}"
                    said = _as_typed(sentence, self._typed_as)
                    # Shown as the clause that defers ("park the pagination idea", not ",
                    # fix the crash first" too), and weighed against later work by it: the
                    # work the rest of the sentence asks for lands nothing it puts off. A
                    # clause that only points at the rest ("set up i18n, …, the rest
                    # later") is shown in its sentence, and nothing is weighed against it.
                    # Pooled and parked as the user said it, whole.
                    shown = deferred_clause(sentence)
                    own = subject(shown) if shown != sentence else None
                    at = sentence.find(shown) if own == {} else -1
                    if at > 0:
                        # "…, park that for later": a clause that names nothing points
                        # back; shown and weighed with what it follows in the sentence.
                        shown = sentence[: at + len(shown)]
                        own = subject(shown)
                    elif at == 0 or (own is None and not subject(sentence)):
                        # It opens its sentence ("The export is off by one. Let's shelve
                        # this for now, …"): it points at the sentence before, or, with
                        # none, at what the clause after it names ("…, make a TODO note
                        # about fixing the pagination") — not past a "but" — or, in a
                        # reply, at what was asked ("Want me to add an xlsx export too?"
                        # — "park that for later"). Shown so, it is weighed as before,
                        # against nothing: what a pointer means is the reader's to judge.
                        before = _sentence_before(text, sentence)
                        then = None if before else with_next_clause(sentence, shown)
                        if then is not None and not subject(then):
                            shown, then = then, None  # "not now, thanks": names nothing
                        if before or then:
                            shown = f"{before} {shown}" if before else str(then)
                        elif self._reply_to is not None:
                            shown = f"{self._reply_to} — {shown}"
                        own = {} if subject(shown) else own
                    points = own is not None and bool(own) and own.keys() <= _POINTERS
                    candidate = loose_end(said, kind, why, ts, line, "user-deferral")
                    key = self._add(candidate, about={} if points else own)
                    if key is not None and own is not None and not points:
                        self.pool[key] = replace(self.pool[key], text=clip(shown))
                    if key is not None:
                        self.user_put_off = key
        for kind, item, heading in listed_items(text, words, low):
            why = f"listed under “{heading}”{_at(ts)}"
            candidate = loose_end(item, kind, why, ts, line, "listed")
            if role == "assistant":
                self._said(candidate)
            else:
                self._add(candidate)

    def _close_turn(self, reply: UserText | None, *, ended: bool) -> str | None:
        """Settle the turn that just ended: what did its closing text ask the user, and
        did `reply` take it up (none: the user ran our own command, or the session `ended`)?
        Returns the first ask it answers (so "yes" reads as its answer)."""
        closing, self.closing = self.closing, None
        carried, self.carried = self.carried, []
        if closing is None:
            if ended:
                self._unanswered(carried, ended)
            else:
                self.carried = carried
            return None
        text, ts, line = closing
        self.turns += 1
        self._work_on_list_done(text)
        taken: str | None = None
        # A reply that asks a question of its own, or for something to come first, answers
        # none: what was asked waits for the message after the answer to it.
        back = reply is not None and waits(reply.text)
        left: list[tuple[Ask, str | None, int]] = []
        here = asks(text)
        offer = closing_offer(here)  # the offer this text ends on ("yes" takes it alone)
        for ask, at, where in carried + [(ask, ts, line) for ask in here]:
            if back:
                self.carried.append((ask, at, where))
            elif reply is not None and takes(ask, reply.text, offer if where == line else None):
                taken = taken or ask.text
            else:
                left.append((ask, at, where))
        del self.carried[:-_CARRIED]
        self._unanswered(left, ended)
        words = self._words
        if words is not None and words[0] is text:
            found = caveats(text, ended, words[1], words[2])
        else:
            found = caveats(text, ideas=ended)
        if ended:
            self._closing_lists(text, ts, line)
        else:
            self.last_closed = (text, ts, line)
            # A task list's items left unticked wait, as a list's items do, for the work
            # (or the same list, ticked) to settle them.
            # (A progress list, some of it ticked: not a checklist handed over, a PR's
            # "Test plan", which the closing text that ends the session alone lists.)
            self._progress_list(text, ts, line)
        for sentence, kind in found:
            if kind == DIVERGING:
                why = f"raised in the closing summary{_at(ts)}; not pursued"
                self._add(loose_end(sentence, DIVERGING, why, ts, line, "idea"))
                continue
            if kind == DEFERRED:
                if taken is not None and reply is not None and self._took(taken, sentence, reply):
                    continue  # a choice put to the user, who took it up in their reply
                why = f"deferred{_at(ts)}"
                # "… so I'd hold that until …": what it puts off is what the sentence
                # before names, and the work that lands that lands this.
                before = _sentence_before(text, sentence) if _HOLDS_THAT.search(sentence) else None
                about = subject(before) if before else None
                self._said(loose_end(sentence, DEFERRED, why, ts, line, "deferral"), about=about)
                theirs, self.user_put_off = self.user_put_off, None
                if theirs is not None and AS_THEY_SAID.search(sentence):
                    # the user's "not now", which this names
                    self._settle(theirs, f"said back by the reply: {clip(redact(sentence), 100)}")
                continue
            why = f"left open in the summary{_at(ts)}"
            key = self._add(loose_end(sentence, DEFERRED, why, ts, line, "caveat"))
            if key is not None:
                self.said_in[key, "caveat"] = self.turns
                self.caveat_line = line
        if reply is not None:
            self._done_as_handed(reply.text, line)
        if (
            reply is not None
            and self.list_line == line  # this closing text listed or put something off
            and len(reply.text) <= 160
            and _TAKES_UP_ALL.search(reply.text)
        ):
            listed = {k for k, c in self.pool.items() if c.line == line and c.rule in _LISTS}
            if listed:
                self.taken_up = (listed, self.edits)
        elif reply is not None and self.list_line == line and len(reply.text) <= 160:
            picked = self._picked(text, line, reply.text) or self._next_taken(line, reply.text)
            if picked:
                self.taken_up = (picked, self.edits)
        return taken

    def _done_as_handed(self, reply: str, line: int) -> None:
        """Settle the caveats of this closing text that hand the user a step `reply` opens
        by saying they did: "Open a PR from it when you're ready; the cache only warms once
        it's merged" answered "merged. second PR after that took 5m10s"."""
        if self.caveat_line != line:
            return  # no caveat of this text pooled
        found = _DID_IT.match(reply)
        if found is None:
            return
        word = found[1].lower()
        if not (word.endswith("ed") or word in IRREGULAR):
            return
        verb = stem(word)
        if len(verb) < 3 or verb in GENERIC_STEMS:
            return
        for key, c in list(self.pool.items()):
            if c.line == line and c.rule == "caveat" and verb in content_stems(c.full or c.text):
                self._settle(key, f"taken up: {clip(redact(reply), 100)}")

    @staticmethod
    def _took(asked: str, sentence: str, reply: UserText) -> bool:
        """Did the user, answering `asked`, take up the choice a deferral of the same text
        (`sentence`) put to them? Only when what was asked is about what it put off — and
        not when the answer puts it off too, in its words ("yeah batching as a follow-up"):
        that agrees to the deferral."""
        named = subject(sentence).keys() - GENERIC_STEMS
        if not named & subject(asked).keys():
            return False
        if (classify(reply.text) or ("", ""))[1] != DEFERRED:
            return True
        return not named & (subject(reply.text).keys() - GENERIC_STEMS)

    def _picked(self, text: str, line: int, reply: str) -> set[str]:
        """The keys of this closing text's listed items that `reply` takes up by number
        ("do 1 2 and 4"): each one the item of that number in the text's numbered list. A
        number two lists of the text both use, or none, picks nothing."""
        found = _TAKES_UP_NUMBERS.search(reply)
        if found is None:
            return set()
        numbers = set(re.findall(r"[1-9]", found[1] or found[2]))
        at: dict[str, list[list[str]]] = {}
        for m in _NUMBERED.finditer(text):
            at.setdefault(m[1], []).append(WORD.findall(m[2].lower()))
        picked: set[str] = set()
        for key, c in self.pool.items():
            if c.line != line or c.rule not in _LISTS:
                continue
            # The item's words from its start (the last one perhaps clipped): `1.` the item.
            said = WORD.findall(c.text.lower())[:12]
            head = said[:-1] if c.text.endswith("…") else said
            for number in numbers:
                items = at.get(number, [])
                if head and len(items) == 1 and items[0][: len(head)] == head:
                    picked.add(key)
        return picked

    def _next_taken(self, line: int, reply: str) -> set[str]:
        """The keys of the steps this closing text said it would take next, when `reply` is
        a bare go-ahead ("great. go on"): the work after it is those steps."""
        if not GO_AHEAD.match(reply):
            return set()
        return {
            k
            for k, c in self.pool.items()
            if c.line == line and c.rule == "caveat" and _MY_NEXT.search(c.full or c.text)
        }

    def _unanswered(self, asked: list[tuple[Ask, str | None, int]], ended: bool) -> None:
        ending = "the session ended" if ended else "the user moved on"
        rule = "final-ask" if ended else "moved-on"
        for ask, ts, line in asked:
            why = f"asked{_at(ts)}; {ending}"
            said = ask.text
            if said.endswith(":") and ask.options:
                said = f"{said} {'; '.join(ask.options)}"  # "If you want, I can: 1. … 2. …"
            elif ask.about:  # "Which would you prefer? — Add a trigram index …; Move …"
                said = f"{said} — {'; '.join(clip(a, 70) for a in ask.about)}"
            self._add(loose_end(redact(said), UNANSWERED, why, ts, line, rule))

    def _unticked_before(self, item: str, line: int | None = None) -> list[str]:
        """The keys of the items left unticked in an earlier list (not the one on `line`)
        that are `item`, said shorter or longer: either names all the other names, and
        not only in words any item could use ("tests")."""
        said = subject(item).keys()
        found = []
        for key, c in self.pool.items():
            if c.rule == "unticked" and c.line != line:
                own = subject(c.text).keys()
                shared = said & own
                if shared in (said, own) and shared and not shared <= GENERIC_STEMS:
                    found.append(key)
        return found

    def _unticked(self, item: str, ts: str | None, line: int, said: bool = True) -> None:
        """Pool an item a task list leaves unticked; the same item left unticked in an
        earlier list ("Testes", now "Testes de concorrência: …") is this one, said again."""
        for key in self._unticked_before(item, line):
            self._let_go(key)
        why = f"left unticked in a task list{_at(ts)}"
        candidate = loose_end(item, UNFINISHED, why, ts, line, "unticked")
        if said:
            self._said(candidate)
        else:
            self._add(candidate)

    def _progress_list(self, text: str, ts: str | None, line: int) -> None:
        """A task list some of it ticked, in a text its turn closed on or went on from to
        call a tool: its unticked items wait for the work (or the list, ticked) to settle
        them."""
        boxes = unticked(text) if "[ ]" in text or not text.isascii() else ()
        for item in boxes if boxes and ticked(text) else ():
            self._unticked(item, ts, line)

    def _closing_lists(self, text: str, ts: str | None, line: int) -> None:
        """The session's last closing text — or the last before the user's unanswered last
        message: what it lists as left on one line ("Next up: step 6 — …, step 7 — …")
        stands like a list under such a lead…"""
        for item, lead in inline_lists(text):
            why = f"listed under “{lead}”{_at(ts)}"
            self._add(loose_end(item, DEFERRED, why, ts, line, "open-list"))
        # …and under the leads only the session's end reads ("Suggested next steps:").
        for item, lead in open_lists(text, ended=True):
            why = f"listed under “{lead}”{_at(ts)}"
            self._add(loose_end(item, DEFERRED, why, ts, line, "open-list"))
        # …and a task list's items left unticked ("- [ ] Run the e2e tests").
        for item in unticked(text):
            self._unticked(item, ts, line, said=False)

    def _work_on_list_done(self, closing: str) -> None:
        """The turn after the user took a list up whole ends: when it changed files and its
        closing text does not report a failure, the items were the work it did."""
        if self.taken_up is None:
            return
        keys, writes = self.taken_up
        self.taken_up = None
        if self.edits <= writes or STILL_OPEN.search(closing):
            return
        for key in keys:
            if key in self.pool:
                self._settle(
                    key, "done later: the user took the list up, and the work after it finished"
                )

    def _said(
        self, candidate: Candidate, kind: str = "list", about: dict[str, str] | None = None
    ) -> None:
        """Pool a loose end the assistant listed or put off, and remember the last turn it
        said so (the turn being read: `turns` counts the closed ones before it)."""
        self._add(candidate, about)
        key = _pool_key(candidate.text)
        if key in self.pool:
            self.said_in[key, kind] = self.turns + (self.closing is not None)

    # ---------------------------------------------------------------- the pool

    def _add(self, candidate: Candidate, about: dict[str, str] | None = None) -> str | None:
        """Pool a candidate; its key when it is new. Later work is weighed against `about`
        (its subject's stems), or against the subject of its text."""
        words = WORD.findall(candidate.text.lower())
        key = " ".join(words)
        held = self.pool.get(key)
        if held is not None:
            if PRIORITY[candidate.type] < PRIORITY[held.type]:
                self.pool[key] = candidate
            return None
        self.inserts += 1
        self.pool[key] = candidate
        if candidate.rule in _LISTS:
            self.list_line = candidate.line
        self.ledger.watch(key, subject(candidate.text, words) if about is None else about)
        if len(self.pool) > POOL_MAX:
            # The oldest goes, but not one the session began with (never let go for its age).
            oldest = next((k for k, c in self.pool.items() if c.rule != "carried"), key)
            self._let_go(oldest)
        return key

    def _let_go(self, key: str) -> Candidate | None:
        """Take a loose end out of the pool and the ledger; the candidate, if it was there."""
        self.ledger.forget(key)
        return self.pool.pop(key, None)

    def still_open(self, candidates: tuple[Candidate, ...]) -> tuple[Candidate, ...]:
        """Those of `candidates` (pooled when this began) it has not seen land."""
        return tuple(c for c in candidates if _pool_key(c.text) in self.pool)

    def _settle(self, key: str, how: str) -> None:
        candidate = self._let_go(key)
        if candidate is not None:
            self.settled.append(
                Candidate(candidate.text, candidate.type, how, candidate.ts, line=candidate.line)
            )
            del self.settled[:-_SETTLED_MAX]

    def _evidence(self, text: str, tokens: set[str], role: str) -> None:
        """Settle the loose ends this message shows done (assistant) or taken up (user)."""
        ledger = self.ledger
        # A path spelled whole ("`data/customers_dedup.csv`") names its parts too, and a name
        # in backticks ("Added `preload`:") names itself.
        parts = (
            {w for t in tokens if "/" in t or "`" in t for w in WORD.findall(t)}
            if "/" in text or "`" in text
            else None
        )
        keys = ledger.hits(tokens, parts)
        if not keys:
            return
        # The whole message first, then its sentences.
        stems = {stem(t) for t in tokens}
        if parts:
            stems.update(stem(w) for w in parts)
        keys = {k for k in keys if might_settle(ledger.subjects[k], stems)}
        if not keys:
            return
        how = "done later" if role == "assistant" else "taken up"
        for sentence, _ in sentences(text[:_SCAN_CHARS]):
            if role == "assistant":
                low = sentence.lower()
                if not DONE.search_lowered(sentence, low) or UNDONE.search_lowered(sentence, low):
                    continue
            if classify(sentence) is not None:
                continue  # putting it off again, or another loose end, lands nothing
            self._match(sentence, keys, how)
            keys = {k for k in keys if k in self.pool}
            if not keys:
                return

    def _taken_up_in_reply(self, text: str, line: int) -> None:
        """Settle what the closing text on `line`, which this message replies to, put off or
        left open, when the reply asks for it by name ("no do hsts now" to "HSTS isn't set on
        these vhosts; I'll leave that for later"; "do the alb side too" to "Haven't wired the
        ALB side"): the thing an order of the reply names, one distinctive word of the loose
        end's sentence or of what it is weighed against (not generic, not common in the
        session), is the user taking it up — or dismissing it ("keep json" to "I left it as
        indented JSON for now"). Either way it is no loose end. An order to take it on later,
        or their own ("will run it on staging tomorrow"), is not one."""
        ledger = self.ledger
        mine = {
            # distinctive words only: not those common in the session ("level" in a game's)
            key: {s for s in ledger.subjects.get(key, ()) if s in ledger.index}
            | {s for s, word in subject(c.text).items() if not ledger.common(word)}
            for key, c in self.pool.items()
            if c.line == line and c.rule in _SAID_BACK
        }
        if not mine:
            return
        for sentence, _ in sentences(text[:_SCAN_CHARS]):
            if classify(sentence) is not None or is_pasted_line(sentence):
                continue  # putting it off again, or a loose end of its own
            for named in asked_for(sentence):
                for key, words in mine.items():
                    if named in words and key in self.pool:
                        self._settle(key, f"taken up: {clip(redact(sentence), 100)}")

    def _match(self, sentence: str, keys: set[str] | list[str], how: str) -> None:
        stems = content_stems(sentence)
        hits = []
        for key in list(keys):
            wanted = self.ledger.subjects.get(key)
            if wanted is not None and settles(wanted, stems):
                hits.append((key, wanted <= stems))
        # "Migrated the /refund endpoint" names "Migrate /refund endpoint" whole: it does
        # not also settle "Migrate /payout endpoint", two of whose three words it holds.
        whole = any(named for _, named in hits)
        for key, named in hits:
            if named or not whole:
                self._settle(key, f"{how}: {clip(redact(sentence), 100)}")

    def _tool_evidence(self) -> None:
        """Completed tasks and commit messages report work done, like a closing text."""
        done, self.tools.done_texts = self.tools.done_texts, []
        for text in done:
            if not self.ledger:
                return
            for line in text.splitlines():
                low = line.lower()
                parts = set(WORD.findall(low)) if "/" in low else None
                keys = list(self.ledger.hits(set(low.split()), parts))
                if keys:
                    self._match(line, keys, "done later")

    def finish(self) -> tuple[list[Candidate], list[Candidate]]:
        """The loose ends still open (oldest first) and those settled."""
        if self.closing is None and self.last_closed is not None and self.ended_on_user:
            # The session ends on the user's message, unanswered: the reply before it is the
            # last word on the work's state.
            self._closing_lists(*self.last_closed)
        self._close_turn(None, ended=True)
        # A summary's caveats, lists and deferrals from long ago were most likely dealt with
        # since; those of the last few turns are what the session stopped on.
        keep = {"caveat": CAVEAT_TURNS, "list": LIST_TURNS, "open": OPEN_LIST_TURNS}
        for (key, kind), turn in self.said_in.items():
            turns = keep[kind]
            if turns is not None and turn <= self.turns - turns:
                self.pool.pop(key, None)
        for text, ts, line in self.tools.dismissed:
            why = f"asked{_at(ts)}; the user dismissed the question"
            self._add(loose_end(redact(text), UNANSWERED, why, ts, line, "dismissed"))
        for check in self.tools.plan_checks:
            why = f"a check of the plan followed{_at(check.ts)}; never run"
            step = redact(check.step)
            self._add(loose_end(step, UNFINISHED, why, check.ts, check.line, "plan-check"))
        for text, ts, line in self.tools.questions.values():
            why = f"asked{_at(ts)}; the session ended"
            self._add(loose_end(redact(text), UNANSWERED, why, ts, line, "ask-tool"))
        return sorted(self.pool.values(), key=lambda c: c.ts or "~"), list(self.settled)

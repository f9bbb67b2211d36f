"""What a transcript says is still open: one streaming pass for sweep and the dump brief.

`analyze` reads the file once (see `transcript.iter_events`) and keeps only small state:
the files written, the latest task list, the first real request, and a bounded pool of
loose ends — questions the user never answered, things put off for later, side ideas.
The loose-end heuristics favour precision: a table full of chit-chat teaches the user to
ignore the sweep, so a sentence is only taken when it carries an explicit marker.

Everything lifted from the transcript passes through `redact.redact` before it is kept.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from session_skill.redact import redact
from session_skill.transcript import (
    AssistantText,
    ClearSplit,
    ReadStats,
    SessionMeta,
    ToolCall,
    ToolResult,
    UserText,
    iter_events,
)

UNFINISHED = "Unfinished task"
UNANSWERED = "Unanswered question"
DEFERRED = "Deferred exploration"
DIVERGING = "Diverging idea"
CANDIDATE_TYPES = (UNFINISHED, UNANSWERED, DEFERRED, DIVERGING)
_PRIORITY = {kind: rank for rank, kind in enumerate(CANDIDATE_TYPES)}

CLIP_CHARS = 160
_REQUEST_CHARS = 1000
# Only the head of a long message is scanned: a pasted log is not where ideas live, and
# regexes over megabytes would dominate the pass.
_SCAN_CHARS = 16_000
# Loose ends kept during the pass (newest win); bounds memory on a huge transcript.
_POOL_MAX = 200

_WRITE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
_SHELL_TOOLS = frozenset(
    {"shell", "exec_command", "shell_command", "local_shell", "container.exec"}
)
_DONE = frozenset({"completed", "deleted", "cancelled", "canceled"})


@dataclass(frozen=True)
class Candidate:
    text: str
    type: str
    why: str
    ts: str | None = None


@dataclass(frozen=True)
class PendingTask:
    text: str
    status: str
    source: str  # "TodoWrite", "TaskCreate" or "update_plan"


@dataclass
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
    # When the conversation began (its first timestamped event; after a /clear, the new one).
    started: datetime | None = None
    written_files: list[str] = field(default_factory=list)
    pending_tasks: list[PendingTask] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    stats: ReadStats = field(default_factory=ReadStats)


def analyze(path: Path) -> TranscriptFacts:
    """Read the transcript or rollout at `path` once and return what it shows is open."""
    stats = ReadStats()
    state = _Sweep()
    for event in iter_events(path, stats, wanted_results=state.watched):
        state.feed(event)
    facts = state.finish(str(path))
    facts.stats = stats
    facts.agent = stats.format
    return facts


# ---------------------------------------------------------------- prose heuristics

_FENCE = re.compile(r"(```|~~~).*?(?:\1|\Z)", re.DOTALL)
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|\[[ xX]\])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[*_`A-Z0-9])")
_DEFERRED = re.compile(
    r"""\b(?:
        (?:come|get|circle|go)\s+back\s+to
      | follow[- ]?up\b(?!\s+questions?)
      | next\s+time\b
      | out\s+of\s+scope
      | park\s+(?:this|that|it|these|those)\b
      | (?:for|until)\s+later\b
      | (?:handle|do|tackle|address|fix|add|implement|revisit|look\s+(?:at|into)|deal\s+with
         |clean\s+up|optimi[sz]e|refactor|investigate|check|test|finish|wire\s+up)\b
        [^.?!\n]{0,40}?\blater\b(?!\s+(?:in|version|versions|release|releases)\b)
      | revisit\b
      | (?:in|as|for)\s+a\s+(?:later|future|follow[- ]?up|separate|subsequent)\s+
        (?:step|pr|pull\s+request|pass|change|iteration|commit|issue|ticket|session|task|phase)
      | future\s+work | down\s+the\s+road
      | at\s+some\s+point\s+(?:we|you|i)\b
      | (?:defer|postpone|punt)(?:red|ed|ing|s)?\s+(?:on\s+)?(?:this|that|it)\b
      | not\s+(?:right\s+)?now\b
      | (?:skip|leave|ignore|stub|hard-?code|punt\s+on|keep|disable|bypass|comment\s+out)\b
        [^.?!\n]{0,60}?\bfor\s+now\b
      | for\s+now,?\s+(?:let\s+me|let's|i'll|we'll|i\s+will|we\s+will)\s+
        (?:just\s+)?(?:try\s+(?:to\s+)?)?
        (?:skip|leav|ignor|stub|hard-?cod|disabl|bypass|comment(?:ing)?\s+out|work(?:ing)?\s+around)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# TODO is a marker only in capitals and as a note ("TODO:", "left a TODO"), never "TODO app".
_TODO = re.compile(
    r"\bTODO\s*[:(]|\b(?:left|leave|leaving|add|added|adding)\s+(?:an?\s+)?TODOs?\b"
    r"(?!\s+(?:apps?|lists?|items?|application|component|manager)\b)"
)
_DIVERGING = re.compile(
    r"""\b(?:
        we\s+could\s+also | could\s+also\s+(?:add|use|try|consider|make|switch|support|cache)
      | (?:another|one\s+other|an\s+alternative)\s+(?:option|approach|idea|way)
      | alternatively
      | worth\s+(?:trying|exploring|considering|a\s+try|looking\s+into|investigating)
      | (?:might|may|could)\s+be\s+worth
      | what\s+if\s+we
      | it\s+would\s+be\s+(?:nice|good|cool|interesting)\s+to
      | we\s+(?:might|may)\s+(?:also\s+)?want\s+to
      | (?:one|an)\s+idea\s+(?:is|would\s+be)
      | instead\s+we\s+could
      | (?:could|might)\s+(?:also\s+)?(?:explore|experiment\s+with)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_ANSWER_START = re.compile(
    r"^\s*(?:yes|yeah|yep|yup|no|nope|nah|sure|ok|okay|go\s+ahead|go\s+for\s+it|do\s+it"
    r"|don'?t|please|proceed|continue|sounds|agreed?|correct|right|exactly|absolutely"
    r"|definitely|both|neither|either|option|the\s+(?:first|second|third|former|latter)"
    r"|lgtm|approved?)(?!\w)|^\s*(?:\d+|[a-d])[).:]",
    re.IGNORECASE,
)
# Closing pleasantries end many turns with a question that asks for nothing in particular.
_GENERIC_QUESTION = re.compile(
    r"\b(?:anything\s+else|what(?:'s|\s+is)\s+next|how\s+can\s+i\s+help"
    r"|what\s+(?:would|do|should)\s+(?:you|we)\s+(?:like|want)\s+(?:me\s+)?to\s+"
    r"(?:do|work\s+on|tackle|look\s+at|focus\s+on|try)"
    r"|what\s+should\s+(?:i|we)\s+(?:do|work\s+on|tackle|look\s+at)\s+next"
    r"|(?:does|did)\s+(?:this|that)\s+(?:help|work\s+for\s+you)|any\s+(?:other\s+)?questions)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_'-]+")
_STOPWORDS = frozenset(
    "about after also before being could does doing from have into just like make more "
    "need only other should some than that their them then there these they this those "
    "want what when where which while will with would your you yours shall might".split()
)


def _units(text: str) -> list[tuple[str, bool]]:
    """Sentences of the prose in `text` (code blocks dropped), each flagged as a list item."""
    text = _FENCE.sub("\n", text[:_SCAN_CHARS])
    units: list[tuple[str, bool]] = []
    for line in text.splitlines():
        is_item = _LIST_MARK.match(line) is not None
        # Indented lines are code, unless they are nested list items; tables, headings and
        # markup are not sentences.
        if not line.strip() or (line.startswith(("    ", "\t")) and not is_item):
            continue
        if line.lstrip().startswith(("|", "#", "<")):
            continue
        line = _LIST_MARK.sub("", line.lstrip("> ")).replace("**", "").replace("__", "").strip()
        for sentence in _SENTENCE_END.split(line):
            sentence = sentence.strip()
            if sentence:
                units.append((sentence, is_item))
    return units


_NOT_PLAIN = re.compile(r"[^\w ]|[\d_]")


def _is_prose(sentence: str) -> bool:
    """Four words or more, mostly letters: not a log line, a path list or code."""
    if len(sentence.split()) < 4:
        return False
    return len(_NOT_PLAIN.sub("", sentence)) >= 0.75 * len(sentence)


def clip(text: str, limit: int = CLIP_CHARS) -> str:
    """One line of at most `limit` characters, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


# Words one of the markers above needs; a text holding none of them is not scanned further
# (plain substring tests are far cheaper than the marker regexes).
_MARKER_WORDS = tuple(
    "back to|follow|next time|of scope|park|later|revisit|future|the road|some point|defer|"
    "postpon|punt|not now|right now|for now|could also|other option|other approach|"
    "other idea|other way|alternative|worth|what if|would be|want to|idea|instead|explor|"
    "experiment".split("|")
)


def _marked(text: str) -> list[tuple[str, str]]:
    """(type, sentence) for each prose sentence of `text` that defers or diverges."""
    head = text[:_SCAN_CHARS]
    lowered = head.lower()
    if not any(map(lowered.__contains__, _MARKER_WORDS)) and "TODO" not in head:
        return []
    if not (_DEFERRED.search(head) or _DIVERGING.search(head) or _TODO.search(head)):
        return []
    found: list[tuple[str, str]] = []
    for sentence, _ in _units(redact(head)):
        if not _is_prose(sentence):
            continue
        if _DEFERRED.search(sentence) or _TODO.search(sentence):
            found.append((DEFERRED, sentence))
        elif _DIVERGING.search(sentence):
            found.append((DIVERGING, sentence))
    return found


def _final_question(text: str) -> tuple[str, list[str]] | None:
    """The question a turn's last text ends on, with the options listed after it, if any."""
    if "?" not in text[-_SCAN_CHARS:]:
        return None
    units = _units(text[-_SCAN_CHARS:])
    if not units:
        return None
    index = len(units) - 1
    if not _ends_question(units[index][0]):
        while index >= 0 and units[index][1] and len(units) - index <= 8:
            index -= 1
        if index < 0 or index == len(units) - 1 or not _ends_question(units[index][0]):
            return None
    question = units[index][0]
    if len(question.split()) < 3 or _GENERIC_QUESTION.search(question):
        return None
    return question, [unit for unit, _ in units[index + 1 :]]


def _ends_question(sentence: str) -> bool:
    return sentence.rstrip(" *_)\"'`").endswith("?")


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in _STOPWORDS}


def _answers(question: str, options: list[str], reply: str) -> bool:
    """Does `reply` take up the question, or move on to something else?"""
    if len(reply.split()) <= 4 or _ANSWER_START.match(reply):
        return True
    said = _content_words(reply)
    asked = _content_words(question)
    shared = asked & said
    if len(shared) >= 2 or (bool(shared) and len(shared) >= 0.3 * len(asked)):
        return True
    return any(_content_words(option) & said for option in options)


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
    return f" at {moment.astimezone():%H:%M}" if moment is not None else ""


# ---------------------------------------------------------------- the pass


@dataclass
class _Task:
    subject: str
    status: str = "pending"
    task_id: str | None = None


_PATCH_PATH = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+?)\s*$", re.MULTILINE)
_APPLY_PATCH_CMD = re.compile(r"(?:^|[\s;&|(])apply_patch\b")
_TASK_CREATED = re.compile(r"Task #?(\w+) created")


class _Sweep:
    def __init__(self) -> None:
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.clear_pending = False
        # Ids of calls whose results matter (task creation/update, questions); the reader
        # skips other results unparsed. Mutated in place: the reader holds this set.
        self.watched: set[str] = set()
        self._reset()

    def _reset(self) -> None:
        self.started: str | None = None
        self.first_request: str | None = None
        # raw path -> redacted path, in first-write order; redacted once per path.
        self.written: dict[str, str] = {}
        self.todos: list[PendingTask] = []
        self.plan: list[PendingTask] = []
        self.tasks: list[_Task] = []
        self.tasks_by_id: dict[str, _Task] = {}
        self.task_calls: dict[str, tuple[_Task, str | None, str | None]] = {}
        self.questions: dict[str, tuple[str, str | None]] = {}
        self.last_text: AssistantText | None = None
        self.pool: dict[str, Candidate] = {}
        self.watched.clear()

    def feed(self, event: object) -> None:
        if isinstance(event, SessionMeta):
            self.session_id = event.session_id or self.session_id
            self.cwd = event.cwd or self.cwd
            self.started = self.started or event.ts
            return
        if isinstance(event, ClearSplit):
            self._close_turn(None, "the user moved on")
            # Reset only when the new conversation has begun: a file that ends on /clear
            # (the conversation being left) keeps what it holds.
            self.clear_pending = True
            return
        if self.clear_pending and isinstance(event, (UserText, AssistantText, ToolCall)):
            self._reset()
            self.clear_pending = False
        if self.started is None:
            self.started = getattr(event, "ts", None)
        if isinstance(event, AssistantText):
            self.last_text = event
            self._scan(event.text, event.ts)
        elif isinstance(event, UserText):
            self._close_turn(event, "the user moved on")
            if not event.is_command:
                if self.first_request is None:
                    head = event.text[: 4 * _REQUEST_CHARS]
                    self.first_request = clip(redact(head), _REQUEST_CHARS)
                self._scan(event.text, event.ts)
        elif isinstance(event, ToolCall):
            self.last_text = None
            self._tool_call(event)
        elif isinstance(event, ToolResult):
            self._tool_result(event)

    def _scan(self, text: str, ts: str | None) -> None:
        for kind, sentence in _marked(text):
            why = f"deferred{_at(ts)}" if kind == DEFERRED else f"raised{_at(ts)}; not pursued"
            self._add(Candidate(clip(sentence), kind, why, ts))

    def _close_turn(self, reply: UserText | None, ending: str) -> None:
        """Settle the turn that just ended: did its last text ask something left open?"""
        last, self.last_text = self.last_text, None
        if last is None:
            return
        found = _final_question(last.text)
        if found is None:
            return
        question, options = found
        if reply is not None and not reply.is_command and _answers(question, options, reply.text):
            return
        why = f"asked{_at(last.ts)}; {ending}"
        self._add(Candidate(clip(redact(question)), UNANSWERED, why, last.ts))

    def _add(self, candidate: Candidate) -> None:
        key = " ".join(_WORD.findall(candidate.text.lower()))
        held = self.pool.get(key)
        if held is not None:
            if _PRIORITY[candidate.type] < _PRIORITY[held.type]:
                self.pool[key] = candidate
            return
        self.pool[key] = candidate
        if len(self.pool) > _POOL_MAX:
            del self.pool[next(iter(self.pool))]

    def _tool_call(self, call: ToolCall) -> None:
        args = call.input
        if call.name in _WRITE_TOOLS:
            path = args.get(_WRITE_TOOLS[call.name])
            if isinstance(path, str) and path:
                self._wrote(path)
        elif call.name == "TodoWrite":
            todos = args.get("todos")
            if isinstance(todos, list):
                self.todos = _task_list(todos, "content", "TodoWrite")
        elif call.name == "update_plan":
            plan = args.get("plan")
            if isinstance(plan, list):
                self.plan = _task_list(plan, "step", "update_plan")
        elif call.name == "TaskCreate":
            subject = args.get("subject") or args.get("description")
            if isinstance(subject, str) and subject.strip():
                task = _Task(subject.strip())
                self.tasks.append(task)
                if call.id:
                    self.task_calls[call.id] = (task, None, None)
                    self.watched.add(call.id)
        elif call.name == "TaskUpdate":
            self._task_update(call)
        elif call.name == "AskUserQuestion" and call.id:
            questions = args.get("questions")
            first = questions[0] if isinstance(questions, list) and questions else None
            text = first.get("question") if isinstance(first, dict) else args.get("question")
            if isinstance(text, str) and text.strip():
                self.questions[call.id] = (text, call.ts)
                self.watched.add(call.id)
        else:
            self._codex_patch(call)

    def _wrote(self, path: str) -> None:
        if path not in self.written:
            self.written[path] = redact(path)

    def _task_update(self, call: ToolCall) -> None:
        args = call.input
        raw_id = args.get("taskId", args.get("task_id", args.get("id")))
        task = self.tasks_by_id.get(str(raw_id)) if raw_id is not None else None
        status = args.get("status")
        subject = args.get("subject")
        if task is None:
            # A task created before a compaction or in a record we could not read.
            if not (isinstance(subject, str) and subject.strip() and raw_id is not None):
                return
            task = _Task(subject.strip(), task_id=str(raw_id))
            self.tasks.append(task)
            self.tasks_by_id[str(raw_id)] = task
        previous = (task.status, task.subject)
        if isinstance(status, str):
            task.status = status
        if isinstance(subject, str) and subject.strip():
            task.subject = subject.strip()
        if call.id:
            self.task_calls[call.id] = (task, *previous)
            self.watched.add(call.id)

    def _tool_result(self, result: ToolResult) -> None:
        if result.tool_use_id is None:
            return
        self.watched.discard(result.tool_use_id)
        asked = self.questions.pop(result.tool_use_id, None)
        if asked is not None and result.is_error:
            text, ts = asked
            why = f"asked{_at(ts)}; the user dismissed the question"
            self._add(Candidate(clip(redact(text)), UNANSWERED, why, ts))
        pending = self.task_calls.pop(result.tool_use_id, None)
        if pending is None:
            return
        task, old_status, old_subject = pending
        if old_status is not None and old_subject is not None:  # an update
            if result.is_error:
                task.status, task.subject = old_status, old_subject
            return
        if result.is_error:
            task.status = "deleted"
            return
        task.task_id = _created_id(result) or str(len(self.tasks))
        self.tasks_by_id[task.task_id] = task

    def _codex_patch(self, call: ToolCall) -> None:
        args = call.input
        if call.name == "apply_patch":
            patch = args.get("input") or args.get("patch")
        elif call.name in _SHELL_TOOLS:
            # Codex runs `apply_patch <<'PATCH' …` given to its shell tool as apply_patch.
            command = args.get("command", args.get("cmd"))
            if isinstance(command, list):
                command = "\n".join(str(part) for part in command)
            if not (
                isinstance(command, str)
                and "*** Begin Patch" in command
                and _APPLY_PATCH_CMD.search(command)
            ):
                return
            patch = command
        else:
            return
        if not isinstance(patch, str):
            return
        workdir = args.get("workdir")
        base = workdir if isinstance(workdir, str) and workdir else self.cwd
        for match in _PATCH_PATH.finditer(patch):
            self._wrote(_join(base, match.group(1)))

    def finish(self, path: str) -> TranscriptFacts:
        self._close_turn(None, "the session ended")
        for text, ts in self.questions.values():
            why = f"asked{_at(ts)}; the session ended"
            self._add(Candidate(clip(redact(text)), UNANSWERED, why, ts))
        pending = [t for t in self.todos if t.status not in _DONE]
        pending += [
            PendingTask(redact(t.subject), t.status, "TaskCreate")
            for t in self.tasks
            if t.status not in _DONE
        ]
        pending += [t for t in self.plan if t.status not in _DONE]
        tasks = [Candidate(clip(t.text), UNFINISHED, _task_why(t)) for t in pending]
        loose = sorted(self.pool.values(), key=lambda c: c.ts or "~")
        return TranscriptFacts(
            path=path,
            session_id=self.session_id,
            cwd=self.cwd,
            first_user_request=self.first_request,
            started=parse_ts(self.started),
            written_files=list(dict.fromkeys(self.written.values())),
            pending_tasks=pending,
            candidates=merge_near_duplicates(tasks + loose),
        )


def _task_list(items: list[Any], text_key: str, source: str) -> list[PendingTask]:
    tasks = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get(text_key), str):
            status = item.get("status")
            tasks.append(
                PendingTask(redact(item[text_key].strip()), str(status or "pending"), source)
            )
    return tasks


def _task_why(task: PendingTask) -> str:
    where = "the plan" if task.source == "update_plan" else "the task list"
    state = "in progress" if task.status == "in_progress" else "still pending"
    return f"{state} in {where}"


def _created_id(result: ToolResult) -> str | None:
    task = result.meta.get("task") if result.meta else None
    if isinstance(task, dict) and task.get("id") is not None:
        return str(task["id"])
    match = _TASK_CREATED.search(result.text[:500])
    return match.group(1) if match else None


def _join(base: str | None, path: str) -> str:
    path = path.strip()
    if not base or path.startswith("/") or ntpath.isabs(path):
        return path
    if base.startswith("/"):
        return posixpath.normpath(posixpath.join(base, path))
    return ntpath.normpath(ntpath.join(base, path))


# ---------------------------------------------------------------- merging and output


def merge_near_duplicates(candidates: list[Candidate]) -> list[Candidate]:
    """Fold candidates saying the same thing (token_set_ratio ≥ 90); keep the stronger type."""
    from rapidfuzz import fuzz, utils

    kept: list[Candidate] = []
    processed: list[str] = []
    for cand in candidates:
        text = utils.default_process(cand.text)
        for i, other in enumerate(processed):
            if _near(text, other, fuzz.token_set_ratio(text, other), 90, min_share=0.5):
                if _PRIORITY[cand.type] < _PRIORITY[kept[i].type]:
                    kept[i] = cand
                break
        else:
            kept.append(cand)
            processed.append(text)
    return kept


def _near(a: str, b: str, score: float, threshold: float, min_share: float = 0.0) -> bool:
    # token_set_ratio is 100 whenever one side's words are a subset of the other's, so a
    # very short text ("tests") would swallow everything mentioning it: require three words,
    # and (for merging) that the shorter text is not a mere fragment of the longer one.
    if a == b:
        return True
    short, long = sorted((len(a.split()), len(b.split())))
    return score >= threshold and short >= 3 and short >= min_share * long


_ITEM_NOISE = re.compile(r"\*\*|Raised:\s*\d{4}-\d{2}-\d{2}\.?|^\s*(?:[-*]\s+(?:\[ \]\s+)?)")


def filter_known(candidates: Iterable[Candidate], known: Iterable[str]) -> list[Candidate]:
    """Drop candidates matching an open parked item's or a dropped item's text (fuzzy ≥ 88)."""
    from rapidfuzz import fuzz, utils

    known_texts = [utils.default_process(_ITEM_NOISE.sub(" ", k).replace("-", " ")) for k in known]
    known_texts = [k for k in known_texts if k]
    kept = []
    for cand in candidates:
        text = utils.default_process(cand.text)
        if not any(
            _near(text, k, max(fuzz.token_set_ratio(text, k), fuzz.ratio(text, k)), 88)
            for k in known_texts
        ):
            kept.append(cand)
    return kept


def render_table(candidates: list[Candidate]) -> str:
    """The markdown table of SPEC §7.7, or one line saying nothing was found."""
    if not candidates:
        return "No unlanded items: no open tasks, unanswered questions, deferrals or side ideas."
    noun = "item" if len(candidates) == 1 else "items"
    lines = [
        f"## Unlanded — {len(candidates)} {noun}",
        "| # | Item | Type | Why it did not land |",
        "| --- | --- | --- | --- |",
    ]
    for number, cand in enumerate(candidates, 1):
        lines.append(f"| {number} | {_cell(cand.text)} | {cand.type} | {_cell(cand.why)} |")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def to_json(candidates: list[Candidate]) -> list[dict[str, Any]]:
    return [
        {"n": number, "text": c.text, "type": c.type, "why": c.why, "ts": c.ts}
        for number, c in enumerate(candidates, 1)
    ]

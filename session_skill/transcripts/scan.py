"""What a transcript says is still open: one streaming pass for sweep and the dump brief.

`analyze` reads the file once (see `transcript.iter_events`) and keeps only small state:
the files written, the latest task list, the first real request, and a bounded pool of
loose ends — questions the user never answered, things put off for later, side ideas.
Which sentences are loose ends is decided in `prose`, how they fold and show in
`candidates`; the public names of both are re-exported here, the API callers import.

Everything lifted from the transcript passes through `redact.redact` before it is kept.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from session_skill.transcripts.candidates import (
    CANDIDATE_TYPES,
    DEFERRED,
    DIVERGING,
    PRIORITY,
    UNANSWERED,
    UNFINISHED,
    Candidate,
    filter_known,
    merge_near_duplicates,
    render_table,
    to_json,
)
from session_skill.transcripts.prose import (
    CLIP_CHARS,
    WORD,
    answers,
    clip,
    final_question,
    marked_sentences,
)
from session_skill.transcripts.reader import (
    AssistantText,
    ClearSplit,
    ReadStats,
    SessionMeta,
    ToolCall,
    ToolResult,
    UserText,
    iter_events,
)
from session_skill.transcripts.redact import redact

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
    "analyze",
    "clip",
    "filter_known",
    "merge_near_duplicates",
    "parse_ts",
    "render_table",
    "to_json",
]

_REQUEST_CHARS = 1000
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


def _loose(text: str, kind: str, why: str, ts: str | None = None) -> Candidate:
    """A candidate shown clipped, its whole text kept in `full` (for `sweep --park`)."""
    return Candidate(clip(text), kind, why, ts, full=text)


def transcript_records(stats: ReadStats) -> int:
    """How many records read were of a kind a Claude Code transcript or a Codex rollout
    holds: 0 means the file is not one (a README, `/etc/passwd`, some other JSON lines)."""
    # The parsers count a record of a type they do not know under that bare type name;
    # kinds they know and skip on purpose are top-level types of theirs, or `kind:detail`.
    from session_skill.transcripts.codex import _CODEX_LEGACY_ITEMS, _CODEX_TYPES
    from session_skill.transcripts.reader import _CLAUDE_SKIP

    known = {k.decode() for k in _CLAUDE_SKIP} | _CODEX_TYPES | _CODEX_LEGACY_ITEMS
    unknown = sum(n for kind, n in stats.skipped.items() if ":" not in kind and kind not in known)
    return stats.records - unknown


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
        for kind, sentence in marked_sentences(text):
            why = f"deferred{_at(ts)}" if kind == DEFERRED else f"raised{_at(ts)}; not pursued"
            self._add(_loose(sentence, kind, why, ts))

    def _close_turn(self, reply: UserText | None, ending: str) -> None:
        """Settle the turn that just ended: did its last text ask something left open?"""
        last, self.last_text = self.last_text, None
        if last is None:
            return
        found = final_question(last.text)
        if found is None:
            return
        question, options = found
        if reply is not None and not reply.is_command and answers(question, options, reply.text):
            return
        why = f"asked{_at(last.ts)}; {ending}"
        self._add(_loose(redact(question), UNANSWERED, why, last.ts))

    def _add(self, candidate: Candidate) -> None:
        key = " ".join(WORD.findall(candidate.text.lower()))
        held = self.pool.get(key)
        if held is not None:
            if PRIORITY[candidate.type] < PRIORITY[held.type]:
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
            self._add(_loose(redact(text), UNANSWERED, why, ts))
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
            self._add(_loose(redact(text), UNANSWERED, why, ts))
        pending = [t for t in self.todos if t.status not in _DONE]
        pending += [
            PendingTask(redact(t.subject), t.status, "TaskCreate")
            for t in self.tasks
            if t.status not in _DONE
        ]
        pending += [t for t in self.plan if t.status not in _DONE]
        tasks = [_loose(t.text, UNFINISHED, _task_why(t)) for t in pending]
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

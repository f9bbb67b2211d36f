"""What the tool calls of a conversation show: the files written and the task list.

Kept apart from the loose-end pass (`scan`): this part reads tool inputs and the few tool
results that matter (task creation and updates, questions put to the user), and knows the
shapes of the task tools of both clients.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections import OrderedDict

from session_skill.records import field, record
from session_skill.transcripts.events import WRITE_TOOLS, PatchApplied, ToolCall, ToolResult
from session_skill.transcripts.lazyre import Lazy
from session_skill.transcripts.plancheck import Check, checks, unrun
from session_skill.transcripts.redact import redact

TYPE_CHECKING = False  # `typing` costs a hook ~7 ms to import
if TYPE_CHECKING:
    from typing import Any

_SHELL_TOOLS = frozenset(
    {"shell", "exec_command", "shell_command", "local_shell", "container.exec", "Bash"}
)
DONE = frozenset({"completed", "deleted", "cancelled", "canceled"})

_PATCH_PATH = Lazy(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+?)\s*$", re.MULTILINE)
_APPLY_PATCH_CMD = Lazy(r"(?:^|[\s;&|(])apply_patch\b")
_TASK_CREATED = Lazy(r"Task #?(\w+) created")
# A row of TaskList's answer, "#12 [in_progress] UI-1: Create ProfileListScreen …".
_TASK_ROW = Lazy(r"#(\w+) \[(\w+)\] ")
_COMMIT = Lazy(r"\bgit\b[^\n;&|]*?\bcommit\b")
_COMMIT_MESSAGE = Lazy(
    r"""(?:(?<![\w-])-[a-zA-Z]*m|--message)(?:=|\s+)(?:"((?:[^"\\]|\\.)*)"|'([^']*)')"""
    r"""|<<-?\s*['"]?(\w+)['"]?\s*\n(.*?)\n\s*\3\b""",
    re.DOTALL,
)


# Tools that put questions to the user and wait: Claude Code's, and Codex's (Plan mode),
# which takes the same `questions` list.
_QUESTION_TOOLS = frozenset({"AskUserQuestion", "request_user_input"})


@record(frozen=True)
class PendingTask:
    text: str
    status: str
    source: str  # "TodoWrite", "TaskCreate" or "update_plan"
    line: int | None = field(default=None, compare=False)  # the call that last set it


@record
class _Task:
    subject: str
    status: str = "pending"
    task_id: str | None = None
    line: int | None = None


class ToolState:
    """Files written, the task list, questions put to the user; one conversation's worth."""

    def __init__(self, watched: set[str], *, files: bool = True) -> None:
        # Ids of calls whose results matter; the reader skips other results unparsed. The
        # reader holds this very set, so it is cleared, never replaced.
        self.watched = watched
        self.watched.clear()
        # Whether files written are followed: the loose-ends reader's own copy needs only
        # the questions, the task lists and what the calls report done.
        self.follow_files = files
        # raw path -> redacted path, in first-write order; redacted once per path.
        self.written: dict[str, str] = {}
        # raw path -> how many calls wrote it and did not fail (a rejected or failed edit
        # touched nothing); the calls whose result is awaited; Codex patches by call id.
        # (Successful results are not read: only errors, which the reader always hands out;
        # so the calls are remembered for a while, not until their result.)
        self.attempts: dict[str, int] = {}
        # File writes so far that did not fail, a plan file aside: has a turn changed anything?
        self.writes = 0
        self.write_calls: OrderedDict[str, str] = OrderedDict()
        self.patch_calls: OrderedDict[str, list[str]] = OrderedDict()
        self.todos: list[PendingTask] = []
        self.plan: list[PendingTask] = []
        self.tasks: list[_Task] = []
        self.tasks_by_id: dict[str, _Task] = {}
        self.task_calls: dict[str, tuple[_Task, str | None, str | None]] = {}
        # TaskList calls waiting for their result: the list as it really stands.
        self.list_calls: set[str] = set()
        # AskUserQuestion (Codex: request_user_input) calls waiting for their result, and
        # those the user rejected: (question, ts, line).
        self.questions: dict[str, tuple[str, str | None, int]] = {}
        self.dismissed: list[tuple[str, str | None, int]] = []
        # What the calls report as done, for the loose-end evidence: completed tasks,
        # commit messages. Taken (and emptied) by the caller after each call.
        self.done_texts: list[str] = []
        self.task_seq = 0  # when the task list last changed, in events
        # The verification steps of the plan being followed that no shell command has run
        # yet, and the ExitPlanMode call that gave them (a rejection takes them back): the
        # loose-ends reader's copy only, whose candidates they become.
        self.plan_checks: list[Check] = []
        self.plan_call: str | None = None
        # The subjects of the session's commits, in order, and the commit calls whose
        # result may still say it failed (nothing committed: a hook failed, a rejection):
        # the copy that follows files only, whose facts name the Goal.
        self.commits: list[str] = []
        self.committed = 0  # commit calls made: work done, as a file write is
        self.commit_ids: set[str] = set()  # …whose results are still to come
        self.commit_calls: OrderedDict[str, list[str]] = OrderedDict()

    def call(self, call: ToolCall, cwd: str | None, seq: int, line: int = 0) -> None:
        args = call.input
        if call.name in WRITE_TOOLS:
            path = args.get(WRITE_TOOLS[call.name]) if self.follow_files else None
            if isinstance(path, str) and path:
                self._wrote(path)
                if call.id:
                    _remember(self.write_calls, call.id, path)
        elif call.name == "TodoWrite":
            todos = args.get("todos")
            if isinstance(todos, list):
                new = _task_list(todos, "content", "TodoWrite", line)
                self._completed(self.todos, new)
                self.todos = new
                self.task_seq = seq
        elif call.name == "update_plan":
            plan = args.get("plan")
            if isinstance(plan, list):
                new = _task_list(plan, "step", "update_plan", line)
                self._completed(self.plan, new)
                self.plan = new
                self.task_seq = seq
        elif call.name == "TaskCreate":
            subject = args.get("subject") or args.get("description")
            if isinstance(subject, str) and subject.strip():
                task = _Task(subject.strip(), line=line)
                self.tasks.append(task)
                self.task_seq = seq
                # Its number until the result says (Claude Code numbers them 1, 2, …), so
                # a TaskUpdate finds it even when the result is not read.
                task.task_id = str(len(self.tasks))
                self.tasks_by_id.setdefault(task.task_id, task)
                if call.id:
                    self.task_calls[call.id] = (task, None, None)
                    self.watched.add(call.id)
        elif call.name == "TaskUpdate":
            self._task_update(call, line)
            self.task_seq = seq
        elif call.name == "TaskList" and call.id:
            self.list_calls.add(call.id)
            self.watched.add(call.id)
        elif call.name == "ExitPlanMode":
            plan = args.get("plan")
            if isinstance(plan, str) and not self.follow_files:
                self.plan_checks = checks(plan, line or None, call.ts)
                self.plan_call = call.id
        elif call.name in _QUESTION_TOOLS and call.id:
            questions = args.get("questions")
            first = questions[0] if isinstance(questions, list) and questions else None
            text = first.get("question") if isinstance(first, dict) else args.get("question")
            if isinstance(text, str) and text.strip():
                self.questions[call.id] = (text, call.ts, line)
                self.watched.add(call.id)
        else:
            self._shell(call, cwd)

    def result(self, result: ToolResult) -> None:
        if result.tool_use_id is None:
            return
        self.watched.discard(result.tool_use_id)
        written = self.write_calls.pop(result.tool_use_id, None)
        if written is not None and result.is_error:
            self.attempts[written] -= 1  # rejected by the user, or failed: nothing changed
            self.writes -= _changes_work(written)
        if result.is_error and result.tool_use_id in self.patch_calls:
            # A patch that failed with no `patch_apply_end` to say so (`patched`).
            self._unclaimed(self.patch_calls.pop(result.tool_use_id))
        subjects = self.commit_calls.pop(result.tool_use_id, None)
        counted = result.tool_use_id in self.commit_ids
        if (subjects is not None or counted) and result.is_error:
            if not _MADE.search(result.text[:4000]):  # the commit did not happen
                if subjects is not None:
                    self.commits = [c for c in self.commits if c not in subjects]
                self.committed -= counted
        self.commit_ids.discard(result.tool_use_id)
        if result.tool_use_id == self.plan_call and result.is_error:
            self.plan_checks = []  # the user rejected the plan
        asked = self.questions.pop(result.tool_use_id, None)
        if asked is not None and result.is_error:
            self.dismissed.append(asked)
        if result.tool_use_id in self.list_calls:
            self.list_calls.discard(result.tool_use_id)
            if not result.is_error:
                self._listed(result)
            return
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
        real = _created_id(result)
        if real is not None and real != task.task_id:
            if self.tasks_by_id.get(task.task_id or "") is task:
                del self.tasks_by_id[task.task_id or ""]
            task.task_id = real
        self.tasks_by_id[task.task_id or str(len(self.tasks))] = task

    def _committed(self, call_id: str | None, messages: list[str]) -> None:
        """Note the subject of a commit call: its first message's first line (a second `-m`
        is the body); each once, the first few."""
        first = next((m.strip() for m in messages if m.strip()), "")
        subject = first.splitlines()[0].strip() if first else ""
        if subject and call_id and len(self.commit_ids) < 1000:
            self.committed += 1  # every commit made, kept or not (a failed one is taken back)
            self.commit_ids.add(call_id)
        if not subject or subject in self.commits or len(self.commits) >= _COMMITS_KEPT:
            return
        self.commits.append(subject)
        if call_id:
            _remember(self.commit_calls, call_id, [subject])
            self.watched.add(call_id)  # Codex hands a result out only if it is waited for

    def pending(self) -> list[PendingTask]:
        found = [t for t in self.todos if t.status not in DONE]
        found += [
            PendingTask(redact(t.subject), t.status, "TaskCreate", t.line)
            for t in self.tasks
            if t.status not in DONE
        ]
        return found + [t for t in self.plan if t.status not in DONE]

    def patched(self, event: PatchApplied, cwd: str | None) -> None:
        """Codex's report of a patch: a failure undoes what its call claimed; a success
        names files that no call did (a patch given through code-mode `exec`)."""
        claimed = self.patch_calls.pop(event.call_id, None) if event.call_id else None
        if claimed is not None:
            if not event.success:
                self._unclaimed(claimed)
            return
        if event.success:
            for path in event.paths:
                self._wrote(_join(cwd, path))

    def files(self) -> list[str]:
        """The files written, by calls that did not fail, in first-write order."""
        return list(self.weights())

    def weights(self) -> dict[str, int]:
        """How many successful writes each file got (as `files` names it)."""
        found: dict[str, int] = {}
        for raw, red in self.written.items():
            n = self.attempts.get(raw, 0)
            if n > 0:
                found[red] = found.get(red, 0) + n
        return found

    def _unclaimed(self, paths: list[str]) -> None:
        """A patch's call claimed these files, and it failed: nothing was written."""
        for path in paths:
            self.attempts[path] -= 1
            self.writes -= _changes_work(path)

    def _wrote(self, path: str) -> None:
        if path not in self.written:
            self.written[path] = redact(path)
        self.attempts[path] = self.attempts.get(path, 0) + 1
        self.writes += _changes_work(path)

    def _completed(self, old: list[PendingTask], new: list[PendingTask]) -> None:
        before = {t.text: t.status for t in old}
        self.done_texts += [
            t.text for t in new if t.status == "completed" and before.get(t.text) != "completed"
        ]

    def _task_update(self, call: ToolCall, line: int = 0) -> None:
        args = call.input
        raw_id = args.get("taskId", args.get("task_id", args.get("id")))
        task = self.tasks_by_id.get(str(raw_id)) if raw_id is not None else None
        status = args.get("status")
        subject = args.get("subject")
        if task is None:
            # A task created before a compaction or in a record we could not read.
            if not (isinstance(subject, str) and subject.strip() and raw_id is not None):
                return
            task = _Task(subject.strip(), task_id=str(raw_id), line=line)
            self.tasks.append(task)
            self.tasks_by_id[str(raw_id)] = task
        previous = (task.status, task.subject)
        if isinstance(status, str):
            if status == "completed" and task.status != "completed":
                self.done_texts.append(task.subject)
            task.status = status
        if isinstance(subject, str) and subject.strip():
            task.subject = subject.strip()
        if call.id:
            self.task_calls[call.id] = (task, *previous)
            self.watched.add(call.id)

    def _listed(self, result: ToolResult) -> None:
        """TaskList's answer is the task list as it stands, whoever changed it: a teammate
        completes a task the lead never updates, a team's end empties the list. A task it
        does not hold is gone (its number given to another task counts as not held); one it
        holds has the status it says, found by its number or else by its subject. An answer
        not read whole changes nothing."""
        rows = result.meta.get("tasks") if result.meta else None
        listed: dict[str, tuple[object, str]] = {}
        if isinstance(rows, list) and all(isinstance(r, dict) for r in rows):
            for r in rows:
                listed[str(r.get("id"))] = (r.get("status"), str(r.get("subject") or ""))
        else:
            text = result.text.strip()
            lines = [] if text == "No tasks found" else text.splitlines()
            found = [_TASK_ROW.match(row) for row in lines]
            if not text or not all(found):
                return
            for m in found:
                if m:
                    listed[m.group(1)] = (m.group(2), m.string[m.end() :])
        for task in self.tasks:
            status, subject = listed.get(task.task_id or "", (None, ""))
            if not subject.startswith(task.subject):
                # Its number is not the one we took it to have (a result not read), or was
                # given to another task: the row of its subject, if any, is its own. (A
                # text row's subject goes on with its owner and what blocks it.)
                own = (s for s, row in listed.values() if row.startswith(task.subject))
                status = next(own, None)
            if not isinstance(status, str):
                if task.status not in DONE:
                    task.status = "deleted"
                continue
            if status == "completed" and task.status != "completed":
                self.done_texts.append(task.subject)
            task.status = status

    def _shell(self, call: ToolCall, cwd: str | None) -> None:
        args = call.input
        if call.name == "apply_patch":
            patch = args.get("input") or args.get("patch")
        elif call.name in _SHELL_TOOLS:
            command = args.get("command", args.get("cmd"))
            if isinstance(command, list):
                command = "\n".join(str(part) for part in command)
            if not isinstance(command, str):
                return
            if "commit" in command and _COMMIT.search(command):
                messages = [m for m in _commit_messages(command) if m]
                self.done_texts += messages
                if self.follow_files:
                    self._committed(call.id, messages)
            if self.plan_checks:
                self.plan_checks = unrun(self.plan_checks, command)
            # Codex runs `apply_patch <<'PATCH' …` given to its shell tool as apply_patch;
            # Claude Code's Bash never does.
            if call.name == "Bash" or not (
                "*** Begin Patch" in command and _APPLY_PATCH_CMD.search(command)
            ):
                return
            patch = command
        else:
            return
        if not isinstance(patch, str) or not self.follow_files:
            return
        workdir = args.get("workdir")
        base = workdir if isinstance(workdir, str) and workdir else cwd
        paths = [_join(base, match.group(1)) for match in _PATCH_PATH.finditer(patch)]
        for path in paths:
            self._wrote(path)
        if call.id:
            _remember(self.patch_calls, call.id, paths)
            self.watched.add(call.id)  # its result may be the only word of a failure


_CALLS_REMEMBERED = 256  # a call's result comes right after it
# git's report of a commit made ("[main 1a2b3c4] Subject"): a command that failed after it
# (a push) still committed.
_MADE = Lazy(r"^\[[^\]\n]+ [0-9a-f]{7,40}\] ", re.MULTILINE)
_COMMITS_KEPT = 12  # the Goal names the first few


def _remember(calls: OrderedDict[str, Any], call_id: str, value: Any) -> None:
    calls[call_id] = value
    if len(calls) > _CALLS_REMEMBERED:
        calls.popitem(last=False)


def _commit_messages(command: str) -> list[str]:
    """The messages of `git commit -m "…"` / `-m "$(cat <<'EOF' … EOF)"` / `-F - <<EOF`."""
    found = []
    for match in _COMMIT_MESSAGE.finditer(command):
        text = match.group(1) or match.group(2) or match.group(4) or ""
        text = text.replace('\\"', '"')
        if "<<" in text:
            # `-m "$(cat <<'EOF' … EOF)"`: the heredoc is the message, read from the command
            # itself — a quote inside the message ends the -m group early.
            inner = _COMMIT_MESSAGE.search(command[match.start() + 2 :])
            if inner is not None and inner.group(4):
                text = inner.group(4)
        found.append(text.strip())
    return found


def _changes_work(path: str) -> bool:
    """Is writing this file work on the request, not the plan Claude Code's plan mode writes
    (`~/.claude/plans/<name>.md`) before anything is changed?"""
    return "/.claude/plans/" not in path.replace("\\", "/")


def _task_list(items: list[Any], text_key: str, source: str, line: int) -> list[PendingTask]:
    tasks = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get(text_key), str):
            status = str(item.get("status") or "pending")
            tasks.append(PendingTask(redact(item[text_key].strip()), status, source, line))
    return tasks


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

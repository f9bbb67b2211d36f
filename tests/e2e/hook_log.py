"""A logging hook for the end-to-end tests: which hook events a real client fires, in which
order, with which payload — and a way to make a hook answer (e.g. with additionalContext).

:func:`install` writes ``hook_log.py`` (the script below, run by this venv's Python) into
the world's scratch root and registers it, for every event in ``events``, in the client's
user-level settings: ``$HOME/.claude/settings.json`` for Claude Code (one entry per event,
no matcher, ``timeout: 10`` unless ``untimed``), ``$CODEX_HOME/hooks.json`` for Codex.
User-level, so it runs next to whatever ``session-skill install`` (or the plugin) put in
place (phase 2 of issue 20).

Each run appends one JSON line to ``<root>/hooks.jsonl``:
``{"ts", "event", "payload", "transcript_lines"?, "snapshot"?, "listing"?}`` — ``payload``
is the stdin JSON verbatim, ``event`` its ``hook_event_name``, ``transcript_lines`` how many
lines the payload's ``transcript_path`` held at that moment, for the ``snapshot`` events
(SessionEnd, PreCompact, PostCompact by default) ``snapshot`` is a copy of that transcript
taken then (``<root>/snapshots/``), and with ``watch`` ``listing`` is what that folder
held. Then it prints what the replies file holds for the event
(nothing by default) and exits 0 — also when something in it failed (the error goes to
``hooks.jsonl.errors``: a broken logger must not change what the client does).

Replies are keyed ``"<Event>:<value>"`` (value: the payload's ``source``, ``trigger`` or
``reason``) or ``"<Event>"``; a dict is printed as JSON, a string verbatim; ``{session_id}``,
``{source}``, ``{trigger}`` and ``{reason}`` in it are filled from the payload. The replies
file is read at every run, so a test can change answers mid-session (:meth:`HookLog.reply`).
:func:`context` builds the ``additionalContext`` reply both clients read.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPT = r"""
import fcntl, json, os, shutil, sys, time

log, replies = sys.argv[1], sys.argv[2]
snap_events = set(sys.argv[3].split(",")) if len(sys.argv) > 3 and sys.argv[3] else set()
watch = sys.argv[4] if len(sys.argv) > 4 else ""
try:
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = {"_raw": raw}
    event = payload.get("hook_event_name") or "?"
    entry = {"ts": time.time(), "event": event, "payload": payload}
    if watch:
        entry["listing"] = sorted(os.listdir(watch)) if os.path.isdir(watch) else None
    tp = payload.get("transcript_path")
    if isinstance(tp, str) and os.path.isfile(tp):
        with open(tp, "rb") as f:
            entry["transcript_lines"] = sum(1 for _ in f)  # what the file holds right now
        if event in snap_events:
            snaps = os.path.join(os.path.dirname(log), "snapshots")
            os.makedirs(snaps, exist_ok=True)
            dest = os.path.join(snaps, f"{time.time():.6f}-{event}.jsonl")
            shutil.copyfile(tp, dest)
            entry["snapshot"] = dest
    with open(log, "a", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # hooks of one event may run in parallel
        f.write(json.dumps(entry) + "\n")
    try:
        with open(replies, encoding="utf-8") as f:
            table = json.load(f)
    except (OSError, ValueError):
        table = {}
    value = next((payload[k] for k in ("source", "trigger", "reason") if k in payload), None)
    out = table.get(f"{event}:{value}", table.get(event))
    fields = {k: str(payload.get(k, "")) for k in ("session_id", "source", "trigger", "reason")}

    def fill(o):
        if isinstance(o, str):
            for k, v in fields.items():
                o = o.replace("{" + k + "}", v)
            return o
        if isinstance(o, dict):
            return {k: fill(v) for k, v in o.items()}
        if isinstance(o, list):
            return [fill(v) for v in o]
        return o

    if isinstance(out, str):
        sys.stdout.write(fill(out))
    elif out is not None:
        sys.stdout.write(json.dumps(fill(out)))
except BaseException as e:  # never fail the client's hook; leave a trace for the test
    with open(log + ".errors", "a", encoding="utf-8") as f:
        f.write(f"{time.time()} {type(e).__name__}: {e}\n")
    raise SystemExit(0)
"""

# Claude Code 2.1.328 events that are safe to observe with a no-op hook (WorktreeCreate,
# Elicitation & co. change behaviour when hooked; FileChanged needs a file matcher).
CLAUDE_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "Notification",
)
# codex-cli 0.171.0 events (Pre/PostModelRequest left out: one line per model call).
CODEX_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "PreCompact",
    "PostCompact",
    "Stop",
    "Interrupt",
)


def context(event: str, text: str) -> dict[str, Any]:
    """A hook reply carrying ``additionalContext`` (SessionStart, UserPromptSubmit, …)."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


@dataclass
class HookLog:
    """The log file and replies file of an installed logging hook."""

    path: Path
    replies_path: Path

    def entries(self) -> list[dict[str, Any]]:
        """Every logged run, oldest first (see the module docstring for the keys)."""
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(x) for x in lines if x.strip()]

    def events(self, since: int = 0) -> list[str]:
        """The event names, in order, of the runs from index ``since`` on."""
        return [e["event"] for e in self.entries()[since:]]

    def payloads(self, event: str, since: int = 0) -> list[dict[str, Any]]:
        """The payloads of ``event`` from index ``since`` on."""
        return [e["payload"] for e in self.entries()[since:] if e["event"] == event]

    def mark(self) -> int:
        """A position in the log, for ``since=`` arguments."""
        return len(self.entries())

    def sequence(self, since: int = 0, ignore: Iterable[str] = ()) -> list[str]:
        """``Event`` or ``Event:<source|trigger|reason>`` for each run from ``since``,
        leaving out the events in ``ignore``: the order a test asserts on."""
        skip = set(ignore)
        out = []
        for e in self.entries()[since:]:
            if e["event"] in skip:
                continue
            p = e["payload"]
            v = next((p[k] for k in ("source", "trigger", "reason") if k in p), None)
            out.append(e["event"] if v is None else f"{e['event']}:{v}")
        return out

    def wait(
        self,
        event: str,
        since: int = 0,
        timeout: float = 30,
        where: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """Block until a run of ``event`` (whose payload satisfies ``where``) is logged at
        index ``since`` or later; return its payload."""
        deadline = time.monotonic() + timeout
        while True:
            for p in self.payloads(event, since):
                if where is None or where(p):
                    return p
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"hook event {event} never logged within {timeout}s; "
                    f"log since #{since}: {self.sequence(since)}"
                )
            time.sleep(0.1)

    def turn(
        self, mock: Any, t: Any, prompt: str, answer: Any, queue: Callable[[Any], None]
    ) -> Any:
        """``prompt`` typed into the client's terminal ``t``, answered by ``answer`` (which
        ``queue`` hands the mock API: Claude Code's ``script``, Codex's ``add``); the turn's
        main request, once its Stop hook ran."""
        text = answer.content if hasattr(answer, "content") else answer
        queue(answer)
        mark, before = mock.mark(), self.mark()
        t.type(prompt)
        req = mock.wait_main(since=mark)
        self.wait("Stop", since=before, where=lambda p: p["last_assistant_message"] == text)
        t.wait_ready()
        return req

    def reply(self, key: str, out: str | dict[str, Any] | None) -> None:
        """Make the hook print ``out`` for ``key`` (``"SessionStart:compact"``,
        ``"PreCompact"``); ``None`` removes the answer."""
        table = self.replies()
        if out is None:
            table.pop(key, None)
        else:
            table[key] = out
        tmp = self.replies_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(table, indent=2), encoding="utf-8")
        tmp.replace(self.replies_path)  # a hook never reads half a file

    def errors(self) -> str:
        """What went wrong inside the hook script (empty when nothing did)."""
        p = Path(str(self.path) + ".errors")
        return p.read_text(encoding="utf-8") if p.exists() else ""

    def entry(self, event: str, since: int = 0, **match: Any) -> dict[str, Any]:
        """The first logged run of ``event`` from ``since`` whose payload has the ``match``
        values (``source="clear"``): the whole entry, snapshot included."""
        for e in self.entries()[since:]:
            if e["event"] == event and all(e["payload"].get(k) == v for k, v in match.items()):
                return e
        raise AssertionError(f"no {event} {match} in the hook log: {self.sequence(since)}")

    def replies(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.replies_path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}


SNAPSHOT_EVENTS = ("SessionEnd", "PreCompact", "PostCompact")


def _command(
    root: Path, log: Path, replies: Path, snapshot: Iterable[str], watch: Path | None = None
) -> str:
    script = root / "hook_log.py"
    script.write_text(SCRIPT.lstrip(), encoding="utf-8")
    log.touch()
    argv = (sys.executable, script, log, replies, ",".join(snapshot), watch or "")
    return " ".join(shlex.quote(str(a)) for a in argv)


def _merge_hooks(
    path: Path,
    command: str,
    events: Iterable[str],
    extra: dict[str, Any],
    untimed: Iterable[str] = (),
) -> None:
    data: dict[str, Any] = {}
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    hooks = data.setdefault("hooks", {})
    bare = set(untimed)
    for ev in events:
        hook: dict[str, Any] = {"type": "command", "command": command}
        if ev not in bare:
            hook["timeout"] = 10
        hooks.setdefault(ev, []).append({"hooks": [hook]})
    data.update(extra)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def install(
    world: Any,
    events: Iterable[str] | None = None,
    replies: dict[str, str | dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
    snapshot: Iterable[str] = SNAPSHOT_EVENTS,
    untimed: Iterable[str] = (),
    watch: Path | None = None,
) -> HookLog:
    """Register the logging hook for ``events`` in ``world`` (a ``World`` or a
    ``CodexWorld``) and return its :class:`HookLog` (``<root>/hooks.jsonl``). ``replies``:
    the first answers (see :meth:`HookLog.reply`); ``snapshot``: the events at which the
    hook copies the transcript it is handed; ``untimed``: the events registered without a
    ``timeout`` (Claude Code 2.1.328 gives every SessionEnd hook the largest SessionEnd
    ``timeout`` of the settings files: the logger's 10 s would lift a plugin's ~1.5 s);
    ``watch``: a folder (the store) whose listing each entry records as ``listing`` (None
    while it does not exist) — what a hook running next to the logger found there.

    Claude Code: the entries go into ``$HOME/.claude/settings.json`` together with the
    top-level ``settings`` (e.g. ``{"showClearContextOnPlanAccept": True}``). Codex: into
    ``$CODEX_HOME/hooks.json`` (Codex runs them only once trusted: the TUI's "Hooks need
    review" prompt, or ``--dangerously-bypass-hook-trust``)."""
    log = HookLog(world.root / "hooks.jsonl", world.root / "hook_replies.json")
    cmd = _command(world.root, log.path, log.replies_path, snapshot, watch)
    for key, out in (replies or {}).items():
        log.reply(key, out)
    codex_home = getattr(world, "codex_home", None)
    if codex_home is not None:
        if settings:
            raise ValueError("settings= is for Claude Code; use -c flags for Codex")
        _merge_hooks(Path(codex_home) / "hooks.json", cmd, events or CODEX_EVENTS, {}, untimed)
    else:
        target = Path(world.home) / ".claude" / "settings.json"
        _merge_hooks(target, cmd, events or CLAUDE_EVENTS, settings or {}, untimed)
    return log

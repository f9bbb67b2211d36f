"""The hook entries an install merges into a client's settings file (Claude Code's
`.claude/settings.json`, Codex's `.codex/hooks.json`), and the command they run.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from session_skill.errors import SessionError
from session_skill.install.settings_file import dump_json, json_style, read_json
from session_skill.install.steps import Place, Step, remove_empty_dirs

HOOK_MARK = "-m session_skill hook session-start"  # how we recognise our own hook entry
# SessionStart matches on its source: compact too, to give back what a compaction dropped.
MATCHER = "startup|clear|compact"
HOOK_TIMEOUT = 10
END_MARK = "-m session_skill hook session-end"
# SessionEnd matches on its reason; only /clear is of use. Its entry must set a timeout:
# without one Claude Code kills a SessionEnd hook after ~1.5 s (seen, 2.1.328).
END_MATCHER = "clear"
COMPACT_MARK = "-m session_skill hook pre-compact"
COMPACT_MATCHER = "manual|auto"  # PreCompact matches on its trigger: /compact, and automatic
# The hooks each client gets: (event, matcher, how our command is recognised). Codex's /clear
# fires no SessionEnd (seen with codex-cli 0.171.0): its SessionStart(clear) captures the
# thread /clear left.
EVENTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "claude": (
        ("SessionStart", MATCHER, HOOK_MARK),
        ("SessionEnd", END_MATCHER, END_MARK),
        ("PreCompact", COMPACT_MATCHER, COMPACT_MARK),
    ),
    "codex": (("SessionStart", MATCHER, HOOK_MARK), ("PreCompact", COMPACT_MATCHER, COMPACT_MARK)),
}


def hook_command(python: str | None = None, agent: str = "claude") -> str:
    """The hook's shell command: this interpreter, by absolute path (a shim costs ~90 ms).

    Codex gives a hook no variable of its own, so its command says which client runs it
    (`SESSION_SKILL_AGENT=codex`): the hook's messages then name `$session`."""
    python = python or sys.executable or "python3"
    parent, safe = _probe(python)
    # `-P` (Python 3.11+): the project the hook runs in is not searched first — its own
    # `session_skill/` (a fork, another version) ran in place of the installed package.
    command = f"{shlex.quote(python)}{' -P' if safe else ''} {HOOK_MARK}"
    if parent:
        command = f"PYTHONPATH={shlex.quote(parent)} {command}"
    return f"SESSION_SKILL_AGENT=codex {command}" if agent == "codex" else command


def _probe(python: str) -> tuple[str | None, bool]:
    """Our package's parent folder when `python` cannot import this very package by itself
    (a checkout run without `pip install`: the hook runs from the project directory); and
    whether `python` takes `-P`."""
    ours = Path(__file__).resolve().parents[1]
    probe = (
        "import sys; sys.stdout.write(str(sys.version_info >= (3, 11)) + ' '); sys.stdout.flush()"
        "; import session_skill; sys.stdout.write(session_skill.__file__)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    try:
        found = subprocess.run(
            [python, "-c", probe],
            capture_output=True,
            text=True,
            env=env,
            cwd=os.path.abspath(os.sep),
            timeout=30,
        )
        said, _, where = found.stdout.strip().partition(" ")
        safe = said == "True"
        if found.returncode == 0 and Path(where).resolve().parent == ours:
            return None, safe
    except (OSError, subprocess.SubprocessError):
        safe = False
    return str(ours.parent), safe


def install_hook(place: Place, command: str) -> list[Step]:
    """One step writing the client's hook entries (SessionStart and PreCompact, and
    SessionEnd for Claude Code): each added when missing, its command updated when the
    interpreter moved, a timeout set when it has none."""
    shown = place.show(place.settings)
    original = read_json(place.settings, shown)
    data = json.loads(json.dumps(original))  # a deep copy to edit
    added: list[str] = []
    updated: list[str] = []
    for event, matcher, mark in EVENTS[place.agent]:
        entries = event_entries(data, shown, create=True, event=event)
        before = json.dumps(entries)
        if not merge_hook(entries, command.replace(HOOK_MARK, mark), matcher, mark):
            added.append(event)
        elif json.dumps(entries) != before:
            updated.append(event)
    if data == original:
        return []
    if updated and added:
        what = f"update the {hooks_phrase(updated)} and add the {hooks_phrase(added)} in"
    else:
        what = (
            f"update the {hooks_phrase(updated)} in"
            if updated
            else f"add the {hooks_phrase(added)} to"
        )
    data_bytes = dump_json(data, json_style(place.settings, shown))
    return [Step(f"{what} {shown}", place.settings, data_bytes)]


def merge_hook(entries: list[Any], command: str, matcher: str, mark: str) -> bool:
    """Our hook in one event's entries, with `command` (and a timeout, unless one is set);
    False when it had to be added."""
    found = False
    for entry in list(entries):
        hooks = entry.get("hooks") if isinstance(entry, dict) else None
        if not isinstance(hooks, list):
            continue
        for hook in list(hooks):
            if not is_ours(hook, mark):
                continue
            if found:  # a duplicate of ours: one is enough
                hooks.remove(hook)
                if not hooks:
                    entries.remove(entry)
                continue
            found = True
            hook["command"] = command  # the interpreter may have moved
            if isinstance(hook, dict) and "timeout" not in hook:
                hook["timeout"] = HOOK_TIMEOUT  # without one, SessionEnd gets ~1.5 s (above)
            if isinstance(entry, dict) and entry.get("matcher") != matcher:
                if len(hooks) == 1:  # our own entry: it matches what this version needs
                    entry["matcher"] = matcher
                else:  # shared with other hooks: ours moves to an entry of its own
                    hooks.remove(hook)
                    found = False
    if not found:
        entries.append(
            {
                "matcher": matcher,
                "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}],
            }
        )
    return found


def hooks_phrase(events: list[str]) -> str:
    """`SessionStart hook`, `SessionStart and SessionEnd hooks`, `A, B and C hooks`."""
    if len(events) == 1:
        return f"{events[0]} hook"
    return ", ".join(events[:-1]) + f" and {events[-1]} hooks"


def uninstall_hook(place: Place) -> list[Step]:
    shown = place.show(place.settings)
    if not os.path.lexists(place.settings):
        return []
    original = read_json(place.settings, shown)
    data = json.loads(json.dumps(original))
    hooks_obj = data.get("hooks")
    removed: list[str] = []
    # Every event, whatever the client: an entry of ours is removed wherever it is.
    for event, _matcher, mark in EVENTS["claude"]:
        entries = event_entries(data, shown, create=False, event=event)
        if entries is None or not isinstance(hooks_obj, dict):
            continue
        for entry in list(entries):
            hooks = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(hooks, list) or not any(is_ours(h, mark) for h in hooks):
                continue
            hooks[:] = [h for h in hooks if not is_ours(h, mark)]
            if not hooks:  # we emptied it
                entries.remove(entry)
            if event not in removed:
                removed.append(event)
        # Containers we emptied go too; ones that were empty before stay as they were.
        if event in removed and not entries:
            del hooks_obj[event]
    if data == original:
        return []
    if isinstance(hooks_obj, dict) and not hooks_obj:
        del data["hooks"]
    if not data and not place.settings.is_symlink():

        def remove() -> None:
            place.settings.unlink()
            remove_empty_dirs(place.settings.parent, place.top)

        return [Step(f"remove {shown} (it held only the session-skill hook)", action=remove)]
    what = f"remove the {hooks_phrase(removed)} from {shown}"
    return [Step(what, place.settings, dump_json(data, json_style(place.settings, shown)))]


def is_ours(hook: object, mark: str = HOOK_MARK) -> bool:
    return (
        isinstance(hook, dict) and isinstance(hook.get("command"), str) and mark in hook["command"]
    )


def event_entries(
    data: dict[str, Any], shown: str, *, create: bool, event: str = "SessionStart"
) -> Any:
    """`data["hooks"][event]` (created when asked); refuses shapes we don't know."""
    hooks = data.setdefault("hooks", {}) if create else data.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise SessionError(f'{shown}: "hooks" is not a JSON object: not touching it')
    entries = hooks.setdefault(event, []) if create else hooks.get(event)
    if entries is None:
        return None
    if not isinstance(entries, list):
        raise SessionError(f'{shown}: "hooks.{event}" is not a JSON list: not touching it')
    return entries

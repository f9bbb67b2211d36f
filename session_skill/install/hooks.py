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
from session_skill.hooks.ours import HOOK_MARK as HOOK_MARK  # how we recognise our own entry
from session_skill.hooks.ours import our_form as our_form
from session_skill.install import notes as install_notes
from session_skill.install.settings_file import edit_json, read_bytes, read_json
from session_skill.install.steps import Place, Step, link_target, remove_empty_dirs
from session_skill.store import fileio

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


# Whether install created a settings file (notes.py keeps the note): uninstall removes the
# file it emptied only then; one the user had (an empty `{}`) stays theirs.
CREATED = install_notes.CREATED  # its name beside the file (a user install; older projects)


def install_hook(place: Place, command: str, notes: list[str] | None = None) -> list[Step]:
    """One step writing the client's hook entries (SessionStart and PreCompact, and
    SessionEnd for Claude Code): each added when missing, its command updated when the
    interpreter moved, a timeout set when it has none. A hook of the user's that runs ours
    (wrapped: `nice -n 10 …`) is left as it is, said in `notes`, and none is added beside it."""
    shown = place.show(place.settings)
    raw = read_bytes(place.settings, shown)
    original = read_json(place.settings, shown)
    link_target(place.settings, shown)
    data = json.loads(json.dumps(original))  # a deep copy to edit
    added: list[str] = []
    updated: list[str] = []
    for event, matcher, mark in EVENTS[place.agent]:
        entries = event_entries(data, shown, create=True, event=event)
        before = json.dumps(entries)
        theirs: list[str] = []
        if not merge_hook(entries, command.replace(HOOK_MARK, mark), matcher, mark, theirs):
            added.append(event)
        elif json.dumps(entries) != before:
            updated.append(event)
        if notes is not None:
            notes += [
                f"Kept your {event} hook in {shown} as you wrote it, `{c}` (install "
                "updates only the form it writes)."
                for c in theirs
            ]
    created = install_notes.created(place)
    if data == original:
        old = install_notes.old_note(place, "created")
        if old is None:
            return []
        # An older install's note beside the settings file, in the user's repository.
        move = f"move {place.show(old)} into the store (out of git's sight)"
        return [Step(move, action=lambda: _move_created(place, created))]
    if updated and added:
        what = f"update the {hooks_phrase(updated)} and add the {hooks_phrase(added)} in"
    else:
        what = (
            f"update the {hooks_phrase(updated)} in"
            if updated
            else f"add the {hooks_phrase(added)} to"
        )
    data_bytes = edit_json(raw, data)
    if os.path.lexists(place.settings):
        # A file install created that holds none of its hooks (gone by hand), or another
        # made since, is the user's now: the note that install created it goes.
        theirs_now = created and len(added) == len(EVENTS[place.agent])
        old = install_notes.old_note(place, "created")
        if not theirs_now and old is None:
            return [Step(f"{what} {shown}", place.settings, data_bytes)]

        def rewrite() -> None:
            Step(what, place.settings, data_bytes).apply()
            _move_created(place, created and not theirs_now)

        return [Step(f"{what} {shown}", action=rewrite)]

    def create() -> None:
        place.settings.parent.mkdir(parents=True, exist_ok=True)
        fileio.atomic_write(place.settings, data_bytes)
        install_notes.note(place, "created", True)

    return [Step(f"{what} {shown}", action=create)]


def _move_created(place: Place, created: bool) -> None:
    """The note that install created the settings file, into the store (an older install's
    beside the file removed) — or dropped wherever it is, when it no longer holds."""
    if created:
        install_notes.note(place, "created", True)
    else:
        install_notes.forget(place, "created")


def merge_hook(
    entries: list[Any], command: str, matcher: str, mark: str, theirs: list[str] | None = None
) -> bool:
    """Our hook in one event's entries, with `command` (and a timeout, unless one is set);
    False when it had to be added. A hook of the user's that runs ours (`our_form`:
    wrapped, or among commands of theirs) counts as ours and is left untouched, its command
    appended to `theirs`; install's own beside it would run the hook twice, and goes."""
    hooks_of: list[tuple[Any, Any, str]] = []  # (entry, hook, form) of each hook running ours
    for entry in entries:
        hooks = entry.get("hooks") if isinstance(entry, dict) else None
        if isinstance(hooks, list):
            hooks_of += [(entry, h, f) for h in hooks if (f := our_form(h, mark)) is not None]
    users = [h["command"] for _e, h, f in hooks_of if f != "ours"]
    if theirs is not None:
        theirs += users
    found = bool(users)
    for entry, hook, form in hooks_of:
        if form != "ours":
            continue
        hooks = entry["hooks"]
        if found:  # a duplicate of ours (or of the user's form of it): one is enough
            hooks.remove(hook)
            if not hooks:
                entries.remove(entry)
            continue
        found = True
        hook["command"] = command  # the interpreter may have moved
        if "timeout" not in hook:
            hook["timeout"] = HOOK_TIMEOUT  # without one, SessionEnd gets ~1.5 s (above)
        if entry.get("matcher") != matcher:
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


def uninstall_hook(place: Place, kept: list[str] | None = None) -> list[Step]:
    """Our hook entries out of the client's settings file; the user's form of one (wrapped:
    `nice -n 10 …`) too, as it runs nothing of theirs but ours — but not one that runs ours
    among commands of theirs (`./notify.sh; … hook session-end`): that stays, said in `kept`.
    A file install created goes when this empties it; one the user had stays (as `{}`)."""
    shown = place.show(place.settings)
    if not os.path.lexists(place.settings):
        return []
    raw = read_bytes(place.settings, shown)
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
            if not isinstance(hooks, list):
                continue
            forms = [our_form(h, mark) for h in hooks]
            if kept is not None:
                kept += [
                    f"your {event} hook in {shown}, `{h['command']}`: it runs session-skill "
                    "among commands of yours (edit it yourself)"
                    for h, f in zip(hooks, forms, strict=True)
                    if f == "mixed"
                ]
            if not any(f in ("ours", "wrapped") for f in forms):
                continue
            hooks[:] = [
                h for h, f in zip(hooks, forms, strict=True) if f not in ("ours", "wrapped")
            ]
            if not hooks:  # we emptied it
                entries.remove(entry)
            if event not in removed:
                removed.append(event)
        # Containers we emptied go too; ones that were empty before stay as they were.
        if event in removed and not entries:
            del hooks_obj[event]
    created = install_notes.created(place)
    if data == original:
        if not install_notes.recorded(place, "created"):
            return []
        # Our hooks went by hand: the note that install created the file goes too.
        forget = install_notes.forget_what(place, "created")
        return [Step(forget, action=lambda: install_notes.forget(place, "created"))]
    if isinstance(hooks_obj, dict) and not hooks_obj:
        del data["hooks"]
    what = f"remove the {hooks_phrase(removed)} from {shown}"
    if not data and created and not place.settings.is_symlink():

        def remove() -> None:
            place.settings.unlink()
            install_notes.forget(place, "created")
            remove_empty_dirs(place.settings.parent, place.top)

        return [Step(f"remove {shown} (it held only the session-skill hook)", action=remove)]
    data_bytes = edit_json(raw, data)
    if not created:
        return [Step(what, place.settings, data_bytes)]

    def rewrite() -> None:
        Step(what, place.settings, data_bytes).apply()
        install_notes.forget(place, "created")  # nothing of ours is left in it: the user's now

    return [Step(what, action=rewrite)]


def event_entries(
    data: dict[str, Any], shown: str, *, create: bool, event: str = "SessionStart"
) -> Any:
    """`data["hooks"][event]` (created when asked); refuses shapes we don't know."""
    # A key present but null is a shape we don't know either (`"hooks": null`), not one absent.
    hooks = data.setdefault("hooks", {}) if create else data.get("hooks")
    if hooks is None and "hooks" not in data:
        return None
    if not isinstance(hooks, dict):
        raise SessionError(f'{shown}: "hooks" is not a JSON object: not touching it')
    entries = hooks.setdefault(event, []) if create else hooks.get(event)
    if entries is None and event not in hooks:
        return None
    if not isinstance(entries, list):
        raise SessionError(f'{shown}: "hooks.{event}" is not a JSON list: not touching it')
    return entries

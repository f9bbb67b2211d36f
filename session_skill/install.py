"""`session-skill install` / `uninstall` (SPEC §10): the skill file, the SessionStart hook,
the store and the `.gitignore` line, for Claude Code and Codex, per project or per user.

Everything is planned (and every file validated) before the first byte is written, so a
refusal leaves the project as it was. Install only adds or updates what is ours; uninstall
removes only what is ours and never the store.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from session_skill.agent import CODEX_SKILL, PROJECT_SKILL
from session_skill.codexskill import CODEX_PLUGIN_EDITS, codex_copy
from session_skill.codexskill import PLUGIN_CLI as PLUGIN_CLI
from session_skill.errors import SessionError, UsageError
from session_skill.store import fileio
from session_skill.store.jsonfile import dump_json, json_style, read_bytes, read_json
from session_skill.store.store import STORE_REL, Store, find_project_root, template_dir

HOOK_MARK = "-m session_skill hook session-start"  # how we recognise our own hook entry
MATCHER = "startup|clear"
HOOK_TIMEOUT = 10
END_MARK = "-m session_skill hook session-end"
# SessionEnd matches on its reason; only /clear is of use. Its entry must set a timeout:
# without one Claude Code kills a SessionEnd hook after ~1.5 s (seen, 2.1.328).
END_MATCHER = "clear"
# The hooks each client gets: (event, matcher, how our command is recognised). Codex's /clear
# fires no SessionEnd (seen with codex-cli 0.171.0), so it gets the SessionStart hook only.
EVENTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "claude": (("SessionStart", MATCHER, HOOK_MARK), ("SessionEnd", END_MATCHER, END_MARK)),
    "codex": (("SessionStart", MATCHER, HOOK_MARK),),
}
SKILL_MARK = "session-skill dispatch"  # how we recognise our own SKILL.md (any version)
GITIGNORE_LINE = ".claude/state/"
# Lines that already keep the store out of git.
_IGNORED_ALREADY = {
    p + s
    for p in (".claude/state", "/.claude/state", ".claude", "/.claude")
    for s in ("", "/", "/*")
}
AGENTS = ("claude", "codex")
AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex"}


def skill_source() -> Path:
    """`skills/session/SKILL.md`: packaged inside the wheel, or beside the package in a checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "_data" / "skills" / "session" / "SKILL.md"
    return packaged if packaged.is_file() else here.parent / "skills" / "session" / "SKILL.md"


def skill_text(agent: str) -> str:
    try:
        text = fileio.read_text(skill_source())
    except OSError:
        raise SessionError(f"the packaged skill is missing: {skill_source()}") from None
    return codex_copy(text) if agent == "codex" else text


def codex_plugin_skill_text() -> str:
    """The SKILL.md of the Codex plugin (codex/skills/session/SKILL.md)."""
    return codex_copy(skill_text("codex"), CODEX_PLUGIN_EDITS)


def hook_command(python: str | None = None, agent: str = "claude") -> str:
    """The hook's shell command: this interpreter, by absolute path (a shim costs ~90 ms).

    Codex gives a hook no variable of its own, so its command says which client runs it
    (`SESSION_SKILL_AGENT=codex`): the hook's messages then name `$session`."""
    python = python or sys.executable or "python3"
    command = f"{shlex.quote(python)} {HOOK_MARK}"
    parent = _package_path_if_not_importable(python)
    if parent:
        command = f"PYTHONPATH={shlex.quote(parent)} {command}"
    return f"SESSION_SKILL_AGENT=codex {command}" if agent == "codex" else command


def _package_path_if_not_importable(python: str) -> str | None:
    """Our package's parent folder when `python` cannot import this very package by itself
    (a checkout run without `pip install`): the hook runs from the project directory."""
    ours = Path(__file__).resolve().parent
    probe = "import session_skill, sys; sys.stdout.write(session_skill.__file__)"
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
        if found.returncode == 0 and Path(found.stdout.strip()).resolve().parent == ours:
            return None
    except (OSError, subprocess.SubprocessError):
        pass
    return str(ours.parent)


# -- plans --------------------------------------------------------------------------------


class _Step:
    """One change: write `data` to `path`, or run `action`."""

    def __init__(
        self,
        what: str,
        path: Path | None = None,
        data: bytes | None = None,
        action: Callable[[], None] | None = None,
    ) -> None:
        self.what = what
        self.path = path
        self.data = data
        self.action = action

    def apply(self) -> None:
        try:
            if self.action is not None:
                self.action()
            elif self.path is not None and self.data is not None:
                # A symlinked file (dotfiles) is written through, keeping the link.
                target = self.path.resolve() if self.path.is_symlink() else self.path
                target.parent.mkdir(parents=True, exist_ok=True)
                fileio.atomic_write(target, self.data)
        except OSError as exc:
            raise SessionError(f"cannot {self.what}: {exc.strerror or exc}") from None


class _Place:
    """Where one agent's files go, and how to show their paths."""

    def __init__(self, agent: str, base: Path, home: Path, user: bool) -> None:
        self.agent = agent
        self.base = base
        self.home = home
        self.user = user
        if agent == "claude":
            self.skill = base / ".claude" / "skills" / "session" / "SKILL.md"
            self.settings = base / ".claude" / "settings.json"
        else:
            self.skill = base / ".agents" / "skills" / "session" / "SKILL.md"
            self.settings = base / ".codex" / "hooks.json"

    def show(self, path: Path) -> str:
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return str(path)
        return f"~/{rel}" if self.user and self.base == self.home else rel


def _targets(project: Path | None, user: bool, agent: str, home: Path) -> tuple[Path, list[_Place]]:
    if agent not in ("claude", "codex", "all"):
        raise UsageError(f"--agent takes claude, codex or all, not {agent!r}")
    if user and project is not None:
        raise UsageError("--project and --user exclude each other")
    base = home if user else (project if project is not None else find_project_root())
    base = base.expanduser().absolute()
    agents = AGENTS if agent == "all" else (agent,)
    return base, [_Place(a, base, home, user) for a in agents]


# -- install ------------------------------------------------------------------------------


def install(*, project: Path | None, user: bool, agent: str, dry_run: bool, home: Path) -> str:
    """Install the skill and the hook (and, for a project, the store and .gitignore line)."""
    base, places = _targets(project, user, agent, home)
    plain = hook_command()
    commands = {
        p.agent: plain if p.agent == "claude" else hook_command(agent=p.agent) for p in places
    }
    steps: list[_Step] = []
    codex_hook: bool | None = None  # Codex hook entry: None unchanged, False added, True updated
    for place in places:
        steps += _install_skill(place)
        hook_steps = _install_hook(place, commands[place.agent])
        if place.agent == "codex" and hook_steps:
            codex_hook = hook_steps[0].what.startswith("update")
        steps += hook_steps
    if not user:
        steps += _install_store(base)
        steps += _install_gitignore(base)
    where = "your user account (~)" if user else str(base)
    agents = " and ".join(AGENT_NAMES[p.agent] for p in places)
    warn = _path_warning()
    if not steps:
        return "\n".join(["Already installed: nothing to change.", *warn])
    shown_commands = [
        f"Hook command{f' ({AGENT_NAMES[a]})' if len(commands) > 1 else ''}: {c}"
        for a, c in commands.items()
    ]
    if dry_run:
        lines = [f"Dry run: nothing written. Installing for {agents} in {where} would:"]
        lines += [f"  - {s.what}" for s in steps]
        lines += shown_commands + warn
        return "\n".join(lines)
    for step in steps:
        step.apply()
    lines = [f"Installed session-skill for {agents} in {where}:"]
    lines += [f"  - {s.what}" for s in steps]
    lines += shown_commands
    forms = " or ".join(
        f"`{CODEX_SKILL if p.agent == 'codex' else PROJECT_SKILL} dump`" for p in places
    )
    lines.append(f"Next: start a new session so the hook is loaded, then {forms} before `/clear`.")
    if codex_hook is not None:
        lines += _codex_trust_notes(base, user, updated=codex_hook)
    return "\n".join(lines + warn)


def _path_warning() -> list[str]:
    """The skill runs `session-skill` by name (and pre-approves `Bash(session-skill *)`, so
    a path would not do): say so when it cannot be found on PATH."""
    if shutil.which("session-skill"):
        return []
    script = Path(sys.executable).parent / "session-skill"
    fix = (
        f"add {script.parent} to PATH (it holds this install's session-skill)"
        if script.is_file()
        else "install the package where its `session-skill` script lands on PATH (pipx, pip)"
    )
    return [f"⚠ `session-skill` is not on PATH, and the skill runs it by that name: {fix}."]


def _codex_trust_notes(base: Path, user: bool, *, updated: bool) -> list[str]:
    """What a Codex user must do before the hook runs (seen with codex-cli 0.171.0)."""
    where = "~/.codex/hooks.json" if user else ".codex/hooks.json"
    notes = [
        "Codex runs a new or changed hook only once you trust it, and skips an untrusted "
        "one without a word:"
    ]
    if not user:
        notes.append(
            "  - it loads a project's .codex/ only in a trusted project: at \"Trust this "
            'folder?" choose "Trust and continue" (or set `trust_level = "trusted"` under '
            f"[projects.{json.dumps(str(base))}] in ~/.codex/config.toml);"
        )
    notes += [
        '  - start `codex` (the TUI): at "Hooks need review" choose "Trust all and continue", '
        f'or "Review hooks" and `t` on the SessionStart hook of {where}; `/hooks` shows it '
        "later;",
        "  - `codex exec` never asks: it skips the hook silently until you trusted it in the TUI;",
        "  - this install changed the hook's command, so Codex asks again: trust it again."
        if updated
        else "  - a changed hook command must be trusted again (a later install that changes "
        "it says so).",
    ]
    return notes


def _install_skill(place: _Place) -> list[_Step]:
    text = skill_text(place.agent)
    data = text.encode("utf-8")
    shown = place.show(place.skill)
    current = read_bytes(place.skill, shown)
    if current == data:
        return []
    if current is None:
        return [_Step(f"write {shown}", place.skill, data)]
    if SKILL_MARK.encode() not in current:
        raise SessionError(
            f"{shown} exists and is not session-skill's: not touching it "
            "(move it away and run install again)"
        )
    return [_Step(f"update {shown} to this version", place.skill, data)]


def _install_hook(place: _Place, command: str) -> list[_Step]:
    """One step writing the client's hook entries (SessionStart, and SessionEnd for Claude
    Code): each added when missing, its command updated when the interpreter moved."""
    shown = place.show(place.settings)
    original = read_json(place.settings, shown)
    data = json.loads(json.dumps(original))  # a deep copy to edit
    added: list[str] = []
    updated: list[str] = []
    for event, matcher, mark in EVENTS[place.agent]:
        entries = _session_start(data, shown, create=True, event=event)
        before = json.dumps(entries)
        if not _merge_hook(entries, command.replace(HOOK_MARK, mark), matcher, mark):
            added.append(event)
        elif json.dumps(entries) != before:
            updated.append(event)
    if data == original:
        return []
    if updated and added:
        what = f"update the {_hooks(updated)} and add the {_hooks(added)} in"
    else:
        what = f"update the {_hooks(updated)} in" if updated else f"add the {_hooks(added)} to"
    data_bytes = dump_json(data, json_style(place.settings, shown))
    return [_Step(f"{what} {shown}", place.settings, data_bytes)]


def _merge_hook(entries: list[Any], command: str, matcher: str, mark: str) -> bool:
    """Our hook in one event's entries, with `command`; False when it had to be added."""
    found = False
    for entry in list(entries):
        hooks = entry.get("hooks") if isinstance(entry, dict) else None
        if not isinstance(hooks, list):
            continue
        for hook in list(hooks):
            if not _is_ours(hook, mark):
                continue
            if found:  # a duplicate of ours: one is enough
                hooks.remove(hook)
                if not hooks:
                    entries.remove(entry)
                continue
            found = True
            hook["command"] = command  # the interpreter may have moved
    if not found:
        entries.append(
            {
                "matcher": matcher,
                "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}],
            }
        )
    return found


def _hooks(events: list[str]) -> str:
    """`SessionStart hook`, `SessionStart and SessionEnd hooks`."""
    return " and ".join(events) + (" hooks" if len(events) > 1 else " hook")


def _install_store(root: Path) -> list[_Step]:
    st = Store(root)
    st.check()
    tpl = template_dir()
    wanted = {".gitignore"} | (
        {p.name for p in tpl.iterdir() if p.is_file()} if tpl.is_dir() else set()
    )
    if st.exists() and all(os.path.lexists(st.dir / name) for name in wanted):
        return []
    verb = "complete" if st.exists() else "create"
    return [_Step(f"{verb} the store {STORE_REL.as_posix()}/", action=st.ensure)]


def _install_gitignore(root: Path) -> list[_Step]:
    if not os.path.lexists(root / ".git"):
        return []
    path = root / ".gitignore"
    current = read_bytes(path, ".gitignore")
    if current is None:
        return [
            _Step(
                f"create .gitignore with {GITIGNORE_LINE}", path, (GITIGNORE_LINE + "\n").encode()
            )
        ]
    text = fileio.decode(current, path)
    if any(line.strip() in _IGNORED_ALREADY for line in text.splitlines()):
        return []
    newline = fileio.newline_of(text)
    prefix = newline if text and not text.endswith("\n") else ""
    data = current + (prefix + GITIGNORE_LINE + newline).encode()
    return [_Step(f"add {GITIGNORE_LINE} to .gitignore", path, data)]


# -- uninstall ----------------------------------------------------------------------------


def uninstall(*, project: Path | None, user: bool, agent: str, home: Path) -> str:
    """Remove our hook entry and an unmodified skill file; never the store or user content."""
    base, places = _targets(project, user, agent, home)
    steps: list[_Step] = []
    kept: list[str] = []
    for place in places:
        steps += _uninstall_skill(place, kept)
        steps += _uninstall_hook(place)
    if not user and Store(base).exists():
        kept.append(f"the store {STORE_REL.as_posix()}/ (your handovers and parked items)")
    if not user and _has_line(base / ".gitignore", GITIGNORE_LINE):
        kept.append(
            f"the {GITIGNORE_LINE} line in .gitignore (the store stays, so it stays ignored)"
        )
    if not steps:
        return "\n".join(["Not installed: nothing to remove.", *(f"Kept {k}." for k in kept)])
    for step in steps:
        step.apply()
    where = "your user account (~)" if user else str(base)
    agents = " and ".join(AGENT_NAMES[p.agent] for p in places)
    lines = [f"Uninstalled session-skill for {agents} from {where}:"]
    lines += [f"  - {s.what}" for s in steps]
    lines += [f"Kept {k}." for k in kept]
    return "\n".join(lines)


def _uninstall_skill(place: _Place, kept: list[str]) -> list[_Step]:
    shown = place.show(place.skill)
    current = read_bytes(place.skill, shown)
    if current is None:
        return []
    if current != skill_text(place.agent).encode("utf-8"):
        kept.append(f"{shown}: it differs from the packaged skill (edited, or another version)")
        return []

    def remove() -> None:
        place.skill.unlink()
        _remove_empty_dirs(place.skill.parent, place.base)

    return [_Step(f"remove {shown}", action=remove)]


def _uninstall_hook(place: _Place) -> list[_Step]:
    shown = place.show(place.settings)
    if not os.path.lexists(place.settings):
        return []
    original = read_json(place.settings, shown)
    data = json.loads(json.dumps(original))
    hooks_obj = data.get("hooks")
    removed: list[str] = []
    # Both events, whatever the client: an entry of ours is removed wherever it is.
    for event, _matcher, mark in EVENTS["claude"]:
        entries = _session_start(data, shown, create=False, event=event)
        if entries is None or not isinstance(hooks_obj, dict):
            continue
        for entry in list(entries):
            hooks = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(hooks, list) or not any(_is_ours(h, mark) for h in hooks):
                continue
            hooks[:] = [h for h in hooks if not _is_ours(h, mark)]
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
            _remove_empty_dirs(place.settings.parent, place.base)

        return [_Step(f"remove {shown} (it held only the session-skill hook)", action=remove)]
    what = f"remove the {_hooks(removed)} from {shown}"
    return [_Step(what, place.settings, dump_json(data, json_style(place.settings, shown)))]


# -- helpers ------------------------------------------------------------------------------


def _remove_empty_dirs(folder: Path, base: Path) -> None:
    """Remove `folder` and its parents up to (not including) `base` while they are empty."""
    while folder != base and base in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (or not ours to judge): stop here
        folder = folder.parent


def _has_line(path: Path, line: str) -> bool:
    try:
        return line in path.read_text("utf-8", "replace").splitlines()
    except OSError:
        return False


def _is_ours(hook: object, mark: str = HOOK_MARK) -> bool:
    return (
        isinstance(hook, dict) and isinstance(hook.get("command"), str) and mark in hook["command"]
    )


def _session_start(
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

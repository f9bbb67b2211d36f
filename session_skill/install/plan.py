"""`session-skill install` / `uninstall` (SPEC §10): the skill file, the hooks, the store and
the `.gitignore` line, for Claude Code and Codex, per project or per user.

Everything is planned (and every file validated) before the first byte is written, so a
refusal leaves the project as it was. Install only adds or updates what is ours; uninstall
removes only what is ours and never the store.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from session_skill.agent import CODEX_SKILL, PROJECT_SKILL
from session_skill.errors import UsageError
from session_skill.install.hooks import hook_command, install_hook, uninstall_hook
from session_skill.install.settings_file import read_bytes
from session_skill.install.skills import install_skill, uninstall_skill
from session_skill.install.steps import Place, Step, link_target
from session_skill.store import fileio
from session_skill.store.store import Store, find_project_root, template_dir

GITIGNORE_LINE = ".claude/state/"
# Lines that already keep the store out of git.
_IGNORED_ALREADY = {
    p + s
    for p in (".claude/state", "/.claude/state", ".claude", "/.claude")
    for s in ("", "/", "/*")
}
AGENTS = ("claude", "codex")
AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex"}


def _targets(
    project: Path | None,
    user: bool,
    agent: str,
    home: Path,
    claude_dir: Path | None,
    codex_dir: Path | None = None,
) -> tuple[Path, list[Place]]:
    if agent not in ("claude", "codex", "all"):
        raise UsageError(f"--agent takes claude, codex or all, not {agent!r}")
    if user and project is not None:
        raise UsageError("--project and --user exclude each other")
    base = home if user else (project if project is not None else find_project_root())
    base = base.expanduser().absolute()
    agents = AGENTS if agent == "all" else (agent,)
    root = None if user else store_root(base)
    return base, [Place(a, base, home, user, claude_dir, codex_dir, root) for a in agents]


# -- install ------------------------------------------------------------------------------


def install(
    *,
    project: Path | None,
    user: bool,
    agent: str,
    dry_run: bool,
    home: Path,
    claude_dir: Path | None = None,
    codex_dir: Path | None = None,
) -> str:
    """Install the skill and the hook (and, for a project, the store and .gitignore line).

    `claude_dir`: Claude Code's user folder for `--user` (`$CLAUDE_CONFIG_DIR`); None is
    `home/.claude`. `codex_dir`: Codex's (`$CODEX_HOME`); None is `home/.codex`.
    """
    base, places = _targets(project, user, agent, home, claude_dir, codex_dir)
    plain = hook_command()
    commands = {
        p.agent: plain if p.agent == "claude" else hook_command(agent=p.agent) for p in places
    }
    steps: list[Step] = []
    notes: list[str] = []  # hooks of the user's that run ours, left as they are
    codex_hook: bool | None = None  # Codex hook entry: None unchanged, False added, True updated
    for place in places:
        steps += install_skill(place)
        hook_steps = install_hook(place, commands[place.agent], notes)
        changed = [s for s in hook_steps if not s.what.startswith("move ")]  # not a note moved
        if place.agent == "codex" and changed:
            codex_hook = changed[0].what.startswith("update")
        steps += hook_steps
    if not user:
        root = store_root(base)
        steps += _install_store(root, base)
        steps += _install_gitignore(root, base)
    where = "your user account (~)" if user else str(base)
    agents = " and ".join(AGENT_NAMES[p.agent] for p in places)
    warn = _path_warning()
    if not warn and any(p.agent == "codex" for p in places):
        warn = _login_path_warning()
    warn = notes + warn
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
        codex = next(p for p in places if p.agent == "codex")
        lines += _codex_trust_notes(base, codex, updated=codex_hook)
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


def _login_path_warning() -> list[str]:
    """Codex runs the skill's commands with `bash -lc`, a login shell, whose profile may set
    PATH afresh (Debian's /etc/profile does): `session-skill` found here may not be found
    there — a venv on PATH only in this shell — and `$session` fails, the install quiet."""
    bash = shutil.which("bash")
    if bash is None:
        return []
    import subprocess

    try:
        found = subprocess.run(
            [bash, "-lc", "command -v session-skill"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if found.returncode == 0 and found.stdout.strip():
        return []
    script = shutil.which("session-skill")
    where = Path(script).parent if script else Path(sys.executable).parent
    return [
        "⚠ Codex runs commands in a login shell (`bash -lc`), and there `session-skill` is "
        f'not on PATH: add `export PATH="{where}:$PATH"` to ~/.profile (or ~/.bash_profile), '
        "or `$session` cannot run it."
    ]


def _codex_trust_notes(base: Path, place: Place, *, updated: bool) -> list[str]:
    """What a Codex user must do before the hook runs (seen with codex-cli 0.171.0)."""
    user = place.user
    where = place.show(place.settings)
    config = place.show_home(place.config)
    notes = [
        "Codex runs a new or changed hook only once you trust it, and skips an untrusted "
        "one without a word:"
    ]
    if not user:
        notes.append(
            "  - it loads a project's .codex/ only in a trusted project: at \"Trust this "
            'folder?" choose "Trust and continue" (or set `trust_level = "trusted"` under '
            f"[projects.{json.dumps(str(base))}] in {config});"
        )
    notes += [
        '  - start `codex` (the TUI): at "Hooks need review" choose "Trust all and continue", '
        f'or "Review hooks" and `t` on each hook of {where} (SessionStart and PreCompact); '
        "`/hooks` shows them later;",
        "  - `codex exec` never asks: it skips the hook silently until you trusted it in the TUI;",
        "  - this install changed the hook's command, so Codex asks again: trust it again."
        if updated
        else "  - a changed hook command must be trusted again (a later install that changes "
        "it says so).",
    ]
    return notes


def store_root(base: Path) -> Path:
    """The project whose store the hooks and the CLI will use for an install into `base`:
    the git root `base` is in (else `base`). Claude Code reads the settings of the folder it
    was started in, so `install --project sub` rightly puts the skill and the hooks in
    `sub/.claude/`; but the hooks find the store from that folder's git root, as the CLI
    does from the model's working directory, and a store made in `sub` was never read."""
    return find_project_root(env={}, cwd=base)


def _shown(path: Path, root: Path, base: Path) -> str:
    """`path` (inside `root`) as install names it: relative to the project installed into,
    in full when the store's project is another (`--project` a subfolder of a repository)."""
    return path.relative_to(root).as_posix() if root == base else str(path)


def _install_store(root: Path, base: Path) -> list[Step]:
    st = Store(root)
    st.check()
    tpl = template_dir()
    wanted = {".gitignore"} | (
        {p.name for p in tpl.iterdir() if p.is_file()} if tpl.is_dir() else set()
    )
    if st.exists() and all(os.path.lexists(st.dir / name) for name in wanted):
        return []
    verb = "complete" if st.exists() else "create"
    what = f"{verb} the store {_shown(st.dir, root, base)}/"
    if root != base:
        what += " (the repository's: the hooks and the CLI look for it at its root)"
    return [Step(what, action=st.ensure)]


def _install_gitignore(root: Path, base: Path) -> list[Step]:
    if not os.path.lexists(root / ".git"):
        return []
    path = root / ".gitignore"
    shown = _shown(path, root, base)
    current = read_bytes(path, shown)
    link_target(path, shown)
    if current is None:
        return [
            Step(f"create {shown} with {GITIGNORE_LINE}", path, (GITIGNORE_LINE + "\n").encode())
        ]
    text = fileio.decode(current, path)
    if any(line.strip() in _IGNORED_ALREADY for line in text.splitlines()):
        return []
    newline = fileio.newline_of(text)
    prefix = newline if text and not text.endswith("\n") else ""
    data = current + (prefix + GITIGNORE_LINE + newline).encode()
    return [Step(f"add {GITIGNORE_LINE} to {shown}", path, data)]


# -- uninstall ----------------------------------------------------------------------------


def uninstall(
    *,
    project: Path | None,
    user: bool,
    agent: str,
    home: Path,
    claude_dir: Path | None = None,
    codex_dir: Path | None = None,
) -> str:
    """Remove our hook entry and an unmodified skill file; never the store or user content."""
    base, places = _targets(project, user, agent, home, claude_dir, codex_dir)
    steps: list[Step] = []
    kept: list[str] = []
    for place in places:
        steps += uninstall_skill(place, kept)
        steps += uninstall_hook(place, kept)
    root = base if user else store_root(base)
    stays = not user and Store(root).exists()
    if stays:
        shown = _shown(Store(root).dir, root, base)
        kept.append(f"the store {shown}/ (your handovers and parked items)")
    if not user and _has_line(root / ".gitignore", GITIGNORE_LINE):
        shown = _shown(root / ".gitignore", root, base)
        # (a store removed by hand: the line keeps the next one out of git)
        why = "the store stays, so it stays ignored" if stays else "it keeps a store out of git"
        kept.append(f"the {GITIGNORE_LINE} line in {shown} ({why})")
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


def _has_line(path: Path, line: str) -> bool:
    try:
        return line in path.read_text("utf-8", "replace").splitlines()
    except OSError:
        return False

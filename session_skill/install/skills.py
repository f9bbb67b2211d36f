"""The skill files an install writes: Claude Code's SKILL.md as packaged, the Codex
project copy (`.agents/skills/session/SKILL.md`) and the Codex plugin's copy
(`codex/skills/session/SKILL.md`), each Codex copy made from the packaged SKILL.md by exact
edits that fail loudly when the skill changes under them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from session_skill.errors import SessionError
from session_skill.install import notes as install_notes
from session_skill.install.settings_file import read_bytes
from session_skill.install.steps import Place, Step, link_target, remove_empty_dirs
from session_skill.store import fileio

SKILL_MARK = "session-skill dispatch"  # how we recognise our own SKILL.md (any version)

# The Codex copy of the skill, edit by edit. Codex reads only `name` and `description`,
# substitutes nothing in a skill body (no $ARGUMENTS, no session id), names the skill
# `$session`, and has no AskUserQuestion tool: the model asks in plain text and waits.
CODEX_EDITS = (
    ("Use for /session, or when", "Use for $session, or when"),
    ("argument-hint: dump [name] | recall [name] | list | park <idea> | sweep | drop <item>\n", ""),
    ("allowed-tools: Bash(session-skill *)\n", ""),
    (' --session-id "${CLAUDE_SESSION_ID}"', ""),
    ("\n$ARGUMENTS\n", "\n<what the user wrote after $session, verbatim>\n"),
    (
        "ask the user with AskUserQuestion, one option per printed option, then re-run",
        "ask the user in plain text, the printed options as a numbered list, and wait for "
        "the answer (end your turn; never pick for them), then re-run",
    ),
    (
        "Then ask (AskUserQuestion): park all, a subset, or none.",
        "Then ask the user in plain text, as numbered options (1. park all, 2. a subset: "
        "which numbers, 3. none), and wait for the answer.",
    ),
)


def codex_copy(text: str, edits: tuple[tuple[str, str], ...] = CODEX_EDITS) -> str:
    for old, new in edits:
        if old not in text:  # the packaged skill changed under these edits: fail loudly
            raise SessionError(f"cannot make the Codex copy of the skill: {old.strip()!r} is gone")
        text = text.replace(old, new)
    return text


# The Codex plugin's copy (codex/skills/session/SKILL.md, generated from the Codex copy;
# tests/test_codex_plugin.py keeps the committed file equal to this). Seen in codex-cli 0.171.0:
# the plugin's skill is `$session-skill:session`; its bin/ is not on the shell's PATH and a
# skill body gets no substitution, but the skill message gives the SKILL.md's absolute path
# (`<path>`); the shell tool's sandbox may neither write the plugin's data folder nor download,
# so the first command (it installs the dependencies) must be re-run outside it.
PLUGIN_CLI = '"<plugin>/bin/session-skill"'
CODEX_PLUGIN_EDITS = (
    ("Use for $session, or when", "Use for $session-skill:session, or when"),
    ("after $session, verbatim>", "after $session-skill:session, verbatim>"),
    (
        "The `session-skill` CLI does the mechanics. Run exactly this;",
        "The `session-skill` CLI does the mechanics. It comes with this plugin and is not on "
        f"PATH: run it as `{PLUGIN_CLI}`, where `<plugin>` is this SKILL.md's path without "
        "`/codex/skills/session/SKILL.md`, written out — here and in every command its output "
        "prints (`session-skill dump …`). Run exactly this;",
    ),
    ("```bash\nsession-skill dispatch", f"```bash\n{PLUGIN_CLI} dispatch"),
    (
        "- **1** — relay the `error:` line",
        "- **1** after a line `session-skill: setup needed: …` — the plugin's one-time setup "
        "(it installs its Python dependencies, 20–60 s) cannot run in Codex's sandbox: run the "
        'same command again with `sandbox_permissions: "require_escalated"` and the '
        'justification "session-skill installs its Python dependencies (once)".\n'
        "- **1** — relay the `error:` line",
    ),
    ("   session-skill dump <as printed>", f"   {PLUGIN_CLI} dump <as printed>"),
    ("`session-skill sweep --park 1,3`", f"`{PLUGIN_CLI} sweep --park 1,3`"),
    ("`session-skill sweep --drop 2`", f"`{PLUGIN_CLI} sweep --drop 2`"),
    ("`session-skill sweep --drop N`", f"`{PLUGIN_CLI} sweep --drop N`"),
    ("```bash\nsession-skill park <<", f"```bash\n{PLUGIN_CLI} park <<"),
)


def skill_source() -> Path:
    """`skills/session/SKILL.md`: packaged inside the wheel, or beside the package in a checkout."""
    here = Path(__file__).resolve().parents[1]
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


# The SHA-256 of the SKILL.md install wrote (notes.py keeps it). A file that no longer has
# it was edited by its user — an update must not wipe it (it did, as "update … to this
# version"), and an uninstall may remove an older version it wrote, unedited.
WRITTEN = install_notes.WRITTEN  # its name beside the skill (a user install; older projects)


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _write_skill(place: Place, data: bytes, keep: Path | None = None) -> Callable[[], None]:
    def write() -> None:
        place.skill.parent.mkdir(parents=True, exist_ok=True)
        if keep is not None:
            fileio.atomic_write(keep, place.skill.read_bytes(), keep_mode=True)
        # A symlinked skill (dotfiles) is written through, keeping the link.
        target = place.skill.resolve() if place.skill.is_symlink() else place.skill
        fileio.atomic_write(target, data, keep_mode=True)
        install_notes.note(place, "written", _digest(data))

    return write


def install_skill(place: Place) -> list[Step]:
    text = skill_text(place.agent)
    data = text.encode("utf-8")
    shown = place.show(place.skill)
    current = read_bytes(place.skill, shown)
    if current == data:
        old = install_notes.old_note(place, "written")
        if old is None:
            return []
        # An older install's note beside the skill, in the user's repository: to the store.
        move = f"move {place.show(old)} into the store (out of git's sight)"
        return [Step(move, action=lambda: install_notes.note(place, "written", _digest(data)))]
    link_target(place.skill, shown)
    if current is None:
        return [Step(f"write {shown}", action=_write_skill(place, data))]
    if SKILL_MARK.encode() not in current:
        raise SessionError(
            f"{shown} exists and is not session-skill's: not touching it "
            "(move it away and run install again)"
        )
    written = install_notes.written(place)
    if written is not None and written != _digest(current):
        if written == _digest(data):
            return []  # this very version, edited by its user: their edit stays as it is
        keep = _free(place.skill.with_name("SKILL.md.edited"))
        what = f"update {shown} to this version (your edited copy kept as {place.show(keep)})"
        return [Step(what, action=_write_skill(place, data, keep))]
    return [Step(f"update {shown} to this version", action=_write_skill(place, data))]


def _free(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`…: an edited copy kept by an earlier update is never
    written over."""
    n, found = 1, path
    while found.exists() or found.is_symlink():
        n += 1
        found = path.with_name(f"{path.name}-{n}")
    return found


def uninstall_skill(place: Place, kept: list[str]) -> list[Step]:
    shown = place.show(place.skill)
    current = read_bytes(place.skill, shown)
    if current is None:
        if not install_notes.recorded(place, "written"):
            return []

        def tidy() -> None:  # the skill went by hand: its note goes too
            install_notes.forget(place, "written")
            remove_empty_dirs(place.skill.parent, place.top)

        return [Step(install_notes.forget_what(place, "written"), action=tidy)]
    packaged = skill_text(place.agent).encode("utf-8")
    ours = current == packaged or install_notes.written(place) == _digest(current)
    if not ours:
        kept.append(f"{shown}: it differs from the packaged skill (edited, or another version)")
        return []

    def remove() -> None:
        place.skill.unlink()
        install_notes.forget(place, "written")
        remove_empty_dirs(place.skill.parent, place.top)

    return [Step(f"remove {shown}", action=remove)]

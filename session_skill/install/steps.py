"""What an install is made of: steps planned first, applied only when all are valid, and
the places each client's files go."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from session_skill.errors import SessionError
from session_skill.store import fileio


class Step:
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
                # A symlinked file (dotfiles) is written through, keeping the link, into a
                # folder that exists (`link_target` refused the plan otherwise).
                if self.path.is_symlink():
                    target = self.path.resolve()
                else:
                    target = self.path
                    target.parent.mkdir(parents=True, exist_ok=True)
                fileio.atomic_write(target, self.data, keep_mode=True)
        except OSError as exc:
            raise SessionError(f"cannot {self.what}: {exc.strerror or exc}") from None


class Place:
    """Where one agent's files go, and how to show their paths.

    `claude_dir` is Claude Code's user folder for a user install (`$CLAUDE_CONFIG_DIR`,
    else `~/.claude`: with the variable set the client reads the user's settings.json and
    skills/ there alone, seen with 2.1.328). `codex_dir` is Codex's (`$CODEX_HOME`, else
    `~/.codex`): a user install's hooks.json, and the config.toml its notes name. `top` is
    the folder an uninstall removes no empty folder above. `store_root`: the project whose
    store keeps a project install's notes (`notes.py`); None for a user install.
    """

    def __init__(
        self,
        agent: str,
        base: Path,
        home: Path,
        user: bool,
        claude_dir: Path | None = None,
        codex_dir: Path | None = None,
        store_root: Path | None = None,
    ) -> None:
        self.agent = agent
        self.store_root = None if user else (store_root or base)
        self.base = base
        self.home = home
        self.user = user
        self.top = base
        if agent == "claude":
            folder = claude_dir if user and claude_dir is not None else base / ".claude"
            self.skill = folder / "skills" / "session" / "SKILL.md"
            self.settings = folder / "settings.json"
            if base not in folder.parents:
                self.top = folder.parent
        else:
            # A user's hooks.json is in Codex's own folder, `$CODEX_HOME` when it is set
            # (where Codex reads its config.toml and writes its rollouts).
            folder = codex_dir if user and codex_dir is not None else base / ".codex"
            self.skill = base / ".agents" / "skills" / "session" / "SKILL.md"
            self.settings = folder / "hooks.json"
            if base not in folder.parents:
                self.top = folder.parent
        self.config = (codex_dir if codex_dir is not None else home / ".codex") / "config.toml"

    def show_home(self, path: Path) -> str:
        """`path` as `~/…` when it is in the home folder."""
        try:
            return f"~/{path.relative_to(self.home).as_posix()}"
        except ValueError:
            return str(path)

    def show(self, path: Path) -> str:
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return str(path)
        return f"~/{rel}" if self.user and self.base == self.home else rel


def remove_empty_dirs(folder: Path, base: Path) -> None:
    """Remove `folder` and its parents up to (not including) `base` while they are empty."""
    while folder != base and base in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (or not ours to judge): stop here
        folder = folder.parent


def link_target(path: Path, shown: str) -> Path:
    """Where a write to `path` lands: through a symlink (dotfiles), to its target — but
    only into a folder that exists: a dangling link's target folder is not ours to create
    (it may be a dotfiles checkout not cloned yet, an unmounted disk)."""
    if not path.is_symlink():
        return path
    target = path.resolve()
    if not target.parent.is_dir():
        raise SessionError(
            f"{shown} is a symlink to {target}, whose folder does not exist: not touching it"
        )
    return target

"""The checked-out branch, read from `.git/HEAD` without starting a process (for the hook)."""

from __future__ import annotations

import os

# Plain strings inside: the hook calls current_branch, and pathlib is costly to import.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_LIMIT = 4096


def git_dir(root: str | os.PathLike[str]) -> Path | None:
    """`.git` directory of `root`; for a linked worktree, the `gitdir:` it points to."""
    found = _git_dir(os.fspath(root))
    if found is None:
        return None
    from pathlib import Path

    return Path(found)


def _git_dir(root: str) -> str | None:
    dot = os.path.join(root, ".git")
    try:
        if os.path.isdir(dot):
            return dot
        if os.path.isfile(dot):
            with open(dot, "rb") as fh:
                line = fh.read(_LIMIT).decode("utf-8", "replace").strip()
            if line.startswith("gitdir:"):
                target = line[len("gitdir:") :].strip()
                return target if os.path.isabs(target) else os.path.join(root, target)
    except OSError:
        return None
    return None


def current_branch(root: str | os.PathLike[str]) -> str | None:
    """Branch name; `detached` for a detached HEAD; None when unknown (no git)."""
    gd = _git_dir(os.fspath(root))
    if gd is None:
        return None
    try:
        with open(os.path.join(gd, "HEAD"), "rb") as fh:
            head = fh.read(_LIMIT).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
    return "detached" if head else None

"""The checked-out branch, read from `.git/HEAD` without starting a process (for the hook)."""

from __future__ import annotations

from pathlib import Path

_LIMIT = 4096


def git_dir(root: Path) -> Path | None:
    """`.git` directory of `root`; for a linked worktree, the `gitdir:` it points to."""
    dot = root / ".git"
    try:
        if dot.is_dir():
            return dot
        if dot.is_file():
            with open(dot, "rb") as fh:
                line = fh.read(_LIMIT).decode("utf-8", "replace").strip()
            if line.startswith("gitdir:"):
                target = Path(line[len("gitdir:") :].strip())
                return target if target.is_absolute() else (root / target)
    except OSError:
        return None
    return None


def current_branch(root: Path) -> str | None:
    """Branch name; `detached` for a detached HEAD; None when unknown (no git)."""
    gd = git_dir(root)
    if gd is None:
        return None
    try:
        with open(gd / "HEAD", "rb") as fh:
            head = fh.read(_LIMIT).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
    return "detached" if head else None

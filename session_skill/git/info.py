"""What git says about the project: branch, commit, dirty paths and per-file Refs.

Every call has a timeout and a git failure never fails a command (SPEC §9).
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

from session_skill.git.head import current_branch
from session_skill.records import field, record

TIMEOUT = 4.0


@record
class GitState:
    available: bool = False
    missing: bool = False  # no git executable at all (not the same as "not a repository")
    branch: str | None = None  # "detached" on a detached HEAD
    commit: str | None = None
    dirty: int = 0
    refs: dict[str, str] = field(default_factory=dict)  # path -> Ref, changed paths only


class GitMissing(Exception):
    """No `git` executable to run."""


def _git(root: Path, *args: str) -> str | None:
    """git's stdout, or None when it failed. Paths are asked for with `-z` wherever git
    would otherwise quote them (a tab, newline, quote or backslash in a name)."""
    try:
        proc = subprocess.run(
            ["git", "-c", "core.quotepath=off", "-C", str(root), *args],
            capture_output=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitMissing from None
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "replace")


def state(root: Path, *, since: datetime | None = None) -> GitState:
    """Branch, short commit, dirty count and a Ref for every changed path."""
    try:
        return _state(root, since)
    except GitMissing:
        return GitState(missing=True)


def _state(root: Path, since: datetime | None) -> GitState:
    probe = _git(root, "rev-parse", "--is-inside-work-tree", "--show-prefix")
    if probe is None:
        return GitState()
    # git reports paths from the repository's top; the project may be a subdirectory of it.
    lines = probe.splitlines()
    prefix = lines[1].strip() if len(lines) > 1 else ""
    st = GitState(available=True, branch=current_branch(root))
    head = _git(root, "rev-parse", "--short", "HEAD")
    st.commit = head.strip() if head else None
    if st.branch is None:
        out = _git(root, "symbolic-ref", "--short", "-q", "HEAD")
        st.branch = out.strip() if out else "detached"
    st.refs = _refs(root, has_head=st.commit is not None)
    st.dirty = len(st.refs)
    if since is not None and st.commit:
        for path in committed_since(root, since):
            st.refs.setdefault(path, "committed")
    if prefix:
        st.refs = {_from_top(p, prefix): _from_top_ref(r, prefix) for p, r in st.refs.items()}
    return st


def _from_top(path: str, prefix: str) -> str:
    """A top-relative git path made relative to the project (`../x` when outside it)."""
    if path.startswith(prefix):
        return path[len(prefix) :]
    return os.path.relpath(path, prefix.rstrip("/"))


def _from_top_ref(ref: str, prefix: str) -> str:
    head = "renamed from "
    return head + _from_top(ref[len(head) :], prefix) if ref.startswith(head) else ref


def _refs(root: Path, *, has_head: bool) -> dict[str, str]:
    refs: dict[str, str] = {}
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    if status:
        entries = status.split("\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            i += 1
            if len(entry) < 4:
                continue
            code, path = entry[:2], entry[3:]
            if code[0] in "RC":
                old = entries[i] if i < len(entries) else ""
                i += 1
                refs[path] = f"renamed from {old}"
            elif code == "??" or "A" in code:
                refs[path] = "new"
            elif "D" in code:
                refs[path] = "deleted"
            else:
                refs[path] = "—"
    if has_head:
        # -z: `A<TAB>R<TAB>path\0`, or `A<TAB>R<TAB>\0old\0new\0` for a rename.
        fields = (_git(root, "diff", "--numstat", "-z", "HEAD") or "").split("\0")
        i = 0
        while i < len(fields):
            parts = fields[i].split("\t", 2)
            i += 1
            if len(parts) < 3:
                continue
            added, removed, path = parts
            if not path:
                i += 2  # a rename: status reports it
                continue
            if refs.get(path, "—") == "—" and path in refs:
                refs[path] = "binary" if added == "-" else f"+{added}/-{removed}"
    return refs


def committed_since(root: Path, since: datetime) -> list[str]:
    try:
        out = _git(
            root,
            "log",
            f"--since={since.isoformat()}",
            "--name-only",
            "-z",
            "--pretty=format:",
            "HEAD",
        )
    except GitMissing:
        return []
    # -z: every path ends in NUL, and commits are parted by an empty one.
    return list(dict.fromkeys(p for p in (out or "").split("\0") if p.strip()))


def head_info(root: Path) -> tuple[str | None, str | None]:
    """(branch, short commit) cheaply, for recall's drift line."""
    branch = current_branch(root)
    try:
        head = _git(root, "rev-parse", "--short", "HEAD")
    except GitMissing:
        head = None
    return branch, head.strip() if head else None

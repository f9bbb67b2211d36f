"""What git says about the project: branch, commit, dirty paths and per-file Refs.

Every call has a timeout and a git failure never fails a command (SPEC §9).
"""

from __future__ import annotations

import os
import subprocess
import time
from datetime import datetime
from pathlib import Path

from session_skill.git.head import current_branch
from session_skill.records import Record

TIMEOUT = 4.0
MIN_READ = 0.1  # seconds to read an answer that came while the caller was busy past TIMEOUT


class GitState(Record):
    """What git says. A plain `Record`: `recall`, in the model's loop, builds no `@record`
    class (and so reads no cache file for one)."""

    __slots__ = ("available", "missing", "branch", "commit", "dirty", "refs")

    def __init__(
        self,
        available: bool = False,
        missing: bool = False,  # no git executable at all (not the same as "not a repository")
        branch: str | None = None,  # "detached" on a detached HEAD
        commit: str | None = None,
        dirty: int = 0,
        refs: dict[str, str] | None = None,  # path -> Ref, changed paths only
    ) -> None:
        self.available = available
        self.missing = missing
        self.branch = branch
        self.commit = commit
        self.dirty = dirty
        self.refs = {} if refs is None else refs


class GitMissing(Exception):
    """No `git` executable to run."""


def _git(root: Path, *args: str) -> str | None:
    """git's stdout, or None when it failed. Paths are asked for with `-z` wherever git
    would otherwise quote them (a tab, newline, quote or backslash in a name)."""
    return _Asked(root, args).answer(time.monotonic() + TIMEOUT)


class _Asked:
    """One git process, started now and read later: several run beside each other, and
    beside the caller's own work."""

    __slots__ = ("proc",)

    def __init__(self, root: Path, args: tuple[str, ...]) -> None:
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                ["git", "-c", "core.quotepath=off", "-C", str(root), *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            raise GitMissing from None
        except (OSError, subprocess.SubprocessError):
            self.proc = None

    def answer(self, deadline: float) -> str | None:
        """Its stdout when it succeeded by `deadline` (monotonic; one that finished while
        the caller was busy past it still counts); else None, and it is gone."""
        proc = self.proc
        if proc is None:
            return None
        try:
            out, _ = proc.communicate(timeout=max(MIN_READ, deadline - time.monotonic()))
        except (OSError, subprocess.SubprocessError):
            self.close()
            return None
        if proc.returncode != 0:
            return None
        return out.decode("utf-8", "replace")

    def close(self) -> None:
        proc = self.proc
        if proc is not None and proc.returncode is None:
            proc.kill()
            try:
                proc.communicate(timeout=1.0)
            except (OSError, subprocess.SubprocessError):
                pass


class Asking:
    """`state`, asked of git at once (`start`) and answered when the caller needs it
    (`state`): git's processes run while the caller reads the transcript. All but the
    commits since the session began, which needs the session's start."""

    __slots__ = ("root", "deadline", "probe", "head", "status", "diff", "missing")

    def __init__(self, root: Path) -> None:
        self.root = root
        self.deadline = time.monotonic() + TIMEOUT
        self.missing = False
        try:
            self.probe = _Asked(root, ("rev-parse", "--is-inside-work-tree", "--show-prefix"))
            self.head = _Asked(root, ("rev-parse", "--short", "HEAD"))
            self.status = _Asked(root, _STATUS)
            # -z: `A<TAB>R<TAB>path\0`, or `A<TAB>R<TAB>\0old\0new\0` for a rename.
            self.diff = _Asked(root, ("diff", "--numstat", "-z", "HEAD"))
        except GitMissing:
            self.missing = True
            self.close()

    def state(self, since: datetime | None = None) -> GitState:
        """Branch, short commit, dirty count and a Ref for every changed path."""
        if self.missing:
            return GitState(missing=True)
        try:
            return self._state(since)
        except GitMissing:
            return GitState(missing=True)
        finally:
            self.close()

    def close(self) -> None:
        for name in ("probe", "head", "status", "diff"):
            asked = getattr(self, name, None)
            if asked is not None:
                asked.close()

    def _state(self, since: datetime | None) -> GitState:
        root = self.root
        probe = self.probe.answer(self.deadline)
        if probe is None:
            return GitState()
        # git reports paths from the repository's top; the project may be a subdirectory.
        lines = probe.splitlines()
        prefix = lines[1].strip() if len(lines) > 1 else ""
        st = GitState(available=True, branch=current_branch(root))
        head = self.head.answer(self.deadline)
        st.commit = head.strip() if head else None
        if st.branch is None:
            out = _git(root, "symbolic-ref", "--short", "-q", "HEAD")
            st.branch = out.strip() if out else "detached"
        diff = self.diff.answer(self.deadline) if st.commit is not None else None
        st.refs = _refs(self.status.answer(self.deadline), diff)
        st.dirty = len(st.refs)
        if since is not None and st.commit:
            for path in committed_since(root, since):
                st.refs.setdefault(path, "committed")
        if prefix:
            st.refs = {_from_top(p, prefix): _from_top_ref(r, prefix) for p, r in st.refs.items()}
        return st


_STATUS = ("status", "--porcelain=v1", "-z", "--untracked-files=all")


def start(root: Path) -> Asking:
    """Ask git for `state` now; its answer comes from `.state(since)`, later."""
    return Asking(root)


def state(root: Path, *, since: datetime | None = None) -> GitState:
    """Branch, short commit, dirty count and a Ref for every changed path."""
    return start(root).state(since)


def _from_top(path: str, prefix: str) -> str:
    """A top-relative git path made relative to the project (`../x` when outside it)."""
    if path.startswith(prefix):
        return path[len(prefix) :]
    return os.path.relpath(path, prefix.rstrip("/"))


def _from_top_ref(ref: str, prefix: str) -> str:
    head = "renamed from "
    return head + _from_top(ref[len(head) :], prefix) if ref.startswith(head) else ref


def _refs(status: str | None, diff: str | None) -> dict[str, str]:
    """A Ref per changed path, from `git status` and `git diff --numstat HEAD`."""
    refs: dict[str, str] = {}
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
    if diff is not None:
        fields = diff.split("\0")
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

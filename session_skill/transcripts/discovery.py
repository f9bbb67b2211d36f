"""Find the current session's transcript (SPEC §7.7).

Order: an explicit path; the session id (given, else `CLAUDE_CODE_SESSION_ID`) under the
project's folder in `~/.claude/projects/`, else in any folder there (a session started in a
subdirectory is filed under it); the Codex thread (the session id given, else
`CODEX_THREAD_ID`, which Codex sets in every tool call) as `rollout-*-<id>.jsonl`; the
newest transcript in the Claude Code folder; the newest Codex rollout whose `session_meta`
names the project as its cwd. Environment and home are
passed in, so tests and the CLI decide where "home" is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from session_skill import recache

_NOT_ALNUM = recache.compile(r"[^A-Za-z0-9]")
_SAFE_SESSION_ID = recache.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
# A session_meta line carries the base instructions and can run to tens of kilobytes.
_META_READ_LIMIT = 1 << 20
_META_LINES = 5
# Rollouts examined newest first before giving up; a busy ~/.codex holds thousands.
_ROLLOUTS_MAX = 500


def project_key(path: Path | str) -> str:
    """Claude Code's folder name for a project: every char outside [A-Za-z0-9] becomes '-'."""
    return _NOT_ALNUM.sub("-", str(path))


def claude_projects_dir(env: Mapping[str, str], home: Path) -> Path:
    # CLAUDE_CONFIG_DIR relocates everything Claude Code keeps under ~/.claude.
    config = env.get("CLAUDE_CONFIG_DIR")
    return (_expand(config, home) if config else home / ".claude") / "projects"


def codex_sessions_dir(env: Mapping[str, str], home: Path) -> Path:
    codex_home = env.get("CODEX_HOME")
    return (_expand(codex_home, home) if codex_home else home / ".codex") / "sessions"


def _expand(path: str, home: Path) -> Path:
    # `~` means the home passed in, so tests and callers with another home stay consistent.
    if path == "~" or path.startswith(("~/", "~" + os.sep)):
        return home / path[2:]
    return Path(path).expanduser()


def find_transcript(
    project_root: Path,
    *,
    transcript: str | None,
    session_id: str | None,
    env: Mapping[str, str],
    home: Path,
) -> Path | None:
    """The transcript to sweep, or None when there is none.

    An explicit `transcript` is returned as given (expanded), existing or not: the caller
    reports a missing file the user named instead of silently sweeping another one.
    """
    if transcript:
        return _expand(transcript, home)
    projects = claude_projects_dir(env, home)
    folder = projects / project_key(project_root)
    sid = session_id or env.get("CLAUDE_CODE_SESSION_ID")
    if sid and _SAFE_SESSION_ID.match(sid):
        found = _session_file(projects, folder, sid)
        if found is not None:
            return found
    # Inside Codex the tool call names its thread: that rollout is this session, even in a
    # project that also has Claude Code transcripts.
    thread = session_id or env.get("CODEX_THREAD_ID")
    if thread and _SAFE_SESSION_ID.match(thread):
        found = _codex_thread(codex_sessions_dir(env, home), thread)
        if found is not None:
            return found
    newest = _newest(folder.glob("*.jsonl") if folder.is_dir() else ())
    if newest is not None:
        return newest
    return _codex_rollout(codex_sessions_dir(env, home), project_root)


def _session_file(projects: Path, folder: Path, sid: str) -> Path | None:
    direct = folder / f"{sid}.jsonl"
    if direct.is_file():
        return direct
    # Claude Code files a session under the directory it was started in, which may be a
    # subdirectory of the project root; a session id is unique, so look in every folder.
    if projects.is_dir():
        for candidate in sorted(projects.glob(f"*/{sid}.jsonl")):
            if candidate.is_file():
                return candidate
    return None


def _codex_thread(sessions: Path, thread: str) -> Path | None:
    """The rollout of one Codex thread: `sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`."""
    if not sessions.is_dir():
        return None
    return _newest(sessions.glob(f"*/*/*/rollout-*-{thread}.jsonl"))


def _newest(paths: Iterable[Path]) -> Path | None:
    best: tuple[float, str] | None = None
    best_path: Path | None = None
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        if not path.is_file() or stat.st_size == 0:
            continue
        key = (stat.st_mtime, path.name)
        if best is None or key > best:
            best, best_path = key, path
    return best_path


def _codex_rollout(sessions: Path, project_root: Path) -> Path | None:
    if not sessions.is_dir():
        return None
    dated: list[tuple[float, str, Path]] = []
    for path in sessions.rglob("rollout-*.jsonl"):
        try:
            dated.append((path.stat().st_mtime, path.name, path))
        except OSError:
            continue
    dated.sort(reverse=True)
    wanted = _same_dir_keys(str(project_root))
    for _, _, path in dated[:_ROLLOUTS_MAX]:
        cwd = rollout_cwd(path)
        if cwd is not None and _same_dir_keys(cwd) & wanted:
            return path
    return None


def rollout_cwd(path: Path) -> str | None:
    """The `session_meta` cwd of a Codex rollout, reading only its first lines."""
    try:
        with open(path, "rb") as fh:
            for _ in range(_META_LINES):
                raw = fh.readline(_META_READ_LIMIT)
                if not raw:
                    break
                try:
                    record = json.loads(raw.decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    continue
                if not isinstance(record, dict):
                    continue
                payload = record.get("payload") if record.get("type") == "session_meta" else None
                if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
                    return str(payload["cwd"])
    except OSError:
        return None
    return None


def _same_dir_keys(path: str) -> set[str]:
    # The root may be spelled through a symlink (/tmp → /private/tmp on macOS).
    keys = {os.path.normpath(path)}
    try:
        keys.add(os.path.realpath(path))
    except OSError:
        pass
    return keys


_THREAD = recache.compile(
    r"rollout-.+?-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl\Z"
)
_PREVIOUS_MAX = 60  # rollouts looked at, newest first, for the thread /clear left


def previous_codex_rollout(new_rollout: str, project_root: str) -> tuple[str, str] | None:
    """(rollout, thread id) of the Codex thread of this project that `/clear` left — its
    SessionStart(clear) names only the new thread (seen, 0.171.0). Found under the sessions
    folder holding `new_rollout` by `session_meta.cwd` (the project root or a directory
    inside it): of this project's rollouts the one written last, not the one begun last —
    another terminal's thread begun later and idle since, or a thread resumed (`codex
    resume` writes on in its first day's folder), was taken for it. Two threads of one
    project busy at once in two terminals still cannot be told apart."""
    day = os.path.dirname(os.path.abspath(new_rollout))
    sessions = os.path.dirname(os.path.dirname(os.path.dirname(day)))
    if os.path.basename(sessions) != "sessions":
        return None
    found: list[tuple[float, str, str]] = []
    for year in _listdir_desc(sessions)[:2]:
        for month in _listdir_desc(os.path.join(sessions, year))[:3]:
            for date in _listdir_desc(os.path.join(sessions, year, month))[:31]:
                found += _rollouts(os.path.join(sessions, year, month, date))
    found.sort(reverse=True)  # written last first (its name, the thread's start, breaks ties)
    wanted = _same_dir_keys(project_root)
    new = os.path.abspath(new_rollout)
    for _, name, path in found[:_PREVIOUS_MAX]:
        if os.path.abspath(path) == new:
            continue
        thread = _THREAD.search(name)
        cwd = rollout_cwd(Path(path))
        if thread is None or cwd is None:
            continue
        if _same_dir_keys(cwd) & wanted or _within(cwd, wanted):
            return path, thread.group(1)
    return None


def _rollouts(folder: str) -> list[tuple[float, str, str]]:
    """(mtime, name, path) of the rollouts in one day's folder."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("rollout-") and name.endswith(".jsonl"):
                    try:
                        found.append((entry.stat().st_mtime, name, entry.path))
                    except OSError:
                        continue
    except OSError:
        pass
    return found


def _listdir_desc(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder), reverse=True)
    except OSError:
        return []


def _within(cwd: str, roots: set[str]) -> bool:
    return any(os.path.normpath(cwd).startswith(root.rstrip(os.sep) + os.sep) for root in roots)

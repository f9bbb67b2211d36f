"""`config get [KEY] [--user]` and `config set KEY VALUE [--user]`: the settings of
`store/settings.py` (where they live, the levels and the choices are described there)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from session_skill.commands.output import Output
from session_skill.errors import SessionError, UsageError
from session_skill.store import fileio, settings


def _key(key: str) -> str:
    known = settings.CHOICES
    if key not in known:
        raise UsageError(f"no setting named {key!r}; settings: {', '.join(known)}")
    return key


def _shown(path: str, root: str, env: Mapping[str, str]) -> str:
    """A project file relative to the project, a user file under `~` with it."""
    if path.startswith(root.rstrip("/") + "/"):
        return os.path.relpath(path, root)
    home = (env.get("HOME") or "").rstrip("/")
    return "~" + path[len(home) :] if home and path.startswith(home + "/") else path


def _line(s: settings.Setting, root: str, env: Mapping[str, str]) -> str:
    where = "default" if s.path is None else f"{s.level}: {_shown(s.path, root, env)}"
    return f"{s.key} = {s.value} ({where})"


def get(root: str, key: str | None, *, user: bool, env: Mapping[str, str]) -> Output:
    """The effective value of each setting (or `KEY`) and where it came from; with --user,
    the user-level value only."""
    lines: list[str] = []
    problems: list[str] = []
    for k in [_key(key)] if key else list(settings.CHOICES):
        if user:
            path = settings.user_file(env)
            value, problem = settings.level_value(k, path)
            problems += [problem] if problem else []
            if value is None:
                lines.append(f"{k} is not set for the user (default: {settings.DEFAULTS[k]})")
            else:
                lines.append(f"{k} = {value} (user: {_shown(path, root, env)})")
            continue
        s = settings.effective(k, root, env)
        problems += s.problems
        lines.append(_line(s, root, env))
    return Output("\n".join([*lines, *(f"! {p}" for p in problems)]))


def set_value(root: str, key: str, value: str, *, user: bool, env: Mapping[str, str]) -> Output:
    """Write `KEY: VALUE` into the project's settings file (or the user's), keeping the rest."""
    key = _key(key)
    choice = value.strip().lower()
    if choice not in settings.CHOICES[key]:
        *first, last = settings.CHOICES[key]
        raise UsageError(f"{key} takes {', '.join(first)} or {last}; got {value!r}")
    path = settings.user_file(env) if user else settings.project_file(root)
    shown = _shown(path, root, env)
    data, problem = settings.read_file(path)
    if problem is not None:
        raise SessionError(f"{problem}: not touching it (fix it or remove it)")
    if data.get(key) == choice:
        lines = [f"{key} = {choice} ({'user' if user else 'project'}: {shown}), unchanged"]
    else:
        data[key] = choice
        _write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
        lines = [f"{key} = {choice} ({'user' if user else 'project'}: {shown})"]
    effective = settings.effective(key, root, env)
    if user and effective.level == settings.PROJECT:
        lines.append(f"This project overrides it: {_line(effective, root, env)}")
    return Output("\n".join(lines))


def _write(path: str, data: bytes) -> None:
    # A settings file kept as a symlink (a dotfiles repository) is written where it points.
    target = os.path.realpath(path)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fileio.atomic_write(target, data)
    except OSError as exc:
        raise SessionError(f"cannot write {path}: {exc.strerror}") from None

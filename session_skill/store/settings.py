"""Settings (`session-skill config`), read by the hooks on plain strings with `json` alone.

A setting lives in a small JSON object file, one per level, the nearer one winning:

- project: `<project>/.claude/session-skill.json` (beside Claude Code's own settings.json;
  commit it to share the choice with a team, or leave it out);
- user:    `$CLAUDE_CONFIG_DIR/session-skill.json`, else `~/.claude/session-skill.json`;
- else the default below.

Only the keys of `CHOICES` are settings; a file may hold others (kept when rewritten). A file
that cannot be read or parsed, or a value that is not one of the key's choices, is skipped
with a problem the caller can show (`config get` prints it, the hooks put it on stderr).
Standard library only, cheap modules only: the hooks import this.
"""

from __future__ import annotations

import json
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

FILE_NAME = "session-skill.json"
FILE_LIMIT = 1 << 16  # a settings file is a few bytes
AUTO = "auto"
NOTICE, INJECT, OFF = "notice", "inject", "off"
# What the SessionEnd hook does on /clear without a dump, and what the next session gets.
CHOICES: dict[str, tuple[str, ...]] = {AUTO: (NOTICE, INJECT, OFF)}
DEFAULTS: dict[str, str] = {AUTO: NOTICE}
PROJECT, USER, DEFAULT = "project", "user", "default"


class Setting:
    """A setting's effective value, the level it came from, and what was skipped on the way."""

    __slots__ = ("key", "value", "level", "path", "problems")

    def __init__(
        self, key: str, value: str, level: str, path: str | None, problems: list[str]
    ) -> None:
        self.key = key
        self.value = value
        self.level = level  # PROJECT, USER or DEFAULT
        self.path = path  # the file it was read from; None for the default
        self.problems = problems


def project_file(root: str) -> str:
    return os.path.join(root, ".claude", FILE_NAME)


def user_dir(env: Mapping[str, str]) -> str:
    """Claude Code's user config folder: `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`."""
    explicit = env.get("CLAUDE_CONFIG_DIR")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".claude")


def user_file(env: Mapping[str, str]) -> str:
    return os.path.join(user_dir(env), FILE_NAME)


def read_file(path: str) -> tuple[dict[str, object], str | None]:
    """(the file's object, None) — ({}, None) when it does not exist, ({}, problem) when it
    cannot be used."""
    try:
        # Non-blocking, and a regular file only (a symlink to one is fine): a FIFO here
        # would hold every hook that reads the settings until someone wrote to it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, f"{path}: cannot read it ({exc.strerror})"
    from session_skill.store.fileio import read_upto

    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {}, f"{path}: not a regular file"
        raw = read_upto(fd, FILE_LIMIT + 1)
    except OSError as exc:
        return {}, f"{path}: cannot read it ({exc.strerror})"
    finally:
        os.close(fd)
    if len(raw) > FILE_LIMIT:
        return {}, f"{path}: over {FILE_LIMIT} bytes, not a settings file"
    if not raw.strip():
        return {}, None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return {}, f"{path}: not UTF-8 text"
    except (ValueError, RecursionError):
        return {}, f"{path}: not valid JSON"
    if not isinstance(data, dict):
        return {}, f"{path}: not a JSON object"
    return data, None


def level_value(key: str, path: str) -> tuple[str | None, str | None]:
    """(the value one level sets for `key`, or None; a problem, or None)."""
    data, problem = read_file(path)
    if problem is not None or key not in data:
        return None, problem
    value = data[key]
    if isinstance(value, str) and value.strip().lower() in CHOICES[key]:
        return value.strip().lower(), None
    choices = ", ".join(CHOICES[key])
    return None, f"{path}: {key} is {json.dumps(value)[:40]}, not one of {choices}; ignored"


def effective(key: str, root: str, env: Mapping[str, str]) -> Setting:
    """The value that applies in the project at `root`: project, else user, else default."""
    problems: list[str] = []
    for level, path in ((PROJECT, project_file(root)), (USER, user_file(env))):
        value, problem = level_value(key, path)
        if problem is not None:
            problems.append(problem)
        if value is not None:
            return Setting(key, value, level, path, problems)
    return Setting(key, DEFAULTS[key], DEFAULT, None, problems)


def auto(root: str, env: Mapping[str, str], warn: Callable[[str], None]) -> str:
    """The `auto` value a hook acts on, each problem met on the way handed to `warn`."""
    setting = effective(AUTO, root, env)
    for problem in setting.problems:
        warn(problem)
    return setting.value

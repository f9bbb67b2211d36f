"""Our hook commands as an install writes them, and whether such an install answers a
SessionStart beside the plugin's hook.

With the plugin and a settings-file install (`session-skill install`, `--user`) both in
place, Claude Code runs both SessionStart hooks. A notice that moves nothing in the store
(a handover is pending at startup, one was written on another branch…) was said by each:
twice to the user, twice in the model's context. The store cannot tell the two apart —
writing there is what a notice must not do — so the plugin's hook asks the settings files
instead (`speaks_beside`): when one of ours there answers this start and looks able to, the
plugin leaves the notice to it. Codex (0.171.0, seen) does the same with its plugin's hooks and
a `.codex/hooks.json` install's: there the hook files are Codex's, and a hook of them counts
only once Codex would run it — the project trusted, the hook trusted (`codex_speaks_beside`).

Standard library only, and cheap: the installer reads `our_form`, and the plugin's
SessionStart hook reads this module only when it has such a notice to give.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

HOOK_MARK = "-m session_skill hook session-start"  # how we recognise our own hook entry

# A hook command split into shell words: these join commands (`a; b`, `a && b`, `a | b`,
# `(a)`, `$(a)`, a backquote) — but not `>`, `2>&1`, `&>`, which redirect the one command.
_PUNCTUATION = re.compile(r"[();<>|&]+")
_REDIRECT = re.compile(r"&?[<>]+&?")


def _joins(word: str) -> bool:
    return "`" in word or (
        _PUNCTUATION.fullmatch(word) is not None and _REDIRECT.fullmatch(word) is None
    )


_OUR_VARS = ("PYTHONPATH=", "SESSION_SKILL_AGENT=")  # the variables install's own form sets


def our_form(hook: object, mark: str = HOOK_MARK) -> str | None:
    """How a hook runs session-skill's (`mark`: `-m session_skill hook <event>`): "ours", the
    command install writes (whatever interpreter it names); "wrapped", one command of the
    user's running it (`nice -n 10 …`, `env FOO=1 python -m …`, the `session-skill hook
    <event>` script); "mixed", among commands of theirs (`./notify.sh; …`); else None."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return None
    command: str = hook["command"]
    event = mark.rsplit(" ", 1)[-1]
    # Ours somewhere in it (`bash -c '… -m session_skill hook …'` too): the user's at least.
    inside = "mixed" if mark in command or f"session-skill hook {event}" in command else None
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:  # an unclosed quote: no telling its shape
        return inside
    call = None
    for i, word in enumerate(words):
        if words[i : i + 4] == ["-m", "session_skill", "hook", event]:
            call = (i, i + 4)
            break
        if os.path.basename(word) == "session-skill" and words[i + 1 : i + 3] == ["hook", event]:
            call = (i, i + 3)
            break
    if call is None:  # not a word of the command: inside a quoted one, `sh -c '…'`
        return inside
    if "\n" in command or any(_joins(w) for w in words):
        return "mixed"
    start, end = call
    before = words[:start]
    if before and before[-1] == "-P" and words[start] == "-m":
        before = before[:-1]
    env = [w for w in before[:-1] if w.startswith(_OUR_VARS)]
    ours = (
        words[start] == "-m"
        and end == len(words)
        and len(before) == len(env) + 1
        and not before[-1].startswith("-")
        and "=" not in before[-1]
    )
    return "ours" if ours else "wrapped"


# Where Claude Code reads an administrator's settings (the files only: a policy delivered by
# MDM or from a server is not seen here).
MANAGED = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)
_MAX_SETTINGS = 256 * 1024  # a settings file larger than this is not read (nor trusted)
_WORDS = re.compile(r"[A-Za-z0-9_|]+")  # a matcher of plain words: an exact list (2.1.328)


def speaks_beside(source: str, project_dir: str, env: Mapping[str, str]) -> bool:
    """Does a settings-file install of ours run its SessionStart hook at `source` in the
    project Claude Code was started in (`project_dir`), and look able to answer?

    Read: the project's `.claude/settings.json` and `.claude/settings.local.json`, the user's
    `settings.json` (`$CLAUDE_CONFIG_DIR`, else `~/.claude`), and the managed settings file.
    Yes only when one of ours (install's very form, `our_form` "ours") is in one of them, in
    an entry whose matcher takes `source`, its interpreter is there and executable and the
    package is where that interpreter finds it (its PYTHONPATH, its prefix's or the user's
    site-packages) — and nothing read turns settings-file hooks off (`disableAllHooks`,
    `allowManagedHooksOnly`, `strictPluginOnlyCustomization`). A hook of the user's own form
    (`nice -n 10 …`), a matcher we cannot read, a file we cannot parse: no — the notice is
    then said twice at worst. Not seen from here: a `claude --setting-sources` that leaves
    the file out, a policy delivered by MDM or a server."""
    home = env.get("HOME") or os.path.expanduser("~")
    user = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    claude = os.path.join(project_dir, ".claude")
    found = False
    for path, hooks_here in (
        *((m, False) for m in MANAGED),
        (os.path.join(user, "settings.json"), True),
        (os.path.join(claude, "settings.json"), True),
        (os.path.join(claude, "settings.local.json"), True),
    ):
        data = _read(path)
        if data is None:
            continue
        if _hooks_off(data):
            return False
        if hooks_here and not found:
            found = _answers(data, source, env, home)
    return found


def _read(path: str) -> dict[str, object] | None:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(_MAX_SETTINGS + 1)
    except OSError:
        return None
    if len(raw) > _MAX_SETTINGS:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _hooks_off(data: dict[str, object]) -> bool:
    strict = data.get("strictPluginOnlyCustomization")
    return (
        data.get("disableAllHooks") is True
        or data.get("allowManagedHooksOnly") is True
        or strict is True
        or (isinstance(strict, list) and "hooks" in strict)
    )


def _answers(
    data: dict[str, object],
    source: str,
    env: Mapping[str, str],
    home: str,
    trusted: Callable[[int, int], bool] | None = None,
) -> bool:
    """One of ours in `data`'s SessionStart hooks answers `source`; `trusted(entry, hook)`,
    when given, says whether the client runs the hook at those positions."""
    hooks = data.get("hooks")
    entries = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    if not isinstance(entries, list):
        return False
    for at, entry in enumerate(entries):
        if not isinstance(entry, dict) or not _matches(entry.get("matcher"), source):
            continue
        listed = entry.get("hooks") or ()
        for i, hook in enumerate(listed if isinstance(listed, list) else ()):
            if (
                isinstance(hook, dict)
                and hook.get("type", "command") == "command"
                and our_form(hook) == "ours"
                and (trusted is None or trusted(at, i))
                and _runnable(hook["command"], env, home)
            ):
                return True
    return False


_MAX_CONFIG = 4 * 1024 * 1024  # Codex's config.toml keeps every project's trust and hook's


def codex_speaks_beside(source: str, cwd: str, root: str, env: Mapping[str, str]) -> bool:
    """Does a `.codex/hooks.json` install of ours (`install --agent codex`, `--user`) run its
    SessionStart hook at `source` beside the Codex plugin's, and look able to answer?

    `cwd` is the folder Codex runs in (the payload's), `root` its project (the git root).
    Read, only then: Codex's `config.toml` (`$CODEX_HOME`, else `~/.codex`), the user's
    `hooks.json` beside it, and — when `config.toml` trusts the project (`[projects."<cwd>"]`,
    else `[projects."<root>"]`, `trust_level = "trusted"`: Codex loads an untrusted
    project's `.codex/` not at all) — `.codex/hooks.json` of `cwd` and of each folder above it
    up to `root`. Yes only when one of ours there (install's very form) matches `source`, its
    interpreter and package are there (`_runnable`), and Codex trusts that very hook:
    `[hooks.state."<file>:session_start:<entry>:<hook>"]` holds a `trusted_hash`, not
    `enabled = false`, and the file was not changed after `config.toml` was last written (a
    changed hook needs trusting again, and its hash is Codex's own). Anything else — no
    `tomllib` (Python 3.10), a file that does not parse, a hook of the user's form — no: the
    notice is said twice at worst. Not seen from here: a trusted hash that no longer matches
    a hook changed before `config.toml` was last written, `codex --dangerously-bypass-hook-trust`
    (then both run, and the notice is said twice)."""
    home = env.get("HOME") or os.path.expanduser("~")
    codex_home = os.path.expanduser(env.get("CODEX_HOME") or os.path.join(home, ".codex"))
    config_path = os.path.join(codex_home, "config.toml")
    try:
        with open(config_path, "rb") as fh:
            raw = fh.read(_MAX_CONFIG + 1)
        written = os.stat(config_path).st_mtime
        config = _toml(raw) if len(raw) <= _MAX_CONFIG else None
    except (OSError, ValueError):  # tomllib.TOMLDecodeError is a ValueError
        return False
    if not isinstance(config, dict):
        return False
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        return False  # no hook trusted at all
    files = [os.path.join(codex_home, "hooks.json")]
    if _project_trusted(config, cwd, root):
        files += [os.path.join(d, ".codex", "hooks.json") for d in _up_to(cwd, root)]
    for path in files:
        data = _read(path)
        if data is None:
            continue
        try:
            changed = os.stat(path).st_mtime
        except OSError:
            continue
        if changed > written:
            continue  # changed after Codex last wrote its trust: not trusted yet, maybe

        def trusted(entry: int, hook: int, path: str = path) -> bool:
            key = f"{os.path.abspath(path)}:session_start:{entry}:{hook}"
            said = state.get(key)
            return (
                isinstance(said, dict)
                and isinstance(said.get("trusted_hash"), str)
                and said.get("enabled") is not False
            )

        if _answers(data, source, env, home, trusted):
            return True
    return False


def _toml(raw: bytes) -> object:
    """`raw` read as TOML; None on Python 3.10, which has no `tomllib`."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads(raw.decode("utf-8"))
    return None


def _project_trusted(config: dict[str, object], cwd: str, root: str) -> bool:
    """`[projects."<cwd>"]`, else `[projects."<root>"]`, says `trust_level = "trusted"`."""
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return False
    for folder in (cwd, root):
        for name in dict.fromkeys((os.path.abspath(folder), os.path.realpath(folder))):
            said = projects.get(name)
            if isinstance(said, dict) and "trust_level" in said:
                return bool(said["trust_level"] == "trusted")
    return False


def _up_to(cwd: str, root: str) -> list[str]:
    """`cwd`, then each folder above it up to `root` (only `cwd` when it is not inside)."""
    here, top = os.path.abspath(cwd), os.path.abspath(root)
    found = [here]
    while here != top and here.startswith(top + os.sep):
        here = os.path.dirname(here)
        found.append(here)
    return found


def _matches(matcher: object, source: str) -> bool:
    if matcher is None or matcher in ("", "*", ".*"):
        return True
    if not isinstance(matcher, str) or _WORDS.fullmatch(matcher) is None:
        return False  # a pattern: not worth guessing how the client reads it
    return source in matcher.split("|")


def _runnable(command: str, env: Mapping[str, str], home: str) -> bool:
    """Install's form of our hook command (`[PYTHONPATH=… ][SESSION_SKILL_AGENT=… ]<python>
    [-P] -m session_skill hook session-start`) names an interpreter that is there and a
    package it would import."""
    try:
        words = shlex.split(command)
        at = words.index("-m")
        before = words[: at - 1] if words[at - 1] == "-P" else words[:at]
        python, assigned = before[-1], before[:-1]
    except (ValueError, IndexError):  # not install's form after all
        return False
    if os.sep not in python:
        path = env.get("PATH", "")
        python = next(
            (p for d in path.split(os.pathsep) if d and _executable(p := os.path.join(d, python))),
            "",
        )
    if not _executable(python):
        return False
    places = [
        w.partition("=")[2] for w in assigned if w.startswith("PYTHONPATH=")
    ]  # install's form sets one folder, the package's parent
    if places:
        return any(
            os.path.isfile(os.path.join(p, "session_skill", "hooks", "session_start.py"))
            for place in places
            for p in place.split(os.pathsep)
        )
    return any(_holds_package(d) for d in _site_dirs(python, home))


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _site_dirs(python: str, home: str) -> list[str]:
    """Where `python` finds installed packages: a venv's own site-packages (its python may
    link elsewhere); else its prefix's, the system's dist-packages and the user's site."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    mac = os.path.join(home, "Library", "Python")  # macOS: the user's site
    if os.path.isfile(os.path.join(venv, "pyvenv.cfg")):
        libs, mac = [os.path.join(venv, "lib")], ""  # a venv: its own site only
    else:
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(python)))
        libs = [os.path.join(prefix, "lib"), os.path.join(prefix, "local", "lib"),
                os.path.join(home, ".local", "lib")]  # fmt: skip
    found = []
    for lib in libs:
        try:
            names = os.listdir(lib)
        except OSError:
            continue
        for name in names:
            if name.startswith("python3"):
                found += [os.path.join(lib, name, "site-packages"),
                          os.path.join(lib, name, "dist-packages")]  # fmt: skip
    try:
        found += [os.path.join(mac, v, "lib", "python", "site-packages") for v in os.listdir(mac)]
    except OSError:
        pass
    return found


def _holds_package(site: str) -> bool:
    """`session_skill` installed here: the package, or an editable install's record."""
    try:
        names = os.listdir(site)
    except OSError:
        return False
    return any("session_skill" in name for name in names)

"""One parsed call → one library call. Every entry point ends here.

The Typer app, the fast path and `/session` (dispatch) each turn what they were given into a
`Call` — the command's name, its positional words, the flags and values by option string
(the strings of `table.py`) — and `invoke` runs it. So a command behaves the same however
it was reached (SPEC §7.1), and its mode choice is made once, in the command's own module.
Imports stay inside the runners: `list` never pays for tiktoken, `park` never for git.
"""

from __future__ import annotations

from session_skill.cli.call import Call as Call
from session_skill.cli.table import AGENTS, PROJECT, lookup
from session_skill.errors import SessionError, UsageError

TYPE_CHECKING = False  # `typing` costs more to import than this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime
    from pathlib import Path

    from session_skill.commands.output import Output
    from session_skill.store.store import Store


def invoke(call: Call) -> Output:
    """Run one call and return its output (errors propagate as SessionError)."""
    if lookup(call.command) is None:
        raise UsageError(f"no such command: {call.command}")
    _check_text(call)
    return _RUNNERS[call.command](call)


# Options naming a file: a path need not be UTF-8 to be opened.
_PATH_OPTIONS = frozenset({"--file", "--transcript", PROJECT})


def _check_text(call: Call) -> None:
    """Refuse, before anything runs, words that are not UTF-8 text.

    Python hands over the bytes of an argument that does not decode as lone surrogates;
    such words could be neither written to the store nor printed nor matched as typed
    (stdin in the same state is refused as "stdin is not UTF-8 text").
    """
    values = (v for option, v in call.values.items() if option not in _PATH_OPTIONS)
    for text in (*call.words, *values):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raw = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            shown = raw if len(raw) <= 80 else raw[:80] + "…"
            raise SessionError(f"an argument is not UTF-8 text: '{shown}'") from None


def run(call: Call) -> int:
    """`invoke`, printed, as an exit code: the whole of a command-line entry point."""
    from session_skill.errors import run_command

    return run_command(lambda: emit(invoke(call)))


def emit(out: Output) -> int:
    if out.text:
        print(out.text)
    return out.code


# -- shared inputs ---------------------------------------------------------------------
def store_of(call: Call) -> Store:
    from session_skill.store.store import Store, find_project_root

    if call.project is not None:
        _check_project(call.project)
    return Store(find_project_root(call.project))


def _check_project(project: str) -> None:
    """`--project` names a directory that exists: a typo never creates a project."""
    import os

    from session_skill.errors import SessionError

    path = os.path.expanduser(project)
    if not os.path.exists(path):
        raise SessionError(f"--project {project}: no such directory")
    if not os.path.isdir(path):
        raise SessionError(f"--project {project} is not a directory")


def now() -> datetime:
    from session_skill.times import utcnow

    return utcnow()


def stdin_text() -> str | None:
    from session_skill.store.fileio import stdin_text as read

    return read()


def payload(call: Call) -> str:
    """park/drop: the words as typed, else stdin."""
    return " ".join(call.words) if call.words else (stdin_text() or "")


# -- the runners: one per command --------------------------------------------------------
def _dump(call: Call) -> Output:
    from session_skill.commands import dump

    req = dump.DumpRequest(
        call.name,
        force=call.flag("--force"),
        replace=call.flag("--replace"),
        transcript=call.value("--transcript"),
        session_id=call.value("--session-id"),
        as_json=call.flag("--json"),
        now=now(),
    )
    return dump.run(
        store_of(call),
        req,
        file=call.values.get("--file"),
        brief=call.flag("--brief"),
        extractive=call.flag("--extractive"),
        stdin=stdin_text,
    )


def _recall(call: Call) -> Output:
    from session_skill.commands.recall import recall

    return recall(
        store_of(call), call.name, peek=call.flag("--peek"), as_json=call.flag("--json"), now=now()
    )


def _list(call: Call) -> Output:
    from session_skill.commands.listing import list_store

    return list_store(store_of(call), as_json=call.flag("--json"), now=now())


def _park(call: Call) -> Output:
    from session_skill.commands.park import park

    return park(store_of(call), payload(call), as_json=call.flag("--json"), now=now())


def _drop(call: Call) -> Output:
    from session_skill.commands.drop import drop

    return drop(store_of(call), payload(call), as_json=call.flag("--json"), now=now())


def _sweep(call: Call) -> Output:
    from session_skill.commands.sweep import sweep_command

    return sweep_command(
        store_of(call),
        transcript=call.value("--transcript"),
        session_id=call.value("--session-id"),
        park=call.values.get("--park"),
        as_json=call.flag("--json"),
        now=now(),
        drop=call.values.get("--drop"),
    )


def _search(call: Call) -> Output:
    from session_skill.commands.search import parse_limit, search

    limit = parse_limit(call.values.get("--limit"))
    return search(store_of(call), call.words, limit=limit, as_json=call.flag("--json"), now=now())


def _history(call: Call) -> Output:
    from session_skill.commands.history import history

    return history(
        store_of(call),
        call.name,
        branch=call.value("--branch"),
        as_json=call.flag("--json"),
        now=now(),
    )


def _dispatch(call: Call) -> Output:
    from session_skill.cli.dispatch import run as dispatch

    raw = call.words[0] if call.words else (stdin_text() or "")
    return dispatch(
        raw,
        ignore_unknown_flags=call.flag("--ignore-unknown-flags"),
        session_id=call.value("--session-id"),
        project=call.project,
        invoke=invoke,
    )


def _agent(call: Call) -> str:
    agent = call.values.get("--agent", "claude")
    if agent not in AGENTS:
        raise UsageError(f"--agent takes {', '.join(AGENTS[:-1])} or {AGENTS[-1]}; got {agent!r}")
    return agent


def _install_target(call: Call) -> object:
    if call.flag("--user") and call.project is not None:
        raise UsageError("--user installs for the user: it takes no --project")
    return None if call.flag("--user") else store_of(call).root


def _install(call: Call) -> Output:
    from pathlib import Path

    from session_skill.commands.output import Output
    from session_skill.install.plan import install

    root = _install_target(call)
    text = install(
        project=root,  # type: ignore[arg-type]
        user=call.flag("--user"),
        agent=_agent(call),
        dry_run=call.flag("--dry-run"),
        home=Path.home(),
        claude_dir=_claude_dir(),
        codex_dir=_codex_dir(),
    )
    return Output(text)


def _codex_dir() -> Path | None:
    """Codex's folder, `$CODEX_HOME` when it is set (as Codex itself reads it)."""
    import os
    from pathlib import Path

    found = os.environ.get("CODEX_HOME", "").strip()
    return Path(found).expanduser() if found else None


def _claude_dir() -> Path:
    """Claude Code's user folder, `$CLAUDE_CONFIG_DIR` honoured (as `config --user` does)."""
    import os
    from pathlib import Path

    from session_skill.store.settings import user_dir

    return Path(user_dir(os.environ))


def _uninstall(call: Call) -> Output:
    from pathlib import Path

    from session_skill.commands.output import Output
    from session_skill.install.plan import uninstall

    root = _install_target(call)
    text = uninstall(
        project=root,  # type: ignore[arg-type]
        user=call.flag("--user"),
        agent=_agent(call),
        home=Path.home(),
        claude_dir=_claude_dir(),
        codex_dir=_codex_dir(),
    )
    return Output(text)


def _demo(call: Call) -> Output:
    from session_skill.commands.demo import run as demo
    from session_skill.commands.output import Output

    return Output("", demo())  # the demo prints its steps as it goes


def _hook_session_start(call: Call) -> Output:
    from session_skill.commands.output import Output
    from session_skill.hooks.session_start import main as hook_main

    return Output("", hook_main())


def _hook_pre_compact(call: Call) -> Output:
    from session_skill.commands.output import Output
    from session_skill.hooks.pre_compact import main as pre_compact_main

    return Output("", pre_compact_main())


def _hook_session_end(call: Call) -> Output:
    from session_skill.commands.output import Output
    from session_skill.hooks.session_end import main as hook_end_main

    return Output("", hook_end_main())


def _config_get(call: Call) -> Output:
    import os

    from session_skill.commands.config import get

    root = str(store_of(call).root)
    return get(
        root, call.words[0] if call.words else None, user=call.flag("--user"), env=os.environ
    )


def _config_set(call: Call) -> Output:
    import os

    from session_skill.commands.config import set_value

    if len(call.words) != 2:
        raise UsageError("config set takes a KEY and a VALUE, e.g. `config set auto inject`")
    key, value = call.words
    return set_value(str(store_of(call).root), key, value, user=call.flag("--user"), env=os.environ)


_RUNNERS: dict[str, Callable[[Call], Output]] = {
    "dump": _dump,
    "recall": _recall,
    "list": _list,
    "park": _park,
    "drop": _drop,
    "sweep": _sweep,
    "search": _search,
    "history": _history,
    "dispatch": _dispatch,
    "install": _install,
    "uninstall": _uninstall,
    "demo": _demo,
    "hook session-start": _hook_session_start,
    "hook session-end": _hook_session_end,
    "hook pre-compact": _hook_pre_compact,
    "config get": _config_get,
    "config set": _config_set,
}

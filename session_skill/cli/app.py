"""The `session-skill` command line: parse, call one library function, print, exit.

Every command imports what it needs inside its body, so `list` never pays for tiktoken
and `park` never pays for git.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from session_skill import __version__
from session_skill.errors import EXIT_USAGE, SessionError, UsageError, run_command

if TYPE_CHECKING:
    from datetime import datetime

    from session_skill.store.store import Store

app = typer.Typer(
    name="session-skill",
    help="Carry the durable part of an AI coding session across /clear; park open loops.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
hook_app = typer.Typer(help="Hooks run by Claude Code / Codex.", no_args_is_help=True)
app.add_typer(hook_app, name="hook")

_state: dict[str, str | None] = {"project": None}

ProjectOpt = Annotated[
    Path | None, typer.Option("--project", help="Project root (default: git root of cwd).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
TranscriptOpt = Annotated[
    str | None, typer.Option("--transcript", help="Transcript (.jsonl) to read.")
]
SessionOpt = Annotated[
    str | None, typer.Option("--session-id", help="Session whose transcript to read.")
]
VERBATIM = {"ignore_unknown_options": True, "allow_extra_args": False}


def _version(value: bool) -> None:
    if value:
        print(f"session-skill {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    project: ProjectOpt = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show version.")
    ] = False,
) -> None:
    if project is not None:
        _state["project"] = str(project)


def _store(project: Path | None = None) -> Store:
    from session_skill.store.store import Store, find_project_root

    return Store(find_project_root(str(project) if project else _state["project"]))


def _now() -> datetime:
    from session_skill.times import utcnow

    return utcnow()


def _emit(out: object) -> int:
    text = getattr(out, "text", "")
    if text:
        print(text)
    code = int(getattr(out, "code", 0))
    if code:
        raise typer.Exit(code)
    return code


def _stdin_text() -> str | None:
    from session_skill.store.fileio import stdin_text

    return stdin_text()


def _read_file(path: str) -> str:
    if path == "-":
        text = _stdin_text()
        if text is None:
            raise SessionError("--file - reads the doc from stdin, but stdin is a terminal")
        return text
    from session_skill.store.fileio import read_text

    try:
        return read_text(Path(path))
    except FileNotFoundError:
        raise SessionError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise SessionError(f"{path} is a directory") from None


@app.command()
def dump(
    name: Annotated[str | None, typer.Argument(help="Name for the handover.")] = None,
    file: Annotated[
        str | None, typer.Option("--file", help="Read the doc from PATH, or - for stdin.")
    ] = None,
    brief: Annotated[bool, typer.Option("--brief", help="Print the brief; write nothing.")] = False,
    extractive: Annotated[
        bool, typer.Option("--extractive", help="Build the doc from the transcript, no model.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Write even over the cap.")] = False,
    replace: Annotated[
        bool, typer.Option("--replace", help="Overwrite the named doc deliberately.")
    ] = False,
    transcript: TranscriptOpt = None,
    session_id: SessionOpt = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Write a handover doc (body from --file or stdin), or print the brief."""
    from session_skill.commands import dump as dumping

    store = _store(project)
    kw = {"transcript": transcript, "session_id": session_id, "as_json": json_out, "now": _now()}
    if brief:
        return _emit(dumping.brief(store, name, **kw))  # type: ignore[arg-type]
    if extractive:
        return _emit(dumping.extractive(store, name, force=force, replace=replace, **kw))  # type: ignore[arg-type]
    text = _read_file(file) if file else _stdin_text()
    if file is None and not (text or "").strip():
        # A bare `dump` with nothing piped in: show what to write.
        return _emit(dumping.brief(store, name, **kw))  # type: ignore[arg-type]
    return _emit(
        dumping.write(store, name, text or "", force=force, replace=replace, **kw)  # type: ignore[arg-type]
    )


@app.command()
def recall(
    name: Annotated[str | None, typer.Argument(help="Slug or words of the handover.")] = None,
    peek: Annotated[bool, typer.Option("--peek", help="Print without consuming.")] = False,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Print a stored handover into context (the pending one by default)."""
    from session_skill.commands.core import recall as run

    return _emit(run(_store(project), name, peek=peek, as_json=json_out, now=_now()))


@app.command("list")
def list_cmd(json_out: JsonOpt = False, project: ProjectOpt = None) -> int:
    """Stored handovers and open parked items (expired handovers are swept first)."""
    from session_skill.commands.core import list_store

    return _emit(list_store(_store(project), as_json=json_out, now=_now()))


def _payload(words: list[str] | None, what: str) -> str:
    if words:
        return " ".join(words)
    return _stdin_text() or ""


@app.command(context_settings=VERBATIM)
def park(
    idea: Annotated[list[str] | None, typer.Argument(help="The idea (else stdin).")] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Append an open-loop item to PARKED.md."""
    from session_skill.commands.core import park as run

    return _emit(run(_store(project), _payload(idea, "idea"), as_json=json_out, now=_now()))


@app.command(context_settings=VERBATIM)
def drop(
    item: Annotated[
        list[str] | None, typer.Argument(help="Slug, words, or #N (else stdin).")
    ] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Close a parked item (fuzzy match; asks when unsure) and log it."""
    from session_skill.commands.core import drop as run

    return _emit(run(_store(project), _payload(item, "item"), as_json=json_out, now=_now()))


@app.command()
def sweep(
    transcript: TranscriptOpt = None,
    session_id: SessionOpt = None,
    park_: Annotated[str | None, typer.Option("--park", help="Park candidates N[,N...].")] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Find what never landed in this session's transcript."""
    from session_skill.commands.sweep import sweep_command

    return _emit(
        sweep_command(
            _store(project),
            transcript=transcript,
            session_id=session_id,
            park=park_,
            as_json=json_out,
            now=_now(),
        )
    )


@app.command()
def dispatch(
    raw: Annotated[str | None, typer.Argument(help="The /session argument string.")] = None,
    ignore_unknown_flags: Annotated[
        bool, typer.Option("--ignore-unknown-flags", help="Drop unknown flags and go on.")
    ] = False,
    session_id: SessionOpt = None,
    project: ProjectOpt = None,
) -> int:
    """Run what `/session <args>` asked for (args as RAW, or stdin)."""
    from session_skill.cli.dispatch import run

    text = raw if raw is not None else (_stdin_text() or "")
    return _emit(
        run(
            _store(project),
            text,
            ignore_unknown_flags=ignore_unknown_flags,
            session_id=session_id,
            now=_now(),
        )
    )


@hook_app.command("session-start")
def hook_session_start() -> int:
    """SessionStart hook: payload on stdin, handover as additionalContext on stdout."""
    from session_skill.hook import main as hook_main

    return hook_main()


AgentOpt = Annotated[str, typer.Option("--agent", help="claude, codex or all.")]
UserOpt = Annotated[bool, typer.Option("--user", help="Install for the user (~/.claude).")]


def _agent(agent: str) -> str:
    if agent not in ("claude", "codex", "all"):
        raise typer.BadParameter("--agent takes claude, codex or all")
    return agent


@app.command()
def install(
    project: ProjectOpt = None,
    user: UserOpt = False,
    agent: AgentOpt = "claude",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show, change nothing.")] = False,
) -> int:
    """Install the skill and the SessionStart hook into a project (or --user)."""
    from session_skill.install import install as run

    root = None if user else _store(project).root
    print(run(project=root, user=user, agent=_agent(agent), dry_run=dry_run, home=Path.home()))
    return 0


@app.command()
def uninstall(project: ProjectOpt = None, user: UserOpt = False, agent: AgentOpt = "claude") -> int:
    """Remove what install added (never the store)."""
    from session_skill.install import uninstall as run

    root = None if user else _store(project).root
    print(run(project=root, user=user, agent=_agent(agent), home=Path.home()))
    return 0


@app.command()
def demo() -> int:
    """The whole cycle in a scratch project, each step printed."""
    from session_skill.commands.demo import run

    code = run()
    if code:
        raise typer.Exit(code)
    return 0


# Aliases (SPEC §7): same commands under the other names, hidden from --help.
for _alias, _fn in (("save", dump), ("restore", recall), ("load", recall), ("archive", drop)):
    app.command(_alias, hidden=True, context_settings=VERBATIM if _fn is drop else None)(_fn)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    _state["project"] = None  # a global --project applies to this call only
    return run_command(lambda: _invoke(args))


def _invoke(args: list[str]) -> int:
    """Run the Typer app; a usage error becomes one `error:` line (exit 2), like the rest."""
    from typer._click import exceptions as click_errors  # typer vendors click (pyproject pins it)

    try:
        rv = app(args=args, prog_name="session-skill", standalone_mode=False)
    except click_errors.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `session-skill`: the help
            print(exc.format_message())
            return EXIT_USAGE
        where = exc.ctx.command_path if exc.ctx is not None else "session-skill"
        raise UsageError(f"{exc.format_message()} (see `{where} --help`)") from None
    except typer.Abort:
        raise KeyboardInterrupt from None
    except click_errors.ClickException as exc:
        raise SessionError(exc.format_message()) from None
    return rv if isinstance(rv, int) else 0

"""The `session-skill` command line, for help and validation: Typer parses, `invoke` runs.

Each command's signature declares its options (the same strings as `table.py`; a test ties
the two), and its body hands the parsed values to `invoke` as a `Call`, exactly as the fast
path and `/session` do. Nothing heavy is imported here beyond Typer itself.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperArgument, TyperCommand

from session_skill import __version__
from session_skill.errors import SessionError, UsageError, run_command

if TYPE_CHECKING:
    from typer._click.core import Context as ClickContext

    from session_skill.cli.call import Call

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
config_app = typer.Typer(help="Settings: auto (notice, inject or off).", no_args_is_help=True)
app.add_typer(config_app, name="config")

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


class _Verbatim(TyperCommand):
    """park and drop: a payload word is never an option (`- **x** — a copied bullet`
    held an `h`, and click read it as `-h`). The words are split as the fast path splits
    them (`fastpath.split_verbatim`) and handed to click after a `--`."""

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        from session_skill.cli.fastpath import verbatim_argv
        from session_skill.cli.table import lookup

        command = lookup(self.name or "")
        if command is not None and command.verbatim:
            args = verbatim_argv(command, args)
        return super().parse_args(ctx, args)


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


def _call(ctx: typer.Context) -> Call:
    """What Typer parsed, as the `Call` the fast path would have built."""
    from session_skill.cli.call import Call

    name = ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command_path
    call = Call(_canonical(name), root_project=_state["project"])
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if isinstance(param, TyperArgument):
            if isinstance(value, (list, tuple)):
                call.words += [str(v) for v in value]
            elif value is not None:
                call.words.append(str(value))
        elif param.opts[0] in ("-h", "--help") or value is None or value is False:
            continue
        elif value is True:
            call.flags.add(param.opts[0])
        else:
            call.values[param.opts[0]] = str(value)
    return call


def _canonical(typed: str) -> str:
    from session_skill.cli.table import ALIASES

    return ALIASES.get(typed, typed)


def _run(ctx: typer.Context) -> int:
    from session_skill.cli.invoke import emit, invoke

    code = emit(invoke(_call(ctx)))
    if code:
        raise typer.Exit(code)
    return 0


@app.command()
def dump(
    ctx: typer.Context,
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
    return _run(ctx)


@app.command()
def recall(
    ctx: typer.Context,
    name: Annotated[list[str] | None, typer.Argument(help="Slug or words of the handover.")] = None,
    peek: Annotated[bool, typer.Option("--peek", help="Print without consuming.")] = False,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Print a stored handover into context (the pending one by default)."""
    return _run(ctx)


@app.command("list")
def list_cmd(ctx: typer.Context, json_out: JsonOpt = False, project: ProjectOpt = None) -> int:
    """Stored handovers and open parked items (expired handovers are swept first)."""
    return _run(ctx)


@app.command(cls=_Verbatim, context_settings=VERBATIM)
def park(
    ctx: typer.Context,
    idea: Annotated[list[str] | None, typer.Argument(help="The idea (else stdin).")] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Append an open-loop item to PARKED.md."""
    return _run(ctx)


@app.command(cls=_Verbatim, context_settings=VERBATIM)
def drop(
    ctx: typer.Context,
    item: Annotated[
        list[str] | None, typer.Argument(help="Slug, words, or #N (else stdin).")
    ] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Close a parked item (fuzzy match; asks when unsure) and log it."""
    return _run(ctx)


@app.command()
def sweep(
    ctx: typer.Context,
    transcript: TranscriptOpt = None,
    session_id: SessionOpt = None,
    park_: Annotated[str | None, typer.Option("--park", help="Park candidates N[,N...].")] = None,
    drop_: Annotated[
        str | None, typer.Option("--drop", help="Close candidates N[,N...], never parked.")
    ] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Find what never landed in this session's transcript."""
    return _run(ctx)


@app.command()
def search(
    ctx: typer.Context,
    words: Annotated[
        list[str] | None, typer.Argument(metavar="WORDS", help="Words the handover said.")
    ] = None,
    # A string, checked by the command: the fast path and /session say the same thing.
    limit: Annotated[
        str | None, typer.Option("--limit", metavar="N", help="Show at most N hits (default 10).")
    ] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Rank every stored handover, consumed ones too, by what it says."""
    return _run(ctx)


@app.command()
def history(
    ctx: typer.Context,
    slug: Annotated[
        str | None, typer.Argument(metavar="SLUG", help="Start from this handover.")
    ] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", metavar="B", help="Start from branch B's newest.")
    ] = None,
    json_out: JsonOpt = False,
    project: ProjectOpt = None,
) -> int:
    """A branch's handovers, newest first, by their `follows` links."""
    return _run(ctx)


@app.command()
def dispatch(
    ctx: typer.Context,
    raw: Annotated[str | None, typer.Argument(help="The /session argument string.")] = None,
    ignore_unknown_flags: Annotated[
        bool, typer.Option("--ignore-unknown-flags", help="Drop unknown flags and go on.")
    ] = False,
    session_id: SessionOpt = None,
    project: ProjectOpt = None,
) -> int:
    """Run what `/session <args>` asked for (args as RAW, or stdin)."""
    return _run(ctx)


@hook_app.command("session-start")
def hook_session_start(ctx: typer.Context) -> int:
    """SessionStart hook: payload on stdin, handover as additionalContext on stdout."""
    return _run(ctx)


@hook_app.command("session-end")
def hook_session_end(ctx: typer.Context) -> int:
    """SessionEnd hook: on /clear without a dump, write the automatic handover."""
    return _run(ctx)


@hook_app.command("pre-compact")
def hook_pre_compact(ctx: typer.Context) -> int:
    """PreCompact hook: save the session so far before a compaction."""
    return _run(ctx)


UserLevelOpt = Annotated[
    bool, typer.Option("--user", help="The user-level default, not this project's value.")
]


@config_app.command("get")
def config_get(
    ctx: typer.Context,
    key: Annotated[str | None, typer.Argument(help="The setting (default: all).")] = None,
    user: UserLevelOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Print a setting's effective value and where it comes from."""
    return _run(ctx)


@config_app.command("set")
def config_set(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="The setting, e.g. auto.")],
    value: Annotated[str, typer.Argument(help="Its value, e.g. notice, inject or off.")],
    user: UserLevelOpt = False,
    project: ProjectOpt = None,
) -> int:
    """Set a setting for this project (.claude/session-skill.json), or --user."""
    return _run(ctx)


AgentOpt = Annotated[str, typer.Option("--agent", help="claude, codex or all.")]


@app.command()
def install(
    ctx: typer.Context,
    project: ProjectOpt = None,
    user: Annotated[bool, typer.Option("--user", help="Install for the user (~/.claude).")] = False,
    agent: AgentOpt = "claude",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show, change nothing.")] = False,
) -> int:
    """Install the skill and the hooks into a project (or --user)."""
    return _run(ctx)


@app.command()
def uninstall(
    ctx: typer.Context,
    project: ProjectOpt = None,
    user: Annotated[
        bool, typer.Option("--user", help="Uninstall for the user (~/.claude).")
    ] = False,
    agent: AgentOpt = "claude",
) -> int:
    """Remove what install added (never the store)."""
    return _run(ctx)


@app.command()
def demo(ctx: typer.Context) -> int:
    """The whole cycle in a scratch project, each step printed."""
    return _run(ctx)


def _aliases() -> None:
    """The table's aliases: the same commands under other names, hidden from --help."""
    from session_skill.cli.table import COMMANDS

    by_name = {(c.name or c.callback.__name__): c for c in app.registered_commands if c.callback}
    for command in COMMANDS:
        for alias in command.aliases:
            target = by_name[command.name]
            callback = target.callback
            assert callback is not None
            app.command(
                alias, cls=target.cls, hidden=True, context_settings=target.context_settings
            )(callback)


_aliases()


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
        where = exc.ctx.command_path if exc.ctx is not None else "session-skill"
        if type(exc).__name__ == "NoArgsIsHelpError":  # `session-skill`, `… config`: the help
            raise UsageError(_no_command(exc.ctx, where), stdout=exc.format_message()) from None
        raise UsageError(f"{exc.format_message()} (see `{where} --help`)") from None
    except typer.Abort:
        raise KeyboardInterrupt from None
    except click_errors.ClickException as exc:
        raise SessionError(exc.format_message()) from None
    return rv if isinstance(rv, int) else 0


def _no_command(ctx: ClickContext | None, where: str) -> str:
    """The error line under the help a group prints when no command is given."""
    from typer.core import TyperGroup

    group = ctx.command if ctx is not None else None
    names = (
        [n for n, c in group.commands.items() if not c.hidden]
        if isinstance(group, TyperGroup)
        else []
    )
    if not names or len(names) > 3:
        return "no command given (the commands are listed above)"
    shown = [f"`{where} {name}`" for name in names]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    return f"no command given: {listed}"

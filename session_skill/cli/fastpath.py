"""The commands the model calls in its loop, run without importing Typer.

`import typer` alone costs several times Python's own start-up, and `park`, `list`,
`drop`, `recall`, `dispatch` (and `sweep --park`) run inside the model's loop. So
`__main__` first offers the arguments to `parse` here: a well-formed invocation of a
command the table marks `fast`, using exactly the options the table gives it, becomes a
`Call` and runs through `invoke` — the same function the Typer app calls, with the same
error handling. Anything else — `-h`, an unknown or malformed option, a missing value, any
other command — returns None and goes to the Typer CLI, which then answers exactly as it
always does.

tests/cli/test_fastpath.py runs a table of invocations both ways and compares the results.
"""

from __future__ import annotations

from session_skill.cli.invoke import Call
from session_skill.cli.table import PROJECT, lookup


def _option_value(args: list[str], i: int, eq: str, value: str) -> tuple[str, int] | None:
    """The value of the option at args[i] (`--opt=V` or `--opt V`) and the next index."""
    if eq:
        return value, i + 1
    if i + 1 >= len(args):
        return None  # "requires an argument": Typer says so
    return args[i + 1], i + 2


def parse(argv: list[str]) -> Call | None:
    """The call when the fast path can run it exactly as the CLI would, else None."""
    root_project: str | None = None
    version = False
    i = 0
    # Options before the command: the app's --project and --version.
    while i < len(argv):
        name, eq, value = argv[i].partition("=")
        if argv[i] == "--version":
            version, i = True, i + 1
        elif name == PROJECT:
            got = _option_value(argv, i, eq, value)
            if got is None or not got[0]:
                return None  # an empty path means "." to Typer; leave that to it
            root_project, i = got
        else:
            break
    rest = argv[i:]
    if version:
        return Call("--version") if not rest else None
    if not rest:
        return None
    command = lookup(rest[0])
    if command is None or not command.fast:
        return None
    call = Call(command.name, root_project=root_project)
    args = rest[1:]
    only_words = False
    i = 0
    while i < len(args):
        word = args[i]
        if only_words or word == "-" or not word.startswith("-"):
            call.words.append(word)
            i += 1
            continue
        if word == "--":  # the option parser eats it; what follows is positional
            only_words = True
            i += 1
            continue
        if not word.startswith("--"):
            return None  # -h, and click's short-option combinatorics
        name, eq, value = word.partition("=")
        if name in command.flags:
            if eq:
                return None  # "does not take a value"
            call.flags.add(name)
            i += 1
        elif name in command.values:
            got = _option_value(args, i, eq, value)
            if got is None or (name == PROJECT and not got[0]):
                return None
            call.values[name], i = got
        elif command.verbatim and name != "--help":
            call.words.append(word)  # park/drop keep unknown `--x` words as payload
            i += 1
        else:
            return None  # --help, or an option the command does not have
    if command.words is not None and len(call.words) > command.words:
        return None
    return call


def main(argv: list[str]) -> int | None:
    """Run `argv` on the fast path and return the exit code; None when Typer must run it."""
    call = parse(argv)
    if call is None:
        return None
    if call.command == "--version":
        from session_skill import __version__

        print(f"session-skill {__version__}")
        return 0
    from session_skill.cli.invoke import run

    return run(call)

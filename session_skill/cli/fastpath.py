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

from session_skill.cli.call import Call
from session_skill.cli.table import PROJECT, Command, lookup

HELP = ("-h", "--help")


def split_verbatim(command: Command, args: list[str]) -> tuple[list[str], list[str]]:
    """park/drop: (options, payload words) of the arguments after the command.

    Only the command's own options, spelled exactly, are options; every other word is
    payload, kept in order — `- **x** — a copied bullet`, `-5 degrees`, `--weird`. Help
    (`-h`, `--help`) is help only when there is no payload word at all. A bare `--` is
    eaten, and everything after it is payload. The Typer app parses park and drop
    through this too (`app._Verbatim`), so both paths read the same words the same way.
    """
    kinds: list[tuple[str, str]] = []  # ("option" | "help" | "word", the token)
    i = 0
    while i < len(args):
        word = args[i]
        name, eq, _value = word.partition("=")
        if word == "--":
            kinds += [("word", w) for w in args[i + 1 :]]
            break
        if word in command.flags:
            kinds.append(("option", word))
        elif name in command.values:
            kinds.append(("option", word))
            if not eq and i + 1 < len(args):
                i += 1
                kinds.append(("option", args[i]))  # its value, whatever it looks like
        elif word in HELP:
            kinds.append(("help", word))
        else:
            kinds.append(("word", word))
        i += 1
    has_words = any(kind == "word" for kind, _ in kinds)
    options = [w for kind, w in kinds if kind == "option" or (kind == "help" and not has_words)]
    words = [w for kind, w in kinds if kind == "word" or (kind == "help" and has_words)]
    return options, words


def verbatim_argv(command: Command, args: list[str]) -> list[str]:
    """`split_verbatim` as an argument list for an option parser: the options, then
    `--` and the payload words, so that no payload word can be read as an option."""
    options, words = split_verbatim(command, args)
    return options + (["--", *words] if words else [])


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
    if command.verbatim:
        args = verbatim_argv(command, args)
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

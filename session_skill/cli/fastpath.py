"""The commands the model calls in its loop, run without importing Typer.

`import typer` alone costs several times Python's own start-up, and `park`, `list`,
`drop`, `recall`, `dispatch` (and `sweep --park`) run inside the model's loop. So
`__main__` first offers the arguments to `parse` here: a well-formed invocation of one of
those commands, using exactly the options `cli.py` gives it, is run by calling the same
library function `cli.py` calls, with the same error handling (`errors.run_command`).
Anything else — `-h`, an unknown or malformed option, a missing value, any other
command — returns None and goes to the Typer CLI, which then answers exactly as it
always does.

tests/test_fastpath.py runs a table of invocations both ways and compares the results.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` is not imported for its sake
if TYPE_CHECKING:
    from datetime import datetime

    from session_skill.store.store import Store


class _Spec:
    """What one command accepts, mirroring its signature in cli.py."""

    __slots__ = ("flags", "values", "max_words", "verbatim")

    def __init__(
        self,
        flags: frozenset[str],
        values: frozenset[str],
        max_words: int | None,
        verbatim: bool = False,
    ) -> None:
        self.flags = flags  # boolean options
        self.values = values  # options that take one value
        self.max_words = max_words  # positional words allowed (None: any number)
        # `ignore_unknown_options`: an unknown `--word` is payload, kept as typed.
        self.verbatim = verbatim


_PROJECT = frozenset({"--project"})
SPECS = {
    "recall": _Spec(frozenset({"--peek", "--json"}), _PROJECT, 1),
    "list": _Spec(frozenset({"--json"}), _PROJECT, 0),
    "park": _Spec(frozenset({"--json"}), _PROJECT, None, verbatim=True),
    "drop": _Spec(frozenset({"--json"}), _PROJECT, None, verbatim=True),
    "dispatch": _Spec(
        frozenset({"--ignore-unknown-flags"}), frozenset({"--project", "--session-id"}), 1
    ),
    # Not one of the five, but the skill runs `sweep --park 1,3` itself, and on a big
    # transcript Typer's import is a third of the time of a sweep.
    "sweep": _Spec(
        frozenset({"--json"}),
        frozenset({"--project", "--transcript", "--session-id", "--park"}),
        0,
    ),
}
# cli.py registers these names for the same functions (`save` → dump is not fast-pathed).
ALIASES = {"restore": "recall", "load": "recall", "archive": "drop"}


class Invocation:
    __slots__ = ("command", "words", "flags", "values", "root_project")

    def __init__(self, command: str, root_project: str | None = None) -> None:
        self.command = command
        self.words: list[str] = []
        self.flags: set[str] = set()
        self.values: dict[str, str] = {}
        self.root_project = root_project  # `session-skill --project DIR <command>`

    @property
    def project(self) -> str | None:
        # cli.py: the command's own --project, else the one given before the command.
        return self.values.get("--project") or self.root_project

    def __repr__(self) -> str:
        return (
            f"Invocation({self.command!r}, words={self.words!r}, flags={sorted(self.flags)!r}, "
            f"values={self.values!r}, root_project={self.root_project!r})"
        )


def _option_value(args: list[str], i: int, eq: str, value: str) -> tuple[str, int] | None:
    """The value of the option at args[i] (`--opt=V` or `--opt V`) and the next index."""
    if eq:
        return value, i + 1
    if i + 1 >= len(args):
        return None  # "requires an argument": Typer says so
    return args[i + 1], i + 2


def parse(argv: list[str]) -> Invocation | None:
    """The invocation when the fast path can run it exactly as the CLI would, else None."""
    root_project: str | None = None
    version = False
    i = 0
    # Options before the command: the app's --project and --version.
    while i < len(argv):
        name, eq, value = argv[i].partition("=")
        if argv[i] == "--version":
            version, i = True, i + 1
        elif name == "--project":
            got = _option_value(argv, i, eq, value)
            if got is None or not got[0]:
                return None  # an empty path means "." to Typer; leave that to it
            root_project, i = got
        else:
            break
    rest = argv[i:]
    if version:
        return Invocation("--version") if not rest else None
    if not rest:
        return None
    command = ALIASES.get(rest[0], rest[0])
    spec = SPECS.get(command)
    if spec is None:
        return None
    inv = Invocation(command, root_project)
    args = rest[1:]
    only_words = False
    i = 0
    while i < len(args):
        word = args[i]
        if only_words or word == "-" or not word.startswith("-"):
            inv.words.append(word)
            i += 1
            continue
        if word == "--":  # the option parser eats it; what follows is positional
            only_words = True
            i += 1
            continue
        if not word.startswith("--"):
            return None  # -h, and click's short-option combinatorics
        name, eq, value = word.partition("=")
        if name in spec.flags:
            if eq:
                return None  # "does not take a value"
            inv.flags.add(name)
            i += 1
        elif name in spec.values:
            got = _option_value(args, i, eq, value)
            if got is None or (name == "--project" and not got[0]):
                return None
            inv.values[name], i = got
        elif spec.verbatim and name != "--help":
            inv.words.append(word)  # park/drop keep unknown `--x` words as payload
            i += 1
        else:
            return None  # --help, or an option the command does not have
    if spec.max_words is not None and len(inv.words) > spec.max_words:
        return None
    return inv


def main(argv: list[str]) -> int | None:
    """Run `argv` on the fast path and return the exit code; None when Typer must run it."""
    inv = parse(argv)
    if inv is None:
        return None
    from session_skill.errors import run_command

    return run_command(lambda: _RUNNERS[inv.command](inv))


# -- the commands: the same calls, in the same order, as cli.py ----------------------------
def _store(inv: Invocation) -> Store:
    from session_skill.store.store import Store, find_project_root

    return Store(find_project_root(inv.project))


def _now() -> datetime:
    from session_skill.times import utcnow

    return utcnow()


def _emit(out: object) -> int:
    text = getattr(out, "text", "")
    if text:
        print(text)
    return int(getattr(out, "code", 0))


def _stdin_text() -> str | None:
    from session_skill.store.fileio import stdin_text

    return stdin_text()


def _payload(words: list[str]) -> str:
    if words:
        return " ".join(words)
    return _stdin_text() or ""


def _version(inv: Invocation) -> int:
    from session_skill import __version__

    print(f"session-skill {__version__}")
    return 0


def _recall(inv: Invocation) -> int:
    from session_skill.commands.core import recall

    name = inv.words[0] if inv.words else None
    return _emit(
        recall(
            _store(inv),
            name,
            peek="--peek" in inv.flags,
            as_json="--json" in inv.flags,
            now=_now(),
        )
    )


def _list(inv: Invocation) -> int:
    from session_skill.commands.core import list_store

    return _emit(list_store(_store(inv), as_json="--json" in inv.flags, now=_now()))


def _park(inv: Invocation) -> int:
    from session_skill.commands.core import park

    return _emit(park(_store(inv), _payload(inv.words), as_json="--json" in inv.flags, now=_now()))


def _drop(inv: Invocation) -> int:
    from session_skill.commands.core import drop

    return _emit(drop(_store(inv), _payload(inv.words), as_json="--json" in inv.flags, now=_now()))


def _dispatch(inv: Invocation) -> int:
    from session_skill.cli.dispatch import run

    raw = inv.words[0] if inv.words else None
    text = raw if raw is not None else (_stdin_text() or "")
    return _emit(
        run(
            _store(inv),
            text,
            ignore_unknown_flags="--ignore-unknown-flags" in inv.flags,
            session_id=inv.values.get("--session-id"),
            now=_now(),
        )
    )


def _sweep(inv: Invocation) -> int:
    from session_skill.commands.sweep import sweep_command

    return _emit(
        sweep_command(
            _store(inv),
            transcript=inv.values.get("--transcript"),
            session_id=inv.values.get("--session-id"),
            park=inv.values.get("--park"),
            as_json="--json" in inv.flags,
            now=_now(),
        )
    )


_RUNNERS = {
    "--version": _version,
    "recall": _recall,
    "list": _list,
    "park": _park,
    "drop": _drop,
    "dispatch": _dispatch,
    "sweep": _sweep,
}

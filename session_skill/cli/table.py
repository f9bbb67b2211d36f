"""Every command, declared once: its options, its positional words, its aliases.

The fast path (`fastpath.parse`) and `/session` (`dispatch.parse`) read this table; the Typer
app (`app.py`) declares the same options in its signatures for help and validation, and
tests/cli/test_table.py checks that the two agree, option by option and alias by alias.
Nothing here imports anything: the model's loop pays for no parser it does not use.
"""

from __future__ import annotations

from session_skill.records import FrozenRecord

PROJECT = "--project"


class Command(FrozenRecord):
    __slots__ = ("name", "flags", "values", "words", "aliases", "verbatim", "fast", "mode")
    name: str  # as typed; `hook session-start` for a subcommand
    flags: frozenset[str]  # boolean options
    values: frozenset[str]  # options that take one value
    words: int | None  # positional words allowed (None: any number)
    aliases: tuple[str, ...]  # other names for the same command (hidden from --help)
    verbatim: bool  # an unknown `--word` is payload, kept as typed (park, drop)
    fast: bool  # run without importing Typer when the call is well formed
    mode: bool  # reachable as a `/session` mode

    def __init__(
        self,
        name: str,
        flags: tuple[str, ...] = (),
        values: tuple[str, ...] = (),
        words: int | None = 0,
        aliases: tuple[str, ...] = (),
        verbatim: bool = False,
        fast: bool = False,
        mode: bool = False,
    ) -> None:
        self._set(name, frozenset(flags), frozenset(values), words, aliases, verbatim, fast, mode)

    @property
    def options(self) -> frozenset[str]:
        return self.flags | self.values

    def takes_value(self, option: str) -> bool:
        return option in self.values


_STORE = (PROJECT,)
_TRANSCRIPT = ("--transcript", "--session-id")

COMMANDS: tuple[Command, ...] = (
    Command(
        "dump",
        flags=("--brief", "--extractive", "--force", "--replace", "--json"),
        values=("--file", *_TRANSCRIPT, *_STORE),
        words=1,
        aliases=("save",),
        mode=True,
    ),
    Command(
        "recall",
        flags=("--peek", "--json"),
        values=_STORE,
        words=None,
        aliases=("restore", "load"),
        fast=True,
        mode=True,
    ),
    Command("list", flags=("--json",), values=_STORE, fast=True, mode=True),
    Command(
        "park", flags=("--json",), values=_STORE, words=None, verbatim=True, fast=True, mode=True
    ),
    # The skill runs `sweep --park 1,3` itself, and on a big transcript Typer's import is a
    # third of the time of a sweep: fast.
    Command(
        "sweep",
        flags=("--json",),
        values=(*_TRANSCRIPT, "--park", "--drop", *_STORE),
        fast=True,
        mode=True,
    ),
    Command(
        "drop",
        flags=("--json",),
        values=_STORE,
        words=None,
        aliases=("archive",),
        verbatim=True,
        fast=True,
        mode=True,
    ),
    # Find any past handover (issue 15): by what it said, and a branch's chain of dumps.
    Command(
        "search", flags=("--json",), values=("--limit", *_STORE), words=None, fast=True, mode=True
    ),
    Command(
        "history", flags=("--json",), values=("--branch", *_STORE), words=1, fast=True, mode=True
    ),
    Command(
        "dispatch",
        flags=("--ignore-unknown-flags",),
        values=("--session-id", *_STORE),
        words=1,
        fast=True,
    ),
    Command("install", flags=("--user", "--dry-run"), values=("--agent", *_STORE)),
    Command("uninstall", flags=("--user",), values=("--agent", *_STORE)),
    Command("demo"),
    Command("hook session-start"),
    Command("hook session-end"),
    Command("hook pre-compact"),
    Command("config get", flags=("--user",), values=_STORE, words=1),
    Command("config set", flags=("--user",), values=_STORE, words=2),
)

BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}
ALIASES: dict[str, str] = {a: c.name for c in COMMANDS for a in c.aliases}
MODES: tuple[str, ...] = tuple(c.name for c in COMMANDS if c.mode)
AGENTS = ("claude", "codex", "all")  # --agent's choices


def lookup(name: str) -> Command | None:
    """The command a typed name (or alias) means."""
    return BY_NAME.get(ALIASES.get(name, name))

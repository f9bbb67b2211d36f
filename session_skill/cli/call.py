"""A parsed command line: what every entry point (Typer, the fast path, `/session`) makes
of what it was given, and what `invoke` runs."""

from __future__ import annotations

from session_skill.cli.table import PROJECT
from session_skill.records import Record


class Call(Record):
    __slots__ = ("command", "words", "flags", "values", "root_project")
    command: str  # the table's name (aliases resolved)
    words: list[str]
    flags: set[str]
    values: dict[str, str]
    root_project: str | None  # `session-skill --project DIR <command>`

    def __init__(
        self,
        command: str,
        words: list[str] | None = None,
        flags: set[str] | None = None,
        values: dict[str, str] | None = None,
        root_project: str | None = None,
    ) -> None:
        self.command = command
        self.words = [] if words is None else words
        self.flags = set() if flags is None else flags
        self.values = {} if values is None else values
        self.root_project = root_project

    @property
    def project(self) -> str | None:
        """The command's own --project, else the one given before the command."""
        return self.values.get(PROJECT) or self.root_project

    def flag(self, option: str) -> bool:
        return option in self.flags

    def value(self, option: str) -> str | None:
        """The option's value; None when absent (an empty value counts as absent)."""
        return self.values.get(option) or None

    @property
    def name(self) -> str | None:
        """The positional words as one name (`recall the redis work`)."""
        return " ".join(self.words) or None

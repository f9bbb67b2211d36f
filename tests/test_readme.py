"""The README is the newcomer's manual: every command and exit code in it must be real."""

from __future__ import annotations

import re
from pathlib import Path

from session_skill import errors
from session_skill.cli.app import app

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _commands() -> list[str]:
    names = []
    for info in app.registered_commands:
        if info.hidden:
            continue
        name = info.name or (info.callback.__name__ if info.callback else "")
        names.append(name.replace("_", "-"))
    return names


def test_every_command_is_documented() -> None:
    commands = _commands()
    assert {"dump", "recall", "list", "park", "drop", "sweep", "dispatch"} <= set(commands)
    for name in [*commands, "hook session-start"]:
        assert f"session-skill {name}" in README, f"README does not show `session-skill {name}`"


def test_the_first_two_commands_are_the_spec_ones() -> None:
    assert "pip install . && session-skill demo" in README
    assert "pip install -e '.[test]' && pytest" in README


def test_exit_codes_table_matches_the_code() -> None:
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", README, re.M))
    for code in (
        errors.EXIT_OK,
        errors.EXIT_FAIL,
        errors.EXIT_USAGE,
        errors.EXIT_OVER_CAP,
        errors.EXIT_CHOICE,
        errors.EXIT_INTERRUPTED,
    ):
        assert str(code) in table, f"exit code {code} is not in the README's table"

"""The README is the newcomer's manual and docs/ the reference: every command and exit code
they show must be real, every link must lead somewhere, and the README stays short."""

from __future__ import annotations

import re
from pathlib import Path

from session_skill import errors
from session_skill.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
MODES = (DOCS / "modes.md").read_text(encoding="utf-8")


def _commands() -> list[str]:
    names = []
    for info in app.registered_commands:
        if info.hidden:
            continue
        name = info.name or (info.callback.__name__ if info.callback else "")
        names.append(name.replace("_", "-"))
    return names


def test_every_command_is_documented_in_the_modes_reference() -> None:
    commands = _commands()
    assert {"dump", "recall", "list", "park", "drop", "sweep", "dispatch"} <= set(commands)
    hooks = ["hook session-start", "hook session-end", "hook pre-compact"]
    for name in [*commands, *hooks]:
        assert f"session-skill {name}" in MODES, (
            f"docs/modes.md does not show `session-skill {name}`"
        )


def test_the_first_two_commands_are_the_spec_ones_and_come_first() -> None:
    first_block = README.split("```", 2)[1]
    assert "pip install . && session-skill demo" in first_block
    assert "pip install -e '.[test]' && pytest" in first_block


def test_exit_codes_table_matches_the_code() -> None:
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", MODES, re.M))
    for code in (
        errors.EXIT_OK,
        errors.EXIT_FAIL,
        errors.EXIT_USAGE,
        errors.EXIT_OVER_CAP,
        errors.EXIT_CHOICE,
        errors.EXIT_INTERRUPTED,
    ):
        assert str(code) in table, f"exit code {code} is not in docs/modes.md's table"


def test_the_readme_is_short() -> None:
    assert len(README.encode("utf-8")) <= 12 * 1024


def test_every_doc_is_linked_from_the_readme_and_every_link_leads_somewhere() -> None:
    docs = sorted(p.name for p in DOCS.glob("*.md"))
    assert docs, "docs/ is empty"
    for name in docs:
        assert f"(docs/{name})" in README, f"README.md does not link docs/{name}"
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            assert (page.parent / target).exists(), f"{page.name} links {target}, which is missing"


def test_no_placeholder_is_left_in_the_docs() -> None:
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\b(?:TEST|TRAIN)_[A-Z]+\b|TODO|TBD", text), page.name

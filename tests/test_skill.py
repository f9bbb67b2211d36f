"""`skills/session/SKILL.md` (SPEC §10, issue 3): small, safe with `$ARGUMENTS`, packaged."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from session_skill.install import skills as inst_skills

REPO = Path(__file__).resolve().parents[1]
SKILL = REPO / "skills" / "session" / "SKILL.md"
DISPATCH = "session-skill dispatch --session-id \"${CLAUDE_SESSION_ID}\" <<'SESSION_ARGS'"


@pytest.fixture(scope="module")
def text() -> str:
    return SKILL.read_text(encoding="utf-8")


def frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    head = text[4 : text.index("\n---\n", 4)]
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


def test_under_4000_characters(text: str) -> None:
    assert len(text) < 4_000
    assert len(text.encode("utf-8")) < 4_000


def test_frontmatter(text: str) -> None:
    meta = frontmatter(text)
    assert meta["name"] == "session"
    assert meta["argument-hint"] == (
        "dump [name] | recall [name] | list | park <idea> | sweep | drop <item>"
    )
    assert meta["allowed-tools"] == "Bash(session-skill *)"
    description = meta["description"]
    assert isinstance(description, str) and len(description) < 1_024
    for trigger in ("/session", "/clear", "dump", "recall", "park", "sweep", "drop", "list"):
        assert trigger in description
    assert "context" not in meta  # a forked skill cannot see the conversation
    head = text[: text.index("\n---\n", 4)]
    assert not re.search(r":\s*(yes|no|on|off|True|False)\s*$", head, re.M | re.I)


def test_every_heredoc_is_quoted(text: str) -> None:
    heredocs = re.findall(r"<<-?\s*(\S+)", text)
    assert heredocs and all(re.fullmatch(r"'[A-Z_]+'", h) for h in heredocs), heredocs


def test_arguments_reach_the_cli_only_inside_the_dispatch_heredoc(text: str) -> None:
    lines = text.splitlines()
    where = [i for i, line in enumerate(lines) if "$ARGUMENTS" in line]
    assert len(where) == 1
    i = where[0]
    assert lines[i] == "$ARGUMENTS"
    assert lines[i - 1] == DISPATCH and lines[i + 1] == "SESSION_ARGS"
    assert lines[i - 2] == "```bash" and lines[i + 2] == "```"
    assert "!`" not in text  # no pre-run shell lines at all, let alone with the arguments
    assert "$0" not in text and "$1" not in text


def test_dispatch_heredoc_runs_in_bash_with_hostile_arguments(tmp_path: Path) -> None:
    """The block, with the substitution done as Claude Code does it, passes the text verbatim."""
    if shutil.which("bash") is None:
        pytest.skip("bash not installed")
    hostile = "park try -- the `rm -rf /` thing $(touch pwned) $HOME 'quote' \"dq\" \\ ; |"
    block = (
        "\n".join([DISPATCH, "$ARGUMENTS", "SESSION_ARGS"])
        .replace("${CLAUDE_SESSION_ID}", "9ba084a4-3d12-4cf7-a14a-886e4505a15f")
        .replace("$ARGUMENTS", hostile)
    )
    fake = tmp_path / "bin" / "session-skill"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > args.txt\ncat > stdin.txt\n')
    fake.chmod(0o755)
    subprocess.run(
        ["bash", "-c", block],
        cwd=tmp_path,
        env={"PATH": f"{fake.parent}:/usr/bin:/bin"},
        check=True,
        timeout=30,
    )
    assert (tmp_path / "args.txt").read_text().split() == [
        "dispatch",
        "--session-id",
        "9ba084a4-3d12-4cf7-a14a-886e4505a15f",
    ]
    assert (tmp_path / "stdin.txt").read_text() == hostile + "\n"
    assert not (tmp_path / "pwned").exists()


def test_tells_the_model_what_the_cli_cannot(text: str) -> None:
    assert "AskUserQuestion" in text
    assert "--ignore-unknown-flags" in text and "Continue ignoring" in text
    assert "--file - <<'SESSION_DOC'" in text and "the exact command the brief prints" in text
    assert "literal `/clear`" in text and "LAST line" in text
    assert "never drop a decision" in text
    assert "session-skill sweep --park 1,3" in text
    assert "park all, a subset, or none" in text
    assert "Task hygiene" in text
    for exit_code in ("**0**", "**1**", "**3**", "**4**"):
        assert exit_code in text


def test_packaged_copy_resolves(tmp_path: Path) -> None:
    assert inst_skills.skill_source().resolve() == SKILL.resolve()
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"skills" = "session_skill/_data/skills"' in pyproject
    # A wheel's layout: the skill under session_skill/_data/skills/.
    site = tmp_path / "site"
    shutil.copytree(REPO / "session_skill", site / "session_skill")
    packaged = site / "session_skill" / "_data" / "skills" / "session" / "SKILL.md"
    packaged.parent.mkdir(parents=True)
    packaged.write_bytes(SKILL.read_bytes())
    probe = "from session_skill.install.skills import skill_source as s; print(s())"
    r = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert Path(r.stdout.strip()) == packaged.resolve()


def test_codex_copy_has_no_claude_substitutions() -> None:
    codex = inst_skills.skill_text("codex")
    assert "$ARGUMENTS" not in codex and "${CLAUDE_SESSION_ID}" not in codex
    assert "session-skill dispatch <<'SESSION_ARGS'" in codex
    assert inst_skills.skill_text("claude") == SKILL.read_text(encoding="utf-8")

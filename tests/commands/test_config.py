"""`session-skill config get|set` (issue 12): the `auto` setting, per project and per user."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from session_skill.store import settings
from tests.conftest import RunCli


@pytest.fixture
def user_file() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "session-skill.json"


def test_the_default_is_notice(project: Path, cli: RunCli) -> None:
    r = cli("config", "get", "auto")
    assert (r.code, r.out, r.err) == (0, "auto = notice (default)\n", "")
    assert cli("config", "get").out == "auto = notice (default)\n"  # every setting


def test_set_for_the_project(project: Path, cli: RunCli) -> None:
    r = cli("config", "set", "auto", "inject")
    assert (r.code, r.out) == (0, "auto = inject (project: .claude/session-skill.json)\n"), r
    path = project / ".claude" / "session-skill.json"
    assert json.loads(path.read_text()) == {"auto": "inject"}
    assert (
        cli("config", "get", "auto").out == "auto = inject (project: .claude/session-skill.json)\n"
    )
    again = cli("config", "set", "auto", "INJECT")  # choices are case-insensitive
    assert again.out.endswith(", unchanged\n") and json.loads(path.read_text()) == {
        "auto": "inject"
    }


def test_set_for_the_user_in_claude_config_dir(project: Path, cli: RunCli, user_file: Path) -> None:
    r = cli("config", "set", "auto", "off", "--user")
    assert r.code == 0 and r.out == "auto = off (user: ~/.claude/session-skill.json)\n", r
    assert json.loads(user_file.read_text()) == {"auto": "off"}
    assert cli("config", "get", "auto").out == "auto = off (user: ~/.claude/session-skill.json)\n"
    assert cli("config", "get", "--user").out == "auto = off (user: ~/.claude/session-skill.json)\n"


def test_without_claude_config_dir_the_user_file_is_under_home(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert cli("config", "set", "--user", "auto", "inject").code == 0
    assert json.loads((isolated_home / ".claude" / "session-skill.json").read_text()) == {
        "auto": "inject"
    }


def test_the_project_overrides_the_user(project: Path, cli: RunCli) -> None:
    cli("config", "set", "auto", "notice")
    r = cli("config", "set", "auto", "off", "--user")
    assert r.out.splitlines() == [
        "auto = off (user: ~/.claude/session-skill.json)",
        "This project overrides it: auto = notice (project: .claude/session-skill.json)",
    ]
    assert cli("config", "get", "auto").out.startswith("auto = notice (project: ")
    assert cli("config", "get", "auto", "--user").out.startswith("auto = off (user: ")


def test_other_keys_in_the_file_are_kept(project: Path, cli: RunCli) -> None:
    path = project / ".claude" / "session-skill.json"
    path.parent.mkdir()
    path.write_text('{"note": "ours", "auto": "off"}\n')
    assert cli("config", "set", "auto", "inject").code == 0
    assert json.loads(path.read_text()) == {"note": "ours", "auto": "inject"}


def test_a_user_file_kept_as_a_symlink_is_written_where_it_points(
    project: Path, cli: RunCli, user_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "dotfiles" / "session-skill.json"
    target.parent.mkdir()
    target.write_text("{}\n")
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.symlink_to(target)
    assert cli("config", "set", "--user", "auto", "off").code == 0
    assert user_file.is_symlink() and json.loads(target.read_text()) == {"auto": "off"}


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("set", "auto", "always"), "error: auto takes notice, inject or off; got 'always'"),
        (("set", "colour", "red"), "error: no setting named 'colour'; settings: auto"),
        (("get", "colour"), "error: no setting named 'colour'; settings: auto"),
    ],
)
def test_bad_input_is_a_usage_error(
    project: Path, cli: RunCli, args: tuple[str, ...], line: str
) -> None:
    r = cli("config", *args)
    assert (r.code, r.out, r.err) == (2, "", line + "\n")
    assert not (project / ".claude").exists()


def test_a_file_that_is_not_json_is_never_rewritten(project: Path, cli: RunCli) -> None:
    path = project / ".claude" / "session-skill.json"
    path.parent.mkdir()
    path.write_text('{"auto": "inject",}\n')
    r = cli("config", "set", "auto", "off")
    assert r.code == 1 and r.err.startswith("error: ") and "not valid JSON" in r.err
    assert path.read_text() == '{"auto": "inject",}\n'
    got = cli("config", "get", "auto")  # get says so and falls back to the next level
    assert got.code == 0
    assert got.out.splitlines() == [
        "auto = notice (default)",
        f"! {path}: not valid JSON",
    ]


def test_a_value_that_is_not_a_choice_is_skipped_and_said(project: Path, cli: RunCli) -> None:
    path = project / ".claude" / "session-skill.json"
    path.parent.mkdir()
    path.write_text('{"auto": true}\n')
    got = cli("config", "get", "auto").out.splitlines()
    assert got == [
        "auto = notice (default)",
        f"! {path}: auto is true, not one of notice, inject, off; ignored",
    ]


def test_the_hooks_read_it_with_json_alone(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "session-skill.json").write_text('\ufeff{"auto": " Inject "}')
    s = settings.effective(settings.AUTO, str(project), os.environ)
    assert (s.value, s.level, s.problems) == ("inject", "project", [])
    empty = settings.effective(settings.AUTO, str(project / "nowhere"), {"HOME": "/nonexistent"})
    assert (empty.value, empty.level, empty.path) == ("notice", "default", None)


def test_the_help_lists_the_choices(cli: RunCli) -> None:
    r = cli("config", "--help")
    assert r.code == 0 and "notice, inject or off" in r.out

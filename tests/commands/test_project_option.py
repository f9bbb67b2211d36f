"""`--project DIR` must name a directory that exists (issue 11 #19): else exit 1, one `error:`
line, nothing created — for every command, however it is reached."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunCli

pytestmark = pytest.mark.usefixtures("pinned_now")

COMMANDS = [
    ("park", "an idea worth keeping"),
    ("list",),
    ("recall",),
    ("drop", "#1"),
    ("sweep",),
    ("dump", "--brief"),
    ("install",),
]


def _tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_project_that_does_not_exist(
    tmp_path: Path, cli: RunCli, sub: RunCli, argv: tuple[str, ...]
) -> None:
    missing = tmp_path / "typo"
    for run in (cli, sub):
        for args in (
            ["--project", str(missing), *argv],
            [argv[0], "--project", str(missing), *argv[1:]],
        ):
            r = run(*args)
            assert (r.code, r.out) == (1, ""), (run, args, r)
            assert r.err == f"error: --project {missing}: no such directory\n", r
            assert not missing.exists()


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_project_that_is_a_file(
    tmp_path: Path, cli: RunCli, sub: RunCli, argv: tuple[str, ...]
) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("not a project\n")
    before = _tree(tmp_path)
    for run in (cli, sub):
        r = run("--project", str(file), *argv)
        assert (r.code, r.out) == (1, ""), r
        assert r.err == f"error: --project {file} is not a directory\n", r
    assert _tree(tmp_path) == before


def test_dispatch_with_a_missing_project(tmp_path: Path, cli: RunCli) -> None:
    missing = tmp_path / "typo"
    r = cli("--project", str(missing), "dispatch", "park keep this idea")
    assert (r.code, r.err) == (1, f"error: --project {missing}: no such directory\n"), r
    assert not missing.exists()


def test_an_existing_project_still_works(tmp_path: Path, cli: RunCli) -> None:
    (tmp_path / "real").mkdir()
    r = cli("--project", str(tmp_path / "real"), "park", "an idea worth keeping")
    assert r.code == 0, r
    assert (tmp_path / "real" / ".claude" / "state" / "session" / "PARKED.md").is_file()

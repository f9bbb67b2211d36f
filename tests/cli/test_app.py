"""The command line as a user meets it: the issue-2 walk-through, exit codes, lazy imports."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from session_skill import __version__
from session_skill.cli import app as cli_module
from session_skill.commands import listing
from tests.conftest import NOW, STORE_REL, RunCli, git

SLUG = "main-2026-11-29T18-30-00Z"
PIN = {"SESSION_SKILL_NOW": NOW}


# -- the walk-through of issue 2, as a new user would run it --------------------------
def test_new_user_walkthrough(project: Path, sub: RunCli) -> None:
    store = project / STORE_REL

    # Park three ideas; the third goes through dispatch on stdin (the skill's quoted heredoc).
    r = sub("park", "retry", "backoff:", "revisit exponential vs linear", env=PIN)
    assert (r.code, r.out, r.err) == (
        0,
        "Parked: retry-backoff-revisit-exponential-vs (1 open)\n",
        "",
    )
    r = sub("park", env=PIN, input="Dark mode for the dashboard. Why: users asked\n")
    assert (r.code, r.out) == (0, "Parked: dark-mode-for-the-dashboard-why (2 open)\n")
    weird = "check `git log -- \"$HOME/src\"` -- it's 'quoted' and $(subshell) too"
    r = sub("dispatch", env=PIN, input=f"park {weird}\n")
    assert r.code == 0, r
    assert r.out.startswith("Parked: ") and r.out.endswith(" (3 open)\n")
    parked = (store / "PARKED.md").read_text()
    assert f"— {weird}. Raised: 2026-11-29.\n" in parked

    # list numbers them.
    r = sub("list", env=PIN)
    assert r.code == 0, r
    numbered = [ln for ln in r.out.splitlines() if ln[:3] in ("1. ", "2. ", "3. ")]
    assert len(numbered) == 3
    assert "retry backoff" in numbered[0] and "Dark mode" in numbered[1] and weird in numbered[2]
    assert "### Parked (3 open)" in r.out

    # drop by a fuzzy query removes the right one and logs it.
    before = (store / "PARKED.md").read_text()
    r = sub("drop", "dashboard dark mode", env=PIN)
    assert r.code == 0, r
    # The rest is shown again with the numbers `list` gave them: #3 still means the third.
    assert r.out.startswith("Dropped: dark-mode-for-the-dashboard-why (2 open)\n\n")
    assert "\n1. **retry-backoff" in r.out and "\n3. **check-git-log" in r.out
    after = (store / "PARKED.md").read_text()
    removed = [ln for ln in before.splitlines() if ln not in after.splitlines()]
    assert len(removed) == 1 and "Dark mode" in removed[0]
    assert after == before.replace(removed[0] + "\n", "")
    (line,) = (store / "dropped.jsonl").read_text().splitlines()
    rec = json.loads(line)
    assert list(rec) == ["ts", "item", "action", "summary", "raised", "query", "score", "line"]
    assert rec["ts"] == NOW and rec["item"] == "dark-mode-for-the-dashboard-why"
    assert (
        rec["action"] == "dropped"
        and rec["summary"] == "Dark mode for the dashboard. Why: users asked"
    )
    assert rec["raised"] == "2026-11-29" and rec["query"] == "dashboard dark mode"
    assert isinstance(rec["score"], float) and rec["line"] == removed[0]

    # dump of a doc on stdin writes <slug>.md and LATEST.
    doc = (
        "## Goal\nShip token expiry.\n\n## Decisions\n- 15 min expiry — why: risk\n\n"
        "## Next step\nRun tests.\n"
    )
    r = sub("dump", env=PIN, input=doc)
    assert r.code == 0, r
    assert r.out.splitlines()[0].startswith(
        f"→ .claude/state/session/{SLUG}.md (0 files, 1 decision, 0 outstanding, "
    )
    assert r.out.endswith("\n\n/clear\n")
    assert (store / f"{SLUG}.md").is_file()
    assert (store / "LATEST").read_text() == SLUG + "\n"

    # recall prints it and marks it consumed; LATEST is blanked.
    r = sub("recall", env=PIN)
    assert r.code == 0, r
    assert r.out.startswith(
        f"Handover `{SLUG}` · written <1 min ago · main\n\n## Goal\nShip token expiry."
    )
    assert "consumed: true" in (store / f"{SLUG}.md").read_text()
    assert not (store / "LATEST").exists()
    assert sub("recall", env=PIN).out == "No pending handover. → /session list\n"

    # A 2,500-token doc is refused with exit 3 and per-section counts.
    filler = " ".join(f"word{i}" for i in range(620))
    big = f"## Goal\n{filler}\n\n## Decisions\n- {filler} — why: size\n\n## Next step\nCompress.\n"
    r = sub("dump", "big", env=PIN, input=big)
    assert r.code == 3, r
    total = int(r.out.splitlines()[0].split()[3])
    assert 2450 <= total <= 2550
    assert "| Goal |" in r.out and "| Decisions |" in r.out and "| Next step |" in r.out
    assert r.err.startswith(f"error: the handover is {total} tokens; the cap is 1500")
    assert "Traceback" not in r.err
    assert not (store / "big.md").exists()


def test_forty_changed_files_in_four_directories_real_git(project: Path, sub: RunCli) -> None:
    dirs = ["api", "web/ui", "core", "docs"]
    paths = [f"{d}/f{i:02d}.txt" for d in dirs for i in range(10)]
    for p in paths:
        (project / p).parent.mkdir(parents=True, exist_ok=True)
        (project / p).write_text("one\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "forty")
    for p in paths:
        (project / p).write_text("one\ntwo\n")
    r = sub("dump", env=PIN, input="## Goal\ng\n\n## Next step\nn\n")
    assert r.code == 0, r
    assert "(40 files, " in r.out
    text = (project / STORE_REL / f"{SLUG}.md").read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| `")]
    assert len(rows) <= 25
    grouped = [ln for ln in text.splitlines() if "grouped into" in ln]
    assert len(grouped) == 1
    listed, counted = set(), 0
    for row in rows:
        name = row.split("`")[1]
        if name.endswith("/"):
            counted += int(row.split("(")[1].split()[0])
            assert "+10/-0" in row
        else:
            listed.add(name)
            assert row.endswith("| unlisted | +1/-0 |")
    assert len(listed) + counted == 40
    assert grouped[0] == (
        f"_{counted} files grouped into {sum(1 for r in rows if r.split('`')[1].endswith('/'))} "
        "directory rows to keep the table at 25 rows._"
    )


# -- entry points ---------------------------------------------------------------------
def test_version(cli: RunCli, sub: RunCli) -> None:
    assert cli("--version").out == f"session-skill {__version__}\n"
    r = sub("--version")
    assert (r.code, r.out) == (0, f"session-skill {__version__}\n")


def test_console_script(project: Path) -> None:
    import subprocess

    script = Path(sys.executable).parent / "session-skill"
    if not script.exists():
        pytest.skip("console script not installed beside this interpreter")
    out = subprocess.run([str(script), "list"], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout) == (0, "No stored handovers, no parked items.\n")


def test_help_lists_every_command(cli: RunCli) -> None:
    r = cli("--help")
    assert r.code == 0
    for name in ("dump", "recall", "list", "park", "sweep", "drop", "dispatch", "hook", "install"):
        assert name in r.out
    for hidden in ("save", "restore", "load", "archive"):
        assert f" {hidden} " not in r.out


def test_every_command_is_documented() -> None:
    import typer.main

    group = typer.main.get_command(cli_module.app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        assert command.help or command.hidden, name


@pytest.mark.parametrize(
    ("alias", "target"),
    [("save", "dump"), ("restore", "recall"), ("load", "recall"), ("archive", "drop")],
)
def test_command_aliases(project: Path, cli: RunCli, alias: str, target: str) -> None:
    cli("park", "alias test item")
    if target == "dump":
        r = cli(alias, "aliased", input="## Goal\ng\n\n## Next step\nn\n")
        assert r.code == 0 and "aliased.md" in r.out
    elif target == "recall":
        r = cli(alias)
        assert (r.code, r.out) == (0, "No pending handover. → /session list\n")
    else:
        r = cli(alias, "#1")
        assert (r.code, r.out) == (0, "Dropped: alias-test-item (0 open)\n")


# -- exit codes (SPEC §7) --------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "stdin", "code", "err"),
    [
        (("list",), None, 0, ""),
        (("park",), None, 1, "error: nothing to park: give the idea as text (or on stdin)\n"),
        (("recall", "nope"), None, 1, "error: no handover matches 'nope'\n"),
        (("drop", "#1"), None, 1, "error: no parked items\n"),
        (
            ("dump", "parked"),
            "## Goal\ng\n## Next step\nn\n",
            1,
            "error: refused name 'parked': 'parked' is reserved\n",
        ),
        (
            ("dump",),
            "## Goal\ng\n",
            1,
            "error: the handover has no `## Next step` section (or it is empty)\n",
        ),
        (("dispatch",), "", 4, "error: no session mode given\n"),
        (("dispatch", "list --verbose"), None, 4, "error: unknown flag(s) for list: `--verbose`\n"),
    ],
)
def test_exit_codes_and_one_line_errors(
    project: Path, sub: RunCli, argv: tuple[str, ...], stdin: str | None, code: int, err: str
) -> None:
    r = sub(*argv, input=stdin, env=PIN)
    assert (r.code, r.err) == (code, err), r


def test_exit_3_over_cap(project: Path, sub: RunCli) -> None:
    r = sub("dump", input="## Goal\n" + "token " * 2000 + "\n## Next step\nn\n", env=PIN)
    assert r.code == 3, r
    assert r.err.count("\n") == 1 and r.err.startswith("error: the handover is ")


@pytest.mark.parametrize("argv", [("frobnicate",), ("recall", "--bogus"), ()])
def test_exit_2_usage(project: Path, sub: RunCli, argv: tuple[str, ...]) -> None:
    r = sub(*argv)
    assert r.code == 2, r
    assert "Traceback" not in r.err


def test_exit_4_ambiguous_drop(project: Path, sub: RunCli) -> None:
    sub("park", "**retry-backoff** — exponential vs linear")
    sub("park", "**retry-budget** — cap total retries")
    r = sub("drop", "retry")
    assert r.code == 4, r
    assert "\n1. **retry-b" in r.out and "\n2. **retry-b" in r.out  # their #N numbers


def test_interrupt_is_130(project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*a: object, **k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(listing, "list_store", interrupted)
    r = cli("list")
    assert r.code == 130
    assert "Traceback" not in r.err


def test_a_bug_is_one_line_and_a_log(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tempfile

    def broken(*a: object, **k: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(listing, "list_store", broken)
    # A link another user put at the old fixed name is not written through.
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (tmp_path / "session-skill-error.log").symlink_to(victim)
    r = cli("list")
    (log,) = tmp_path.glob("session-skill-error-*.log")
    assert r.code == 1
    assert r.err == f"error: unexpected ZeroDivisionError: boom (details: {log})\n"
    assert "Traceback" in log.read_text() and victim.read_text() == "keep me\n"
    assert log.stat().st_mode & 0o777 == 0o600
    assert cli("list").code == 1 and len(list(tmp_path.glob("session-skill-error-*.log"))) == 2


def test_no_traceback_on_an_unreadable_store(project: Path, sub: RunCli) -> None:
    # Root reads any file whatever its mode, so make PARKED.md unreadable for everyone:
    # a directory where the file should be.
    store = project / STORE_REL
    (store / "PARKED.md").mkdir(parents=True)
    r = sub("park", "x")
    assert r.code == 1 and "Traceback" not in r.err, r.err
    assert r.err.startswith("error: ") and "PARKED.md" in r.err, r.err
    assert (store / "PARKED.md").is_dir()


# -- lazy imports ------------------------------------------------------------------------
_PROBE = """
import json, sys
from session_skill.__main__ import main
sys.argv = ["session-skill", *sys.argv[1:]]
code = main()
heavy = {"tiktoken", "yaml", "rapidfuzz", "slugify"}
heavy = sorted({m.split(".")[0] for m in sys.modules} & heavy)
ours = sorted(m for m in sys.modules if m.startswith("session_skill."))
sys.stderr.write("\\nPROBE " + json.dumps({"code": code, "heavy": heavy, "ours": ours}) + "\\n")
"""


def _probe(project: Path, *argv: str, fake_git_log: Path | None = None) -> dict[str, object]:
    import subprocess

    env = dict(os.environ)
    if fake_git_log is not None:
        bindir = project.parent / "fakebin"
        bindir.mkdir(exist_ok=True)
        fake = bindir / "git"
        fake.write_text(f'#!/bin/sh\necho "$@" >> {fake_git_log}\nexit 1\n')
        fake.chmod(0o755)
        env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("PROBE "))
    data: dict[str, object] = json.loads(line[6:])
    assert data["code"] == 0, proc.stderr
    return data


def test_park_and_list_pay_for_neither_tiktoken_nor_git(project: Path) -> None:
    calls = project.parent / "git-calls.log"
    first = _probe(project, "park", "a first idea", fake_git_log=calls)
    assert first["heavy"] == ["slugify"]
    second = _probe(project, "park", "another idea entirely", fake_git_log=calls)
    assert "tiktoken" not in second["heavy"] and "yaml" not in second["heavy"]
    listed = _probe(project, "list", fake_git_log=calls)
    assert listed["heavy"] == []
    for data in (first, second, listed):
        assert "session_skill.git.info" not in data["ours"]  # type: ignore[operator]
        assert "session_skill.handover.tokens" not in data["ours"]  # type: ignore[operator]
    assert not calls.exists(), calls.read_text()


def test_recall_peek_pays_for_neither_tiktoken_nor_rapidfuzz(project: Path, sub: RunCli) -> None:
    assert sub("dump", input="## Goal\ng\n\n## Next step\nn\n").code == 0
    data = _probe(project, "recall", "--peek")
    assert data["heavy"] == []
    sub("park", "one parked idea")  # drop #N needs no fuzzy matcher
    dropped = _probe(project, "drop", "#1")
    assert "rapidfuzz" not in dropped["heavy"] and "tiktoken" not in dropped["heavy"]


def test_version_imports_no_command_module(project: Path) -> None:
    data = _probe(project, "--version")
    assert data["heavy"] == []
    for module in ("commands.", "git.", "handover.", "matching.", "store.docs", "store.store"):
        assert not [m for m in data["ours"] if m.startswith(f"session_skill.{module}")]  # type: ignore[attr-defined]


def test_a_file_system_refusal_is_one_line(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.store import fileio
    from session_skill.store.store import Store

    Store(project).ensure()

    def refuse(path: Path, data: bytes) -> bool:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(fileio, "create_exclusive", refuse)
    r = cli("dump", input="## Goal\ng\n\n## Next step\nn\n")
    assert r.code == 1, r
    assert r.err.startswith("error: cannot use ") and r.err.endswith(": Permission denied\n")
    assert r.err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "err"),
    [
        ((), "error: no command given (the commands are listed above)\n"),
        (
            ("config",),
            "error: no command given: `session-skill config get` or `session-skill config set`\n",
        ),
        (("hook",), "error: no command given: `session-skill hook session-start`"),
    ],
)
def test_no_command_is_help_and_one_error_line(
    project: Path, sub: RunCli, argv: tuple[str, ...], err: str
) -> None:
    """Issue 21: the help alone, exit 2, and no `error:` line, read as a success."""
    r = sub(*argv)
    assert r.code == 2, r
    assert r.out.startswith("Usage: session-skill"), r
    assert r.err.startswith(err) and r.err.count("\n") == 1, r
    if argv == ("hook",):
        assert " or `session-skill hook " in r.err

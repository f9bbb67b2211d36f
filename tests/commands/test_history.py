"""history (issue 15): the `follows` chain of a branch's handovers, newest first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunCli, git, make_repo, write_doc

pytestmark = pytest.mark.usefixtures("pinned_now")
DOC = "## Goal\n{goal}\n\n## Next step\nCarry on.\n"


def _dump(cli: RunCli, monkeypatch: pytest.MonkeyPatch, name: str, goal: str, at: str) -> None:
    monkeypatch.setenv("SESSION_SKILL_NOW", at)
    r = cli("dump", name, "--file", "-", input=DOC.format(goal=goal))
    assert r.code == 0, r


@pytest.fixture
def three_dumps(project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three real dumps on `main`: the tool sets each one's `follows`."""
    _dump(cli, monkeypatch, "plan", "Plan the parser.", "2026-11-27T09:00:00Z")
    _dump(cli, monkeypatch, "build", "Build the parser.", "2026-11-28T09:00:00Z")
    _dump(cli, monkeypatch, "ship", "Ship the parser.", "2026-11-29T09:00:00Z")
    monkeypatch.setenv("SESSION_SKILL_NOW", "2026-11-29T18:30:00Z")
    return project / ".claude" / "state" / "session"


def test_three_dumps_read_as_a_story(three_dumps: Path, cli: RunCli) -> None:
    assert "follows: build\n" in (three_dumps / "ship.md").read_text()
    assert cli("recall", "plan", "--peek").code == 0  # --peek: still not consumed
    assert cli("recall", "build").code == 0  # consumed by recall
    r = cli("history")
    assert r.code == 0, r
    assert r.out.splitlines() == [
        "## History — main: 3 handovers, newest first",
        "1. `ship` · 9 h · not consumed — Ship the parser.",
        "2. `build` · 1 d · consumed — Build the parser.",
        "3. `plan` · 2 d · not consumed — Plan the parser.",
        "",
        "→ /session recall <slug> to print one back into context",
    ]
    assert r.err == ""
    assert cli("history", "--branch", "main").out == r.out


def test_a_rewritten_handover_keeps_the_story_whole(
    three_dumps: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dump plan --replace` rewrites the oldest, which keeps its place in the chain but is
    newest now: the story began there and ended at once, `ship` and `build` "not linked"."""
    monkeypatch.setenv("SESSION_SKILL_NOW", "2026-11-29T12:00:00Z")
    again = DOC.format(goal="Plan the parser, again.")
    assert cli("dump", "plan", "--replace", "--file", "-", input=again).code == 0
    monkeypatch.setenv("SESSION_SKILL_NOW", "2026-11-29T18:30:00Z")
    r = cli("history")
    assert r.code == 0, r
    assert r.out.splitlines()[:4] == [
        "## History — main: 3 handovers, newest first",
        "1. `ship` · 9 h · not consumed — Ship the parser.",
        "2. `build` · 1 d · not consumed — Build the parser.",
        "3. `plan` · 6 h · not consumed — Plan the parser, again.",
    ]


def test_from_a_slug_back(three_dumps: Path, cli: RunCli) -> None:
    r = cli("history", "build")
    assert r.code == 0, r
    assert r.out.splitlines()[:3] == [
        "## History of `build` — main: 2 handovers, newest first",
        "1. `build` · 1 d · not consumed — Build the parser.",
        "2. `plan` · 2 d · not consumed — Plan the parser.",
    ]


def test_json_is_typed(three_dumps: Path, cli: RunCli) -> None:
    r = cli("history", "--json")
    assert r.code == 0, r
    data = json.loads(r.out)
    assert data["branch"] == "main" and data["start"] == "ship"
    assert data["broken_link"] is None and data["unlinked"] == 0
    assert [h["slug"] for h in data["handovers"]] == ["ship", "build", "plan"]
    first = data["handovers"][0]
    assert first == {
        "slug": "ship",
        "created": "2026-11-29T09:00:00Z",
        "age": "9 h",
        "age_seconds": 9 * 3600 + 30 * 60,
        "branch": "main",
        "consumed": False,
        "goal": "Ship the parser.",
        "follows": "build",
    }
    assert data["handovers"][-1]["follows"] is None


def test_a_link_to_a_doc_that_is_gone_ends_the_story(three_dumps: Path, cli: RunCli) -> None:
    (three_dumps / "plan.md").unlink()
    r = cli("history")
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[0] == "## History — main: 2 handovers, newest first"
    assert lines[3] == "(`build` follows `plan`, which is no longer stored.)"
    assert json.loads(cli("history", "--json").out)["broken_link"] == "plan"


def test_a_hand_made_loop_ends(project: Path, store_dir: Path, cli: RunCli) -> None:
    write_doc(store_dir, "a", created="2026-11-29T10:00:00Z", extra="follows: b\n")
    write_doc(store_dir, "b", created="2026-11-29T09:00:00Z", extra="follows: a\n")
    r = cli("history", "--json")
    assert r.code == 0, r
    assert [h["slug"] for h in json.loads(r.out)["handovers"]] == ["a", "b"]


def test_docs_of_the_branch_outside_the_chain_are_named(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    write_doc(store_dir, "new", created="2026-11-29T10:00:00Z", extra="follows: old\n")
    write_doc(store_dir, "old", created="2026-11-29T09:00:00Z")
    write_doc(store_dir, "stray", created="2026-11-29T08:00:00Z")  # by another tool: no link
    write_doc(store_dir, "elsewhere", created="2026-11-29T11:00:00Z", branch="feat/x")
    r = cli("history")
    assert r.code == 0, r
    assert "Not linked into this chain: `stray`" in r.out.splitlines()
    assert "elsewhere" not in r.out


def test_the_branch_checked_out_is_the_default(project: Path, store_dir: Path, cli: RunCli) -> None:
    write_doc(store_dir, "on-main", created="2026-11-29T10:00:00Z")
    write_doc(store_dir, "on-feat", created="2026-11-29T11:00:00Z", branch="feat/x")
    assert "1. `on-main`" in cli("history").out
    git(project, "checkout", "-q", "-b", "feat/x")
    assert "1. `on-feat`" in cli("history").out
    git(project, "checkout", "-q", "-b", "empty")
    r = cli("history")
    assert r.code == 1, r
    assert r.err == "error: no handover of branch 'empty'\n"
    assert r.out == "Branches with handovers: feat/x (1), main (1)\n"


def test_outside_git_the_newest_docs_story(tmp_path: Path, cli: RunCli) -> None:
    root = tmp_path / "plain"
    store = root / ".claude" / "state" / "session"
    write_doc(store, "older", created="2026-11-29T09:00:00Z", branch=None)
    write_doc(store, "newer", created="2026-11-29T10:00:00Z", branch=None, extra="follows: older\n")
    r = cli("history", "--project", str(root))
    assert r.code == 0, r
    assert r.out.splitlines()[:3] == [
        "## History — no branch: 2 handovers, newest first",
        "1. `newer` · 8 h · not consumed — Ship it.",
        "2. `older` · 9 h · not consumed — Ship it.",
    ]


def test_refusals(project: Path, store_dir: Path, cli: RunCli) -> None:
    r = cli("history")
    assert (r.code, r.out, r.err) == (1, "", "error: no stored handovers\n")
    write_doc(store_dir, "only")
    r = cli("history", "nope")
    assert r.code == 1 and r.err == "error: no handover named 'nope'\n"
    assert "| `only` |" in r.out
    r = cli("history", "only", "--branch", "main")
    assert (r.code, r.err) == (2, "error: history takes a SLUG or --branch, not both\n")


def test_through_dispatch(three_dumps: Path, cli: RunCli) -> None:
    for raw in ("history", "history build", "history --branch main --json"):
        assert cli("dispatch", raw).out == cli(*raw.split()).out


def test_a_name_prefix_finds_the_newest(tmp_path: Path, cli: RunCli) -> None:
    root = make_repo(tmp_path / "p")
    store = root / ".claude" / "state" / "session"
    write_doc(store, "auth-1", created="2026-11-29T09:00:00Z")
    write_doc(store, "auth-2", created="2026-11-29T10:00:00Z", extra="follows: auth-1\n")
    r = cli("history", "Auth", "--project", str(root), "--json")
    assert r.code == 0, r
    assert [h["slug"] for h in json.loads(r.out)["handovers"]] == ["auth-2", "auth-1"]


def test_same_second_dumps_make_one_chain(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 #12: plan, plan-2, plan-3 dumped in one second. The previous doc was the
    first of the directory listing, so both later ones followed `plan` (a listing in
    creation order, as many file systems give it, shows it every time)."""
    from session_skill.store import paths

    listed = paths.doc_entries
    monkeypatch.setattr(
        paths, "doc_entries", lambda d: sorted(listed(d), key=lambda e: (len(e.name), e.name))
    )
    for goal in ("First.", "Second.", "Third."):
        _dump(cli, monkeypatch, "plan", goal, "2026-11-29T09:00:00Z")
    monkeypatch.setenv("SESSION_SKILL_NOW", "2026-11-29T18:30:00Z")
    store = project / ".claude" / "state" / "session"
    assert "follows: plan-2\n" in (store / "plan-3.md").read_text()
    r = cli("history", "plan-3")
    assert r.code == 0, r
    assert r.out.splitlines()[:4] == [
        "## History of `plan-3` — main: 3 handovers, newest first",
        "1. `plan-3` · 9 h · not consumed — Third.",
        "2. `plan-2` · 9 h · not consumed — Second.",
        "3. `plan` · 9 h · not consumed — First.",
    ]


def test_a_goal_with_an_escape_sequence_is_shown_escaped(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """A doc's Goal reaches the terminal in `history` and `search`: its control
    characters are printed as escapes, never run."""
    goal = "Fix \x1b[2J\x1b[31mthe cache\u202e now"
    write_doc(store_dir, "odd", branch="main", body=f"## Goal\n{goal}\n\n## Next step\nx\n")
    for args in (("history", "odd"), ("search", "cache")):
        r = cli(*args)
        assert r.code == 0, r
        assert not any(c in r.out for c in ("\x1b", "\u202e")), repr(r.out)
        assert "\\x1b[2J\\x1b[31m" in r.out and "\\u202e" in r.out, r.out

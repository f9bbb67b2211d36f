"""list (SPEC §7.4, issue 11): what is listed as open, and what still lists when a file is bad."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import RunCli, write_doc

pytestmark = pytest.mark.usefixtures("pinned_now")


def _parked(store_dir: Path, text: str) -> Path:
    store_dir.mkdir(parents=True, exist_ok=True)
    p = store_dir / "PARKED.md"
    p.write_text(text)
    return p


def _numbered(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln[:1].isdigit()]


def test_only_open_items_are_listed(project: Path, store_dir: Path, cli: RunCli) -> None:
    _parked(
        store_dir,
        "# Parked items\n\n"
        "- [x] **shipped** — done last week\n"
        "- \n"
        "- [ ] \n"
        "* [X] also done\n"
        "- [ ] **open-box** — still open\n"
        "```markdown\n"
        "- **example** — a bullet in a code sample\n"
        "```\n"
        "- **real** — a real item\n",
    )
    r = cli("list")
    assert r.code == 0, r
    assert _numbered(r.out) == ["1. **open-box** — still open", "2. **real** — a real item"]
    assert "### Parked (2 open)" in r.out


def test_a_pipe_in_the_branch_stays_in_its_cell(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    write_doc(store_dir, "odd-branch", branch="feat/a|b`c")
    r = cli("list")
    (row,) = [ln for ln in r.out.splitlines() if ln.startswith("| `odd-branch`")]
    assert row == "| `odd-branch` | <1 min | feat/a\\|b\\`c | no |"
    # Four cells: the escaped pipe is not a separator.
    assert row.replace("\\|", "").count("|") == 5


def test_a_non_utf8_parked_md_still_lists_the_handovers(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    write_doc(store_dir, "plan-x")
    p = store_dir / "PARKED.md"
    p.write_bytes(b"# Parked items\n\n- caf\xe9 latin-1\n")
    r = cli("list")
    assert r.code == 1, r
    assert "| `plan-x` |" in r.out and "### Parked" not in r.out
    assert r.err == f"error: {p} is not UTF-8 text; not touching it\n"
    assert p.read_bytes() == b"# Parked items\n\n- caf\xe9 latin-1\n"
    data = json.loads(cli("list", "--json").out)
    assert [d["slug"] for d in data["handovers"]] == ["plan-x"]
    assert data["parked"] == [] and "is not UTF-8" in data["parked_error"]


def test_list_records_the_numbers_it_shows(project: Path, store_dir: Path, cli: RunCli) -> None:
    _parked(store_dir, "# Parked items\n\n- **a** — one\n- **b** — two\n- **c** — three\n")
    cli("drop", "b")
    record = json.loads((store_dir / "numbers.json").read_text())
    assert record["slugs"] == ["a", "b", "c"] and len(record["keys"]) == 3
    cli("list")  # afresh
    record = json.loads((store_dir / "numbers.json").read_text())
    assert record["slugs"] == ["a", "c"]
    assert json.loads(cli("list", "--json").out)["parked_error"] is None


def test_list_without_a_store_writes_nothing(project: Path, cli: RunCli) -> None:
    assert cli("list").code == 0
    assert not (project / ".claude").exists()


def test_json_branch_of_a_doc_without_one_is_null(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """Issue 21 #15: absent is `null` in every `--json`, as search and history give it."""
    write_doc(store_dir, "no-branch", branch=None)
    write_doc(store_dir, "on-main")
    rows = {d["slug"]: d for d in json.loads(cli("list", "--json").out)["handovers"]}
    assert rows["no-branch"]["branch"] is None
    assert rows["on-main"]["branch"] == "main"


# Hand-edited store files: what a terminal would act on instead of showing.
_CONTROLS = "\x1b[31mRED\x1b[0m \x1b]0;title\x07 back\rover \u202eevil \x9b2J"
_ESCAPED = "\\x1b[31mRED\\x1b[0m \\x1b]0;title\\x07 back\\rover \\u202eevil \\x9b2J"
_RAW = ("\x1b", "\x07", "\r", "\u202e", "\x9b")


def test_control_characters_from_the_store_are_shown_escaped(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """An escape sequence in a parked item or a doc's branch is printed as its escape,
    never sent to the terminal; the files are not touched, and `--json` holds the same
    strings (escaped as JSON escapes them)."""
    write_doc(store_dir, "odd", branch="feat/\x1b[2Jx")
    p = _parked(store_dir, f"# Parked items\n\n- **evil** — {_CONTROLS}. Raised: 2026-11-20.\n")
    before = p.read_bytes()
    r = cli("list")
    assert r.code == 0, r
    assert not any(c in r.out for c in _RAW), repr(r.out)
    assert f"1. **evil** — {_ESCAPED}. Raised: 2026-11-20." in r.out.splitlines()
    assert "| `odd` | <1 min | feat/\\\\x1b[2Jx | no |" in r.out.splitlines()
    assert p.read_bytes() == before
    j = cli("list", "--json")
    assert not any(c in j.out for c in _RAW), repr(j.out)
    data = json.loads(j.out)
    assert data["parked"][0]["line"] == f"- **evil** — {_CONTROLS}. Raised: 2026-11-20."
    assert data["handovers"][0]["branch"] == "feat/\x1b[2Jx"


def _ago(days: float) -> float:
    from datetime import datetime, timedelta, timezone

    return (datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc) - timedelta(days=days)).timestamp()


_BROKEN = {
    # The tester's file: no `created` the clock can read, so its mtime dates it.
    "broken-yaml": "---\ncreated: [unclosed\n---\n## Goal\nbroken yaml\n",
    # A `created` 60 days old and a line no YAML reader takes.
    "broken-note": "---\nslug: broken-note\ncreated: 2026-09-30T10:00:00Z\nnote: 'unclosed\n"
    "---\n## Goal\nbroken note\n",
}


def test_a_doc_whose_frontmatter_does_not_parse_is_never_swept(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """SPEC §3: a file whose frontmatter does not parse is never deleted. A `created:
    [unclosed` file was swept 30 days after its mtime. The readers still take the keys
    they can read past the broken line (tests/reliability: "Still readable"), all alike."""
    store_dir.mkdir(parents=True)
    paths = []
    for slug, text in _BROKEN.items():
        p = store_dir / f"{slug}.md"
        p.write_text(text)
        os.utime(p, (_ago(40), _ago(40)))
        paths.append(p)
    old = write_doc(store_dir, "old-real", created="2026-09-30T10:00:00Z")
    r = cli("list")
    assert r.code == 0, r
    assert r.out.startswith("Swept 1 expired handover: old-real\n"), r
    assert not old.exists()
    assert "| `⚠ stale broken-yaml` | 40 d |" in r.out and "| `⚠ stale broken-note` |" in r.out
    assert json.loads(cli("list", "--json").out)["swept"] == []
    assert all(p.read_text() == _BROKEN[p.name[:-3]] for p in paths)
    # recall, search and history read it as list does.
    r = cli("recall", "broken-yaml", "--peek")
    assert r.code == 0 and r.out.endswith("## Goal\nbroken yaml\n"), r
    assert "`broken-note`" in cli("search", "broken", "note").out
    assert "`broken-note`" in cli("history", "broken-note").out
    assert all(p.read_text() == _BROKEN[p.name[:-3]] for p in paths)


@pytest.mark.parametrize(
    "extra",
    [
        "tags: [a, 'b c']\n",  # flow collections, closed
        "files:\n  - a.py\n  - b.py\n",  # a nested list
        "note: >\n  folded\n  text\n",
        'title: "feat: x" # a comment\n',
        "owner: café\n",
        "empty:\n",
    ],
)
def test_a_hand_edited_frontmatter_that_parses_expires_as_any_doc(
    project: Path, store_dir: Path, cli: RunCli, extra: str
) -> None:
    p = write_doc(store_dir, "hand-made", created="2026-09-30T10:00:00Z", extra=extra)
    r = cli("list")
    assert r.out.startswith("Swept 1 expired handover: hand-made"), r
    assert not p.exists()

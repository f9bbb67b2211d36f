"""recall (SPEC §7.3, issue 11): a single candidate is not "several"; JSON is typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunCli, write_doc

pytestmark = pytest.mark.usefixtures("pinned_now")


def test_one_loose_candidate_is_asked_about_as_one(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    write_doc(store_dir, "billing-export", body="## Goal\nFix the CSV export.\n\n## Next step\nx\n")
    doc = (store_dir / "billing-export.md").read_bytes()
    r = cli("recall", "bill")
    assert r.code == 4, r
    assert r.out == (
        "One handover is close to 'bill'; is it this one?\n"
        "1. `billing-export` — Fix the CSV export.\n"
        "→ /session recall billing-export\n"
    )
    assert r.err == "error: 'bill' is only a loose match for one handover\n"
    assert (store_dir / "billing-export.md").read_bytes() == doc  # not consumed


def test_recall_json_is_typed_like_list_json(project: Path, store_dir: Path, cli: RunCli) -> None:
    write_doc(
        store_dir,
        "plan-x",
        extra="dirty: 3\ntokens: 157\nover_cap: false\ncommit: 0123456\ncustom: 12\n",
    )
    data = json.loads(cli("recall", "--json", "--peek", "plan-x").out)
    meta = data["meta"]
    assert meta["consumed"] is False and meta["over_cap"] is False
    assert meta["dirty"] == 3 and meta["tokens"] == 157
    assert meta["commit"] == "0123456"  # a string, even when it is all digits
    assert meta["custom"] == "12"  # unknown keys stay as written
    listed = json.loads(cli("list", "--json").out)["handovers"][0]
    assert type(listed["consumed"]) is type(meta["consumed"])
    consumed = json.loads(cli("recall", "--json", "plan-x").out)
    assert consumed["consumed_now"] is True and consumed["drift"] in (True, False)


def _retry_store(store_dir: Path) -> None:
    write_doc(
        store_dir,
        "uploads-design",
        created="2026-11-25T10:00:00Z",
        body=(
            "## Goal\nDesign the uploader.\n\n## Decisions\n"
            "- the retry backoff uses jitter — why: the herd of retries at once\n\n"
            "## Next step\nWrite it.\n"
        ),
    )
    for n in range(1, 5):
        write_doc(
            store_dir,
            f"uploads-{n}",
            created=f"2026-11-2{5 + n % 4}T1{n}:00:00Z",
            body=f"## Goal\nRetry failed uploads {n}\n\n## Next step\nCarry on.\n",
        )


def test_recall_words_weighs_what_the_bodies_say(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """Issue 21 #10: the Goals' "Retry" hid the one doc that says "retry backoff"; search
    ranked it first, recall offered only the four Goals (exit 4)."""
    _retry_store(store_dir)
    assert json.loads(cli("search", "retry", "backoff", "--json").out)["hits"][0]["slug"] == (
        "uploads-design"
    )
    r = cli("recall", "retry", "backoff", "--peek")
    assert r.code == 0, r
    assert r.out.startswith("Handover `uploads-design` · ")
    assert "the retry backoff uses jitter" in r.out


def test_words_no_handover_holds_ask_rather_than_recall_the_one_sharing_a_word(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """ "add rate limiting" recalled — and consumed — the handover saying "Add caching to the
    API layer": the body score counted only the words some handover holds. SPEC §7.3 with
    §7.6's rules: a loose match is asked about (exit 4), nothing consumed."""
    for slug, goal in (("cache", "Add caching to the API layer."), ("ci", "Fix CI.")):
        body = f"## Goal\n{goal}\n\n## Next step\nGo on.\n"
        write_doc(store_dir, slug, created="2026-11-29T10:00:00Z", body=body)
    (store_dir / "LATEST").write_text("cache\n")
    for words in (("add", "rate", "limiting"), ("fix", "the", "login", "bug")):
        r = cli("recall", *words)
        assert r.code == 4, r
    assert (store_dir / "LATEST").read_text() == "cache\n"
    assert "consumed: false" in (store_dir / "cache.md").read_text()
    r = cli("recall", "caching", "layer", "--peek")
    assert r.code == 0 and r.out.startswith("Handover `cache` · "), r


def test_a_path_names_its_file_its_one_letter_parts_too(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """`recall src/c.py` recalled — and consumed — the handover about `src/b.py`: the `c`
    was dropped as a one-letter word, or held by any word in `c` ("claude"). A path's
    parts all count; nothing holds `c`, so it is asked about; `search c.py` says so."""
    goals = (("b-work", "Refactor src/b.py loader.\n\n`.claude/settings.json` too."),
             ("notes", "Write the release notes."))  # fmt: skip
    for slug, goal in goals:
        write_doc(store_dir, slug, body=f"## Goal\n{goal}\n\n## Next step\nGo on.\n")
    r = cli("recall", "src/c.py")
    assert r.code == 4, r
    assert "consumed: false" in (store_dir / "b-work.md").read_text()
    r = cli("recall", "src/b.py", "--peek")
    assert r.code == 0 and r.out.startswith("Handover `b-work` · "), r
    r = cli("search", "c.py", "--json")
    assert json.loads(r.out)["unmatched"] == ["c"]


def test_a_choice_is_json_under_json(project: Path, store_dir: Path, cli: RunCli) -> None:
    """Issue 21 #16: with --json the exit-4 choice printed markdown."""
    body = "## Goal\nCache, part {n}.\n\n## Decisions\n- redis fallback\n\n## Next step\nx\n"
    write_doc(store_dir, "first", created="2026-11-29T10:00:00Z", body=body.format(n=1))
    write_doc(store_dir, "second", created="2026-11-29T12:00:00Z", body=body.format(n=2))
    r = cli("recall", "--json", "redis", "fallback")
    assert r.code == 4, r
    assert json.loads(r.out) == {
        "action": "choose",
        "question": "These handovers mention 'redis fallback':",
        "candidates": [
            {
                "n": 1,
                "slug": "second",
                "summary": "- redis fallback",
                "created": "2026-11-29T12:00:00Z",
                "branch": "main",
                "consumed": False,
            },
            {
                "n": 2,
                "slug": "first",
                "summary": "- redis fallback",
                "created": "2026-11-29T10:00:00Z",
                "branch": "main",
                "consumed": False,
            },
        ],
    }
    assert r.err == "error: 'redis fallback' could mean 2 handovers\n"
    # By slug and Goal, too; and what nothing matches lists the handovers as JSON.
    write_doc(store_dir, "billing-export", body="## Goal\nFix the CSV export.\n\n## Next step\nx\n")
    r = cli("recall", "--json", "bill")
    assert r.code == 4, r
    data = json.loads(r.out)
    assert data["question"] == "One handover is close to 'bill'; is it this one?"
    assert [(c["n"], c["slug"], c["summary"]) for c in data["candidates"]] == [
        (1, "billing-export", "Fix the CSV export.")
    ]
    r = cli("recall", "--json", "kubernetes", "helm")
    assert r.code == 1 and r.err == "error: no handover matches 'kubernetes helm'\n", r
    assert {h["slug"] for h in json.loads(r.out)["handovers"]} == {
        "first",
        "second",
        "billing-export",
    }


@pytest.fixture
def read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's file system refuses writes, as a read-only mount does: taking the
    writer lock opens `.lock` for writing (root ignores a chmod, so this stands in)."""
    import errno
    import os
    from collections.abc import Iterator
    from contextlib import contextmanager

    from session_skill.store import consume, store

    @contextmanager
    def refused(path: object, timeout: float | None = None) -> Iterator[None]:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        yield

    monkeypatch.setattr(store, "file_lock", refused)
    monkeypatch.setattr(consume, "file_lock", refused)


def test_a_read_only_store_still_answers_what_needs_no_write(
    project: Path, store_dir: Path, cli: RunCli, read_only: None
) -> None:
    """SPEC §7.3: `recall --peek`, and `recall` with nothing pending, failed with `error:
    cannot use …/.lock: Read-only file system`: they took the writer lock only to read."""
    r = cli("recall")  # no store at all
    assert (r.code, r.out) == (0, "No pending handover. → /session list\n"), r
    doc = write_doc(store_dir, "plan-x")
    before = doc.read_bytes()
    r = cli("recall")  # no LATEST
    assert (r.code, r.out, r.err) == (0, "No pending handover. → /session list\n", ""), r
    assert json.loads(cli("recall", "--json").out) == {"pending": False}
    (store_dir / "LATEST").write_text("\n")
    assert cli("recall").code == 0
    (store_dir / "LATEST").write_text("gone-doc\n")  # names a doc no longer there
    r = cli("recall", "--peek")
    assert (r.code, r.out) == (0, "No pending handover. → /session list\n"), r
    (store_dir / "LATEST").write_text("plan-x\n")
    r = cli("recall", "--peek")
    assert r.code == 0 and r.out.startswith("Handover `plan-x` · written"), r
    assert "## Goal\nShip it." in r.out
    # Consuming it is a write: a clear one-line error, and the doc as it was.
    r = cli("recall")
    assert r.code == 1 and r.err.endswith(".lock: Read-only file system\n"), r
    assert r.err.count("\n") == 1
    assert doc.read_bytes() == before
    assert (store_dir / "LATEST").read_text() == "plan-x\n"

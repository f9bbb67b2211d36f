"""recall, list, park and drop (SPEC §7.3–§7.6), through the CLI as a user runs them."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from session_skill.store import store as store_module
from session_skill.store.store import Store
from tests.conftest import NOW, RunCli, git, write_doc

pytestmark = pytest.mark.usefixtures("pinned_now")
NOW_DT = datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)
NO_PENDING = "No pending handover. → /session list\n"


def _ago(**kw: float) -> str:
    return (NOW_DT - timedelta(**kw)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _set_mtime(path: Path, days: float) -> None:
    t = (NOW_DT - timedelta(days=days)).timestamp()
    os.utime(path, (t, t))


def _parked(store_dir: Path, *lines: str) -> Path:
    store_dir.mkdir(parents=True, exist_ok=True)
    p = store_dir / "PARKED.md"
    p.write_text("# Parked items\n\n" + "".join(line + "\n" for line in lines))
    return p


# -- recall -----------------------------------------------------------------------
def test_recall_with_nothing_stored(project: Path, cli: RunCli) -> None:
    r = cli("recall")
    assert (r.code, r.out, r.err) == (0, NO_PENDING, "")


def test_recall_latest_prints_and_consumes(project: Path, store_dir: Path, cli: RunCli) -> None:
    body = "## Goal\nShip auth.\n\n## Next step\nRun tests.\n"
    doc = write_doc(store_dir, "plan-x", created=_ago(minutes=12), body=body)
    (store_dir / "LATEST").write_text("plan-x\n")
    r = cli("recall")
    assert r.code == 0, r
    assert r.out == (
        "Handover `plan-x` · written 12 min ago · main\n\n"
        "## Goal\nShip auth.\n\n## Next step\nRun tests.\n"
    )
    text = doc.read_text()
    assert "consumed: true\nconsumed_at: 2026-11-29T18:30:00Z\nconsumed_by: recall\n" in text
    assert text.endswith(body)
    assert not (store_dir / "LATEST").exists()
    # Consumed docs can still be recalled by name, with no age limit.
    r = cli("recall", "plan-x")
    assert r.code == 0 and "Ship auth." in r.out


def test_recall_peek_does_not_consume(project: Path, store_dir: Path, cli: RunCli) -> None:
    doc = write_doc(store_dir, "plan-x")
    before = doc.read_bytes()
    (store_dir / "LATEST").write_text("plan-x\n")
    r = cli("recall", "--peek")
    assert r.code == 0 and "Ship it." in r.out
    assert doc.read_bytes() == before
    assert (store_dir / "LATEST").read_text() == "plan-x\n"


def test_latest_naming_a_missing_doc_is_blanked(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    store_dir.mkdir(parents=True)
    (store_dir / "LATEST").write_text("gone-2026\n")
    r = cli("recall")
    assert (r.code, r.out) == (0, NO_PENDING)
    assert Store(project).read_latest() is None


def test_recall_json(project: Path, store_dir: Path, cli: RunCli) -> None:
    write_doc(store_dir, "plan-x")
    (store_dir / "LATEST").write_text("plan-x\n")
    data = json.loads(cli("recall", "--json", "--peek").out)
    assert data["slug"] == "plan-x" and data["pending"] is True and data["consumed_now"] is False
    assert data["body"].startswith("## Goal")
    assert json.loads(cli("recall", "--json").out)["consumed_now"] is True
    assert json.loads(cli("recall", "--json").out) == {"pending": False}


@pytest.fixture
def three_docs(project: Path, store_dir: Path) -> Path:
    write_doc(
        store_dir,
        "auth-2026-11-29T10-00-00Z",
        created=_ago(hours=8),
        body="## Goal\nAdd token expiry to the auth service.\n\n## Next step\nx\n",
    )
    write_doc(
        store_dir,
        "auth-2026-11-29T12-00-00Z",
        created=_ago(hours=6),
        body="## Goal\nRotate refresh tokens on use.\n\n## Next step\nx\n",
    )
    write_doc(
        store_dir,
        "billing-export",
        created=_ago(hours=1),
        body="## Goal\nFix the CSV export of invoices.\n\n## Next step\nx\n",
    )
    (store_dir / "LATEST").write_text("billing-export\n")
    return store_dir


def test_recall_by_exact_slug(three_docs: Path, cli: RunCli) -> None:
    r = cli("recall", "auth-2026-11-29T10-00-00Z")
    assert r.code == 0 and "token expiry" in r.out


def test_recall_by_prefix_takes_the_newest(three_docs: Path, cli: RunCli) -> None:
    r = cli("recall", "Auth")
    assert r.code == 0, r
    assert r.out.startswith("Handover `auth-2026-11-29T12-00-00Z`")


def test_recall_by_fuzzy_goal_words(three_docs: Path, cli: RunCli) -> None:
    r = cli("recall", "csv export invoices")
    assert r.code == 0, r
    assert r.out.startswith("Handover `billing-export`")


def test_recall_of_another_doc_never_blanks_latest(three_docs: Path, cli: RunCli) -> None:
    assert cli("recall", "auth-2026-11-29T10-00-00Z").code == 0
    assert (three_docs / "LATEST").read_text() == "billing-export\n"
    assert cli("recall").out.startswith("Handover `billing-export`")
    assert not (three_docs / "LATEST").exists()


def test_recall_ambiguous_asks(project: Path, store_dir: Path, cli: RunCli) -> None:
    for slug in ("retry-backoff-a", "retry-backoff-b"):
        write_doc(store_dir, slug, body="## Goal\nretry backoff work.\n\n## Next step\nx\n")
    r = cli("recall", "retry backof")
    assert r.code == 4, r
    assert r.out.startswith("Several handovers match 'retry backof':\n1. `retry-backoff-")
    assert "2. `retry-backoff-" in r.out
    assert r.err == "error: 'retry backof' matches several handovers\n"


def test_recall_nothing_close(three_docs: Path, cli: RunCli) -> None:
    r = cli("recall", "kubernetes helm chart")
    assert r.code == 1, r
    assert r.err == "error: no handover matches 'kubernetes helm chart'\n"
    assert "| `billing-export` |" in r.out and "### Handovers" in r.out


def test_recall_never_offers_a_stray_file(project: Path, store_dir: Path, cli: RunCli) -> None:
    store_dir.mkdir(parents=True)
    (store_dir / "README.md").write_text("# what this folder is\n")
    r = cli("recall", "README")
    assert r.code == 1, r


def test_recall_drift_line_when_the_commit_moved(project: Path, cli: RunCli) -> None:
    assert cli("dump", input="## Goal\ng\n\n## Next step\nn\n").code == 0
    was = git(project, "rev-parse", "--short", "HEAD").strip()
    r = cli("recall", "--peek")
    assert "Repository was" not in r.out
    (project / "x.txt").write_text("x\n")
    git(project, "add", "x.txt")
    git(project, "commit", "-q", "-m", "more")
    git(project, "checkout", "-q", "-b", "feat/other")
    now = git(project, "rev-parse", "--short", "HEAD").strip()
    r = cli("recall")
    assert r.code == 0, r
    assert r.out.splitlines()[1] == f"Repository was: main · {was}; now: feat/other · {now}"


# -- list -------------------------------------------------------------------------
def test_list_empty(project: Path, cli: RunCli) -> None:
    r = cli("list")
    assert (r.code, r.out, r.err) == (0, "No stored handovers, no parked items.\n", "")
    assert not (project / ".claude").exists()  # listing creates nothing


def test_list_layout(project: Path, store_dir: Path, cli: RunCli) -> None:
    write_doc(store_dir, "plan-x", created=_ago(minutes=12))
    write_doc(store_dir, "refactor-auth", created=_ago(days=16), consumed=True, branch="feat/auth")
    _parked(
        store_dir,
        "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.",
        "- **split-ratio** — 80/20 vs 70/30 never settled. Raised: 2026-11-02.",
    )
    r = cli("list")
    assert r.code == 0, r
    assert r.out == (
        "## Session store — 2026-11-29\n"
        "\n"
        "### Handovers\n"
        "| Slug | Age | Branch | Consumed |\n"
        "| --- | --- | --- | --- |\n"
        "| `plan-x` | 12 min | main | no |\n"
        "| `⚠ stale refactor-auth` | 16 d | feat/auth | yes |\n"
        "\n"
        "### Parked (2 open)\n"
        "1. **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.\n"
        "2. ⚠ stale **split-ratio** — 80/20 vs 70/30 never settled. Raised: 2026-11-02.\n"
        "\n"
        "→ /session recall <slug> to print a handover back into context\n"
        "→ /session drop <item> to close a parked item\n"
    )


@pytest.mark.parametrize(("days", "stale"), [(13.9, False), (14, True), (29.9, True)])
def test_stale_at_fourteen_days(
    project: Path, store_dir: Path, cli: RunCli, days: float, stale: bool
) -> None:
    write_doc(store_dir, "doc", created=_ago(days=days))
    raised = (NOW_DT - timedelta(days=int(days))).date().isoformat()
    _parked(store_dir, f"- **item** — something. Raised: {raised}.")
    out = cli("list").out
    assert ("`⚠ stale doc`" in out) is stale
    assert ("1. ⚠ stale **item**" in out) is stale


def test_item_without_a_date_is_never_stale(project: Path, store_dir: Path, cli: RunCli) -> None:
    p = _parked(store_dir, "- an undated idea")
    _set_mtime(p, 400)
    assert "1. an undated idea" in cli("list").out


def test_list_sweeps_expired_docs_by_created(project: Path, store_dir: Path, cli: RunCli) -> None:
    old_a = write_doc(store_dir, "old-a", created=_ago(days=30))
    old_b = write_doc(store_dir, "old-b", created=_ago(days=45))
    young = write_doc(store_dir, "young", created=_ago(days=29, hours=23))
    _set_mtime(young, 100)  # created wins over mtime
    _set_mtime(old_a, 0)
    (store_dir / "LATEST").write_text("old-b\n")
    r = cli("list")
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[0] in (
        "Swept 2 expired handovers: old-a, old-b",
        "Swept 2 expired handovers: old-b, old-a",
    )
    assert lines[1] == ""
    assert not old_a.exists() and not old_b.exists() and young.exists()
    assert "`⚠ stale young`" in r.out
    assert not (store_dir / "LATEST").exists()
    assert not cli("list").out.startswith("Swept")


def test_list_sweeps_by_mtime_when_created_is_missing_or_bad(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    a = write_doc(store_dir, "no-created", created=None)
    b = write_doc(store_dir, "bad-created", created="last tuesday")
    c = write_doc(store_dir, "recent-mtime", created=None)
    _set_mtime(a, 31)
    _set_mtime(b, 31)
    _set_mtime(c, 2)
    r = cli("list")
    assert r.out.startswith("Swept 2 expired handovers: ")
    assert not a.exists() and not b.exists() and c.exists()


def test_list_never_touches_non_docs(project: Path, store_dir: Path, cli: RunCli) -> None:
    p = _parked(store_dir, "- **x** — y. Raised: 2026-01-01.")
    stray = store_dir / "README.md"
    stray.write_text("# Notes\nnot a handover\n")
    notes = store_dir / "notes.md"
    notes.write_text("---\ntitle: not a doc\n---\n")
    for f in (p, stray, notes):
        _set_mtime(f, 90)
    (store_dir / "LATEST").write_text("README\n")
    r = cli("list")
    assert r.code == 0, r
    assert "Swept" not in r.out and "README" not in r.out and "notes" not in r.out
    assert "### Handovers" not in r.out
    assert p.exists() and stray.exists() and notes.exists()
    assert "1. ⚠ stale **x**" in r.out


def test_list_json(project: Path, store_dir: Path, cli: RunCli) -> None:
    write_doc(store_dir, "plan-x", created=_ago(minutes=12))
    _parked(store_dir, "- **retry** — r. Raised: 2026-11-20.")
    data = json.loads(cli("list", "--json").out)
    assert data["swept"] == []
    assert data["handovers"] == [
        {
            "slug": "plan-x",
            "created": _ago(minutes=12),
            "age": "12 min",
            "branch": "main",
            "consumed": False,
            "stale": False,
        }
    ]
    assert data["parked"][0]["n"] == 1 and data["parked"][0]["slug"] == "retry"
    assert data["parked"][0]["raised"] == "2026-11-20"


# -- park -------------------------------------------------------------------------
def test_park_derives_a_slug_and_appends(project: Path, store_dir: Path, cli: RunCli) -> None:
    r = cli("park", "Add", "jitter", "to", "the", "retry", "backoff. Why: thundering herd")
    assert (r.code, r.out, r.err) == (0, "Parked: add-jitter-to-the-retry-backoff (1 open)\n", "")
    assert (store_dir / "PARKED.md").read_text() == (
        "# Parked items\n\n"
        "- **add-jitter-to-the-retry-backoff** — Add jitter to the retry backoff. "
        "Why: thundering herd. Raised: 2026-11-29.\n"
    )


def test_park_from_stdin_keeps_the_payload_verbatim(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    idea = 'try `rg -- "$HOME"` --no-ignore\n  across   lines'
    r = cli("park", input=idea)
    assert r.code == 0, r
    text = (store_dir / "PARKED.md").read_text()
    assert '— try `rg -- "$HOME"` --no-ignore across lines. Raised: 2026-11-29.' in text


def test_park_explicit_slug_updates_in_place_keeping_raised(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    _parked(
        store_dir,
        "- **first** — something else. Raised: 2026-11-01.",
        "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.",
        "trailing note",
    )
    r = cli("park", "**retry-backoff** — settled on exponential. Next: add jitter")
    assert (r.code, r.out) == (0, "Updated: retry-backoff (2 open)\n")
    assert (store_dir / "PARKED.md").read_text() == (
        "# Parked items\n\n"
        "- **first** — something else. Raised: 2026-11-01.\n"
        "- **retry-backoff** — settled on exponential. Next: add jitter. Raised: 2026-11-20.\n"
        "trailing note\n"
    )


def test_park_explicit_new_slug_is_appended(project: Path, store_dir: Path, cli: RunCli) -> None:
    r = cli("park", "**cache-warmup** — warm caches on deploy")
    assert r.out == "Parked: cache-warmup (1 open)\n"


def test_park_near_duplicate_is_not_added(project: Path, store_dir: Path, cli: RunCli) -> None:
    assert cli("park", "revisit exponential vs linear backoff").code == 0
    before = (store_dir / "PARKED.md").read_bytes()
    r = cli("park", "Revisit exponential vs. linear backoff!")
    assert (r.code, r.out) == (
        0,
        "Already parked as revisit-exponential-vs-linear-backoff (1 open)\n",
    )
    assert (store_dir / "PARKED.md").read_bytes() == before


def test_park_same_first_words_get_distinct_slugs(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    assert cli("park", "cache warmup on deploy for the api").out.startswith("Parked: cache-warmup")
    r = cli("park", "cache warmup on deploy for the web frontend too")
    assert r.code == 0
    slugs = [it.slug for it in Store(project).read_parked().items]
    assert len(set(slugs)) == 2


@pytest.mark.parametrize(
    ("argv", "stdin", "err"),
    [
        (("park",), None, "error: nothing to park: give the idea as text (or on stdin)\n"),
        (("park",), "  \n\t\n", "error: nothing to park: give the idea as text (or on stdin)\n"),
        (("park", "x" * 1001), None, "error: the idea is 1001 characters; 1000 is the most\n"),
    ],
)
def test_park_refusals(
    project: Path, cli: RunCli, argv: tuple[str, ...], stdin: str | None, err: str
) -> None:
    r = cli(*argv, input=stdin)
    assert (r.code, r.out, r.err) == (1, "", err)


def test_park_exactly_1000_characters_is_fine(project: Path, cli: RunCli) -> None:
    assert cli("park", "y" * 1000).code == 0


def test_park_json(project: Path, cli: RunCli) -> None:
    data = json.loads(cli("park", "--json", "json idea here").out)
    assert data == {"action": "parked", "slug": "json-idea-here", "open": 1, "kept": []}


# -- drop -------------------------------------------------------------------------
ITEMS = (
    "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20. Why: bench first.",
    "- **retry-budget** — cap total retries per request. Raised: 2026-11-21.",
    "- **split-ratio** — 80/20 vs 70/30 traffic split never settled. Raised: 2026-11-02.",
    "- **dark-mode** — users asked for a dark theme. Raised: 2026-11-25.",
    "- **flaky-login-test** — the login test times out on CI. Raised: 2026-11-26.",
)


@pytest.fixture
def parked(project: Path, store_dir: Path) -> Path:
    return _parked(store_dir, *ITEMS)


def _dropped(store_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (store_dir / "dropped.jsonl").read_text().splitlines()]


def test_drop_by_number(parked: Path, cli: RunCli, store_dir: Path) -> None:
    before = parked.read_text()
    r = cli("drop", "#3")
    assert (r.code, r.err) == (0, "")
    assert r.out.splitlines()[:3] == ["Dropped: split-ratio (4 open)", "", "### Parked (4 open)"]
    assert parked.read_text() == before.replace(ITEMS[2] + "\n", "")
    (rec,) = _dropped(store_dir)
    assert rec == {
        "ts": NOW,
        "item": "split-ratio",
        "action": "dropped",
        "summary": "80/20 vs 70/30 traffic split never settled",
        "raised": "2026-11-02",
        "query": "#3",
        "score": 100.0,
        "line": ITEMS[2],
    }


def test_drop_by_exact_slug_any_case(parked: Path, cli: RunCli) -> None:
    r = cli("drop", "Dark-Mode")
    assert r.out.startswith("Dropped: dark-mode (4 open)\n")


def test_drop_by_fuzzy_words_logs_query_and_score(
    parked: Path, cli: RunCli, store_dir: Path
) -> None:
    r = cli("drop", "exponential", "backoff")
    assert (r.code, r.out.splitlines()[0]) == (0, "Dropped: retry-backoff (4 open)")
    (rec,) = _dropped(store_dir)
    assert rec["query"] == "exponential backoff"
    assert isinstance(rec["score"], float) and 0 < rec["score"] <= 100
    assert rec["line"] == ITEMS[0]
    assert rec["summary"] == "revisit exponential vs linear. Why: bench first"


def test_drop_ambiguous_asks_and_drops_nothing(parked: Path, cli: RunCli, store_dir: Path) -> None:
    before = parked.read_bytes()
    r = cli("drop", "retry")
    assert r.code == 4, r
    lines = r.out.splitlines()
    assert lines[0] == "Which item did you mean by 'retry'?"
    options = lines[1:-1]
    assert 2 <= len(options) <= 4
    # Numbered with the numbers `#N` takes: the items' own, as `list` gives them.
    assert {options[0][:16], options[1][:16]} == {"1. **retry-backo", "2. **retry-budge"}
    assert lines[-1] == "→ /session drop #N with a number above, or /session drop <slug>"
    assert r.err == "error: 'retry' matches more than one parked item\n"
    assert parked.read_bytes() == before
    assert not (store_dir / "dropped.jsonl").exists()


def test_drop_at_most_four_candidates(project: Path, store_dir: Path, cli: RunCli) -> None:
    _parked(store_dir, *(f"- **cache-{i}** — cache tuning idea number {i}." for i in range(8)))
    r = cli("drop", "cache tuning idea")
    assert r.code == 4, r
    assert len(r.out.splitlines()) <= 1 + 4 + 1


def test_drop_nothing_close_lists_and_fails(parked: Path, cli: RunCli) -> None:
    before = parked.read_bytes()
    r = cli("drop", "kubernetes helm chart")
    assert r.code == 1, r
    assert r.err == "error: no parked item matches 'kubernetes helm chart'\n"
    assert r.out.startswith("### Parked (5 open)\n1. **retry-backoff**")
    assert parked.read_bytes() == before
    assert "Not parked? `/session sweep` lists it" in r.out


def test_the_not_parked_hint_names_the_clients_skill(
    parked: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every other hint says `$session …` in Codex; this one said `/session sweep`."""
    monkeypatch.setenv("SESSION_SKILL_AGENT", "codex")
    assert "Not parked? `$session sweep` lists it" in cli("drop", "kubernetes helm chart").out


@pytest.mark.parametrize("query", ["#0", "#6", "#99"])
def test_drop_number_out_of_range(parked: Path, cli: RunCli, query: str) -> None:
    r = cli("drop", query)
    assert r.code == 1
    assert r.err == f"error: there is no item #{query[1:]} (5 open)\n"


def test_drop_from_stdin(parked: Path, cli: RunCli) -> None:
    r = cli("drop", input="flaky-login-test\n")
    assert r.out.startswith("Dropped: flaky-login-test (4 open)\n")


@pytest.mark.parametrize(("argv", "stdin"), [(("drop",), None), (("drop",), "   \n")])
def test_drop_nothing_given(
    parked: Path, cli: RunCli, argv: tuple[str, ...], stdin: str | None
) -> None:
    r = cli(*argv, input=stdin)
    assert (r.code, r.err) == (
        1,
        "error: nothing to drop: name the item (its slug, words from it, or #N)\n",
    )


def test_drop_with_no_store(project: Path, cli: RunCli) -> None:
    r = cli("drop", "anything")
    assert (r.code, r.err) == (1, "error: no parked items\n")


def test_drop_with_a_malformed_log_still_appends(
    parked: Path, cli: RunCli, store_dir: Path
) -> None:
    (store_dir / "dropped.jsonl").write_text('{"ts": "x"}\nnot json at all\n{"half": ')
    assert cli("drop", "#1").code == 0
    lines = (store_dir / "dropped.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["item"] == "retry-backoff"
    assert lines[:3] == ['{"ts": "x"}', "not json at all", '{"half": ']


def test_drop_json(parked: Path, cli: RunCli) -> None:
    data = json.loads(cli("drop", "--json", "#2").out)
    assert data["action"] == "dropped" and data["slug"] == "retry-budget" and data["open"] == 4
    assert data["record"]["line"] == ITEMS[1]


def test_drop_numbers_match_list_numbers(parked: Path, cli: RunCli) -> None:
    listing = cli("list").out
    line4 = next(ln for ln in listing.splitlines() if ln.startswith("4. "))
    assert "dark-mode" in line4
    assert cli("drop", "#4").out.startswith("Dropped: dark-mode (4 open)\n")


def test_latest_naming_a_non_doc_is_treated_as_absent(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    store_dir.mkdir(parents=True)
    stray = store_dir / "README.md"
    stray.write_text("# notes\n")
    (store_dir / "LATEST").write_text("README\n")
    r = cli("recall")
    assert (r.code, r.out) == (0, NO_PENDING)
    assert stray.read_text() == "# notes\n"
    assert not (store_dir / "LATEST").exists()


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "<1 min"),
        (59, "<1 min"),
        (60, "1 min"),
        (3599, "59 min"),
        (3600, "1 h"),
        (86399, "23 h"),
        (86400, "1 d"),
        (16 * 86400, "16 d"),
        (-50, "<1 min"),
    ],
)
def test_ages(seconds: float, text: str) -> None:
    from session_skill.times import age

    assert age(seconds) == text


def test_now_is_pinned_by_the_environment() -> None:
    from session_skill.times import utcnow

    assert utcnow() == NOW_DT


def test_list_rechecks_expiry_under_the_lock(
    project: Path, store_dir: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A doc replaced by another process while we waited for the lock is not deleted."""
    from collections.abc import Iterator
    from contextlib import contextmanager

    doc = write_doc(store_dir, "plan", created=_ago(days=40))
    real_lock = store_module.file_lock

    @contextmanager
    def racing_lock(path: Path, timeout: float | None = None) -> Iterator[None]:
        with real_lock(path, timeout):
            write_doc(store_dir, "plan", created=_ago(minutes=1))
            yield

    monkeypatch.setattr(store_module, "file_lock", racing_lock)
    r = cli("list")
    assert r.code == 0, r
    assert doc.exists()
    assert "Swept" not in r.out

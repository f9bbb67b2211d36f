"""search and recall WORDS… (issue 15): every handover, consumed ones too, by what it says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RunCli, write_doc

pytestmark = pytest.mark.usefixtures("pinned_now")

CACHE = """## Goal
Make the cache survive restarts.

## Decisions
- keep the redis fallback behind the circuit breaker — why: the primary times out under load

## Next step
Run the tests.
"""
EXPORT = """## Goal
Ship the CSV export of invoices.

## Decisions
- stream the rows — why: a big export ran out of memory

## Didn't work
- pandas to_csv — why: loads the whole table first

## Files touched
| File | Change | State | Ref |
| --- | --- | --- | --- |
| `src/export/stream_writer.py` | new writer | done | new |

## Outstanding
- **retry-budget** — cap the retries of the uploader. Why: flaky S3. Next: measure.

## Next step
Run the export against the staging data.
"""
DOCS = """## Goal
Tidy the docs.

## Next step
Read them again.
"""


@pytest.fixture
def store(store_dir: Path) -> Path:
    write_doc(store_dir, "cache-restarts", created="2026-11-29T10:00:00Z", body=CACHE)
    write_doc(store_dir, "csv-export", created="2026-11-28T10:00:00Z", body=EXPORT, consumed=True)
    write_doc(store_dir, "tidy-docs", created="2026-11-29T17:00:00Z", body=DOCS, branch="docs")
    return store_dir


# -- search ------------------------------------------------------------------------------
def test_finds_a_handover_by_words_only_in_its_decisions(store: Path, cli: RunCli) -> None:
    r = cli("search", "redis", "fallback")
    assert r.code == 0, r
    assert r.out.splitlines() == [
        "## Search: redis fallback — 3 handovers searched",
        "1. `cache-restarts` · 8 h · main · not consumed",
        "   Decisions: keep the **redis** **fallback** behind the circuit breaker — why: the "
        "primary times out under load",
        "",
        "→ /session recall <slug> to print one back into context",
    ]
    assert r.err == ""


@pytest.mark.parametrize(
    ("words", "section", "shown"),
    [
        (["pandas"], "Didn't work", "**pandas** to_csv — why: loads the whole table first"),
        (["stream_writer"], "Files touched", "**`src/export/stream_writer.py`**"),
        (["uploader", "retries"], "Outstanding", "cap the **retries** of the **uploader**"),
    ],
)
def test_every_section_counts_and_consumed_docs_too(
    store: Path, cli: RunCli, words: list[str], section: str, shown: str
) -> None:
    r = cli("search", *words)
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[1] == "1. `csv-export` · 1 d · main · consumed"
    assert lines[2].startswith(f"   {section}: ")
    assert shown in lines[2]


def test_words_together_on_one_line_rank_first(store_dir: Path, cli: RunCli) -> None:
    apart = "## Goal\nThe redis client.\n\n## Decisions\n- add a fallback path\n\n## Next step\nx\n"
    together = "## Goal\nCache.\n\n## Decisions\n- a redis fallback path\n\n## Next step\nx\n"
    write_doc(store_dir, "apart", created="2026-11-29T18:00:00Z", body=apart)  # newer
    write_doc(store_dir, "together", created="2026-11-29T08:00:00Z", body=together)
    write_doc(store_dir, "other", body="## Goal\nSomething else.\n\n## Next step\nx\n")
    r = cli("search", "redis", "fallback", "--json")
    assert r.code == 0, r
    hits = json.loads(r.out)["hits"]
    assert [h["slug"] for h in hits] == ["together", "apart"]
    assert hits[0]["score"] == 100.0 and hits[1]["score"] < 100.0


def test_a_rare_word_outweighs_a_common_one(store_dir: Path, cli: RunCli) -> None:
    for n in range(5):
        write_doc(store_dir, f"tests-{n}", body=f"## Goal\nRun the tests {n}.\n\n## Next step\nx\n")
    write_doc(
        store_dir,
        "flaky",
        created="2026-11-01T00:00:00Z",  # the oldest: only its rare word puts it first
        body="## Goal\nThe flaky login.\n\n## Next step\nx\n",
    )
    r = cli("search", "flaky", "tests", "--json")
    hits = json.loads(r.out)["hits"]
    assert hits[0]["slug"] == "flaky"
    assert len(hits) == 6


def test_a_typo_still_finds_the_word(store: Path, cli: RunCli) -> None:
    r = cli("search", "falback")
    assert r.code == 0, r
    assert r.out.splitlines()[1] == "Taken for typos: falback (fallback)."
    assert "1. `cache-restarts`" in r.out and "**fallback**" in r.out
    assert json.loads(cli("search", "falback", "--json").out)["typos"] == {"falback": ["fallback"]}


def test_the_slug_counts(store: Path, cli: RunCli) -> None:
    r = cli("search", "tidy", "--json")
    hit = json.loads(r.out)["hits"][0]
    assert hit["slug"] == "tidy-docs" and hit["section"] == "Goal"


def test_words_no_handover_holds_are_said(store: Path, cli: RunCli) -> None:
    r = cli("search", "redis", "zeppelin")
    assert r.code == 0, r
    assert r.out.splitlines()[1] == "No handover holds: zeppelin (ranked by the other words)."
    assert "1. `cache-restarts`" in r.out


def test_nothing_matches_is_one_error_line(store: Path, cli: RunCli) -> None:
    r = cli("search", "kubernetes", "helm")
    assert (r.code, r.out, r.err) == (1, "", "error: no handover mentions 'kubernetes helm'\n")


def test_nothing_matches_json_still_prints_the_empty_list(store: Path, cli: RunCli) -> None:
    r = cli("search", "kubernetes", "--json")
    assert r.code == 1 and r.err == "error: no handover mentions 'kubernetes'\n"
    assert json.loads(r.out)["hits"] == []


def test_no_store_and_no_words(project: Path, cli: RunCli) -> None:
    r = cli("search", "redis")
    assert (r.code, r.out, r.err) == (1, "", "error: no stored handovers to search\n")
    r = cli("search")
    assert r.code == 2 and r.err.startswith("error: search needs words to look for")


def test_stray_files_are_never_searched(store_dir: Path, cli: RunCli) -> None:
    store_dir.mkdir(parents=True)
    (store_dir / "README.md").write_text("# notes\nredis fallback\n")
    (store_dir / "PARKED.md").write_text("# Parked items\n\n- **redis** — fallback\n")
    write_doc(store_dir, "real", body="## Goal\nNothing about it.\n\n## Next step\nx\n")
    r = cli("search", "redis", "fallback")
    assert r.code == 1, r
    assert r.err == "error: no handover mentions 'redis fallback'\n"


def test_the_frontmatter_is_not_searched(store: Path, cli: RunCli) -> None:
    r = cli("search", "consumed")
    assert r.code == 1, r


def test_limit(store_dir: Path, cli: RunCli) -> None:
    for n in range(4):
        write_doc(
            store_dir, f"doc-{n}", body=f"## Goal\nThe parser, part {n}.\n\n## Next step\nx\n"
        )
    r = cli("search", "parser", "--limit", "2")
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert [line[:3] for line in lines if line[:1].isdigit()] == ["1. ", "2. "]
    assert "More may match: --limit 4" in lines
    for bad in ("0", "-1", "two"):
        r = cli("search", "parser", "--limit", bad)
        assert r.code == 2, r
        assert r.err.count("\n") == 1 and r.err.startswith("error: ")


def test_json_is_ranked_and_typed(store: Path, cli: RunCli) -> None:
    r = cli("search", "export", "--json")
    assert r.code == 0, r
    data = json.loads(r.out)
    assert data["words"] == ["export"] and data["unmatched"] == [] and data["typos"] == {}
    assert data["searched"] == 3 and data["more"] is False
    (hit,) = data["hits"]
    assert hit["rank"] == 1 and hit["slug"] == "csv-export"
    assert hit["consumed"] is True and isinstance(hit["score"], float)
    assert hit["age_seconds"] == 32 * 3600 + 30 * 60 and hit["age"] == "1 d"
    assert hit["created"] == "2026-11-28T10:00:00Z" and hit["branch"] == "main"
    assert hit["section"] == "Goal" and hit["line"] == "Ship the CSV export of invoices."
    assert hit["highlighted"] == "Ship the CSV **export** of invoices."
    assert hit["follows"] is None


def test_search_imports_no_parser_and_no_matcher_for_exact_words(store: Path) -> None:
    code = (
        "import sys\n"
        "from session_skill.cli.fastpath import main\n"
        "assert main(['search', 'redis', 'fallback']) == 0\n"
        "heavy = {'typer', 'rapidfuzz', 'yaml', 'tiktoken', 'pathlib'} & set(sys.modules)\n"
        "print(sorted(m for m in heavy if m != 'pathlib'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    ("query", "slug"),
    [
        ("ОБРАБОТКА", "cyrillic"),
        ("обработка ошибок", "cyrillic"),
        ("ÉTÉ", "accents"),
        ("straße", "german"),
        ("STRASSE", "german"),
    ],
)
def test_case_is_folded_beyond_ascii(store_dir: Path, cli: RunCli, query: str, slug: str) -> None:
    """Issue 21 #11: `search ОБРАБОТКА` missed "обработка", `ÉTÉ` missed "été"."""
    bodies = {
        "cyrillic": "## Goal\nУлучшить обработка Ошибок в загрузчике.\n\n## Next step\nx\n",
        "accents": "## Goal\nLe plan pour l'été.\n\n## Next step\nx\n",
        "german": "## Goal\nDie STRASSE der Pakete.\n\n## Next step\nx\n",
    }
    for name, body in bodies.items():
        write_doc(store_dir, name, body=body)
    r = cli("search", query, "--json")
    assert r.code == 0, r
    hits = json.loads(r.out)["hits"]
    assert [h["slug"] for h in hits] == [slug], r
    assert "**" in hits[0]["highlighted"]  # the word found is the word shown in bold


# -- recall WORDS… falls back to search --------------------------------------------------------
def test_recall_by_words_only_the_body_holds(store: Path, cli: RunCli) -> None:
    r = cli("recall", "the", "redis", "fallback", "work", "--peek")
    assert r.code == 0, r
    assert r.out.startswith("Handover `cache-restarts` · written 8 h ago · main\n")


def test_recall_by_words_several_close_asks(store_dir: Path, cli: RunCli) -> None:
    body = "## Goal\nCache, part {n}.\n\n## Decisions\n- redis fallback\n\n## Next step\nx\n"
    write_doc(store_dir, "first", created="2026-11-29T10:00:00Z", body=body.format(n=1))
    write_doc(store_dir, "second", created="2026-11-29T12:00:00Z", body=body.format(n=2))
    r = cli("recall", "redis", "fallback")
    assert r.code == 4, r
    assert r.out.splitlines() == [
        "These handovers mention 'redis fallback':",
        "1. `second` · 6 h · main · not consumed",
        "   Decisions: **redis** **fallback**",
        "2. `first` · 8 h · main · not consumed",
        "   Decisions: **redis** **fallback**",
        "→ /session recall <slug>",
    ]
    assert r.err == "error: 'redis fallback' could mean 2 handovers\n"
    assert "consumed: false" in (store_dir / "first.md").read_text()


def test_recall_by_words_through_dispatch(store: Path, cli: RunCli) -> None:
    r = cli("dispatch", "recall the redis fallback work")
    assert r.code == 0, r
    assert r.out.startswith("Handover `cache-restarts`")
    assert "consumed: true" in (store / "cache-restarts.md").read_text()


def test_recall_of_words_nothing_holds_still_lists(store: Path, cli: RunCli) -> None:
    r = cli("recall", "kubernetes", "helm")
    assert r.code == 1, r
    assert r.err == "error: no handover matches 'kubernetes helm'\n"
    assert "### Handovers" in r.out


# -- the fast path answers as Typer does ------------------------------------------------------
FAST = [
    ["search", "redis", "fallback"],
    ["search", "export", "--json", "--limit", "1"],
    ["search", "--limit=2", "the", "parser"],
    ["search", "kubernetes"],
    ["search", "redis", "--limit", "0"],
    ["search"],
    ["history"],
    ["history", "--json"],
    ["history", "csv-export"],
    ["history", "--branch", "docs"],
    ["history", "--branch=nope"],
    ["history", "a", "--branch", "b"],
]


@pytest.mark.parametrize("argv", FAST, ids=[" ".join(a) for a in FAST])
def test_the_fast_path_answers_as_typer(
    argv: list[str], store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from session_skill.cli import app, fastpath

    assert fastpath.parse(argv) is not None
    results = []
    for entry in (fastpath.main, app.main):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = entry(list(argv))
        results.append((code, out.getvalue(), err.getvalue()))
    assert results[0] == results[1]
    assert "Traceback" not in results[0][2]


# -- accents ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("said", "typed"),
    [
        ("Fix the café menu", "cafe"),
        ("Fix the cafe menu", "café"),
        ("Fix the CAFÉ menu", "Cafe"),
        ("Fix the cafe\u0301 menu", "café"),  # decomposed, as macOS names files
        ("Check the naïve résumé parser", "naive resume"),
    ],
)
def test_search_folds_accents_and_shows_the_words_as_written(
    project: Path, store_dir: Path, cli: RunCli, said: str, typed: str
) -> None:
    """`search cafe` finds the handover that says "café" (and the other way round): both
    sides are compared without their accents, case aside; the line is shown as written."""
    write_doc(store_dir, "menu", body=f"## Goal\n{said}.\n\n## Next step\nShip it.\n")
    write_doc(store_dir, "other", body="## Goal\nTidy the docs.\n\n## Next step\nRead them.\n")
    r = cli("search", *typed.split())
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[1] == "1. `menu` · <1 min · main · not consumed"
    shown = lines[2].replace("**", "")
    assert shown == f"   Goal: {said}.", shown
    assert "Taken for typos" not in r.out
    assert cli("recall", "--peek", *typed.split()).out.startswith("Handover `menu`")

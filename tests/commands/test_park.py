"""park (SPEC §7.5, issue 11): nothing the user wrote is lost, nothing is stored twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from session_skill.cli import fastpath
from tests.conftest import RunCli

pytestmark = pytest.mark.usefixtures("pinned_now")
TODAY = "2026-11-29"


def _parked(store_dir: Path, *lines: str) -> Path:
    store_dir.mkdir(parents=True, exist_ok=True)
    p = store_dir / "PARKED.md"
    p.write_text("# Parked items\n\n" + "".join(line + "\n" for line in lines))
    return p


def _bullets(store_dir: Path) -> list[str]:
    text = (store_dir / "PARKED.md").read_text()
    return [ln for ln in text.splitlines() if ln.startswith("- ")]


# -- editing an item keeps what the new text does not replace ------------------------------
def test_editing_keeps_why_and_next(project: Path, store_dir: Path, cli: RunCli) -> None:
    _parked(
        store_dir, "- **alpha** — old text. Why: users asked. Next: ask design. Raised: 2026-11-20."
    )
    r = cli("park", "**alpha** — new text")
    assert (r.code, r.out) == (0, "Updated: alpha (1 open), keeping its Why: and Next:\n")
    assert _bullets(store_dir) == [
        "- **alpha** — new text. Why: users asked. Next: ask design. Raised: 2026-11-20."
    ]


def test_editing_replaces_only_the_parts_given(project: Path, store_dir: Path, cli: RunCli) -> None:
    _parked(
        store_dir, "- **alpha** — old text. Why: users asked. Next: ask design. Raised: 2026-11-20."
    )
    r = cli("park", "**alpha** — new text. Next: ship it")
    assert r.out == "Updated: alpha (1 open), keeping its Why:\n"
    assert _bullets(store_dir) == [
        "- **alpha** — new text. Why: users asked. Next: ship it. Raised: 2026-11-20."
    ]
    data = json.loads(cli("park", "--json", "**alpha** — newer. Why: a. Next: b").out)
    assert data == {"action": "updated", "slug": "alpha", "open": 1, "kept": []}
    assert _bullets(store_dir) == ["- **alpha** — newer. Why: a. Next: b. Raised: 2026-11-20."]


# -- the tool owns Raised ----------------------------------------------------------------
def test_a_payload_raised_date_is_not_stored(project: Path, store_dir: Path, cli: RunCli) -> None:
    r = cli("park", "fix the thing. Raised: 2020-01-01")
    assert (r.code, r.out) == (0, "Parked: fix-the-thing (1 open)\n")
    assert _bullets(store_dir) == [f"- **fix-the-thing** — fix the thing. Raised: {TODAY}."]
    assert "⚠ stale" not in cli("list").out


def test_a_date_inside_the_idea_is_the_users(project: Path, store_dir: Path, cli: RunCli) -> None:
    """Only the `Raised:` that ends the idea is the tool's; one with words after it is
    the user's, kept verbatim, and the item's age is still today's."""
    idea = "the outage Raised: 2025-03-01 by ops still lacks a postmortem"
    assert cli("park", idea).code == 0
    assert cli("dispatch", input="park the incident Raised: 2020-01-01 needs a review\n").code == 0
    assert _bullets(store_dir) == [
        f"- **the-outage-raised-2025-03-01-by-ops** — {idea}. Raised: {TODAY}.",
        f"- **the-incident-raised-2020-01-01-needs-a** — the incident Raised: 2020-01-01 "
        f"needs a review. Raised: {TODAY}.",
    ]
    assert "⚠ stale" not in cli("list").out
    # …and it is what tells the two ideas apart, not a part of them cut off.
    r = cli("park", "the outage Raised: 2025-03-01 is closed")
    assert r.out.startswith("Parked: ")


def test_the_same_words_in_another_order_are_parked(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    assert cli("park", "merge main into dev").code == 0
    r = cli("park", "merge dev into main. Why: release train needs it")
    assert (r.code, r.out) == (0, "Parked: merge-dev-into-main-why-release (2 open)\n")
    assert _bullets(store_dir) == [
        f"- **merge-main-into-dev** — merge main into dev. Raised: {TODAY}.",
        "- **merge-dev-into-main-why-release** — merge dev into main. Why: release train "
        f"needs it. Raised: {TODAY}.",
    ]


@pytest.mark.parametrize(
    "copied",
    [
        "1. **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.",
        "2. ⚠ stale **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.",
        "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.",
    ],
)
def test_reparking_a_copied_line_is_not_a_second_item(
    project: Path, store_dir: Path, cli: RunCli, copied: str
) -> None:
    line = "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20."
    _parked(store_dir, line)
    r = cli("park", input=copied)
    assert (r.code, r.out) == (0, "Already parked as retry-backoff (1 open)\n")
    assert _bullets(store_dir) == [line]


def test_a_copied_line_with_new_words_updates_keeping_one_raised(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    _parked(store_dir, "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.")
    r = cli("park", input="1. **retry-backoff** — settled on exponential. Raised: 2026-11-20.")
    assert r.out == "Updated: retry-backoff (1 open)\n"
    assert _bullets(store_dir) == [
        "- **retry-backoff** — settled on exponential. Raised: 2026-11-20."
    ]


# -- a payload is never read as options (both entry points) -------------------------------
BULLET = "- **x** — copied bullet with dash."


def test_a_payload_starting_with_a_dash_is_parked(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    r = cli("park", BULLET)  # Typer: the `h` in "with" was read as -h, help, exit 0
    assert (r.code, r.out) == (0, "Parked: x (1 open)\n")
    assert _bullets(store_dir) == [f"- **x** — copied bullet with dash. Raised: {TODAY}."]
    call = fastpath.parse(["park", BULLET])
    assert call is not None and call.words == [BULLET]


@pytest.mark.parametrize(
    ("argv", "words", "flags"),
    [
        (["park", "-x", "short"], ["-x", "short"], set()),
        (["park", "--json", "-5", "degrees"], ["-5", "degrees"], {"--json"}),
        (["park", "use", "--help", "to", "see"], ["use", "--help", "to", "see"], set()),
        (["park", "a", "-h", "b"], ["a", "-h", "b"], set()),
        (["park", "--json=1", "idea"], ["--json=1", "idea"], set()),
        (["park", "--", "--json", "is", "words"], ["--json", "is", "words"], set()),
        (["drop", "-5"], ["-5"], set()),
        (["drop", "#1", "#3", "--json"], ["#1", "#3"], {"--json"}),
    ],
)
def test_only_the_commands_own_options_are_options(
    argv: list[str], words: list[str], flags: set[str]
) -> None:
    call = fastpath.parse(argv)
    assert call is not None
    assert (call.words, call.flags) == (words, flags)


@pytest.mark.parametrize("argv", [["park", "-h"], ["park", "--help"], ["drop", "--json", "-h"]])
def test_help_alone_is_still_help(cli: RunCli, argv: list[str]) -> None:
    assert fastpath.parse(argv) is None  # Typer prints it
    r = cli(*argv)
    assert r.code == 0 and r.out.startswith("Usage: session-skill "), r


# -- near-duplicates ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "again",
    [
        "Maybe fix the flaky upload test",
        "Perhaps fix the flaky upload test.",
        "We should fix the flaky upload test",
        "I think we should fix the flaky upload test!",
        "FIX THE FLAKY-UPLOAD TEST",
        "TODO: fix the flaky upload test",
    ],
)
def test_a_hedged_restatement_is_already_parked(
    project: Path, store_dir: Path, cli: RunCli, again: str
) -> None:
    assert cli("park", "fix the flaky upload test").code == 0
    before = (store_dir / "PARKED.md").read_bytes()
    r = cli("park", again)
    assert (r.code, r.out) == (0, "Already parked as fix-the-flaky-upload-test (1 open)\n")
    assert (store_dir / "PARKED.md").read_bytes() == before


def test_a_different_idea_after_a_hedge_is_parked(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    assert cli("park", "fix the flaky upload test").code == 0
    assert cli("park", "Maybe delete the flaky upload test").out.startswith("Parked: ")


# -- control characters ------------------------------------------------------------------
@pytest.mark.parametrize("char", ["\u202e", "\u202a", "\u2066", "\u2069", "\x9b"])
def test_bidi_and_c1_controls_are_refused(
    project: Path, store_dir: Path, cli: RunCli, char: str
) -> None:
    r = cli("park", f"harmless {char}looking idea")
    assert r.code == 1, r
    assert r.err == (
        "error: the idea contains control characters (NUL, escapes, bidi overrides); not parked\n"
    )
    assert not (store_dir / "PARKED.md").exists()


# -- fenced blocks -----------------------------------------------------------------------
def test_park_never_rewrites_a_fenced_bullet(project: Path, store_dir: Path, cli: RunCli) -> None:
    fenced = "~~~\n- **sample** — kept as written\n~~~\n"
    p = store_dir / "PARKED.md"
    store_dir.mkdir(parents=True)
    p.write_text("# Parked items\n\n" + fenced)
    r = cli("park", "**sample** — a real item of that name")
    assert r.out == "Parked: sample (1 open)\n"
    assert p.read_text() == (
        "# Parked items\n\n"
        + fenced
        + f"- **sample** — a real item of that name. Raised: {TODAY}.\n"
    )


# -- a bold label is the user's words, not a slug to edit (found by a user's try) ------------
@pytest.mark.parametrize(
    "first, second",
    [
        ("**Note:** the retry loop swallows errors", "**Note:** staging DB password rotates"),
        ("**Important** fix the cache eviction bug", "**Important** check the nightly logs"),
        ("**TODO**: a", "**TODO**: b"),
    ],
)
def test_a_bold_label_keeps_both_ideas_verbatim(
    project: Path, store_dir: Path, cli: RunCli, first: str, second: str
) -> None:
    """Read as `**slug**`, the second idea replaced the first in place ("Updated: note"), and
    the first was gone: only `**slug** —`, a dash after it, names a slug (SPEC §7.5)."""
    for idea in (first, second):
        r = cli("park", idea)
        assert r.code == 0 and r.out.startswith("Parked: "), r
    bullets = _bullets(store_dir)
    assert len(bullets) == 2
    assert [b.split("** — ", 1)[1].rsplit(". Raised:", 1)[0] for b in bullets] == [
        first.rstrip("."),
        second.rstrip("."),
    ]


def test_an_edit_of_a_slug_two_items_share_asks(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    lines = ("- **dup** — first one about cache. Raised: 2026-12-01.",
             "- **dup** — second one about logs. Raised: 2026-12-02.")  # fmt: skip
    p = _parked(store_dir, *lines)
    before = p.read_bytes()
    r = cli("park", "**dup** — third one")
    assert r.code == 4, r
    assert r.err == "error: 'dup' is the slug of 2 parked items; nothing parked\n"
    assert r.out.splitlines()[:3] == [
        "Which item did you mean to edit by '**dup** — third one'?",
        "1. **dup** — first one about cache",
        "2. **dup** — second one about logs",
    ]
    assert p.read_bytes() == before
    data = json.loads(cli("park", "--json", "**dup** — third one").out)
    assert data["action"] == "choose" and [c["n"] for c in data["candidates"]] == [1, 2]
    assert cli("drop", "#2").code == 0  # the numbers shown are the ones drop takes
    assert _bullets(store_dir) == [lines[0]]


def test_the_same_idea_parked_again_keeps_its_new_why_and_next(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """A near-duplicate is not added twice — but the reason and the next step it brings were
    dropped with "Already parked as …" (SPEC §7.5: `Why:` / `Next:` parts are kept)."""
    assert cli("park", "revisit retry backoff strategy for uploads").code == 0
    r = cli("park", "revisit retry backoff strategy for uploads. Why: p99 spikes. Next: try linear")
    assert (r.code, r.out) == (
        0,
        "Updated: revisit-retry-backoff-strategy-for (1 open), adding its Why: and Next:\n",
    )
    r = cli("park", "revisit retry backoff strategy for uploads. Why: p99 spikes")
    assert r.out == "Already parked as revisit-retry-backoff-strategy-for (1 open)\n"
    data = json.loads(cli("park", "--json", "revisit retry backoff strategy for uploads. "
                                            "Why: users complain").out)  # fmt: skip
    assert (data["action"], data["added"]) == ("updated", ["Why"])
    assert _bullets(store_dir) == [
        "- **revisit-retry-backoff-strategy-for** — revisit retry backoff strategy for uploads. "
        f"Why: p99 spikes; users complain. Next: try linear. Raised: {TODAY}."
    ]

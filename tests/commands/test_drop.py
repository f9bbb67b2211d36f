"""drop (SPEC §7.6, issue 11): `#N` is the item shown with that number, never another.

Each test here failed before issue 11's fixes: stale numbers, several numbers at once,
sub-notes left behind, filler words, letters where the numbers belong.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunCli

pytestmark = pytest.mark.usefixtures("pinned_now")

FIVE = [f"- **item-{c}** — parked idea {c}. Raised: 2026-11-20." for c in "abcde"]


def _parked(store_dir: Path, *lines: str) -> Path:
    store_dir.mkdir(parents=True, exist_ok=True)
    p = store_dir / "PARKED.md"
    p.write_text("# Parked items\n\n" + "".join(line + "\n" for line in lines))
    return p


def _dropped(store_dir: Path) -> list[dict[str, object]]:
    path = store_dir / "dropped.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _slugs(store_dir: Path) -> list[str]:
    from session_skill.store.parked import Parked

    return [it.slug for it in Parked((store_dir / "PARKED.md").read_text()).items]


@pytest.fixture
def five(project: Path, store_dir: Path) -> Path:
    return _parked(store_dir, *FIVE)


# -- #N is tied to what was shown --------------------------------------------------------
def test_numbers_stay_those_of_the_list_across_drops(
    five: Path, store_dir: Path, cli: RunCli
) -> None:
    """The issue's case: list, drop #2, drop #3 dropped the item that was 4th."""
    assert cli("list").code == 0
    r = cli("drop", "#2")
    assert r.code == 0, r
    assert r.out == (
        "Dropped: item-b (4 open)\n"
        "\n"
        "### Parked (4 open)\n"
        "1. **item-a** — parked idea a. Raised: 2026-11-20.\n"
        "3. **item-c** — parked idea c. Raised: 2026-11-20.\n"
        "4. **item-d** — parked idea d. Raised: 2026-11-20.\n"
        "5. **item-e** — parked idea e. Raised: 2026-11-20.\n"
        "(numbers stay as shown until the next /session list)\n"
    )
    r = cli("drop", "#3")
    assert r.out.startswith("Dropped: item-c (3 open)\n"), r
    assert _slugs(store_dir) == ["item-a", "item-d", "item-e"]
    # A number already dropped is refused, not moved onto a neighbour.
    before = five.read_bytes()
    r = cli("drop", "#2")
    assert r.code == 4, r
    assert r.err == (
        "error: #2 was item-b when the list was shown, and it is no longer parked; "
        "nothing dropped\n"
    )
    assert five.read_bytes() == before
    # The next `list` numbers afresh.
    assert "\n2. **item-d**" in cli("list").out
    assert cli("drop", "#2").out.startswith("Dropped: item-d ")


def test_two_numbers_drop_exactly_those_two(five: Path, store_dir: Path, cli: RunCli) -> None:
    cli("list")
    r = cli("drop", "#2", "#3")
    assert r.code == 0, r
    assert r.out.startswith("Dropped: item-b, item-c (3 open)\n"), r
    assert _slugs(store_dir) == ["item-a", "item-d", "item-e"]
    assert [rec["item"] for rec in _dropped(store_dir)] == ["item-b", "item-c"]
    assert {rec["query"] for rec in _dropped(store_dir)} == {"#2 #3"}


@pytest.mark.parametrize("query", ["#2, #4", "#2 and #4", "#4 #2 #4"])
def test_number_lists_in_the_forms_people_type(
    five: Path, store_dir: Path, cli: RunCli, query: str
) -> None:
    cli("list")
    assert cli("drop", query).code == 0
    assert _slugs(store_dir) == ["item-a", "item-c", "item-e"]


def test_one_bad_number_drops_nothing(five: Path, store_dir: Path, cli: RunCli) -> None:
    cli("list")
    before = five.read_bytes()
    r = cli("drop", "#2", "#9")
    assert r.code == 1, r
    assert r.err == "error: there is no item #9 (5 open); nothing dropped\n"
    assert five.read_bytes() == before and _dropped(store_dir) == []


def test_an_item_dropped_elsewhere_is_refused(five: Path, store_dir: Path, cli: RunCli) -> None:
    """Another session dropped #2 by name after this one listed: #2 is refused, #3 is c."""
    assert "\n2. **item-b**" in cli("list").out
    assert cli("drop", "item-b").code == 0  # the other session
    before = five.read_bytes()
    r = cli("drop", "#2")
    assert r.code == 4 and "item-b" in r.err and "nothing dropped" in r.err, r
    assert five.read_bytes() == before
    assert cli("drop", "#3").out.startswith("Dropped: item-c ")  # still the one shown as 3


def test_a_hand_edit_after_the_numbers_were_recorded_is_caught(
    five: Path, store_dir: Path, cli: RunCli
) -> None:
    cli("drop", "item-a")  # a drop records the numbers; `list` then renumbers them
    cli("list")
    five.write_text(five.read_text().replace(FIVE[2] + "\n", ""))  # item-c, now #2
    r = cli("drop", "#2")
    assert r.code == 4 and "item-c" in r.err, r
    assert cli("drop", "#3").out.startswith("Dropped: item-d ")


def test_a_hand_edit_after_a_list_of_an_untouched_store_is_caught(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """Issue 21 #6: the first `list` recorded nothing, so `#2` took the 2nd item of the
    edited file: the bullet added at the top pushed A there, and A was dropped."""
    for idea in ("alpha idea", "beta idea", "gamma idea"):
        cli("park", idea)
    assert "\n2. **beta-idea**" in cli("list").out
    p = store_dir / "PARKED.md"
    p.write_text(p.read_text().replace("- **alpha-idea**", "- a hand-added note\n- **alpha-idea**"))
    r = cli("drop", "#2")
    assert r.out.startswith("Dropped: beta-idea (3 open)"), r
    assert _slugs(store_dir) == ["a-hand-added-note", "alpha-idea", "gamma-idea"]


def test_an_item_edited_since_it_was_shown_is_refused(
    five: Path, store_dir: Path, cli: RunCli
) -> None:
    cli("list")
    cli("drop", "item-a")
    assert cli("park", "**item-c** — a different idea now").out.startswith("Updated: item-c")
    before = five.read_bytes()
    r = cli("drop", "#3")
    assert r.code == 4, r
    assert r.err == (
        "error: #3 was item-c when the list was shown, and it was edited since; nothing dropped\n"
    )
    assert five.read_bytes() == before
    # The list printed with the refusal gives the edited item a number of its own.
    assert "6. **item-c** — a different idea now" in r.out
    assert cli("drop", "#6").out.startswith("Dropped: item-c ")


def test_an_item_parked_since_gets_the_next_number(
    five: Path, store_dir: Path, cli: RunCli
) -> None:
    cli("list")
    cli("park", "a sixth idea entirely")
    cli("drop", "#1")
    r = cli("drop", "#6")  # as the reprint after the first drop showed it
    assert r.out.startswith("Dropped: a-sixth-idea-entirely "), r


def test_numbers_shown_in_another_session_are_refused(
    five: Path, store_dir: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "session-a")
    cli("drop", "item-e")  # session a's numbers are on record
    cli("list")
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "session-b")
    before = five.read_bytes()
    r = cli("drop", "#2")
    assert r.code == 4, r
    assert r.err.startswith("error: the numbers were shown in another session; nothing dropped")
    assert five.read_bytes() == before
    assert "\n2. **item-b**" in r.out  # numbered for this session now
    assert cli("drop", "#2").out.startswith("Dropped: item-b ")


def test_an_unreadable_record_refuses_every_number(
    five: Path, store_dir: Path, cli: RunCli
) -> None:
    cli("list")
    (store_dir / "numbers.json").write_text("{not json")
    r = cli("drop", "#1")
    assert r.code == 4, r
    assert "numbers.json" in r.err and "nothing dropped" in r.err
    assert _slugs(store_dir) == [f"item-{c}" for c in "abcde"]


def test_without_any_record_numbers_are_file_order(
    five: Path, store_dir: Path, cli: RunCli
) -> None:
    assert not (store_dir / "numbers.json").exists()
    assert cli("drop", "#4").out.startswith("Dropped: item-d ")


def test_json_lists_every_dropped_item_and_the_rest(five: Path, cli: RunCli) -> None:
    cli("list")
    data = json.loads(cli("drop", "--json", "#1", "#5").out)
    assert data["action"] == "dropped" and data["open"] == 3
    assert data["slug"] == "item-a" and data["record"]["item"] == "item-a"
    assert [r["item"] for r in data["dropped"]] == ["item-a", "item-e"]
    assert [(p["n"], p["slug"]) for p in data["parked"]] == [
        (2, "item-b"),
        (3, "item-c"),
        (4, "item-d"),
    ]


def test_the_reprint_is_capped(project: Path, store_dir: Path, cli: RunCli) -> None:
    _parked(store_dir, *(f"- **many-{i}** — idea {i}." for i in range(40)))
    r = cli("drop", "many-0")
    lines = r.out.splitlines()
    assert lines[0] == "Dropped: many-0 (39 open)"
    assert sum(1 for ln in lines if ln[:1].isdigit()) == 25
    assert "… and 14 more: /session list" in lines


# -- what a drop removes -----------------------------------------------------------------
def test_sub_notes_go_with_their_item_and_are_logged(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    p = _parked(
        store_dir,
        "- **alpha** — first idea. Raised: 2026-11-20.",
        "  - a sub-note about alpha",
        "    with more detail",
        "- **beta** — second idea. Raised: 2026-11-20.",
        "  - beta's own note",
    )
    r = cli("drop", "alpha")
    assert r.code == 0, r
    assert r.out.startswith(
        "Dropped: alpha (1 open), with 2 indented note lines (logged in dropped.jsonl)\n"
    )
    assert p.read_text() == (
        "# Parked items\n\n- **beta** — second idea. Raised: 2026-11-20.\n  - beta's own note\n"
    )
    (rec,) = _dropped(store_dir)
    assert rec["notes"] == ["  - a sub-note about alpha", "    with more detail"]


def test_a_fenced_bullet_is_never_dropped(project: Path, store_dir: Path, cli: RunCli) -> None:
    p = _parked(
        store_dir, "- **real** — a real item.", "```", "- **sample** — in a code block", "```"
    )
    r = cli("drop", "sample")
    assert r.code == 1, r
    assert p.read_text().count("- **sample**") == 1
    assert cli("drop", "#2").code == 1  # only one item to number
    assert cli("drop", "#1").out.startswith("Dropped: real (0 open)")
    assert p.read_text() == "# Parked items\n\n```\n- **sample** — in a code block\n```\n"


# -- what a query may resolve to ---------------------------------------------------------
@pytest.mark.parametrize("query", ["the", "it", "the one", "a"])
def test_filler_words_alone_never_drop(
    project: Path, store_dir: Path, cli: RunCli, query: str
) -> None:
    p = _parked(store_dir, "- **flaky-upload** — retry the flaky upload in the one CI job.")
    before = p.read_bytes()
    r = cli("drop", query)
    assert r.code in (1, 4), r
    assert p.read_bytes() == before and _dropped(store_dir) == []


def test_one_loose_candidate_is_asked_about_as_one(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    _parked(store_dir, "- **retry-backoff** — revisit exponential vs linear.", *FIVE)
    r = cli("drop", "retyr")
    assert r.code == 4, r
    assert r.out.splitlines()[:2] == [
        "Is this the item you meant by 'retyr'?",
        "1. **retry-backoff** — revisit exponential vs linear",
    ]


def test_a_bom_stays_when_an_item_is_dropped(project: Path, store_dir: Path, cli: RunCli) -> None:
    """Issue 21 #14: every byte but the item's stays, a UTF-8 BOM at the top included."""
    store_dir.mkdir(parents=True)
    p = store_dir / "PARKED.md"
    p.write_bytes(b"\xef\xbb\xbf- **alpha** \xe2\x80\x94 first.\n- **beta** \xe2\x80\x94 second.\n")
    r = cli("drop", "beta")
    assert r.out.startswith("Dropped: beta (1 open)"), r
    assert p.read_bytes() == b"\xef\xbb\xbf- **alpha** \xe2\x80\x94 first.\n"
    assert cli("drop", "alpha").out.startswith("Dropped: alpha (0 open)")  # read through it
    assert p.read_bytes() == b"\xef\xbb\xbf"


def test_two_items_of_the_same_slug_are_asked_about(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """Issue 21 #7: two hand-written items derive one slug; the slug names neither alone."""
    p = _parked(
        store_dir,
        "- fix the flaky upload test in ci",
        "- fix the flaky upload test in staging too",
    )
    before = p.read_bytes()
    r = cli("drop", "fix-the-flaky-upload-test-in")
    assert r.code == 4, r
    assert r.out.splitlines() == [
        "Which item did you mean by 'fix-the-flaky-upload-test-in'?",
        "1. **fix-the-flaky-upload-test-in** — fix the flaky upload test in ci",
        "2. **fix-the-flaky-upload-test-in** — fix the flaky upload test in staging too",
        "→ /session drop #N with a number above, or /session drop <slug>",
    ]
    assert r.err == (
        "error: 'fix-the-flaky-upload-test-in' is the slug of 2 parked items; nothing dropped\n"
    )
    assert p.read_bytes() == before and _dropped(store_dir) == []
    assert cli("drop", "#2").out.startswith("Dropped: fix-the-flaky-upload-test-in (1 open)")
    assert p.read_text().endswith("- fix the flaky upload test in ci\n")


def test_a_number_not_shown_yet_agrees_with_the_list_printed(
    five: Path, store_dir: Path, cli: RunCli
) -> None:
    """Issue 21 #8: "there is no item #6" stood above a printed "6. **a-sixth-idea**"."""
    cli("list")
    cli("park", "a sixth idea")  # parked after the list: it has no number yet
    before = (store_dir / "PARKED.md").read_bytes()
    r = cli("drop", "#6")
    assert r.code == 4, r
    assert "\n6. **a-sixth-idea** — a sixth idea." in r.out
    assert r.err == (
        "error: #6 was not shown before; it is a-sixth-idea now, as listed: "
        "drop #6 again to drop it; nothing dropped\n"
    )
    assert (store_dir / "PARKED.md").read_bytes() == before and _dropped(store_dir) == []
    assert cli("drop", "#6").out.startswith("Dropped: a-sixth-idea (5 open)")
    # A number the list does not hold either is simply not there, as the list shows.
    r = cli("drop", "#7")
    assert r.code == 1 and r.err == "error: there is no item #7 (5 open)\n", r
    assert "\n7. " not in r.out


def test_a_choice_is_json_under_json(five: Path, store_dir: Path, cli: RunCli) -> None:
    """Issue 21 #16: with --json the exit-4 choice printed markdown."""
    cli("list")
    r = cli("drop", "--json", "parked", "idea")
    assert r.code == 4, r
    data = json.loads(r.out)
    assert data["action"] == "choose"
    assert data["question"] == "Which item did you mean by 'parked idea'?"
    assert [(c["n"], c["slug"], c["summary"]) for c in data["candidates"]] == [
        (1, "item-a", "parked idea a"),
        (2, "item-b", "parked idea b"),
        (3, "item-c", "parked idea c"),
        (4, "item-d", "parked idea d"),
    ]
    assert r.err == "error: 'parked idea' matches more than one parked item\n"
    # A number refused is a choice too; what nothing matches is the open items, as JSON.
    cli("drop", "item-b")
    r = cli("drop", "--json", "#2")
    assert r.code == 4 and json.loads(r.out)["action"] == "choose", r
    assert json.loads(r.out)["question"].startswith("#2 was item-b when the list was shown")
    r = cli("drop", "--json", "zzzz", "qqqq")
    assert r.code == 1, r
    data = json.loads(r.out)
    assert data["action"] == "none" and data["open"] == 4
    assert [p["slug"] for p in data["parked"]] == ["item-a", "item-c", "item-d", "item-e"]


@pytest.mark.parametrize("parked", [[], FIVE[:2]])
def test_an_item_that_was_never_parked_points_to_sweep_drop(
    project: Path, store_dir: Path, cli: RunCli, parked: list[str]
) -> None:
    """What a handover left outstanding was never parked: `drop` cannot find it, and says
    what closes it, without dropping anything."""
    _parked(store_dir, *parked)
    r = cli("drop", "migrate the payout endpoint")
    assert r.code == 1, r
    assert r.out.rstrip().endswith("`session-skill sweep --drop N` closes it."), r.out
    assert _dropped(store_dir) == [] and len(_slugs(store_dir)) == len(parked)


# -- items written without spaces, or without words ------------------------------------
def test_an_emoji_or_cjk_item_is_dropped_by_its_own_text(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """docs/modes.md: drop finds an item by its words. An emoji-only idea has none the
    matcher sees, and a CJK one is a single "word" no part of which matched: both were
    "no parked item matches" (exit 1), whatever was typed."""
    for idea in ("🚀🚀🚀", "**cache-fix** — 修复缓存问题", "修复登录问题", "Write the docs."):
        assert cli("park", idea).code == 0
    before = _slugs(store_dir)
    assert len(before) == 4
    # The exact text, as park stored it (its whitespace folded, a closing "." aside).
    r = cli("drop", "🚀🚀🚀")
    assert r.code == 0 and r.out.startswith("Dropped: item (3 open)"), r
    r = cli("drop", " 修复缓存问题 ")
    assert r.code == 0 and r.out.startswith("Dropped: cache-fix (2 open)"), r
    assert [d["item"] for d in _dropped(store_dir)] == ["item", "cache-fix"]
    # A part of one item's text is that item; of several, a question.
    assert cli("park", "修复缓存问题").code == 0
    r = cli("drop", "修复")
    assert r.code == 4, r
    assert r.out.startswith("Which item did you meant by".replace("meant", "mean")), r
    r = cli("drop", "缓存")
    assert r.code == 0 and r.out.startswith("Dropped: xiu-fu-huan-cun-wen-ti (2 open)"), r
    # One character is too little to drop on: asked, even when one item holds it.
    r = cli("drop", "登")
    assert r.code == 4 and "修复登录问题" in r.out, r
    r = cli("drop", "部署")
    assert r.code == 1, r
    assert _slugs(store_dir) == ["xiu-fu-deng-lu-wen-ti", "write-the-docs"]

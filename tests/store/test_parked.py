"""PARKED.md: items, byte-for-byte rewrites, exactly-one-line removal."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.store.parked import (
    HEADING,
    Parked,
    bullet,
    derive_slug,
    join_parts,
    parse_item,
    split_parts,
    strip_raised,
)

SAMPLE = (
    "# Parked items\n"
    "\n"
    "Notes I keep by hand.\n"
    "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20. "
    "Why: bench first. Next: compare p99.\n"
    "* **split-ratio** — 80/20 vs 70/30 never settled. Raised: 2026-11-02.\n"
    "- [ ] plain checkbox item without slug\n"
    "- [x] **done-thing**: finished already\n"
    "  - nested bullets are not items\n"
    "-not a bullet\n"
    "## Later\n"
    "- item with a bad date. Raised: 2026-13-40.\n"
)

text_st = st.text(st.characters(exclude_categories=("Cs",)), max_size=400)
bullet_lines = st.lists(
    st.one_of(
        st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"), max_size=50),
        st.builds(
            lambda s, body: f"- **{s}** — {body}. Raised: 2026-11-20.",
            st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
            st.text(
                st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"), max_size=40
            ),
        ),
        st.sampled_from(["# Parked items", "", "- [ ] todo", "* star item", "  indented"]),
    ),
    max_size=15,
)


def test_items_are_found_with_their_slugs_and_dates() -> None:
    p = Parked(SAMPLE)
    got = [(it.slug, it.raised, it.explicit_slug) for it in p.items]
    assert got == [
        ("retry-backoff", date(2026, 11, 20), True),
        ("split-ratio", date(2026, 11, 2), True),
        ("plain-checkbox-item-without-slug", None, False),
        ("item-with-a-bad-date", None, False),
    ]
    first = p.items[0]
    assert first.summary == "revisit exponential vs linear. Why: bench first. Next: compare p99"
    assert first.display.startswith("**retry-backoff** — revisit")
    assert p.items[3].summary == "item with a bad date"  # `- [x]` is done, not open


def test_the_date_that_ends_the_idea_is_the_items() -> None:
    """A `Raised:` with the idea's words after it is the user's, kept in the summary; the
    one that ends the idea (or leads its `Why:`) is the item's. A hand-written date
    anywhere else is still read when nothing ends the idea."""
    tool = parse_item(0, "- **x** — the outage Raised: 2025-03-01 by ops. Raised: 2026-11-20.")
    assert tool is not None
    assert (tool.raised, tool.summary) == (
        date(2026, 11, 20),
        "the outage Raised: 2025-03-01 by ops",
    )
    why = parse_item(0, "- the outage Raised: 2025-03-01 by ops. Raised: 2026-11-20. Why: x")
    assert why is not None and (why.raised, why.summary) == (
        date(2026, 11, 20),
        "the outage Raised: 2025-03-01 by ops. Why: x",
    )
    hand = parse_item(0, "- fix it. Raised: 2026-11-20 (by me)")
    assert hand is not None and (hand.raised, hand.summary) == (
        date(2026, 11, 20),
        "fix it. (by me)",
    )
    assert strip_raised("fix it. Raised: 2020-01-01") == "fix it. "
    assert strip_raised("a Raised: 2020-01-01 b") == "a Raised: 2020-01-01 b"
    assert strip_raised("a. Raised: 2020-01-01. Why: c") == "a.  Why: c"


@given(text_st)
def test_parse_render_is_byte_identical(text: str) -> None:
    assert Parked(text).render() == text


@given(bullet_lines, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_remove_takes_the_item_line_and_its_notes(lines: list[str], nl: str, final: bool) -> None:
    text = nl.join(lines) + (nl if final else "")
    p = Parked(text)
    for index in range(len(p.items)):
        q = Parked(text)
        item = q.items[index]
        notes = q.notes(item)
        assert q.remove(item) == notes
        # Lines end at "\n" only (a "\x0c" or "\u2028" inside a bullet does not split it).
        raw = [part + "\n" for part in text.split("\n")]
        raw[-1] = raw[-1][:-1]
        # The notes are the indented, non-blank lines right under it (no fences here).
        end = item.line_no + 1
        while end < len(raw) and raw[end][:1] in (" ", "\t") and raw[end].strip():
            end += 1
        assert [r.rstrip("\r\n") for r in raw[item.line_no + 1 : end]] == notes
        del raw[item.line_no : end]
        assert q.render() == "".join(raw)
        assert len(q.items) == len(p.items) - 1
        assert q.render() == Parked(q.render()).render()
        assert [it.line for it in q.items] == [it.line for it in Parked(q.render()).items]


def test_append_keeps_the_newline_style_and_a_missing_final_newline() -> None:
    p = Parked("# Parked items\r\n\r\n- **a** — first. Raised: 2026-11-20.")
    p.append(bullet("b", "second", "2026-11-29"))
    assert p.render() == (
        "# Parked items\r\n\r\n- **a** — first. Raised: 2026-11-20.\r\n"
        "- **b** — second. Raised: 2026-11-29.\r\n"
    )
    assert [it.slug for it in p.items] == ["a", "b"]


def test_append_to_an_empty_file_adds_the_heading() -> None:
    p = Parked("")
    p.append(bullet("idea", "an idea", "2026-11-29"))
    assert p.render() == f"{HEADING}\n\n- **idea** — an idea. Raised: 2026-11-29.\n"


def test_replace_keeps_the_line_ending_and_other_lines() -> None:
    p = Parked(SAMPLE.replace("\n", "\r\n"))
    item = p.find_slug("SPLIT-RATIO")
    assert item is not None
    p.replace(item, bullet("split-ratio", "settled on 80/20", "2026-11-02"))
    out = p.render()
    assert "- **split-ratio** — settled on 80/20. Raised: 2026-11-02.\r\n" in out
    assert out.replace("settled on 80/20. Raised: 2026-11-02.", "") == SAMPLE.replace(
        "\n", "\r\n"
    ).replace("80/20 vs 70/30 never settled. Raised: 2026-11-02.", "").replace(
        "* **split-ratio**", "- **split-ratio**"
    )


@pytest.mark.parametrize(
    ("summary", "line"),
    [
        ("an idea", "- **s** — an idea. Raised: 2026-11-29."),
        ("ends with a stop.", "- **s** — ends with a stop. Raised: 2026-11-29."),
        ("a question?", "- **s** — a question? Raised: 2026-11-29."),
        ("  padded  ", "- **s** — padded. Raised: 2026-11-29."),
    ],
)
def test_bullet(summary: str, line: str) -> None:
    assert bullet("s", summary, "2026-11-29") == line


def test_bullet_round_trips_through_parse_item() -> None:
    item = parse_item(
        0, bullet("cache-warmup", "warm the cache. Why: cold starts", date(2026, 11, 29))
    )
    assert item is not None
    assert (item.slug, item.summary, item.raised) == (
        "cache-warmup",
        "warm the cache. Why: cold starts",
        date(2026, 11, 29),
    )


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Retry the backoff, maybe", "retry-the-backoff-maybe"),
        ("Café naïve déjà vu", "cafe-naive-deja-vu"),
        ("one two three four five six seven eight", "one-two-three-four-five-six"),
        (
            "supercalifragilisticexpialidocious-and-then-some-more-words",
            "supercalifragilisticexpialidocious-and",
        ),
        ("!!!", "item"),
        ("x" * 50, "x" * 40),
    ],
)
def test_derive_slug(text: str, slug: str) -> None:
    assert derive_slug(text) == slug
    assert len(derive_slug(text)) <= 40


def test_non_items_stay_non_items() -> None:
    for line in ["# Parked items", "", "  - nested", "-x", "text"]:
        assert parse_item(0, line) is None


# -- issue 11: what is not an item --------------------------------------------------------
FENCED = (
    "# Parked items\n"
    "\n"
    "- **before** — a real item\n"
    "```sh\n"
    "- **in-backticks** — a bullet in a code sample\n"
    "* another\n"
    "```\n"
    "~~~~\n"
    "- in tildes\n"
    "~~~\n"  # shorter than the opener: not its end
    "- still in tildes\n"
    "~~~~~\n"
    "- **after** — a real item\n"
)


def test_bullets_in_fences_are_not_items_and_stay_byte_for_byte() -> None:
    p = Parked(FENCED)
    assert [it.slug for it in p.items] == ["before", "after"]
    while p.items:
        p.remove(p.items[0])
    assert p.render() == FENCED.replace("- **before** — a real item\n", "").replace(
        "- **after** — a real item\n", ""
    )
    q = Parked(FENCED)
    q.append(bullet("new", "appended", "2026-11-29"))
    assert q.render() == FENCED + "- **new** — appended. Raised: 2026-11-29.\n"
    assert [it.slug for it in q.items] == ["before", "after", "new"]
    r = Parked(FENCED.replace("\n", "\r\n"))
    assert [it.slug for it in r.items] == ["before", "after"]


def test_an_unclosed_fence_hides_nothing() -> None:
    # Were it a fence to the end of the file, an item appended after it would never list.
    text = "# Parked items\n\n```\n- **kept** — an item after an open fence\n"
    assert [it.slug for it in Parked(text).items] == ["kept"]


def test_an_inline_triple_backtick_does_not_open_a_fence() -> None:
    text = "```not a fence``` said the note\n- **one** — item\n```\n- **two** — item\n"
    assert [it.slug for it in Parked(text).items] == ["one", "two"]


@pytest.mark.parametrize(
    "line", ["- [x] done", "* [X] **done** — yes", "- ", "-  ", "- [ ] ", "* [x]"]
)
def test_done_and_empty_bullets_are_not_open_items(line: str) -> None:
    assert parse_item(0, line) is None
    assert Parked(line + "\n").render() == line + "\n"


def test_notes_are_the_indented_lines_under_an_item() -> None:
    text = (
        "- **a** — item\n"
        "  - note\n"
        "  ```\n"
        "\n"  # blank, but inside the note's fence
        "  code\n"
        "  ```\n"
        "\n"
        "  after a blank line: not a note\n"
        "- **b** — item\n"
    )
    p = Parked(text)
    assert p.notes(p.items[0]) == ["  - note", "  ```", "", "  code", "  ```"]
    assert p.notes(p.items[1]) == []
    p.remove(p.items[0])
    assert p.render() == "\n  after a blank line: not a note\n- **b** — item\n"
    assert [it.line_no for it in p.items] == [2]


def test_split_and_join_parts() -> None:
    idea, parts = split_parts("revisit exp. Why: bench first. next: compare p99.")
    assert (idea, parts) == ("revisit exp", {"Why": "bench first", "Next": "compare p99"})
    assert join_parts(idea, parts) == "revisit exp. Why: bench first. Next: compare p99"
    assert split_parts("just an idea") == ("just an idea", {})


def test_strip_raised() -> None:
    assert strip_raised("fix it. Raised: 2020-01-01. Why: x") == "fix it.  Why: x"
    assert strip_raised("no date here") == "no date here"

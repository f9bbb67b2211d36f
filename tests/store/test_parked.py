"""PARKED.md: items, byte-for-byte rewrites, exactly-one-line removal."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.store.parked import HEADING, Parked, bullet, derive_slug, parse_item

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
        ("done-thing", None, True),
        ("item-with-a-bad-date", None, False),
    ]
    first = p.items[0]
    assert first.summary == "revisit exponential vs linear. Why: bench first. Next: compare p99"
    assert first.display.startswith("**retry-backoff** — revisit")
    assert p.items[3].summary == "finished already"


@given(text_st)
def test_parse_render_is_byte_identical(text: str) -> None:
    assert Parked(text).render() == text


@given(bullet_lines, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_remove_takes_exactly_one_line(lines: list[str], nl: str, final: bool) -> None:
    text = nl.join(lines) + (nl if final else "")
    p = Parked(text)
    for index in range(len(p.items)):
        q = Parked(text)
        item = q.items[index]
        q.remove(item)
        # Lines end at "\n" only (a "\x0c" or "\u2028" inside a bullet does not split it).
        raw = [part + "\n" for part in text.split("\n")]
        raw[-1] = raw[-1][:-1]
        del raw[item.line_no]
        assert q.render() == "".join(raw)
        assert len(q.items) == len(p.items) - 1


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

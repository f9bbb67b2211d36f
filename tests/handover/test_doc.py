"""handover: sections, the doc parser, times, render→parse, section replacement."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.handover import doc as ho

FULL = """\
## Goal
Add token expiry to auth.

## Decisions
- JWT with 15 min expiry — why: stateless

## Notes by hand
kept where it stands

## Files touched
| File | Change | State | Ref |
| --- | --- | --- | --- |
| `src/auth/token.py` | added expiry check | done | +42/-3 |

## Next step
Run the auth tests.
"""

line = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"), max_size=40)
md_lines = st.lists(
    st.one_of(
        line,
        line.map(lambda s: "## " + s),
        st.sampled_from(["```", "~~~", "## Goal", "## Next step", "", "- item"]),
    ),
    max_size=20,
)


# -- sections -------------------------------------------------------------------
@given(md_lines, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_split_sections_joins_back_to_the_body(lines: list[str], nl: str, final: bool) -> None:
    body = nl.join(lines) + (nl if final and lines else "")
    assert "".join(s.text for s in ho.split_sections(body)) == body


def test_split_sections_titles_and_content() -> None:
    sections = ho.split_sections("intro\n## Goal\nx\n## Next step ##\ny\n")
    assert [s.title for s in sections] == [None, "Goal", "Next step"]
    assert sections[0].content == "intro\n"
    assert sections[1].content == "x\n"
    assert sections[2].content == "y\n"


def test_headings_inside_code_fences_are_not_sections() -> None:
    body = "## Goal\nx\n```\n## Not a section\n```\n## Next step\ny\n"
    assert [s.title for s in ho.split_sections(body)] == ["Goal", "Next step"]


@pytest.mark.parametrize(
    "code",
    [
        "```\n~~~\n## Not a section\n```\n",  # a ~~~ line inside a ``` block is code
        "````md\n```\n## Not a section\n```\n````\n",  # a shorter fence does not close
        "  ~~~\n```\n## Not a section\n~~~~\n",  # indented; closed by a longer run
    ],
)
def test_a_fence_closes_only_on_its_own_kind(code: str) -> None:
    body = f"## Goal\nx\n## Decisions\n{code}## Next step\ny\n"
    sections = ho.split_sections(body)
    assert [s.title for s in sections] == ["Goal", "Decisions", "Next step"]
    assert "".join(s.text for s in sections) == body


def test_find_section_ignores_case_and_punctuation() -> None:
    sections = ho.split_sections("## next STEP:\ndo it\n## Didn’t work\nz\n")
    s = ho.find_section(sections, "Next step")
    assert s is not None and s.content == "do it\n"
    assert ho.find_section(sections, "Goal") is None


@pytest.mark.parametrize(
    ("body", "missing"),
    [
        (FULL, []),
        ("## Goal\nx\n", ["Next step"]),
        ("## Next step\nx\n", ["Goal"]),
        ("## Goal\n\n   \n## Next step\nx\n", ["Goal"]),
        ("no sections at all", ["Goal", "Next step"]),
        ("```\n## Goal\nx\n```\n## Next step\ny\n", ["Goal"]),
    ],
)
def test_missing_required(body: str, missing: list[str]) -> None:
    assert ho.missing_required(body) == missing


# -- parse_doc ----------------------------------------------------------------------
def test_parse_doc_reads_the_minimal_foreign_format() -> None:
    text = (
        "---\nslug: plan-x\ncreated: 2026-11-29T18:30:00Z\nconsumed: false\nbranch: main\n"
        "---\n## Goal\ng\n"
    )
    doc = ho.parse_doc(text)
    assert doc is not None
    assert doc.slug == "plan-x"
    assert doc.created == datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)
    assert not doc.consumed
    assert doc.goal == "g"
    assert doc.body == "## Goal\ng\n"


def test_parse_doc_keeps_unknown_keys_of_hand_edited_docs() -> None:
    text = (
        "---\ncreated: 2026-11-29 18:30\nauthor: me\ntags: [a, b]\nconsumed: TRUE\n---\nfree text\n"
    )
    doc = ho.parse_doc(text)
    assert doc is not None
    assert doc.meta["author"] == "me" and doc.meta["tags"] == "[a, b]"
    assert doc.consumed
    assert doc.created == datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text",
    [
        "## Goal\nno frontmatter\n",
        "---\ntitle: a note\n---\nbody\n",  # frontmatter, but neither created nor slug
        "---\nslug: a\n",  # never closed
    ],
)
def test_parse_doc_refuses_non_docs(text: str) -> None:
    assert ho.parse_doc(text) is None


# -- render → parse ---------------------------------------------------------------
meta_values = st.one_of(
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=40),
)
meta_keys = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda k: k not in ("slug", "created")
)


def _as_read(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


@given(
    st.dictionaries(meta_keys, meta_values, max_size=6),
    st.lists(line, max_size=12),
    st.sampled_from(["\n", "\r\n"]),
)
def test_render_doc_then_parse_doc(extra: dict[str, object], lines: list[str], nl: str) -> None:
    body = nl.join(["## Goal", *lines, "", "## Next step", "go"]) + nl
    meta: list[tuple[str, object]] = [
        ("slug", "main-2026-11-29T18-30-00Z"),
        ("created", "2026-11-29T18:30:00Z"),
        *extra.items(),
    ]
    text = ho.render_doc(meta, body)
    doc = ho.parse_doc(text)
    assert doc is not None
    assert doc.body == body
    assert doc.meta == {k: _as_read(v) for k, v in meta}
    assert doc.slug == "main-2026-11-29T18-30-00Z"


def test_render_doc_adds_a_final_newline() -> None:
    text = ho.render_doc([("slug", "a")], "## Goal\nx")
    assert text == "---\nslug: a\n---\n## Goal\nx\n"


def test_render_doc_crlf_body_gets_crlf_frontmatter() -> None:
    text = ho.render_doc([("slug", "a"), ("consumed", False)], "## Goal\r\nx\r\n")
    assert text == "---\r\nslug: a\r\nconsumed: false\r\n---\r\n## Goal\r\nx\r\n"


# -- replace_section ---------------------------------------------------------------
def test_replace_section_in_place_keeps_the_rest() -> None:
    out = ho.replace_section(
        FULL, "Files touched", "| File | Change | State | Ref |\n| a | b | c | d |"
    )
    assert out.startswith(FULL.split("## Files touched")[0])
    assert out.endswith("## Next step\nRun the auth tests.\n")
    assert "| a | b | c | d |" in out and "token.py" not in out
    assert "## Notes by hand\nkept where it stands\n" in out


def test_replace_section_inserts_by_the_canonical_order() -> None:
    body = "## Goal\ng\n## Decisions\n- d\n## Outstanding\n- o\n## Next step\nn\n"
    out = ho.replace_section(body, "Files touched", "TABLE")
    titles = [s.title for s in ho.split_sections(out)]
    assert titles == ["Goal", "Decisions", "Files touched", "Outstanding", "Next step"]
    assert "## Decisions\n- d\n\n## Files touched\nTABLE\n\n## Outstanding\n" in out


def test_replace_section_appends_when_nothing_follows() -> None:
    out = ho.replace_section("## Goal\ng\n", "Next step", "go")
    assert out == "## Goal\ng\n\n## Next step\ngo\n\n"


def test_replace_section_keeps_crlf() -> None:
    body = "## Goal\r\ng\r\n## Next step\r\nn\r\n"
    out = ho.replace_section(body, "Files touched", "a\nb")
    assert "\n" not in out.replace("\r\n", "")
    assert [s.title for s in ho.split_sections(out)] == ["Goal", "Files touched", "Next step"]


def test_section_content() -> None:
    assert ho.section_content(FULL, "goal") == "Add token expiry to auth."
    assert ho.section_content(FULL, "Artifacts") == ""

"""frontmatter: split, read, render, format_value/unquote and the consumed flip."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.handover import frontmatter as fm

# Text a frontmatter value may hold: anything printable or not, no surrogates.
values = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,15}", fullmatch=True)
bodies = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)


# -- split ----------------------------------------------------------------------
def test_split_frontmatter_and_body() -> None:
    s = fm.split("---\nslug: a\ncreated: 2026-11-29T18:30:00Z\n---\n## Goal\nx\n")
    assert s.has_frontmatter
    assert s.lines == ["slug: a", "created: 2026-11-29T18:30:00Z"]
    assert s.body == "## Goal\nx\n"
    assert s.head == "---\nslug: a\ncreated: 2026-11-29T18:30:00Z\n---\n"


@pytest.mark.parametrize(
    "text",
    ["## Goal\nx\n", "---\nslug: a\nno closing line\n", "", "---", " ---\nslug: a\n---\n"],
)
def test_split_without_frontmatter_keeps_all_as_body(text: str) -> None:
    s = fm.split(text)
    assert not s.has_frontmatter
    assert s.body == text
    assert s.head == ""


def test_split_crlf_bom_and_dots_terminator() -> None:
    s = fm.split("\ufeff---\r\nslug: a\r\n...\r\nbody\r\n")
    assert s.has_frontmatter
    assert s.lines == ["slug: a"]
    assert s.body == "body\r\n"


def test_split_closing_line_at_end_of_file() -> None:
    s = fm.split("---\nslug: a\n---")
    assert s.has_frontmatter and s.body == "" and s.lines == ["slug: a"]


# -- parse / unquote ------------------------------------------------------------
def test_parse_reads_flat_pairs_and_skips_the_rest() -> None:
    meta = fm.parse(
        [
            "slug: feat-auth",
            'branch: "feat/auth"',
            "note: 'it''s fine'",
            "dirty: 3   # three paths",
            "empty:",
            "nested:",
            "  child: skipped",
            "- a list item",
            "# a comment",
            "consumed:   false  ",
        ]
    )
    assert meta == {
        "slug": "feat-auth",
        "branch": "feat/auth",
        "note": "it's fine",
        "dirty": "3",
        "empty": "",
        "nested": "",
        "consumed": "false",
    }


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('"a \\"q\\" b"', 'a "q" b'),
        ('"broken \\x"', "broken \\x"),
        ("'single'", "single"),
        ("plain # comment", "plain"),
        ("a#b", "a#b"),
        ('"1"', "1"),
        ("  spaced  ", "spaced"),
    ],
)
def test_unquote(raw: str, value: str) -> None:
    assert fm.unquote(raw) == value


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (1.5, "1.5"),
        ("feat/auth", "feat/auth"),
        ("2026-11-29T18:30:00Z", "2026-11-29T18:30:00Z"),
        ("true", '"true"'),
        ("no", '"no"'),
        ("null", '"null"'),
        ("", '""'),
        ("812", '"812"'),
        ("a: b", '"a: b"'),
        ("ends:", '"ends:"'),
        ("-dash", '"-dash"'),
        ("with #hash", '"with #hash"'),
        ("line\nbreak", '"line\\nbreak"'),
        ("café", '"café"'),
    ],
)
def test_format_value(value: object, text: str) -> None:
    assert fm.format_value(value) == text


@given(values)
def test_format_value_unquote_round_trip(value: str) -> None:
    text = fm.format_value(value)
    assert "\n" not in text and "\r" not in text
    assert fm.unquote(text) == value


@given(st.lists(st.tuples(keys, values), max_size=8, unique_by=lambda kv: kv[0]))
def test_render_then_read_round_trip(pairs: list[tuple[str, str]]) -> None:
    text = fm.render(list(pairs)) + "## Goal\nbody\n"
    meta = fm.read_meta(text)
    assert meta == dict(pairs)


@pytest.mark.parametrize("value", ["A\n", "main\n", "x\r\n"])
def test_a_trailing_newline_is_quoted_not_written_plain(value: str) -> None:
    # Found by the round trip above: `$` matches before a final "\n", so "A\n" was written
    # plain and the frontmatter gained a blank line and lost the newline.
    assert fm.format_value(value) == json.dumps(value)
    assert fm.read_meta(fm.render([("k", value)])) == {"k": value}


def test_render_uses_the_given_newline() -> None:
    assert fm.render([("slug", "a"), ("consumed", False)], "\r\n") == (
        "---\r\nslug: a\r\nconsumed: false\r\n---\r\n"
    )


def test_read_meta_none_without_frontmatter() -> None:
    assert fm.read_meta("just text\n") is None


# -- flip_consumed ----------------------------------------------------------------
DOC = "---\nslug: a\ncreated: 2026-11-29T18:30:00Z\nconsumed: false\nbranch: main\n---\n"


@given(bodies)
def test_flip_consumed_changes_only_the_frontmatter(body: str) -> None:
    out = fm.flip_consumed(DOC + body, "hook", "2026-11-29T18:31:00Z")
    assert out is not None
    assert out.endswith(body)
    head = out[: len(out) - len(body)] if body else out
    assert head == (
        "---\nslug: a\ncreated: 2026-11-29T18:30:00Z\nconsumed: true\n"
        "consumed_at: 2026-11-29T18:31:00Z\nconsumed_by: hook\nbranch: main\n---\n"
    )


def test_flip_consumed_keeps_crlf_and_bom() -> None:
    text = "\ufeff" + DOC.replace("\n", "\r\n") + "## Goal\r\nx\r\n"
    out = fm.flip_consumed(text, "recall", "T")
    assert out is not None
    assert out.startswith("\ufeff---\r\n")
    assert "consumed: true\r\nconsumed_at: T\r\nconsumed_by: recall\r\n" in out
    assert "\n" not in out.replace("\r\n", "")
    assert out.endswith("## Goal\r\nx\r\n")


def test_flip_consumed_replaces_old_consumed_fields() -> None:
    text = DOC.replace("consumed: false", "consumed_by: hook\nconsumed: false\nconsumed_at: old")
    out = fm.flip_consumed(text, "recall", "new")
    assert out is not None
    assert out.count("consumed_by") == 1 and "consumed_at: new" in out and "old" not in out


@pytest.mark.parametrize(
    "text",
    [
        DOC.replace("consumed: false", "consumed: true"),
        DOC.replace("consumed: false\n", ""),
        "## Goal\nno frontmatter\n",
        DOC.replace("consumed: false", "consumed: maybe"),
    ],
)
def test_flip_consumed_refuses_what_is_not_pending(text: str) -> None:
    assert fm.flip_consumed(text, "hook", "T") is None


def test_flip_consumed_accepts_quoted_false() -> None:
    out = fm.flip_consumed(DOC.replace("consumed: false", 'consumed: "false"'), "hook", "T")
    assert out is not None and "consumed: true" in out


def test_is_false() -> None:
    assert fm.is_false("false") and fm.is_false(" False ")
    assert not fm.is_false(None) and not fm.is_false("no") and not fm.is_false("")


# -- split and parse against the regexes they replaced --------------------------
# `split` and `pair` find lines and colons with str methods (they are on `list`'s path for
# every doc); these regexes are the rules as first written, kept as the oracle.
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[^\S\n]*$", re.MULTILINE)
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*))?$")


def _split_by_regex(text: str) -> tuple[bool, str, list[str], str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].rstrip("\r").rstrip() != "---":
        return (False, "", [], text)
    pos = first_end + 1
    close = _CLOSE_RE.search(text, pos)
    if close is None:
        return (False, "", [], text)
    line_end = min(close.end() + 1, len(text))
    block = text[pos : close.start()]
    lines = [line.rstrip("\r") for line in block[:-1].split("\n")] if block else []
    return (True, text[:line_end], lines, text[line_end:])


def _pair_by_regex(line: str) -> tuple[str, str] | None:
    m = _KEY_RE.match(line)
    return (m.group(1), (m.group(2) or "").strip()) if m else None


# Lines built from the characters the rules turn on, so the odd cases come up often.
_tricky = st.text(
    st.sampled_from(list("-.:# \t\r\n\x0b\x85\u2028\u00a0aZ_9'\"")) | st.characters(), max_size=40
)
_key_lines = st.builds(
    lambda k, sep, v: k + sep + v,
    keys | st.sampled_from(["", " slug", "9x", "a.b", "ключ"]),
    st.sampled_from([":", ": ", " :\t", ":x", ":\x0b", "  :   "]),
    values | _tricky,
)
_lines = st.lists(
    st.one_of(
        st.sampled_from(["---", "...", "--- ", "...\t", "----", "-- -", "---\r", "..", ""]),
        _key_lines,
        _tricky,
    ),
    max_size=8,
)


@given(_lines, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_split_agrees_with_the_regex_rule(
    lines: list[str], newline: str, bom: bool, trailing: bool
) -> None:
    text = ("\ufeff" if bom else "") + "---" + newline + newline.join(lines)
    text += newline if trailing else ""
    s = fm.split(text)
    expected = _split_by_regex(text)
    assert (s.has_frontmatter, s.head, s.lines, s.body) == expected
    pairs = [kv for line in expected[2] if (kv := _pair_by_regex(line))]
    meta = {k: v if v[:1] not in "'\"" and " #" not in v else fm.unquote(v) for k, v in pairs}
    assert fm.read_meta(text) == (meta if expected[0] else None)


@given(_tricky)
def test_split_agrees_with_the_regex_rule_on_any_text(text: str) -> None:
    s = fm.split(text)
    assert (s.has_frontmatter, s.head, s.lines, s.body) == _split_by_regex(text)


@given(_key_lines | _tricky)
def test_pair_agrees_with_the_regex_rule(line: str) -> None:
    if "\n" in line:  # `split` never gives a line holding one
        return
    assert fm.pair(line) == _pair_by_regex(line)


# -- parses: a handover's frontmatter is YAML a loader accepts (SPEC §3) ---------
@pytest.mark.parametrize(
    ("lines", "ok"),
    [
        (["slug: a", "created: 2026-11-29T18:30:00Z", "consumed: false"], True),
        (["created: [unclosed"], False),
        (["slug: a", "note: 'unclosed"], False),
        (["slug: a", 'note: "unclosed'], False),
        (["slug: a", "note: {a: 1"], False),
        (["slug: a", "note: a: b"], False),
        (["slug: a", "just some text"], False),
        (["slug: a", "tags: [a, b]"], True),
        (["slug: a", "files:", "  - a.py"], True),
        (["slug: a", 'branch: "feat: x"', "cwd: /home/me/my app"], True),
        (["slug: a", "branch: feat/\x1b[2Jx"], True),  # a control character: shown escaped
        ([], True),
    ],
)
def test_parses(lines: list[str], ok: bool) -> None:
    assert fm.parses(lines) is ok


@given(st.lists(st.tuples(keys, values), max_size=8, unique_by=lambda kv: kv[0]))
def test_what_render_writes_parses(pairs: list[tuple[str, str]]) -> None:
    lines = fm.render(list(pairs)).split("\n")[1:-2]
    assert fm.parses(lines), lines

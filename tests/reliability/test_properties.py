"""Property tests (issue 6): the parsers and renderers are exact inverses, and `drop`
removes exactly one line of PARKED.md and nothing else, for arbitrary text."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from session_skill.commands.drop import drop
from session_skill.commands.park import park
from session_skill.errors import SessionError
from session_skill.handover import frontmatter
from session_skill.handover.doc import parse_doc, render_doc
from session_skill.store.parked import Parked
from session_skill.store.store import Store
from session_skill.times import parse_time

from .conftest import NOW

# No example database: the suite writes nothing outside its temp dirs.
SETTINGS = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
NOW_DT = parse_time(NOW)

# Any character a file can hold as UTF-8: no lone surrogates.
chars = st.characters(blacklist_categories=("Cs",))
# Text with the line breaks and look-alikes that trip parsers up.
tricky = st.lists(
    st.one_of(
        chars,
        st.sampled_from(["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\ufeff"]),
        st.sampled_from(["---", "...", "- ", "* ", "**", "## ", "```", ":", "#", '"', "'"]),
    ),
    max_size=120,
).map("".join)
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,15}", fullmatch=True)
values = st.text(chars, max_size=60) | st.sampled_from(
    [
        "",
        "true",
        "False",
        "null",
        "~",
        "1.5",
        "1e3",
        "0x1F",
        "2026-11-29",
        "a: b",
        " lead",
        "trail ",
        "#x",
        "a #b",
        "'q'",
        '"q"',
        "…",
        "ключ",
        "\t",
        "a\nb",
        "\\",
        "{a: 1}",
        "[1]",
    ]
)


# -- handover docs --------------------------------------------------------------------
@SETTINGS
@given(
    meta=st.lists(st.tuples(keys, values), max_size=8, unique_by=lambda kv: kv[0]),
    slug=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,40}", fullmatch=True),
    body=tricky,
    crlf=st.booleans(),
)
@example(meta=[("note", "a\u2028b")], slug="x", body="## Goal\r\nx\r\n", crlf=False)
def test_doc_render_then_parse_gives_back_meta_and_body(
    meta: list[tuple[str, str]], slug: str, body: str, crlf: bool
) -> None:
    pairs = [("slug", slug), *[(k, v) for k, v in meta if k != "slug"]]
    if crlf:
        body = body.replace("\r\n", "\n").replace("\n", "\r\n")
    text = render_doc(pairs, body)
    doc = parse_doc(text)
    assert doc is not None
    assert doc.meta == dict(pairs)
    nl = "\r\n" if "\r\n" in body else "\n"
    assert doc.body == (body if not body or body.endswith("\n") else body + nl)
    # The hook's flip touches the frontmatter only: the body keeps every byte.
    flipped = frontmatter.flip_consumed(
        render_doc([*pairs, ("consumed", False)], body), "hook", NOW
    )
    assert flipped is not None
    after = parse_doc(flipped)
    assert after is not None and after.body == doc.body
    assert after.meta["consumed"] == "true" and after.meta["consumed_by"] == "hook"
    assert {k: v for k, v in after.meta.items() if not k.startswith("consumed")} == dict(pairs)


# -- PARKED.md ------------------------------------------------------------------------
@SETTINGS
@given(text=tricky)
def test_parked_parse_then_render_is_byte_identical(text: str) -> None:
    parked = Parked(text)
    assert parked.render() == text
    for item in parked.items:  # every item points at its own line
        assert parked.lines[item.line_no].rstrip("\r\n") == item.line


line_text = st.lists(
    st.one_of(chars, st.sampled_from(["\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "**"])),
    max_size=40,
).map(lambda parts: "".join(parts).replace("\n", " "))
parked_line = st.one_of(
    line_text.map(lambda t: "- " + t),  # an item
    line_text.map(lambda t: "* [ ] " + t),  # an item in checkbox form
    st.builds(
        lambda s, t: f"- **{s}** — {t}. Raised: 2026-11-20.",
        st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True),
        line_text,
    ),
    line_text,  # headings, notes, anything
)


def _lines_keepends(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


@SETTINGS
@given(
    lines=st.lists(parked_line, min_size=1, max_size=12),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    pick=st.integers(min_value=0),
)
@example(lines=["- a\u2028b", "- c"], crlf=False, final_newline=True, pick=0)
@example(lines=["- a\rb", "- c"], crlf=False, final_newline=True, pick=0)
def test_drop_removes_exactly_one_line_and_nothing_else(
    lines: list[str], crlf: bool, final_newline: bool, pick: int
) -> None:
    nl = "\r\n" if crlf else "\n"
    text = nl.join(lines) + (nl if final_newline else "")
    if "```" in text or "~~~" in text:
        return  # fenced blocks hold no items: tests/store/test_parked.py
    item_rows = [i for i, line in enumerate(lines) if Parked(line + "\n").items]
    if not item_rows:
        return
    n = pick % len(item_rows) + 1
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp))
        store.ensure()
        (store.dir / "PARKED.md").write_bytes(text.encode("utf-8"))
        out = drop(store, f"#{n}", as_json=True, now=NOW_DT)
        after = (store.dir / "PARKED.md").read_bytes().decode("utf-8")
        log = (store.dir / "dropped.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    expected = _lines_keepends(text)
    row = item_rows[n - 1]
    gone = expected.pop(row)
    # The indented lines right under the item are its notes: they go with it (issue 11).
    while row < len(expected) and expected[row][:1] in (" ", "\t") and expected[row].strip():
        expected.pop(row)
    assert after == "".join(expected)
    assert len(log) == 1
    rec = json.loads(log[0])
    assert rec["line"] == gone.rstrip("\r\n") == json.loads(out.text)["record"]["line"]


@SETTINGS
@given(
    lines=st.lists(parked_line, max_size=8),
    idea=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=80),
    crlf=st.booleans(),
)
def test_park_then_drop_gives_back_the_same_bytes(lines: list[str], idea: str, crlf: bool) -> None:
    nl = "\r\n" if crlf else "\n"
    text = "# Parked items" + nl + nl + "".join(line + nl for line in lines)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp))
        store.ensure()
        (store.dir / "PARKED.md").write_bytes(text.encode("utf-8"))
        try:
            parked = json.loads(park(store, idea, as_json=True, now=NOW_DT).text)
        except SessionError:
            return  # nothing to park (only spaces, or over the limit)
        if parked["action"] != "parked":
            return  # a near-duplicate of an item already there: nothing was added
        drop(store, parked["slug"], as_json=True, now=NOW_DT)
        assert (store.dir / "PARKED.md").read_bytes() == text.encode("utf-8")

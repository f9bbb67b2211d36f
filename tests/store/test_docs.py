"""docs: which store files are handovers, newest first, read from their heads only."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.handover import frontmatter
from session_skill.store import docs
from session_skill.store.store import Store
from tests.conftest import write_doc

NOW = datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)


def test_all_docs_newest_first_and_only_docs(project: Path) -> None:
    store = Store(project)
    store.ensure()
    write_doc(store.dir, "older", created="2026-11-20T10:00:00Z")
    write_doc(store.dir, "newer", created="2026-11-29T10:00:00Z")
    handmade = write_doc(store.dir, "handmade", created=None)  # slug only: mtime orders it
    t = datetime(2026, 11, 25, tzinfo=timezone.utc).timestamp()
    os.utime(handmade, (t, t))
    (store.dir / "README.md").write_text("# notes about this folder\n")
    (store.dir / "backup.md").write_text("---\ntitle: editor backup\n---\n")
    got = docs.all_docs(store)
    assert [d.slug for d in got] == ["newer", "handmade", "older"]
    assert got[1].created is None
    assert got[1].when == datetime(2026, 11, 25, tzinfo=timezone.utc)


def test_slug_comes_from_the_file_name(project: Path) -> None:
    store = Store(project)
    store.ensure()
    path = write_doc(store.dir, "real-name")
    path.write_text(path.read_text().replace("slug: real-name", "slug: something-else"))
    (d,) = docs.all_docs(store)
    assert d.slug == "real-name"


def test_read_meta_of_a_long_frontmatter(tmp_path: Path) -> None:
    p = tmp_path / "x.md"
    filler = "".join(f"k{i}: {'v' * 50}\n" for i in range(300))
    p.write_text("---\nslug: x\n" + filler + "---\nbody\n")
    meta = docs.read_meta(p)
    assert meta is not None and meta["slug"] == "x" and meta["k299"] == "v" * 50


def test_read_meta_is_lenient_about_bytes(tmp_path: Path) -> None:
    p = tmp_path / "x.md"
    p.write_bytes(b"---\nslug: x\nnote: caf\xe9\n---\nbody\n")
    meta = docs.read_meta(p)
    assert meta is not None and meta["slug"] == "x"


def test_info_fields(project: Path) -> None:
    store = Store(project)
    path = write_doc(store.dir, "plan-x", consumed=True, branch="feat/auth")
    d = docs.info(path)
    assert d is not None
    assert (d.slug, d.consumed, d.branch) == ("plan-x", True, "feat/auth")
    assert d.created == NOW


def test_banner_line(project: Path) -> None:
    store = Store(project)
    d = docs.info(write_doc(store.dir, "plan-x", created="2026-11-29T18:18:00Z"))
    assert d is not None
    assert docs.banner_line(d, NOW) == "Handover `plan-x` · written 12 min ago · main"
    d2 = docs.info(write_doc(store.dir, "nobranch", branch=None))
    assert d2 is not None
    assert docs.banner_line(d2, NOW).endswith("· unknown branch")


def test_missing_store_has_no_docs(tmp_path: Path) -> None:
    assert docs.all_docs(Store(tmp_path)) == []


def test_read_meta_agrees_with_the_whole_file_at_every_page_boundary(tmp_path: Path) -> None:
    """The head is read one page first and decoded to its last whole line: a frontmatter
    that closes, or a multi-byte character that sits, on either side of byte 4,096 reads
    exactly as the whole file does."""
    from session_skill.handover import frontmatter

    p = tmp_path / "x.md"
    for pad in range(4060, 4110, 3):
        tails = {"---\nbody\n" + "x" * 5000: True, "---": True, "...   \n## Goal\n": True,
                 "----\nnot closed\n" + "x" * 5000: False}  # fmt: skip
        for tail, closes in tails.items():
            text = "---\nslug: x\nnote: " + "é" * ((pad - 20) // 2) + "z" * (pad % 2)
            text += "\nbranch: main\n" + tail
            p.write_text(text)
            whole = frontmatter.read_meta(text)
            assert (whole is not None) == closes
            assert docs.read_meta(p) == whole, (pad, tail[:10])
            assert not closes or whole and whole["branch"] == "main"


def test_info_takes_the_mtime_of_the_file_it_read(project: Path) -> None:
    store = Store(project)
    path = write_doc(store.dir, "plan-x")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    d = docs.info(path)
    assert d is not None and d.mtime == 1_700_000_000


def test_docs_of_one_second_are_in_the_order_they_were_created(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 #12: `x`, `x-2`, `x-3` of one second, whatever order the folder lists."""
    from session_skill.store import paths

    store = Store(project)
    store.ensure()
    for slug in ("x", "x-2", "x-3", "x-10"):
        write_doc(store.dir, slug, created="2026-11-29T10:00:00Z")
    write_doc(store.dir, "older", created="2026-11-20T10:00:00Z")
    listed = paths.doc_entries
    for backwards in (False, True):
        monkeypatch.setattr(
            paths,
            "doc_entries",
            lambda d, b=backwards: sorted(listed(d), key=lambda e: e.name, reverse=b),
        )
        assert [d.slug for d in docs.all_docs(store)] == ["x-10", "x-3", "x-2", "x", "older"]


HEAD_LINES = st.sampled_from(
    [
        "slug: a",
        "created: 2026-11-29T18:30:00Z",
        "created:2026",
        "created : 2026-11-29T18:30:00Z",
        "created:",
        "created_at: x",
        "branch: main",
        "  slug: indented",
        "---x",
        "...",
        "---",
        "--- ",
        "text",
        "",
    ]
)


@given(
    bom=st.booleans(),
    crlf=st.booleans(),
    opener=st.sampled_from(["---", "--- ", "---\t", "----", "x"]),
    lines=st.lists(HEAD_LINES, max_size=6),
    body=st.sampled_from(["", "## Goal\nx\n", "---\nmore\n"]),
)
def test_split_head_reads_a_head_as_frontmatter_does(
    bom: bool, crlf: bool, opener: str, lines: list[str], body: str
) -> None:
    nl = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + nl.join([opener, *lines, body])
    s = frontmatter.split(text)
    meta = frontmatter.parse(s.lines) if s.has_frontmatter else {}
    is_doc = "created" in meta or "slug" in meta
    got = docs.split_head(text.encode())
    assert (got is not None) == is_doc
    if got is not None:
        body_at, created = got
        assert text.encode()[body_at:] == s.body.encode()
        want = meta.get("created")
        assert (created.decode() if created is not None else None) == want


@given(
    bom=st.booleans(),
    crlf=st.booleans(),
    opener=st.sampled_from(["---", "--- ", "x"]),
    lines=st.lists(
        HEAD_LINES | st.sampled_from(["note: \u00a0---", "--- \u00a0", "...\u2003"]), max_size=6
    ),
    body=st.sampled_from(["", "## Goal\nx\n", "---\nmore\n", "slug: late\n---\n"]),
)
def test_read_meta_reads_a_head_as_the_whole_file_does(
    tmp_path_factory: pytest.TempPathFactory,
    bom: bool,
    crlf: bool,
    opener: str,
    lines: list[str],
    body: str,
) -> None:
    """`_head` decodes only up to the line its bytes say closes the frontmatter: that line
    is the text's closing line or a later one (the bytes strip ASCII blanks only), so the
    meta read is the whole file's — blanks the text strips and the bytes do not included."""
    nl = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + nl.join([opener, *lines, body])
    p = tmp_path_factory.mktemp("head") / "x.md"
    p.write_bytes(text.encode())
    whole = frontmatter.read_meta(text)
    want = whole if whole is not None and ("created" in whole or "slug" in whole) else None
    assert docs.read_meta(p) == want

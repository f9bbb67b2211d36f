"""Hostile input (issue 6): each case runs the real CLI (or hook) as a new process and
asserts its exit code, its message, and that nothing else changed — every file of the
project, the store, a directory outside it and HOME is compared byte for byte before and
after, and the set of paths that changed must be exactly the expected one.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from session_skill.store.parked import Parked

from .conftest import (
    BODY,
    NOW,
    Result,
    changed,
    hook_payload,
    run_cli,
    snapshot,
    without_dac_override,
    write_doc,
)

S = ".claude/state/session/"  # the store, relative to the project
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
PARKED_TEXT = (
    "# Parked items\n\n"
    "- **retry-backoff** — revisit exponential vs linear. Raised: 2026-11-20.\n"
    "- **split-ratio** — 80/20 vs 70/30 never settled. Raised: 2026-11-02.\n"
    "- **cache-warmup** — warm the cache before the load test. Raised: 2026-11-28.\n"
)
TODAY = NOW[:10]
NO_PENDING = "No pending handover. → /session list"
BIG = 100_000


@dataclass
class Case:
    id: str
    args: tuple[str, ...]  # `{proj}` and `{tmp}` are filled in; ("hook",) runs the hook
    code: int
    err: str = ""  # a substring of stderr; "" means stderr must be empty
    out: str | None = None  # a substring of stdout
    stdin: bytes = b""
    setup: Callable[[Path, Path], None] | None = None  # (project, tmp)
    changes: frozenset[str] = field(default_factory=frozenset)  # paths under the project
    check: Callable[[Path, Path, Result], None] | None = None
    readonly: bool = False


# -- setups -------------------------------------------------------------------------
def base(proj: Path, tmp: Path) -> None:
    """A lived-in store: three parked items, one consumed handover, no LATEST."""
    sd = proj / S
    sd.mkdir(parents=True)
    (sd / ".gitignore").write_text("*\n")
    (sd / ".lock").write_bytes(b"")
    (sd / "PARKED.md").write_text(PARKED_TEXT)
    write_doc(proj, "old-plan", created="2026-11-28T10:00:00Z", consumed="true")
    (tmp / "outside").mkdir()
    (tmp / "outside" / "secret.txt").write_text("do not touch\n")


def with_(*steps: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    def setup(proj: Path, tmp: Path) -> None:
        base(proj, tmp)
        for step in steps:
            step(proj, tmp)

    return setup


def parked_bytes(data: bytes) -> Callable[[Path, Path], None]:
    return lambda proj, tmp: (proj / S / "PARKED.md").write_bytes(data)


def latest(data: bytes) -> Callable[[Path, Path], None]:
    return lambda proj, tmp: (proj / S / "LATEST").write_bytes(data)


def pending(slug: str = "fresh-plan", body: str = BODY) -> Callable[[Path, Path], None]:
    def step(proj: Path, tmp: Path) -> None:
        write_doc(proj, slug, body=body)
        (proj / S / "LATEST").write_text(slug + "\n")

    return step


def doc_text(name: str, text: str) -> Callable[[Path, Path], None]:
    return lambda proj, tmp: (proj / S / name).write_text(text)


def big_parked(proj: Path, tmp: Path) -> None:
    lines = [
        f"- **item-{i:06d}** — parked idea {i} about topic {i % 97}. Raised: 2026-11-20.\n"
        for i in range(1, BIG + 1)
    ]
    (proj / S / "PARKED.md").write_text("# Parked items\n\n" + "".join(lines))


def store_symlink(proj: Path, tmp: Path) -> None:
    real = tmp / "outside" / "store"
    (proj / S).rename(real)
    (proj / S.rstrip("/")).symlink_to(real)


def store_file(proj: Path, tmp: Path) -> None:
    sd = proj / S.rstrip("/")
    for p in sd.iterdir():
        p.unlink()
    sd.rmdir()
    sd.write_text("not a directory\n")


def state_file(proj: Path, tmp: Path) -> None:
    store_file(proj, tmp)
    (proj / S.rstrip("/")).unlink()
    (proj / ".claude" / "state").rmdir()
    (proj / ".claude" / "state").write_text("a file where a directory should be\n")


def read_only(proj: Path, tmp: Path) -> None:
    sd = proj / S
    for p in sd.iterdir():
        p.chmod(0o444)
    sd.chmod(0o555)


def transcript(kind: str) -> Callable[[Path, Path], None]:
    def step(proj: Path, tmp: Path) -> None:
        src = (FIXTURES / "claude_loose_ends.jsonl").read_bytes()
        if kind == "truncated":
            data = src[:-300]
        elif kind == "invalid":
            junk = [
                b"not json at all",
                b"{",
                b"[1, 2, 3]",
                b"null",
                b'"a string"',
                b"\xff\xfe\x00binary\x80",
                b'{"type": "user"}',
                b'{"type": "assistant", "message": 7}',
                b"",
                b'{"type": "user", "message": {"content": [' + b'{"x": 1},' * 20000 + b"{}]}}",
                # nested past Python's recursion limit: json.loads raises RecursionError
                b'{"type": "assistant", "message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            ]
            out = []
            for i, line in enumerate(src.splitlines()):
                out += [line, junk[i % len(junk)]]
            data = b"\n".join(out) + b"\n"
        elif kind == "binary":
            data = random.Random(6).randbytes(200_000)
        else:
            raise AssertionError(kind)
        (tmp / "t.jsonl").write_bytes(data)

    return step


# -- checks ---------------------------------------------------------------------------
def parked_now(proj: Path) -> bytes:
    return (proj / S / "PARKED.md").read_bytes()


def appended(line: bytes) -> Callable[[Path, Path, Result], None]:
    def check(proj: Path, tmp: Path, r: Result) -> None:
        assert parked_now(proj) == tmp.joinpath("parked.before").read_bytes() + line

    return check


def removed(n: int) -> Callable[[Path, Path, Result], None]:
    """PARKED.md is the old file minus its n-th item's line, every other byte unchanged."""

    def check(proj: Path, tmp: Path, r: Result) -> None:
        old = tmp.joinpath("parked.before").read_bytes()
        parts = old.split(b"\n")
        lines = [p + b"\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        item_lines = [i for i, line in enumerate(lines) if line.startswith(b"- ")]
        gone = lines.pop(item_lines[n - 1])
        assert parked_now(proj) == b"".join(lines)
        rec = json.loads((proj / S / "dropped.jsonl").read_text().splitlines()[-1])
        assert rec["line"].encode() == gone.rstrip(b"\r\n")

    return check


def short_error(proj: Path, tmp: Path, r: Result) -> None:
    assert len(r.err) < 300, len(r.err)  # a pasted 10 KB payload is not echoed back


def stdout_len(n_lines: int) -> Callable[[Path, Path, Result], None]:
    def check(proj: Path, tmp: Path, r: Result) -> None:
        assert len(r.out.splitlines()) >= n_lines

    return check


def same_sweep_as_clean(proj: Path, tmp: Path, r: Result) -> None:
    clean_path = str(FIXTURES / "claude_loose_ends.jsonl")
    clean = run_cli(proj, "sweep", "--transcript", clean_path)
    assert clean.code == 0 and "## Unlanded — 3 items" in clean.out
    # The junk lines were skipped and counted (issue 11 #12), nothing else changed.
    got = r.out.replace(str(tmp / "t.jsonl"), clean_path)
    assert re.search(r" \(\d+ unreadable lines skipped\)\n$", got), r.out
    assert re.sub(r" \(\d+ unreadable lines skipped\)\n$", "\n", got) == clean.out


def hook_silent(proj: Path, tmp: Path, r: Result) -> None:
    assert r.out == ""


WORDS_10K = "word " * 2048
SLUG_10K = "word-word-word-word-word-word-word-word-word-word-word-word"
DUMP = ("dump", "--file", "-")
HOOK = ("hook",)
BOM_PARKED = b"\xef\xbb\xbf" + PARKED_TEXT.encode()
CRLF_PARKED = PARKED_TEXT.replace("\n", "\r\n").encode()
NOEOL_PARKED = PARKED_TEXT.rstrip("\n").encode()
GARBAGE = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\xfd" + bytes(range(256)) * 8
BIG_BODY = "## Goal\n" + "word " * 1_000_000 + "\n\n## Next step\nGo.\n"
DOC_5MB = "---\nslug: huge\ncreated: " + NOW + "\nconsumed: false\n---\n" + BIG_BODY
BROKEN_YAML = (
    "---\nslug: broken\ncreated: 2026-11-29T18:00:00Z\nconsumed: false\n"
    'tags: [unclosed\n  - : : :\n"dangling quote\n\tindent: {a: b\n---\n'
    "## Goal\nStill readable.\n\n## Next step\nFix the YAML.\n"
)
LATEST_DOC = frozenset({S + "LATEST"})
DOC_AND_LATEST = lambda slug: frozenset({S + f"{slug}.md", S + "LATEST"})  # noqa: E731
PARKED = frozenset({S + "PARKED.md"})
# Every output that numbers the parked items records the numbers it printed (issue 21 #6):
# a `list`, and the list a refused drop prints. Nothing the user wrote changes.
NUMBERS = frozenset({S + "numbers.json"})
# A drop also records the numbers it reprints the other items with (issue 11).
PARKED_AND_LOG = frozenset({S + "PARKED.md", S + "dropped.jsonl", S + "numbers.json"})
# …and a sweep what each of its numbers stood for, so that `--park N` takes the one shown.
SWEPT = frozenset({S + "swept.json"})
BULLET = f"- **{{}}** — {{}}. Raised: {TODAY}."

CASES = [
    # -- dump names -----------------------------------------------------------------
    Case(
        "name-dotdot-slash",
        ("dump", "../evil", "--file", "-"),
        1,
        "may not contain",
        stdin=BODY.encode(),
    ),
    Case(
        "name-deep-traversal",
        ("dump", "../../etc/passwd", "--file", "-"),
        1,
        "may not contain",
        stdin=BODY.encode(),
    ),
    Case(
        "name-absolute",
        ("dump", "/etc/passwd", "--file", "-"),
        1,
        "may not contain",
        stdin=BODY.encode(),
    ),
    Case(
        "name-absolute-into-tmp",
        ("dump", "{tmp}/outside/x", "--file", "-"),
        1,
        "may not contain",
        stdin=BODY.encode(),
    ),
    Case(
        "name-backslashes",
        ("dump", "..\\..\\evil", "--file", "-"),
        1,
        "may not contain",
        stdin=BODY.encode(),
    ),
    Case("name-dotdot", ("dump", "..", "--file", "-"), 1, "may not contain", stdin=BODY.encode()),
    Case(
        "name-newline",
        ("dump", "plan\nnext", "--file", "-"),
        1,
        "control characters",
        stdin=BODY.encode(),
    ),
    Case(
        "name-carriage-return",
        ("dump", "plan\r", "--file", "-"),
        1,
        "control characters",
        stdin=BODY.encode(),
    ),
    Case(
        "name-nul-through-dispatch",
        ("dispatch",),
        1,
        "control characters",
        stdin=b"dump plan\x00evil",
    ),
    Case(
        "name-reserved-latest",
        ("dump", "LATEST", "--file", "-"),
        1,
        "'latest' is reserved",
        stdin=BODY.encode(),
    ),
    Case(
        "name-reserved-parked",
        ("dump", "Parked", "--file", "-"),
        1,
        "'parked' is reserved",
        stdin=BODY.encode(),
    ),
    Case(
        "name-punctuation-only",
        ("dump", "!!! ???", "--file", "-"),
        1,
        "no letters or digits",
        stdin=BODY.encode(),
    ),
    Case(
        "name-10kb-traversal",
        ("dump", "a" * 10_240 + "/../x", "--file", "-"),
        1,
        "may not contain",
        stdin=BODY.encode(),
        check=short_error,
    ),
    Case(
        "name-10kb-words",
        ("dump", WORDS_10K, "--file", "-"),
        0,
        out=f"/{SLUG_10K}.md (",
        stdin=BODY.encode(),
        changes=DOC_AND_LATEST(SLUG_10K),
    ),
    Case("dump-body-not-utf8", DUMP, 1, "stdin is not UTF-8", stdin=b"## Goal\n\xff\xfe\n"),
    Case(
        "dump-body-5mb",
        DUMP,
        3,
        "the cap is 1500",
        out="| Goal | 1000004 |",
        stdin=BIG_BODY.encode(),
    ),
    # -- park / drop payloads -----------------------------------------------------
    Case("park-nul", ("park",), 1, "control characters", stdin=b"an idea\x00with a NUL"),
    Case(
        "park-escape-sequence",
        ("park",),
        1,
        "control characters",
        stdin=b"clear \x1b[2J the screen",
    ),
    Case(
        "park-10kb",
        ("park", "x" * 10_240),
        1,
        "10240 characters; 1000 is the most",
        check=short_error,
    ),
    Case("park-only-whitespace", ("park",), 1, "nothing to park", stdin=b" \t \n \r\n \x0b "),
    Case("park-not-utf8", ("park",), 1, "stdin is not UTF-8", stdin=b"caf\xe9 idea"),
    Case(
        "park-markdown-injection-is-one-line",
        ("park",),
        0,
        # A pasted bullet is that item (issue 11): its `- ` marker is not part of the text.
        out="Parked: x (4 open)",
        stdin=b"- **x** \xe2\x80\x94 injected\n# Heading\n- second\n",
        changes=PARKED,
        check=appended(
            "- **x** — injected # Heading - second. Raised: ".encode() + TODAY.encode() + b".\n"
        ),
    ),
    Case(
        "drop-nul",
        ("drop",),
        1,
        "no parked item matches 'zz\\x00yy'",
        stdin=b"zz\x00yy",
        changes=NUMBERS,
    ),
    Case(
        "drop-10kb",
        ("drop",),
        1,
        "no parked item matches 'qqqq",
        stdin=b"q" * 10_240,
        check=short_error,
        changes=NUMBERS,
    ),
    Case("drop-only-whitespace", ("drop",), 1, "nothing to drop", stdin=b"  \n\t "),
    Case("drop-#0", ("drop", "#0"), 1, "there is no item #0 (3 open)", changes=NUMBERS),
    Case("drop-#999", ("drop", "#999"), 1, "there is no item #999 (3 open)", changes=NUMBERS),
    # -- PARKED.md as people leave it ---------------------------------------------
    Case(
        "parked-binary-park",
        ("park", "new idea here"),
        1,
        "PARKED.md is not UTF-8",
        setup=with_(parked_bytes(GARBAGE)),
    ),
    Case(
        "parked-binary-drop",
        ("drop", "#1"),
        1,
        "PARKED.md is not UTF-8",
        setup=with_(parked_bytes(GARBAGE)),
    ),
    Case(
        "parked-binary-list",
        ("list",),
        1,
        "PARKED.md is not UTF-8",
        setup=with_(parked_bytes(GARBAGE)),
    ),
    Case(
        "parked-crlf-park",
        ("park", "new idea here"),
        0,
        out="Parked: new-idea-here (4 open)",
        setup=with_(parked_bytes(CRLF_PARKED)),
        changes=PARKED,
        check=appended(BULLET.format("new-idea-here", "new idea here").encode() + b"\r\n"),
    ),
    Case(
        "parked-crlf-drop",
        ("drop", "#2"),
        0,
        out="Dropped: split-ratio (2 open)",
        setup=with_(parked_bytes(CRLF_PARKED)),
        changes=PARKED_AND_LOG,
        check=removed(2),
    ),
    Case(
        "parked-no-final-newline-park",
        ("park", "new idea here"),
        0,
        out="(4 open)",
        setup=with_(parked_bytes(NOEOL_PARKED)),
        changes=PARKED,
        check=appended(b"\n" + BULLET.format("new-idea-here", "new idea here").encode() + b"\n"),
    ),
    Case(
        "parked-no-final-newline-drop-last",
        ("drop", "cache-warmup"),
        0,
        out="Dropped: cache-warmup (2 open)",
        setup=with_(parked_bytes(NOEOL_PARKED)),
        changes=PARKED_AND_LOG,
        check=removed(3),
    ),
    Case(
        "parked-bom-park",
        ("park", "new idea here"),
        0,
        out="Parked: new-idea-here (4 open)",
        setup=with_(parked_bytes(BOM_PARKED)),
        changes=PARKED,
        # Items are read through the BOM; the rewrite keeps every byte, the BOM included.
        check=lambda proj, tmp, r: (
            parked_now(proj)
            == BOM_PARKED + BULLET.format("new-idea-here", "new idea here").encode() + b"\n"
            or pytest.fail(repr(parked_now(proj)[:80]))
        ),
    ),
    Case(
        f"parked-{BIG}-list",
        ("list",),
        0,
        out=f"### Parked ({BIG} open)",
        setup=with_(big_parked),
        check=stdout_len(BIG),
        changes=NUMBERS,
    ),
    Case(
        f"parked-{BIG}-park",
        ("park", "a brand new idea"),
        0,
        out=f"Parked: a-brand-new-idea ({BIG + 1} open)",
        setup=with_(big_parked),
        changes=PARKED,
        check=appended(BULLET.format("a-brand-new-idea", "a brand new idea").encode() + b"\n"),
    ),
    Case(
        f"parked-{BIG}-drop-#N",
        ("drop", "#50000"),
        0,
        out=f"Dropped: item-050000 ({BIG - 1} open)",
        setup=with_(big_parked),
        changes=PARKED_AND_LOG,
        check=removed(50_000),
    ),
    Case(
        f"parked-{BIG}-drop-slug",
        ("drop", "item-099999"),
        0,
        out=f"Dropped: item-099999 ({BIG - 1} open)",
        setup=with_(big_parked),
        changes=PARKED_AND_LOG,
        check=removed(99_999),
    ),
    Case(
        "parked-is-a-directory",
        ("park", "new idea here"),
        1,
        "PARKED.md is a directory",
        setup=with_(lambda p, t: ((p / S / "PARKED.md").unlink(), (p / S / "PARKED.md").mkdir())),
    ),
    Case(
        "parked-symlink-outside",
        ("park", "new idea here"),
        1,
        "symlink leading outside the store",
        setup=with_(
            lambda p, t: (
                (p / S / "PARKED.md").unlink(),
                (p / S / "PARKED.md").symlink_to(t / "outside" / "secret.txt"),
            )
        ),
    ),
    Case(
        "dropped-log-symlink-outside",
        ("drop", "#1"),
        1,
        "symlink leading outside the store",
        setup=with_(
            lambda p, t: (p / S / "dropped.jsonl").symlink_to(t / "outside" / "secret.txt")
        ),
    ),
    Case(
        "dropped-log-torn-and-junk",
        ("drop", "#1"),
        0,
        out="Dropped: retry-backoff (2 open)",
        setup=with_(
            lambda p, t: (p / S / "dropped.jsonl").write_bytes(
                b'not json\n{"item": "x"}\n{"ts": "torn'
            )
        ),
        changes=PARKED_AND_LOG,
        check=lambda p, t, r: (
            (p / S / "dropped.jsonl")
            .read_bytes()
            .startswith(b'not json\n{"item": "x"}\n{"ts": "torn\n{"ts": ')
            or pytest.fail((p / S / "dropped.jsonl").read_text())
        ),
    ),
    # -- handover docs ----------------------------------------------------------------
    Case(
        "doc-broken-yaml-list",
        ("list",),
        0,
        out="| `broken` | 30 min | — | no |",
        setup=with_(doc_text("broken.md", BROKEN_YAML)),
        changes=NUMBERS,
    ),
    Case(
        "doc-broken-yaml-recall",
        ("recall", "broken", "--peek"),
        0,
        out="## Goal\nStill readable.",
        setup=with_(doc_text("broken.md", BROKEN_YAML)),
    ),
    Case(
        "doc-no-frontmatter-not-listed",
        ("list", "--json"),
        0,
        out='"slug": "old-plan"',
        setup=with_(doc_text("notes.md", "## Goal\nJust notes.\n")),
        check=lambda p, t, r: (
            [h["slug"] for h in json.loads(r.out)["handovers"]] == ["old-plan"]
            or pytest.fail(r.out)
        ),
        changes=NUMBERS,
    ),
    Case(
        "latest-names-a-non-doc",
        ("recall",),
        0,
        out=NO_PENDING,
        setup=with_(doc_text("notes.md", "## Goal\nJust notes.\n"), latest(b"notes\n")),
        changes=LATEST_DOC,
    ),
    Case(
        "doc-5mb-list",
        ("list",),
        0,
        out="| `huge` | <1 min | — | no |",
        setup=with_(doc_text("huge.md", DOC_5MB)),
        changes=NUMBERS,
    ),
    Case(
        "doc-5mb-hook-stays-silent",
        HOOK,
        0,
        setup=with_(doc_text("huge.md", DOC_5MB), latest(b"huge\n")),
        check=hook_silent,
    ),
    Case(
        "doc-5mb-recall-peek",
        ("recall", "huge", "--peek"),
        0,
        out="word word",
        setup=with_(doc_text("huge.md", DOC_5MB)),
    ),
    Case(
        "doc-created-out-of-range",
        ("list", "--json"),
        0,
        out='"slug": "ovf"',
        setup=with_(
            doc_text(
                "ovf.md",
                "---\nslug: ovf\ncreated: 0001-01-01T00:00:00+05:00\nconsumed: false\n---\n" + BODY,
            )
        ),
        changes=NUMBERS,
    ),
    Case(
        "doc-symlink-outside-is-not-a-doc",
        ("recall", "leak"),
        1,
        "no handover matches 'leak'",
        setup=with_(lambda p, t: (p / S / "leak.md").symlink_to(t / "outside" / "secret.txt")),
    ),
    # -- LATEST ---------------------------------------------------------------------------
    Case(
        "latest-traversal-recall",
        ("recall",),
        0,
        out=NO_PENDING,
        setup=with_(latest(b"../../etc/passwd\n")),
    ),
    Case(
        "latest-traversal-hook",
        HOOK,
        0,
        setup=with_(latest(b"../../etc/passwd\n")),
        check=hook_silent,
    ),
    Case(
        "latest-1mb-junk-recall",
        ("recall",),
        0,
        out=NO_PENDING,
        setup=with_(latest(random.Random(1).randbytes(1 << 20))),
    ),
    Case(
        "latest-1mb-junk-hook",
        HOOK,
        0,
        setup=with_(pending(), latest(b"fresh-plan" * 100_000)),
        check=hook_silent,
    ),
    Case(
        "latest-missing-doc-recall",
        ("recall",),
        0,
        out=NO_PENDING,
        setup=with_(latest(b"gone\n")),
        changes=LATEST_DOC,
    ),
    Case("latest-missing-doc-hook", HOOK, 0, setup=with_(latest(b"gone\n")), check=hook_silent),
    # -- the store itself -----------------------------------------------------------------
    Case(
        "store-symlink-park",
        ("park", "new idea here"),
        1,
        "is a symlink; refusing to write through it",
        setup=with_(store_symlink),
    ),
    Case(
        "store-symlink-dump",
        DUMP,
        1,
        "is a symlink; refusing to write through it",
        stdin=BODY.encode(),
        setup=with_(store_symlink),
    ),
    Case("store-symlink-drop", ("drop", "#1"), 1, "no parked items", setup=with_(store_symlink)),
    Case(
        "store-symlink-list",
        ("list",),
        0,
        out="No stored handovers, no parked items.",
        setup=with_(store_symlink),
    ),
    Case("store-symlink-hook", HOOK, 0, setup=with_(pending(), store_symlink), check=hook_silent),
    Case(
        "store-is-a-file-park",
        ("park", "new idea here"),
        1,
        "exists and is not a directory",
        setup=with_(store_file),
    ),
    Case(
        "store-is-a-file-dump",
        DUMP,
        1,
        "exists and is not a directory",
        stdin=BODY.encode(),
        setup=with_(store_file),
    ),
    Case(
        "store-is-a-file-list",
        ("list",),
        0,
        out="No stored handovers, no parked items.",
        setup=with_(store_file),
    ),
    Case(
        "store-parent-is-a-file-park",
        ("park", "new idea here"),
        1,
        "cannot create the store",
        setup=with_(state_file),
    ),
    Case(
        "store-read-only-park",
        ("park", "new idea here"),
        1,
        "Permission denied",
        setup=with_(read_only),
        readonly=True,
    ),
    Case(
        "store-read-only-drop",
        ("drop", "#1"),
        1,
        "Permission denied",
        setup=with_(read_only),
        readonly=True,
    ),
    Case(
        "store-read-only-dump",
        DUMP,
        1,
        "Permission denied",
        stdin=BODY.encode(),
        setup=with_(read_only),
        readonly=True,
    ),
    Case(
        "store-read-only-list",
        ("list",),
        0,
        out="### Parked (3 open)",
        setup=with_(read_only),
        readonly=True,
    ),
    Case(
        "store-read-only-hook",
        HOOK,
        0,
        "Permission denied",
        setup=with_(pending(), read_only),
        readonly=True,
        check=hook_silent,
    ),
    # -- transcripts ----------------------------------------------------------------------
    Case(
        "sweep-truncated-transcript",
        ("sweep", "--transcript", "{tmp}/t.jsonl"),
        0,
        out="## Unlanded — ",
        setup=with_(transcript("truncated")),
        changes=SWEPT,
    ),
    Case(
        "sweep-invalid-lines",
        ("sweep", "--transcript", "{tmp}/t.jsonl"),
        0,
        out="## Unlanded — 3 items",
        setup=with_(transcript("invalid")),
        check=same_sweep_as_clean,
        changes=SWEPT,
    ),
    Case(
        "sweep-binary-transcript",  # not a transcript at all: refused (issue 11 #12)
        ("sweep", "--transcript", "{tmp}/t.jsonl"),
        1,
        "t.jsonl is not a transcript: none of its",
        setup=with_(transcript("binary")),
    ),
    Case(
        "sweep-missing-transcript",
        ("sweep", "--transcript", "{tmp}/nope.jsonl"),
        1,
        "no such transcript",
    ),
    Case(
        "sweep-transcript-is-a-device",  # or a pipe, `<(…)`: not "no such transcript"
        ("sweep", "--transcript", "/dev/null"),
        1,
        "/dev/null is not a file: give the transcript's path",
    ),
    Case(
        "sweep-transcript-is-a-directory",
        ("sweep", "--transcript", "{tmp}/outside"),
        1,
        "outside is a directory, not a transcript",
    ),
    # -- hook stdin -----------------------------------------------------------------------
    Case("hook-stdin-empty", HOOK, 0, setup=with_(pending()), check=hook_silent),
    Case("hook-stdin-garbage", HOOK, 0, stdin=GARBAGE, setup=with_(pending()), check=hook_silent),
    Case(
        "hook-stdin-10mb",
        HOOK,
        0,
        stdin=b'{"hook_event_name": "SessionStart", "pad": "' + b"x" * (10 << 20) + b'"}',
        setup=with_(pending()),
        check=hook_silent,
    ),
    Case(
        "hook-stdin-nested-100k-deep",
        HOOK,
        0,
        stdin=b"[" * 100_000 + b"]" * 100_000,
        setup=with_(pending()),
        check=hook_silent,
    ),
    Case(
        "hook-stdin-wrong-types",
        HOOK,
        0,
        stdin=b'{"hook_event_name": ["SessionStart"], "source": {"a": 1}, "cwd": 7}',
        setup=with_(pending()),
        check=hook_silent,
    ),
    Case(
        "hook-cwd-nonexistent",
        HOOK,
        0,
        stdin=hook_payload("/nonexistent/deep/dir"),
        setup=with_(pending()),
        check=hook_silent,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (case.setup or base)(proj, tmp_path)
    if (proj / S / "PARKED.md").is_file():
        tmp_path.joinpath("parked.before").write_bytes((proj / S / "PARKED.md").read_bytes())
    home = Path(os.environ["HOME"])
    before, home_before = snapshot(tmp_path), snapshot(home)

    args = tuple(a.replace("{proj}", str(proj)).replace("{tmp}", str(tmp_path)) for a in case.args)
    stdin = case.stdin
    if args == HOOK:
        args = ("hook", "session-start")
        if not stdin:
            stdin = hook_payload(proj) if case.id != "hook-stdin-empty" else b""
    r = run_cli(
        proj,
        *args,
        input=stdin,
        cwd=tmp_path / "proj",
        preexec_fn=without_dac_override if case.readonly else None,
    )

    assert r.code == case.code, r
    assert "Traceback" not in r.err and "unexpected" not in r.err, r
    if case.err:
        assert case.err in r.err, r
        if case.code:
            assert r.err.startswith("error: ") and r.err.count("\n") == 1, r
    else:
        assert r.err == "", r
    if case.out is not None:
        assert case.out in r.out, r
    after = snapshot(tmp_path)
    assert changed(before, after) == {f"proj/{p}" for p in case.changes}, r
    assert changed(home_before, snapshot(home)) == set()
    if case.check is not None:
        case.check(proj, tmp_path, r)


def test_the_table_is_big_enough() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


def test_read_only_technique_really_makes_the_store_read_only(tmp_path: Path) -> None:
    """Guard for the read-only cases: as root, chmod alone would not stop a write."""
    proj = tmp_path / "proj"
    proj.mkdir()
    with_(read_only)(proj, tmp_path)
    r = run_cli(proj, "park", "probe idea", preexec_fn=without_dac_override)
    assert r.code == 1 and "Permission denied" in r.err, r
    assert Parked((proj / S / "PARKED.md").read_text()).render() == PARKED_TEXT

"""Finding handover docs in the store without reading their bodies."""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path

from session_skill.handover import frontmatter
from session_skill.records import Record
from session_skill.store.fileio import read_upto
from session_skill.store.store import Store
from session_skill.times import parse_time

# The first read: one page. A frontmatter is a few hundred bytes, and `list` reads the head
# of every doc (on a store of 10,000, a second page each is 40 MB more to fault in).
_HEAD = 4096
# A `created` this far past now is not believed (a wrong clock, a hand edit): the skew the
# restore hook tolerates (SPEC §8 step 2).
FUTURE_SKEW = 120.0


class DocInfo(Record):
    __slots__ = ("slug", "path", "meta", "created", "mtime", "future")
    slug: str  # from the file name: what LATEST and commands use
    path: Path
    meta: dict[str, str]
    created: datetime | None
    mtime: float
    future: bool  # `created` is in the future: the doc is dated by its mtime

    def __init__(
        self,
        slug: str,
        path: Path,
        meta: dict[str, str],
        created: datetime | None,
        mtime: float,
        future: bool = False,
    ) -> None:
        self.slug = slug
        self.path = path
        self.meta = meta
        self.created = created
        self.mtime = mtime
        self.future = future

    @property
    def when(self) -> datetime:
        """`created`; the file's mtime when there is none (hand-made docs) or when it lies
        in the future — so such a doc sorts, ages and expires by when it was written."""
        if self.created is None or self.future:
            return datetime.fromtimestamp(self.mtime, timezone.utc)
        return self.created

    @property
    def consumed(self) -> bool:
        return self.meta.get("consumed", "").strip().lower() == "true"

    @property
    def branch(self) -> str:
        return self.meta.get("branch", "")


def read_meta(path: Path) -> dict[str, str] | None:
    """Frontmatter of a doc (reads only its head); None when it is not a handover doc."""
    head = _head(path)
    return None if head is None else head[0]


def _head(path: Path | str) -> tuple[dict[str, str], float] | None:
    """(frontmatter, mtime) of a handover doc, from its head; None: it is not one."""
    found = _head_lines(path)
    if found is None:
        return None
    meta = frontmatter.parse(found[0])
    if not ("created" in meta or "slug" in meta):
        return None
    return meta, found[1]


def parses(path: Path | str) -> bool:
    """The doc's frontmatter is YAML a reader takes (`frontmatter.parses`). The readers
    take any doc whose flat keys they find (hand-edited ones, SPEC §4.1); only one that
    parses is ever deleted (`list`'s expiry, SPEC §3)."""
    found = _head_lines(path)
    return found is not None and frontmatter.parses(found[0])


def _head_lines(path: Path | str) -> tuple[list[str], float] | None:
    """(the frontmatter's lines, mtime) of a file, from its head; None: it has none."""
    try:
        # os.read, not open(): a buffered file object costs more than the read itself, and
        # `list` reads the head of every doc.
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = read_upto(fd, _HEAD)
        # Decode whole lines only: a frontmatter closed in them is the whole answer (a
        # "\n" byte ends a UTF-8 character, so they decode as they do in the whole file).
        cut = data.rfind(b"\n") + 1 if len(data) == _HEAD else len(data)
        # And only up to the line that closes it, found in the bytes: the body is most of
        # a page, and `list` decodes 10,000 heads. The bytes close at the text's closing
        # line or after it (they strip ASCII blanks only), so the answer is the same.
        nl = data.find(b"\n", 0, cut)
        close = _close_line(data, nl, cut) if nl >= 0 else -1
        if close >= 0:
            eol = data.find(b"\n", close + 1, cut)
            cut = cut if eol < 0 else eol + 1
        lines = frontmatter.head_lines(data[:cut].decode("utf-8", "replace"))
        if lines is None and len(data) == _HEAD:
            whole = (data + read_upto(fd, None)).decode("utf-8", "replace")
            lines = frontmatter.head_lines(whole)
        mtime = os.fstat(fd).st_mtime
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if lines is None else (lines, mtime)


_BLANK = b" \t\r\x0b\x0c"


def split_head(data: bytes) -> tuple[int, bytes | None] | None:
    """(where the body starts, the `created` value) when `data` is a handover doc, else
    None: `_head`'s answer on a whole doc's bytes, with finds, not a decode and a parse
    (`search` reads every doc, `frontmatter.split` and `parse`'s rules stand)."""
    start = 3 if data[:3] == b"---" else 6 if data[:6] == b"\xef\xbb\xbf---" else -1
    nl = data.find(b"\n", start) if start >= 0 else -1
    if nl < 0 or data[start:nl].strip():
        return None
    close = _close_line(data, nl)
    if close < 0:
        return None
    created = _value(data, b"\ncreated", nl, close)
    if created is None and _value(data, b"\nslug", nl, close) is None:
        return None
    eol = data.find(b"\n", close + 1)
    return (len(data) if eol < 0 else eol + 1), created


def _close_line(data: bytes, pos: int, end: int | None = None) -> int:
    """The offset of the "\\n" before the line closing the frontmatter (`---` or `...`)
    in data[:end]; -1 when none does."""
    end = len(data) if end is None else end
    while True:
        at = data.find(b"\n---", pos, end)
        dots = data.find(b"\n...", pos, at if at >= 0 else end)  # rare: search no further
        at = dots if dots >= 0 else at
        if at < 0:
            return -1
        eol = data.find(b"\n", at + 4, end)
        if not data[at + 4 : eol if eol >= 0 else end].strip(_BLANK):
            return at
        pos = at + 1


def _value(data: bytes, key: bytes, lo: int, hi: int) -> bytes | None:
    """The value of the last `key:` line in data[lo:hi] (b"" when empty); None: no such key."""
    value = None
    pos = lo
    while (at := data.find(key, pos, hi)) >= 0:
        pos = at + 1
        i = at + len(key)
        while i < hi and data[i] in b" \t":
            i += 1
        if i >= hi or data[i] != 58:  # ":"
            continue
        eol = data.find(b"\n", i, hi)
        rest = data[i + 1 : eol if eol >= 0 else hi].rstrip(b"\r")
        if rest and rest[0] not in b" \t":
            continue  # `created:x` is not a key (frontmatter's `[ \t]+` after the colon)
        value = rest.strip()
    return value


def info(path: Path, now: datetime | None = None) -> DocInfo | None:
    """The doc's head; `now` (default: the clock, `SESSION_SKILL_NOW` pinning it) decides
    whether its `created` lies in the future."""
    head = _head(path)
    if head is None:
        return None
    meta, mtime = head
    created = parse_time(meta.get("created"))
    future = False
    if created is not None:
        from session_skill.times import now_epoch

        future = created.timestamp() - (now.timestamp() if now else now_epoch()) > FUTURE_SKEW
    return DocInfo(path.name[:-3], path, meta, created, mtime, future)


def all_docs(store: Store, now: datetime | None = None) -> list[DocInfo]:
    """Every handover doc, newest first: in the order they were created.

    `created` counts whole seconds, and the folder lists its files in no set order. Docs
    of one second were numbered as they were created (`x`, `x-2`, `x-3`: SPEC §5), so
    their numbers order them; the slug settles the rest, never the listing.
    """
    out = [d for p in store.doc_files() if (d := info(p, now)) is not None]
    out.sort(key=lambda d: (d.when, *_creation_rank(d.slug)), reverse=True)
    return out


_NUMBERED = re.compile(r"-([2-9]|[1-9][0-9]{1,2})\Z")  # `-2` … `-999`: `Store.create_doc`


def _creation_rank(slug: str) -> tuple[int, str]:
    """(its number among the docs of its name, the name): `x` is 1, `x-2` is 2."""
    m = _NUMBERED.search(slug)
    return (int(m.group(1)), slug[: m.start()]) if m else (1, slug)


def banner_line(d: DocInfo, now: datetime, prefix: str = "Handover") -> str:
    from session_skill.times import age

    branch = d.branch or "unknown branch"
    return f"{prefix} `{d.slug}` · written {age((now - d.when).total_seconds())} ago · {branch}"

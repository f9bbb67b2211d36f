"""Ranking every handover of a store by what its body says (`search`, `recall WORDS…`).

A doc is folded once, with one `bytes.translate` that keeps every offset: ASCII letters
lowercased, digits and non-ASCII bytes (whole UTF-8 sequences) kept, every other byte a
space — so every word starts after a space, and a line of the fold is the line of the doc
at the same offsets. Then, each step on fewer docs than the one before:

1. scan: every doc is read with one `os.read` (no pathlib, no file objects: there may be
   10,000) and each query word's probe — its stem, at the start of a word — looked for with
   `bytes.find`. That picks the candidates and gives each word's document frequency, hence
   its weight: a rare word counts more than a common one; a word no handover holds weighs
   nothing (the caller says so).
2. bound: the weight of the words whose probe a candidate holds caps its score. Candidates
   are scored best cap first, newest first, and scoring stops once the next cap cannot beat
   the last hit kept.
3. score: the words starting with a probe are compared with the query word
   (`word_similarity`: exact, same stem, abbreviation, typo) — how much of the query the
   doc holds (its slug included), averaged with how much its best line holds. That line
   is the one a hit shows.

A query word of five letters or more that no doc holds is taken for a typo: the store is
read again for its vocabulary and the word stands for the words within an edit or two of
it ("falback" finds "fallback"). rapidfuzz is imported only for such comparisons.
"""

from __future__ import annotations

import math
import os
import re

from session_skill.records import Record
from session_skill.store.paths import doc_entries

MAX_DOC_BYTES = 1 << 20  # a doc is ~6 KB; a stray huge file is searched in its first MiB
FIRST_READ = 32768
LINE_SCAN = 16  # lines looked at per doc for its best line: the lead word's first ones
TYPO_MIN = 5  # a word this long that no doc holds is tried as a typo
SHOWN_CHARS = 200

_FLAT = bytes(
    b + 32 if 65 <= b <= 90 else b if 97 <= b <= 122 or 48 <= b <= 57 or b >= 128 else 32
    for b in range(256)
)
_TOKEN = re.compile(r"[A-Za-z0-9\u0080-\U0010ffff]+")
_CODE = re.compile(r"(`[^`\n]*`)")
_MARKER = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_BLANK = b" \t\r\x0b\x0c"


def flat(data: bytes) -> bytes:
    """The fold: the same length as `data`, words lowercased, everything else spaces."""
    return data.translate(_FLAT)


def query_words(text: str) -> list[str]:
    """The words searched for, folded as the docs are, each once; filler words (and the
    one-letter pieces of "it's") only when the query is nothing else."""
    from session_skill.matching.resolve import STOPWORDS

    found = flat(text.encode("utf-8", "replace")).decode("utf-8", "replace").split()
    kept = [w for w in found if w not in STOPWORDS and len(w) > 1] or found
    return list(dict.fromkeys(kept))


class Term:
    """One query word: the word starts looked for (its probes), their weight, and a cache
    of how well each word found accounts for it."""

    __slots__ = ("word", "near", "probes", "patterns", "weight", "sims")

    def __init__(self, word: str, alternatives: tuple[str, ...] | None = None) -> None:
        from session_skill.matching.wordsim import stem

        self.word = word
        self.near = alternatives or ()  # the words a typo was taken for
        if alternatives is None:
            # What the word and its stem start with ("retr" for retries/retry): a stem's
            # forms, and the word's abbreviations, all hold it.
            root = os.path.commonprefix([word, stem(word)])
            alternatives = (root if len(root) >= 3 else word,)
        self.probes = tuple(b" " + a.encode("utf-8") for a in alternatives)
        self.patterns = tuple(re.compile(re.escape(p) + b"[^ ]*") for p in self.probes)
        self.weight = 0.0
        self.sims: dict[bytes, float] = {}

    def sim(self, word: bytes) -> float:
        """`word_similarity` of a found word (its leading space included)."""
        got = self.sims.get(word)
        if got is None:
            from session_skill.matching.wordsim import word_similarity

            text = word[1:].decode("utf-8", "replace")
            got = self.sims[word] = word_similarity(self.word, text)
        return got

    def best(self, text: bytes, start: int = 0, end: int | None = None) -> float:
        """How well the best word of text[start:end] starting with a probe accounts for it."""
        stop = len(text) if end is None else end
        best = 0.0
        for probe, pattern in zip(self.probes, self.patterns, strict=True):
            if text.find(probe, start, stop) >= 0:
                for w in set(pattern.findall(text, start, stop)):
                    s = self.sim(w)
                    if s > best:
                        best = s
        return best

    def holds(self, token: str) -> bool:
        """Whether a word of a doc, as written, is one this term matched."""
        word = b" " + flat(token.encode("utf-8", "replace"))
        return any(word.startswith(p) for p in self.probes) and self.sim(word) > 0


class _Doc:
    __slots__ = (
        "name",
        "path",
        "created",
        "_when",
        "_data",
        "body_at",
        "slug",
        "mask",
        "held",
        "score",
        "line_at",
    )

    def __init__(
        self,
        name: str,
        path: str,
        created: bytes | None,
        data: bytes | None,
        body_at: int,
        slug: bytes,
    ) -> None:
        self.name = name
        self.path = path
        self.created = created
        self._when: float | None = None
        self._data = data  # None: not kept by the scan, read again when scored
        self.body_at = body_at
        self.slug = slug
        self.mask = 0  # bit k: the doc holds a probe of term k
        self.held: list[set[bytes]] = []  # per typo: the words that might be it
        self.score = 0.0  # in points: weight x similarity
        self.line_at = -1  # offset of its best line; -1: only the slug matched

    @property
    def data(self) -> bytes:
        if self._data is None:
            data = _read(self.path) or b""
            head = split_head(data)
            if head is None or head[0] != self.body_at:  # changed since: score what is there
                self.body_at = head[0] if head else min(self.body_at, len(data))
            self._data = data
        return self._data

    @property
    def when(self) -> float:
        """`created` in seconds since the epoch, else the file's mtime (read when asked)."""
        if self._when is None:
            from session_skill.times import epoch

            created = self.created
            when = epoch(created.decode("utf-8", "replace")) if created else None
            if when is None:
                try:
                    when = os.lstat(self.path).st_mtime
                except OSError:
                    when = 0.0
            self._when = when
        return self._when

    def bound(self, terms: list[Term]) -> float:
        """The most `_score` can give: every word it holds a probe of, found exactly (the
        same sum in the same order, so a doc that reaches it equals it to the last bit)."""
        return sum(t.weight * 100.0 for k, t in enumerate(terms) if self.mask >> k & 1)


def _read(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        # A small first read: asking for a MiB at once costs the kernel a MiB of pages.
        data = os.read(fd, FIRST_READ)
        if len(data) == FIRST_READ:
            rest = [data]
            size = len(data)
            while size < MAX_DOC_BYTES and (chunk := os.read(fd, MAX_DOC_BYTES - size)):
                rest.append(chunk)
                size += len(chunk)
            data = b"".join(rest)
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def split_head(data: bytes) -> tuple[int, bytes | None] | None:
    """(where the body starts, the `created` value) when `data` is a handover doc, else
    None: `frontmatter.split` and `parse`'s rules, on bytes, with finds, not regexes."""
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


def _close_line(data: bytes, pos: int) -> int:
    """The offset of the "\\n" before the line closing the frontmatter (`---` or `...`)."""
    while True:
        at = data.find(b"\n---", pos)
        dots = data.find(b"\n...", pos, at if at >= 0 else len(data))  # rare: search no further
        at = dots if dots >= 0 else at
        if at < 0:
            return -1
        eol = data.find(b"\n", at + 4)
        if not data[at + 4 : eol if eol >= 0 else len(data)].strip(_BLANK):
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


def _slug_words(slug: str) -> bytes:
    return b" " + flat(slug.encode("utf-8", "replace")) + b" "


def _scan(
    store_dir: str, terms: list[Term], typos: list[re.Pattern[bytes]] | None = None
) -> tuple[int, list[_Doc]]:
    """(how many handover docs there are, those holding a probe or, per typo pattern, a
    word that might be the typo — the text of the latter only when it holds a probe too)."""
    entries = doc_entries(store_dir)
    # A probe of four letters or more is looked for in `data.lower()` (cheaper than the fold,
    # and it holds every word the fold holds, plus the same letters inside other words: a
    # candidate too many, never one too few); a shorter one, at a word start in the fold.
    probes = [[(p[1:], False) if len(p) > 4 else (p, True) for p in t.probes] for t in terms]
    folds = bool(typos) or any(at_start for ps in probes for _, at_start in ps)
    counted = 0
    kept: list[_Doc] = []
    for entry in entries:
        name = entry.name
        data = _read(entry.path)
        head = split_head(data) if data is not None else None
        if data is None or head is None:
            continue
        counted += 1
        body_at, created = head
        lowered = data.lower()
        folded = data.translate(_FLAT) if folds else lowered
        slug = _slug_words(name[:-3])
        mask = 0
        for k, alternatives in enumerate(probes):
            for p, at_start in alternatives:
                if (folded if at_start else lowered).find(p, body_at - 1) >= 0 or p in slug:
                    mask |= 1 << k
                    break
        held = [set(p.findall(folded, body_at - 1)) | set(p.findall(slug)) for p in typos or ()]
        if not mask and not any(held):
            continue
        doc = _Doc(name[:-3], entry.path, created, data if mask else None, body_at, slug)
        doc.mask = mask
        doc.held = held
        kept.append(doc)
    return counted, kept


class Hit(Record):
    __slots__ = ("slug", "path", "score", "when", "section", "line", "highlighted")
    slug: str
    path: str
    score: float  # 0-100
    when: float  # seconds since the epoch: `created`, else the file's mtime
    section: str | None  # the `## ` section of the line shown; None: the slug matched
    line: str  # the best matching line as written, stripped ("" when only the slug matched)
    highlighted: str  # that line as markdown, clipped, the matching words in bold

    def __init__(
        self,
        slug: str,
        path: str,
        score: float,
        when: float,
        section: str | None,
        line: str,
        highlighted: str,
    ) -> None:
        self.slug = slug
        self.path = path
        self.score = score
        self.when = when
        self.section = section
        self.line = line
        self.highlighted = highlighted


class Ranking(Record):
    __slots__ = ("words", "unmatched", "typos", "searched", "hits", "more")
    words: list[str]  # the query words searched for
    unmatched: list[str]  # those no handover holds (left out of every score)
    typos: dict[str, list[str]]  # words no handover holds, taken for the words near them
    searched: int  # handover docs read
    hits: list[Hit]  # best first; ties newest first
    more: bool  # other docs may match: left unscored or past the limit

    def __init__(
        self,
        words: list[str],
        unmatched: list[str],
        typos: dict[str, list[str]],
        searched: int,
        hits: list[Hit],
        more: bool,
    ) -> None:
        self.words = words
        self.unmatched = unmatched
        self.typos = typos
        self.searched = searched
        self.hits = hits
        self.more = more


def rank(store_dir: str, query: str, *, limit: int) -> Ranking:
    """The `limit` best handovers of the store for `query`."""
    words = query_words(query)
    terms = [Term(w) for w in words]
    searched, docs = _scan(store_dir, terms)
    df = _frequencies(docs, len(terms))
    typos = [k for k, n in enumerate(df) if n == 0 and len(terms[k].word) >= TYPO_MIN]
    if typos and searched:  # read the store again, for the words near each typo
        searched, docs = _scan(store_dir, terms, [_near_pattern(terms[k].word) for k in typos])
        _with_typos(docs, terms, typos)
        df = _frequencies(docs, len(terms))
    for term, n in zip(terms, df, strict=True):
        term.weight = math.log(1.0 + searched / n) if n else 0.0
    unmatched = [t.word for t, n in zip(terms, df, strict=True) if n == 0]
    near = {t.word: list(t.near) for t, n in zip(terms, df, strict=True) if n and t.near}
    total = sum(t.weight for t in terms) * 100.0
    docs = [d for d in docs if d.mask]
    bounds = {id(d): d.bound(terms) for d in docs}
    docs = [d for d in docs if bounds[id(d)] > 0]
    docs.sort(key=lambda d: (bounds[id(d)], d.when), reverse=True)
    best: list[_Doc] = []  # scored above 0, best first, one past the limit at most
    scored = 0
    for d in docs:
        if len(best) >= limit and (best[limit - 1].score, best[limit - 1].when) >= (
            bounds[id(d)],
            d.when,
        ):
            break  # neither this doc nor any after it can take a place
        scored += 1
        _score(d, terms)
        if d.score > 0:
            best.append(d)
            best.sort(key=lambda x: (x.score, x.when), reverse=True)
            del best[limit + 1 :]
    more = len(best) > limit or scored < len(docs)
    hits = [_hit(d, terms, total) for d in best[:limit]] if total else []
    return Ranking(words, unmatched, near, searched, hits, more)


def _frequencies(docs: list[_Doc], n: int) -> list[int]:
    return [sum(1 for d in docs if d.mask >> k & 1) for k in range(n)]


def _near_pattern(word: str) -> re.Pattern[bytes]:
    """The words that might be `word` mistyped: of a similar length, starting with its
    first letter (one regex pass per doc, not the store's whole vocabulary)."""
    raw = word.encode("utf-8")
    window = b"[^ ]{%d,%d}(?= )" % (max(0, len(raw) - 3), len(raw) + 1)
    return re.compile(re.escape(b" " + raw[:1]) + window)


def _with_typos(docs: list[_Doc], terms: list[Term], typos: list[int]) -> None:
    """Each typo stands for the words near it that the docs hold: its term, and the masks of
    the docs holding them, change. A slip in the first letter is not caught."""
    from session_skill.matching.wordsim import word_similarity

    for i, k in enumerate(typos):
        word = terms[k].word
        found: set[bytes] = set().union(*(d.held[i] for d in docs))
        near = {v for v in found if word_similarity(word, v[1:].decode("utf-8", "replace")) > 0}
        if not near:
            continue
        terms[k] = Term(word, tuple(sorted(v[1:].decode("utf-8", "replace") for v in near)))
        for d in docs:
            if not near.isdisjoint(d.held[i]):
                d.mask |= 1 << k


def _score(d: _Doc, terms: list[Term]) -> None:
    """The doc's score, in points: (what the doc holds + what its best line holds) / 2."""
    folded = d.data.translate(_FLAT)
    body = d.body_at - 1  # the "\n" before the body: a space in the fold
    doc_points = 0.0
    held: list[Term] = []
    for k, t in enumerate(terms):
        if d.mask >> k & 1:
            s = max(t.best(folded, body), t.best(d.slug))
            if s > 0:
                doc_points += t.weight * s
                held.append(t)
    if not held:
        d.score = 0.0
        return
    # The lines holding the weightiest word the doc holds: the rarest word is the telling one.
    lead = max(held, key=lambda t: t.weight)
    line_points = 0.0
    data = d.data
    seen: set[int] = set()
    for pattern in lead.patterns:
        for m in pattern.finditer(folded, body):
            start = data.rfind(b"\n", 0, m.start() + 1) + 1
            if start in seen:
                continue
            seen.add(start)
            end = data.find(b"\n", m.end())
            end = len(data) if end < 0 else end
            points = sum(t.weight * t.best(folded, start - 1, end) for t in held)
            if points > line_points:
                line_points, d.line_at = points, start
            if len(seen) >= LINE_SCAN:
                break
    d.score = (doc_points + line_points) / 2


def _hit(d: _Doc, terms: list[Term], total: float) -> Hit:
    score = round(100.0 * d.score / total, 1)
    if d.line_at < 0:
        return Hit(d.name, d.path, score, d.when, None, "", "")
    lines = d.data[d.body_at :].split(b"\n")
    index = d.data.count(b"\n", d.body_at, d.line_at)
    line = lines[index].decode("utf-8", "replace").strip()
    section = ""
    for above in reversed(lines[:index]):
        if above.startswith(b"## "):
            section = above[3:].decode("utf-8", "replace").strip().rstrip("#").strip()
            break
    held = [t for k, t in enumerate(terms) if t.weight and d.mask >> k & 1]
    return Hit(d.name, d.path, score, d.when, section, line, highlight(line, held))


def highlight(line: str, terms: list[Term]) -> str:
    """The line as markdown, clipped, the words that matched in bold (a code span whole)."""
    text = _MARKER.sub("", line.strip())
    if len(text) > SHOWN_CHARS:
        matched = (m.start() for m in _TOKEN.finditer(text) if _holds(m.group(), terms))
        start = max(0, min(next(matched, 0) - SHOWN_CHARS // 4, len(text) - SHOWN_CHARS))
        cut = text[start : start + SHOWN_CHARS]
        if cut.count("`") % 2:
            cut = cut.replace("`", "")
        tail = "…" if start + SHOWN_CHARS < len(text) else ""
        text = ("…" if start else "") + cut.strip() + tail
    out = []
    for part in _CODE.split(text):
        if len(part) > 1 and part[0] == part[-1] == "`":
            hit = any(_holds(m.group(), terms) for m in _TOKEN.finditer(part))
            out.append(f"**{part}**" if hit else part)
        else:
            part = part.replace("**", "").replace("__", "")
            out.append(_TOKEN.sub(lambda m: _bold(m.group(), terms), part))
    return "".join(out)


def _holds(token: str, terms: list[Term]) -> bool:
    return any(t.holds(token) for t in terms)


def _bold(token: str, terms: list[Term]) -> str:
    return f"**{token}**" if _holds(token, terms) else token

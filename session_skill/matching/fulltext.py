"""Ranking every handover of a store by what its body says (`search`, `recall WORDS…`).

A doc is folded once (`terms.fold`: case folded, every byte that is not part of a word a
space, the lines where they were). What a query word matches is `terms`'s; this is the
ranking, each step on fewer docs than the one before:

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

from session_skill.matching.terms import Term, cased, differs, flat, highlight
from session_skill.matching.terms import query_words as query_words
from session_skill.records import Record
from session_skill.store.docs import split_head
from session_skill.store.fileio import read_upto
from session_skill.store.paths import doc_entries

MAX_DOC_BYTES = 1 << 20  # a doc is ~6 KB; a stray huge file is searched in its first MiB
FIRST_READ = 32768
LINE_SCAN = 16  # lines looked at per doc for its best line: the lead word's first ones
TYPO_MIN = 5  # a word this long that no doc holds is tried as a typo


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
        self.line_at = -1  # its best line, counted in the body from 0; -1: only the slug matched

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
        # One small read: a regular file reads short only at its end, and most docs are
        # a few KB (a second read to see the end costs 10,000 docs a syscall each).
        data = os.read(fd, FIRST_READ)
        if len(data) == FIRST_READ:
            data += read_upto(fd, MAX_DOC_BYTES - FIRST_READ)
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def _ascii(terms: list[Term]) -> bool:
    """Every word looked for is ASCII: a doc's fold then differs from its `bytes.lower`
    only through a few characters (`terms.differs`)."""
    return all(p.isascii() for t in terms for p in t.probes)


def _slug_words(slug: str) -> bytes:
    return b" " + flat(slug.encode("utf-8", "replace")) + b" "


def _scan(
    store_dir: str, terms: list[Term], typos: list[re.Pattern[bytes]] | None = None
) -> tuple[int, list[_Doc]]:
    """(how many handover docs there are, those holding a probe or, per typo pattern, a
    word that might be the typo — the text of the latter only when it holds a probe too)."""
    entries = doc_entries(store_dir)
    # A probe of four letters or more is looked for in the doc case folded (`cased`: cheaper
    # than the whole fold, and it holds every word the fold holds, plus the same letters
    # inside other words: a candidate too many, never one too few); a shorter one, at a
    # word start in the fold.
    probes = [[(p[1:], False) if len(p) > 4 else (p, True) for p in t.probes] for t in terms]
    folds = bool(typos) or any(at_start for ps in probes for _, at_start in ps)
    # The words a typo may be are taken from the fold as they are: it must be the true one.
    ascii_words = not typos and _ascii(terms)
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
        lowered = cased(data, body_at, ascii_words=ascii_words)
        folded = flat(lowered) if folds else lowered
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
        self._set(slug, path, score, when, section, line, highlighted)


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
        self._set(words, unmatched, typos, searched, hits, more)


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
    # The fold as the scan made it; the "\n"s of `text` stand where the fold has spaces.
    text = d.data
    if differs(text, ascii_words=_ascii(terms)):
        text = cased(text, d.body_at)
    folded = flat(text)
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
    seen: set[int] = set()
    for pattern in lead.patterns:
        for m in pattern.finditer(folded, body):
            start = text.rfind(b"\n", 0, m.start() + 1) + 1
            if start in seen:
                continue
            seen.add(start)
            end = text.find(b"\n", m.end())
            end = len(text) if end < 0 else end
            points = sum(t.weight * t.best(folded, start - 1, end) for t in held)
            if points > line_points:
                # Its number, not its offset: a fold may be longer than the doc ("ẞ", "ss").
                line_points, d.line_at = points, text.count(b"\n", d.body_at, start)
            if len(seen) >= LINE_SCAN:
                break
    d.score = (doc_points + line_points) / 2


def _hit(d: _Doc, terms: list[Term], total: float) -> Hit:
    score = round(100.0 * d.score / total, 1)
    if d.line_at < 0:
        return Hit(d.name, d.path, score, d.when, None, "", "")
    lines = d.data[d.body_at :].split(b"\n")
    index = d.line_at
    line = lines[index].decode("utf-8", "replace").strip()
    section = ""
    for above in reversed(lines[:index]):
        if above.startswith(b"## "):
            section = above[3:].decode("utf-8", "replace").strip().rstrip("#").strip()
            break
    held = [t for k, t in enumerate(terms) if t.weight and d.mask >> k & 1]
    return Hit(d.name, d.path, score, d.when, section, line, highlight(line, held))

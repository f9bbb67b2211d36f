"""Fuzzy resolution of a typed name to one item: `drop`, `recall NAME`, park's duplicate check.

The first rule (SPEC §7.6) is that a wrong item is never returned as a match; the second,
that a clear query resolves without asking. So a "match" needs positive evidence, not just
a high string similarity:

- every word of the query is accounted for in the item (exactly, as an abbreviation, or
  as a typo), which gives the item's *word score*;
- at least one query word appears in the item exactly, and every number in the query
  appears in it as well ("migrate v2" never means "migrate-v3");
- the word score is high and clearly above every other item's score.

Whole-string scorers (rapidfuzz's `token_sort_ratio`, `ratio`, `partial_ratio`) never make
a match on their own; they only rank candidates, so a query such as "retrybackoff" still
puts `retry-backoff` first in the list the user chooses from.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence

from .records import FrozenRecord

TYPE_CHECKING = False  # `typing` is not imported for its sake
if TYPE_CHECKING:
    from typing import Literal

# A match needs a word score of at least this... (a query whose words all sit in the item's
# summary scores 100 * (1 - SLUG_WEIGHT) = 85; one stray word in five scores 80).
MATCH_SCORE = 80.0
# ...and this lead over the runner-up. It is larger than SLUG_WEIGHT * 100, so when two
# items hold every query word, one in its slug and one only in its summary, we ask.
MATCH_MARGIN = 20.0
# Items scoring below this are not worth offering as candidates.
CANDIDATE_SCORE = 45.0
# Candidates this far below the best are left out of the list.
CANDIDATE_SPREAD = 35.0
MAX_CANDIDATES = 4
# Share of the word score earned by the slug's own words (the name people use for it).
SLUG_WEIGHT = 0.15
# Whole-string similarity only ranks; scaled down so it stays below a real word match.
STRING_WEIGHT = 0.8
# Fewer letters/digits than this in the query: only an exact key can match.
MIN_QUERY_CHARS = 3
# Substring scoring is noise for short queries ("log" inside "catalog").
MIN_PARTIAL_CHARS = 6

# Filler words a user may type around a name ("the retry one"). Ignored unless the query
# is nothing else.
STOPWORDS = frozenset(
    "a an the of to for and or in on at by with about from into this that it its is be "
    "one item idea thing vs".split()
)

_MARKUP = re.compile(r"[*`]+")
_APOSTROPHES = re.compile(r"['\u2019]")
_NON_WORD = re.compile(r"[\W_]+")
_DIGITS = re.compile(r"\d+")
_TRAILERS = re.compile(r"\b(?:why|next|raised)\s*:", re.IGNORECASE)


_init = object.__setattr__  # frozen records set their fields past __setattr__


class Choice(FrozenRecord):
    """One candidate: `key` is its identity (a slug); `texts` are what the query is
    compared with (the slug with `-`/`_` as spaces, the summary or goal line)."""

    __slots__ = ("key", "texts")
    key: str
    texts: tuple[str, ...]

    def __init__(self, key: str, texts: tuple[str, ...]) -> None:
        # Two plain calls, not FrozenRecord._set: `drop` makes one per parked item.
        _init(self, "key", key)
        _init(self, "texts", texts)


class Resolution(FrozenRecord):
    """The outcome: `index` is set only for "match"; `candidates` holds (index, score)
    pairs, closest first, at most four, for "ambiguous" (the match itself for "match")."""

    __slots__ = ("kind", "index", "score", "candidates")
    kind: Literal["match", "ambiguous", "none"]
    index: int | None
    score: float
    candidates: list[tuple[int, float]]

    def __init__(
        self,
        kind: Literal["match", "ambiguous", "none"],
        index: int | None,
        score: float,
        candidates: list[tuple[int, float]],
    ) -> None:
        self._set(kind, index, score, candidates)


def normalize(text: str) -> str:
    """Lowercase, accents and markdown stripped, punctuation and `-`/`_` as single spaces."""
    if text.isascii():
        # Nothing to decompose or strip, and casefold is lower: the common case, and
        # `drop` normalises every item of a long PARKED.md.
        text = text.lower()
    else:
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = _APOSTROPHES.sub("", _MARKUP.sub(" ", text))
    return _NON_WORD.sub(" ", text).strip()


def words(text: str) -> list[str]:
    """The normalised words of a text, in order."""
    return normalize(text).split()


# `normalize` of ASCII text as one byte table: letters lowercased, digits and the "\n"
# that separates texts kept, every other byte (markup, `_`, punctuation) a space.
_ASCII_TABLE = bytes(
    b + 32 if 65 <= b <= 90 else b if 97 <= b <= 122 or 48 <= b <= 57 or b == 10 else 32
    for b in range(256)
)
_SPACE_RUNS = re.compile(rb"  +")


def _normalize_ascii_lines(joined: str) -> list[str]:
    """`normalize` of each line of ASCII text."""
    data = _SPACE_RUNS.sub(b" ", joined.encode("ascii").translate(_ASCII_TABLE, b"'"))
    # Each line's strip(): after the collapse, a line has at most one space at each end.
    data = data.replace(b" \n", b"\n").replace(b"\n ", b"\n").strip(b" ")
    return data.decode("ascii").split("\n")


def normalize_all(texts: Sequence[str]) -> list[str]:
    """`normalize` of each text; the ASCII ones all at once, joined by newlines.

    `drop` and `recall NAME` normalise every item of the store. For ASCII text `normalize`
    is: drop apostrophes, lowercase, turn each run of non-alphanumerics into one space,
    strip; done on the joined bytes, no step crosses a newline, so each piece comes out
    as `normalize` makes it, at a fraction of the cost of one call per text.
    """
    joined = "\n".join(texts)
    if joined.isascii() and joined.count("\n") == len(texts) - 1:
        return _normalize_ascii_lines(joined) if texts else []
    out = [""] * len(texts)
    batch: list[int] = []
    for i, text in enumerate(texts):
        if text.isascii() and "\n" not in text:
            batch.append(i)
        else:
            out[i] = normalize(text)
    if batch:
        pieces = _normalize_ascii_lines("\n".join([texts[i] for i in batch]))
        for i, piece in zip(batch, pieces, strict=True):
            out[i] = piece
    return out


class _Prepared(FrozenRecord):
    __slots__ = ("slug_words", "all_words", "numbers", "phrases")
    slug_words: frozenset[str]
    all_words: frozenset[str]
    numbers: frozenset[str]
    phrases: tuple[str, ...]  # normalised texts, for the whole-string scorers

    def __init__(
        self,
        slug_words: frozenset[str],
        all_words: frozenset[str],
        numbers: frozenset[str],
        phrases: tuple[str, ...],
    ) -> None:
        self._set(slug_words, all_words, numbers, phrases)


def _prepare(choice: Choice) -> _Prepared:
    return _prepare_all([choice])[0]


def _prepare_all(choices: Sequence[Choice]) -> list[_Prepared]:
    flat: list[str] = []
    for c in choices:
        flat.append(c.key)
        flat.extend(c.texts)
    normalized = normalize_all(flat)
    out = []
    pos = 0
    for c in choices:
        key = normalized[pos]
        phrases = tuple(p for p in normalized[pos + 1 : pos + 1 + len(c.texts)] if p)
        pos += 1 + len(c.texts)
        out.append(_prepared(key, phrases))
    return out


def _prepared(key: str, phrases: tuple[str, ...]) -> _Prepared:
    """From the normalised key and the non-empty normalised texts."""
    slug_words = frozenset(key.split())
    all_words = slug_words.union(*(p.split() for p in phrases))
    numbers = frozenset(_DIGITS.findall(" ".join((key, *phrases))))
    return _Prepared(slug_words, all_words, numbers, phrases)


class _Table:
    """Every choice's normalised key and texts, flat and joined by newlines.

    `resolve` over thousands of choices (`drop` in a long PARKED.md) works on this as a
    whole: it finds the few choices that can matter with string searches and one rapidfuzz
    pass per scorer, and prepares only those.
    """

    def __init__(self, choices: Sequence[Choice], keys: list[str] | None = None) -> None:
        """`keys`: the choices' keys, normalised already (see _exact_key)."""
        self.starts: list[int]  # flat index of each choice's key, then the end
        self.text_at: list[int]  # flat index of every text
        self.text_owner: list[int]  # and the choice it belongs to
        widths = {len(c.texts) for c in choices}
        if len(widths) == 1:  # the usual case (drop: two texts each), laid out at once
            step = widths.pop() + 1
            size = step * len(choices)
            flat = [s for c in choices for s in (c.key, *c.texts)]
            self.starts = list(range(0, size + 1, step))
            self.text_at = [k for k in range(size) if k % step]
            self.text_owner = [k // step for k in self.text_at]
        else:
            flat, self.starts, self.text_at, self.text_owner = [], [], [], []
            for index, c in enumerate(choices):
                self.starts.append(len(flat))
                flat.append(c.key)
                self.text_at.extend(range(len(flat), len(flat) + len(c.texts)))
                self.text_owner.extend([index] * len(c.texts))
                flat.extend(c.texts)
            self.starts.append(len(flat))
        if keys is None:
            self.flat = normalize_all(flat)
        else:
            texts = normalize_all([flat[k] for k in self.text_at])
            self.flat = list(flat)
            for k, key in zip(self.starts[:-1], keys, strict=True):
                self.flat[k] = key
            for k, text in zip(self.text_at, texts, strict=True):
                self.flat[k] = text
        self.text = "\n".join(self.flat)
        offsets = [0, *itertools.accumulate(len(t) + 1 for t in self.flat)]
        self.char_starts = [offsets[k] for k in self.starts]  # each choice's block in text

    def __len__(self) -> int:
        return len(self.starts) - 1

    def phrases(self, index: int) -> tuple[str, ...]:
        start, end = self.starts[index], self.starts[index + 1]
        return tuple(p for p in self.flat[start + 1 : end] if p)

    def prepared(self, index: int) -> _Prepared:
        return _prepared(self.flat[self.starts[index]], self.phrases(index))

    def vocabulary(self) -> frozenset[str]:
        """Every word of every choice (the union of their `all_words`)."""
        return frozenset(self.text.split())

    def holding(self, wanted: Iterable[str], *, first: bool = False) -> set[int]:
        """The choices that have one of `wanted` as a word (`first`: stop at the first)."""
        text, starts = self.text, self.char_starts
        found: set[int] = set()
        for word in wanted:
            if not word:
                continue
            if text.startswith(word) and (len(word) == len(text) or text[len(word)] in " \n"):
                found.add(0)
                if first:
                    return found
            # A word starts after a space or a newline: searching for that pair skips the
            # places where `word` is only inside a longer word.
            for needle in (" " + word, "\n" + word):
                pos = text.find(needle)
                while pos >= 0:
                    end = pos + len(needle)
                    if end == len(text) or text[end] in " \n":
                        index = bisect.bisect_right(starts, pos + 1) - 1
                        found.add(index)
                        if first:
                            return found
                        # On to the next choice (its first word follows the "\n" before it).
                        pos = text.find(needle, max(starts[index + 1] - 1, pos + 1))
                    else:
                        pos = text.find(needle, pos + 1)
        return found

    def words_from(self, prefix: str) -> set[str]:
        """The words of the text that start with `prefix` (non-empty)."""
        text = self.text
        found: set[str] = set()
        starts = [0] if text.startswith(prefix) else []
        for needle in (" " + prefix, "\n" + prefix):
            pos = text.find(needle)
            while pos >= 0:
                starts.append(pos + 1)
                pos = text.find(needle, pos + 1)
        for start in starts:
            space, newline = text.find(" ", start), text.find("\n", start)
            ends = [e for e in (space, newline) if e >= 0]
            found.add(text[start : min(ends)] if ends else text[start:])
        return found

    def has_word(self, word: str) -> bool:
        """`word in self.vocabulary()`, without splitting all the text."""
        return bool(self.holding((word,), first=True))

    def string_scores(self, query: str, cutoff: float) -> dict[int, float]:
        """`_string_score` of each choice where it is `cutoff` or more (the rest are below).

        The same scorers as `_string_score`, each run over all texts in one rapidfuzz
        pass, which leaves out in C whatever scores under the cut-off.
        """
        flat = self.flat
        kept = [n for n, k in enumerate(self.text_at) if flat[k]]  # the non-empty texts
        phrases = [flat[self.text_at[n]] for n in kept]
        owners = [self.text_owner[n] for n in kept]
        compact_flat = self.text.replace(" ", "").split("\n")
        compacts = [compact_flat[self.text_at[n]] for n in kept]
        compact_query = query.replace(" ", "")
        # ratio and token_sort_ratio are at most 200 * shorter / (len1 + len2) (an InDel
        # distance is at least the length difference), so only texts of a length near the
        # query's can reach the cut-off: the others are not scored at all.
        by_length = _near_length(len(query), [len(p) for p in phrases], cutoff)
        by_compact_length = _near_length(len(compact_query), [len(c) for c in compacts], cutoff)
        runs = [
            (query, by_length, phrases, "token_sort_ratio", cutoff, 1.0),
            (compact_query, by_compact_length, compacts, "ratio", cutoff, 1.0),
        ]
        if len(compact_query) >= MIN_PARTIAL_CHARS:
            partial_cutoff = max(0.0, cutoff / 0.9 - 1e-9)
            every = list(range(len(compacts)))
            runs.append((compact_query, every, compacts, "partial_ratio", partial_cutoff, 0.9))
        # A cut-off over 100 is reached by no score. When nothing is left to score (a clear
        # match sets the bar that high), rapidfuzz is not even imported.
        runs = [run for run in runs if run[1] and run[4] <= 100]
        if not runs:
            return {}
        from rapidfuzz import fuzz, process

        best: dict[int, float] = {}
        for q, picked, texts, scorer, score_cutoff, weight in runs:
            hits = process.extract_iter(
                q, [texts[n] for n in picked], scorer=getattr(fuzz, scorer), processor=None,
                score_cutoff=score_cutoff,
            )  # fmt: skip
            for _text, score, k in hits:
                owner = owners[picked[k]]
                value = weight * score if weight != 1.0 else score
                if value > best.get(owner, 0.0):
                    best[owner] = value
        return {index: float(value) for index, value in best.items()}


def _near_length(query_length: int, lengths: list[int], cutoff: float) -> list[int]:
    """Indexes of the lengths whose InDel ratio against the query's can reach `cutoff`."""
    if cutoff <= 0:
        return list(range(len(lengths)))
    # 200 * min / (q + n) >= cutoff, each way round; a little slack against rounding.
    low = cutoff * query_length / (200 - cutoff) - 1e-6
    high = query_length * (200 - cutoff) / cutoff + 1e-6
    return [n for n, length in enumerate(lengths) if low <= length <= high]


@functools.lru_cache(maxsize=65536)  # each word's stem is asked for once per pair it is in
def _stem(word: str) -> str:
    """A crude English stem, enough to equate "retries"/"retry" and "rotated"/"rotate"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


@functools.lru_cache(maxsize=65536)
def word_similarity(query_word: str, word: str, literal: bool = False) -> float:
    """How well `word` accounts for `query_word`, 0-100.

    Exact 100; same stem ("retries"/"retry") 95; then, unless `literal`: an abbreviation
    of four letters or more ("perf" for "performance") 75-90; a typo (one edit from four
    letters, two from eight; a transposition is one edit) 100 - 150 * edits / length.
    Otherwise 0. Words holding a digit must be equal: "v2" is not a typo of "v3".
    """
    if query_word == word:
        return 100.0
    pair = query_word + word
    if not pair.isalpha() and any(ch.isdigit() for ch in pair):  # isalpha: the cheap "no"
        return 0.0
    if _stem(query_word) == _stem(word):
        return 95.0
    if literal:
        return 0.0
    if len(query_word) >= 4 and word.startswith(query_word):
        return 75.0 + 15.0 * len(query_word) / len(word)
    shorter = min(len(query_word), len(word))
    if shorter < 4:
        return 0.0
    allowed = 2 if shorter >= 8 else 1
    if abs(len(query_word) - len(word)) > allowed:
        return 0.0  # every edit changes the length by one at most
    from rapidfuzz.distance import OSA

    edits = OSA.distance(query_word, word, score_cutoff=allowed)
    if edits > allowed:
        return 0.0
    return max(0.0, 100.0 - 150.0 * edits / max(len(query_word), len(word)))


def _best_similarity(query_word: str, candidates: frozenset[str], literal: bool = False) -> float:
    if query_word in candidates:
        return 100.0
    return max((word_similarity(query_word, w, literal) for w in candidates), default=0.0)


def _similar_words(query_words: Sequence[str], table: _Table) -> dict[str, dict[str, float]]:
    """For each query word, the words of the list that account for it at all, and how well.

    A query word that some item holds verbatim is taken literally everywhere: "oauth" is a
    word of the list, so it is not a typo of "auth" in another item. Each (query word,
    word) pair is scored once here, not once per item that holds the word.
    """
    similar: dict[str, dict[str, float]] = {}
    plain: list[str] | None = None
    for q in query_words:
        if q in similar:
            continue
        if _has_digit(q):
            similar[q] = {q: word_similarity(q, q)} if table.has_word(q) else {}
            continue
        # Taken literally (when some item holds it), only q and the words of its stem
        # score (word_similarity), and _stem strips one of a few suffixes: those forms are
        # all there is to try, and they share a prefix, looked up in one pass.
        stem = _stem(q)
        forms = {q, stem, *(stem + end for end in ("ing", "ed", "es", "s", "e"))}
        if stem.endswith("y"):
            forms.add(stem[:-1] + "ies")
        prefix = os.path.commonprefix(list(forms))
        if len(prefix) >= 3:
            present = forms & table.words_from(prefix)
        else:  # a short prefix starts too many words: look each form up instead
            present = {w for w in forms if table.has_word(w)}
        if q in present:
            scores = ((w, word_similarity(q, w, True)) for w in present)
        else:
            if plain is None:
                # Words holding a digit only ever match themselves (see word_similarity):
                # leave them out of the pairs to score. Numbers are much of a long list.
                plain = [w for w in table.vocabulary() if w.isalpha() or not _has_digit(w)]
            scores = ((w, word_similarity(q, w, False)) for w in plain)
        similar[q] = {w: s for w, s in scores if s > 0}
    return similar


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _best_in(scores: dict[str, float], candidates: frozenset[str]) -> float:
    """`_best_similarity` from a query word's `_similar_words` entry."""
    if len(scores) <= len(candidates):
        return max((s for w, s in scores.items() if w in candidates), default=0.0)
    return max((scores.get(w, 0.0) for w in candidates), default=0.0)


def _word_score(
    query_words: Sequence[str], prepared: _Prepared, similar: dict[str, dict[str, float]]
) -> float:
    """Mean over query words of how well the item accounts for each, slug words weighted."""
    if not query_words:
        return 0.0
    anywhere = in_slug = 0.0
    for q in query_words:
        anywhere += _best_in(similar[q], prepared.all_words)
        in_slug += _best_in(similar[q], prepared.slug_words)
    n = len(query_words)
    return (1 - SLUG_WEIGHT) * anywhere / n + SLUG_WEIGHT * in_slug / n


def _string_score(query: str, prepared: _Prepared) -> float:
    from rapidfuzz import fuzz

    compact_query = query.replace(" ", "")
    best = 0.0
    for phrase in prepared.phrases:
        compact = phrase.replace(" ", "")
        best = max(best, fuzz.token_sort_ratio(query, phrase), fuzz.ratio(compact_query, compact))
        if len(compact_query) >= MIN_PARTIAL_CHARS:
            best = max(best, 0.9 * fuzz.partial_ratio(compact_query, compact))
    return float(best)


def _significant(query_words: list[str]) -> list[str]:
    kept = [w for w in query_words if w not in STOPWORDS]
    return kept or query_words


def _exact_key(query: str, choices: Sequence[Choice]) -> tuple[list[int], list[str] | None]:
    """Items whose key is the query: verbatim (`**slug**` and case aside), else word for word.

    Also the normalised keys, when it had to compute them (for _Table).
    """
    bare = query.strip().strip("*`").strip()
    same = [i for i, c in enumerate(choices) if c.key.casefold() == bare.casefold()]
    if len(same) > 1:
        same = [i for i in same if choices[i].key == bare] or same
    if same:
        return same, None
    query_words = words(query)
    if not query_words:
        return [], None
    # words(key) == query_words, for normalised text is single-spaced words.
    wanted = " ".join(query_words)
    keys = normalize_all([c.key for c in choices])
    return [i for i, key in enumerate(keys) if key == wanted], keys


def _short_query(query_words: list[str], choices: Sequence[Choice]) -> Resolution:
    """Too little to go on ("a", "ci"): offer the items that have it as a slug word."""
    keys = normalize_all([c.key for c in choices])
    offered = [i for i, key in enumerate(keys) if set(query_words) <= set(key.split())]
    if not offered:
        return Resolution("none", None, 0.0, [])
    return Resolution("ambiguous", None, 100.0, [(i, 100.0) for i in offered[:MAX_CANDIDATES]])


def resolve(query: str, choices: Sequence[Choice]) -> Resolution:
    """Resolve what the user typed to one of `choices`, or say it is ambiguous or absent."""
    exact, keys = _exact_key(query, choices)
    if len(exact) == 1:
        return Resolution("match", exact[0], 100.0, [(exact[0], 100.0)])
    if len(exact) > 1:
        tied = [(i, 100.0) for i in exact[:MAX_CANDIDATES]]
        return Resolution("ambiguous", None, 100.0, tied)

    query_words = _significant(words(query))
    if not query_words or not choices:
        return Resolution("none", None, 0.0, [])
    if sum(len(w) for w in query_words) < MIN_QUERY_CHARS:
        return _short_query(query_words, choices)
    query_text = " ".join(query_words)
    query_numbers = set(_DIGITS.findall(query_text))

    # Only items ranking at least CANDIDATE_SCORE, and within CANDIDATE_SPREAD of the best,
    # take part in the outcome: the candidates list stops there, and a lead over anything
    # lower is more than MATCH_MARGIN. An item holding no word similar to a query word has
    # a word score of 0, so it can rank that high only by its string score. So: score the
    # items holding such words; their best word score bounds the best rank from below and
    # so sets a bar; run the string scorers over all items, letting rapidfuzz drop in C
    # whatever cannot reach the bar; score what is left. The first bar is MATCH_MARGIN
    # under that bound: all a clear match needs, and it usually spares the costliest
    # scorer. Only when that is not a match is it lowered to CANDIDATE_SPREAD, for the list.
    table = _Table(choices, keys)
    similar = _similar_words(query_words, table)
    holding: dict[int, tuple[_Prepared, float]] = {}
    for index in table.holding(set().union(*similar.values())):
        prepared = table.prepared(index)
        holding[index] = (prepared, _word_score(query_words, prepared, similar))
    best_word_known = max((word for _, word in holding.values()), default=0.0)
    bars = (best_word_known - MATCH_MARGIN, best_word_known - CANDIDATE_SPREAD)
    for bar in dict.fromkeys(max(CANDIDATE_SCORE, b) for b in bars):
        scores = dict(holding)
        strings = table.string_scores(query_text, bar / STRING_WEIGHT - 0.01)  # 0.01: rounding
        for index in strings.keys() - scores.keys():
            prepared = table.prepared(index)
            scores[index] = (prepared, _word_score(query_words, prepared, similar))
        scored: list[tuple[float, float, int]] = []  # (rank score, word score, index)
        eligible: set[int] = set()
        for index, (prepared, word_score) in scores.items():
            rank = max(word_score, STRING_WEIGHT * strings.get(index, 0.0))
            scored.append((rank, word_score, index))
            numbers_ok = query_numbers <= prepared.numbers
            if numbers_ok and any(w in prepared.all_words for w in query_words):
                eligible.add(index)
        scored.sort(key=lambda s: (-s[0], -s[1], s[2]))
        if not scored or scored[0][0] < CANDIDATE_SCORE:
            # Nothing close. The score reported is the best rank of all, computed in full.
            word_scores = {index: word for _, word, index in scored}
            best_rank = max(
                max(
                    word_scores.get(index, 0.0),
                    STRING_WEIGHT * _string_score(query_text, table.prepared(index)),
                )
                for index in range(len(table))
            )
            return Resolution("none", None, round(best_rank, 1), [])

        best_rank, best_word, best_index = scored[0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        if (
            best_index in eligible
            and best_word >= MATCH_SCORE
            and best_word == best_rank
            and best_rank - runner_up >= MATCH_MARGIN
        ):
            score = round(best_rank, 1)
            return Resolution("match", best_index, score, [(best_index, score)])
    floor = max(CANDIDATE_SCORE, best_rank - CANDIDATE_SPREAD)
    closest = [(i, round(r, 1)) for r, _, i in scored if r >= floor][:MAX_CANDIDATES]
    return Resolution("ambiguous", None, round(best_rank, 1), closest)


def _idea(text: str) -> str:
    """The idea itself: a parked bullet's `Why:` / `Next:` / `Raised:` tail cut off."""
    return _TRAILERS.split(text, maxsplit=1)[0]


def duplicate_score(text: str, choice: Choice) -> float:
    """How nearly `text` restates `choice`, 0-100.

    Unlike `resolve`, where a short query may name a long item, both directions count:
    every word of `text` must be in the item (slug or summary), and every word of the
    item's summary must be in `text`; typos allowed, numbers exact. Only the idea is
    compared: `Why:` / `Next:` / `Raised:` parts (SPEC §6) are left out on both sides.
    """
    new_words = _significant(words(_idea(text)))
    if not new_words:
        return 0.0
    old = _prepare(Choice(choice.key, tuple(_idea(t) for t in choice.texts)))
    return _duplicate_score(new_words, old, words(choice.key))


def _duplicate_score(
    new_words: list[str], old: _Prepared, slug_words: list[str], at_least: float = 0.0
) -> float:
    """`duplicate_score` from its prepared parts. When the score is under `at_least` it
    may stop early and return 0.0 (`best_duplicate` only wants scores above its best)."""
    new_set = frozenset(new_words)
    # The slug restated ("retry budget") is a name, not the idea; compare summaries.
    summaries = [p for p in old.phrases if p.split() != slug_words] or list(old.phrases)
    n = len(new_words)
    similarities = []
    for w in new_words:
        similarities.append(_best_similarity(w, old.all_words))
        # Each word left adds 100 at most; once even that falls short, so does the score.
        if sum(similarities) + 100.0 * (n - len(similarities)) < at_least * n - 1e-6:
            return 0.0
    forward = sum(similarities) / n
    backward = 0.0
    for phrase in summaries:
        old_words = _significant(phrase.split())
        covered = sum(_best_similarity(w, new_set) for w in old_words) / len(old_words)
        backward = max(backward, covered)
    return min(forward, backward)


def best_duplicate(text: str, choices: Sequence[Choice], threshold: float = 90) -> int | None:
    """The index of the open item `text` nearly duplicates (score >= threshold), or None."""
    new_words = _significant(words(_idea(text)))
    olds = _prepare_all([Choice(c.key, tuple(_idea(t) for t in c.texts)) for c in choices])
    keys = normalize_all([c.key for c in choices])
    best_index: int | None = None
    best = threshold
    for index in range(len(choices)):
        # As duplicate_score(text, choices[index]), the text's side prepared once.
        score = (
            _duplicate_score(new_words, olds[index], keys[index].split(), best)
            if new_words
            else 0.0
        )
        if score >= best:
            best_index, best = index, score
    return best_index

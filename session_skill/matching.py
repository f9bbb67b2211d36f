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

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Choice:
    """One candidate: `key` is its identity (a slug); `texts` are what the query is
    compared with (the slug with `-`/`_` as spaces, the summary or goal line)."""

    key: str
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Resolution:
    """The outcome: `index` is set only for "match"; `candidates` holds (index, score)
    pairs, closest first, at most four, for "ambiguous" (the match itself for "match")."""

    kind: Literal["match", "ambiguous", "none"]
    index: int | None
    score: float
    candidates: list[tuple[int, float]]


def normalize(text: str) -> str:
    """Lowercase, accents and markdown stripped, punctuation and `-`/`_` as single spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _APOSTROPHES.sub("", _MARKUP.sub(" ", text.casefold()))
    return _NON_WORD.sub(" ", text).strip()


def words(text: str) -> list[str]:
    """The normalised words of a text, in order."""
    return normalize(text).split()


@dataclass(frozen=True)
class _Prepared:
    slug_words: frozenset[str]
    all_words: frozenset[str]
    numbers: frozenset[str]
    phrases: tuple[str, ...]  # normalised texts, for the whole-string scorers


def _prepare(choice: Choice) -> _Prepared:
    slug_words = frozenset(words(choice.key))
    phrases = tuple(p for p in (normalize(t) for t in choice.texts) if p)
    all_words = slug_words.union(*(p.split() for p in phrases))
    numbers = frozenset(_DIGITS.findall(" ".join((normalize(choice.key), *phrases))))
    return _Prepared(slug_words, all_words, numbers, phrases)


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
    if any(ch.isdigit() for ch in query_word + word):
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
    from rapidfuzz.distance import OSA

    edits = OSA.distance(query_word, word, score_cutoff=allowed)
    if edits > allowed:
        return 0.0
    return max(0.0, 100.0 - 150.0 * edits / max(len(query_word), len(word)))


def _best_similarity(query_word: str, candidates: frozenset[str], literal: bool = False) -> float:
    if query_word in candidates:
        return 100.0
    return max((word_similarity(query_word, w, literal) for w in candidates), default=0.0)


def _word_score(
    query_words: Sequence[str], prepared: _Prepared, vocabulary: frozenset[str]
) -> float:
    """Mean over query words of how well the item accounts for each, slug words weighted.

    A query word that some item holds verbatim is taken literally everywhere: "oauth" is a
    word of the list, so it is not a typo of "auth" in another item.
    """
    if not query_words:
        return 0.0
    anywhere = in_slug = 0.0
    for q in query_words:
        literal = q in vocabulary
        anywhere += _best_similarity(q, prepared.all_words, literal)
        in_slug += _best_similarity(q, prepared.slug_words, literal)
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


def _exact_key(query: str, choices: Sequence[Choice]) -> list[int]:
    """Items whose key is the query: verbatim (`**slug**` and case aside), else word for word."""
    bare = query.strip().strip("*`").strip()
    same = [i for i, c in enumerate(choices) if c.key.casefold() == bare.casefold()]
    if len(same) > 1:
        same = [i for i in same if choices[i].key == bare] or same
    if same:
        return same
    query_words = words(query)
    if not query_words:
        return []
    return [i for i, c in enumerate(choices) if words(c.key) == query_words]


def _short_query(query_words: list[str], choices: Sequence[Choice]) -> Resolution:
    """Too little to go on ("a", "ci"): offer the items that have it as a slug word."""
    offered = [i for i, c in enumerate(choices) if set(query_words) <= set(words(c.key))]
    if not offered:
        return Resolution("none", None, 0.0, [])
    return Resolution("ambiguous", None, 100.0, [(i, 100.0) for i in offered[:MAX_CANDIDATES]])


def resolve(query: str, choices: Sequence[Choice]) -> Resolution:
    """Resolve what the user typed to one of `choices`, or say it is ambiguous or absent."""
    exact = _exact_key(query, choices)
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

    prepared_choices = [_prepare(c) for c in choices]
    vocabulary = frozenset().union(*(p.all_words for p in prepared_choices))
    scored: list[tuple[float, float, int]] = []  # (rank score, word score, index)
    eligible: set[int] = set()
    for index, prepared in enumerate(prepared_choices):
        word_score = _word_score(query_words, prepared, vocabulary)
        rank = max(word_score, STRING_WEIGHT * _string_score(query_text, prepared))
        scored.append((rank, word_score, index))
        if query_numbers <= prepared.numbers and any(w in prepared.all_words for w in query_words):
            eligible.add(index)
    scored.sort(key=lambda s: (-s[0], -s[1], s[2]))

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
    if best_rank < CANDIDATE_SCORE:
        return Resolution("none", None, round(best_rank, 1), [])
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
    new_set = frozenset(new_words)
    old = _prepare(Choice(choice.key, tuple(_idea(t) for t in choice.texts)))
    slug_words = words(choice.key)
    # The slug restated ("retry budget") is a name, not the idea; compare summaries.
    summaries = [p for p in old.phrases if p.split() != slug_words] or list(old.phrases)
    forward = sum(_best_similarity(w, old.all_words) for w in new_words) / len(new_words)
    backward = 0.0
    for phrase in summaries:
        old_words = _significant(phrase.split())
        covered = sum(_best_similarity(w, new_set) for w in old_words) / len(old_words)
        backward = max(backward, covered)
    return min(forward, backward)


def best_duplicate(text: str, choices: Sequence[Choice], threshold: float = 90) -> int | None:
    """The index of the open item `text` nearly duplicates (score >= threshold), or None."""
    best_index: int | None = None
    best = threshold
    for index, choice in enumerate(choices):
        score = duplicate_score(text, choice)
        if score >= best:
            best_index, best = index, score
    return best_index

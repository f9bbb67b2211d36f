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
import os
import re
from collections.abc import Sequence

from session_skill.matching.choicetable import MIN_PARTIAL_CHARS as MIN_PARTIAL_CHARS
from session_skill.matching.choicetable import Choice as Choice
from session_skill.matching.choicetable import Prepared, Table, prepare, prepare_all, string_score
from session_skill.matching.wordsim import DIGITS, best_similarity, stem
from session_skill.matching.wordsim import normalize as normalize
from session_skill.matching.wordsim import normalize_all as normalize_all
from session_skill.matching.wordsim import word_similarity as word_similarity
from session_skill.matching.wordsim import words as words
from session_skill.records import FrozenRecord

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

# Filler words a user may type around a name ("the retry one"). Ignored unless the query
# is nothing else.
STOPWORDS = frozenset(
    "a an the of to for and or in on at by with about from into this that it its is be "
    "one item idea thing vs".split()
)

# How like a word of an item's phrase a word must be for its place there to count
# (`_in_order`): `word_similarity`'s abbreviations and typos score 75 and up.
_ORDER_MIN = 75.0
# Where the idea ends: its `Why:` / `Next:` part, or the `Raised:` date that closes it (a
# date with more words after it is the user's, `parked._RAISED_END`).
_TRAILERS = re.compile(
    r"\b(?:why|next)\s*:|\braised:\s*\d{4}-\d{2}-\d{2}\b\.?(?=\s*(?:$|(?:why|next)\s*:))",
    re.IGNORECASE,
)
# The hedges an idea is often said with: "Maybe X" restates "X" (park's duplicate check).
_HEDGE = re.compile(
    r"^(?:\W*(?:maybe|perhaps|possibly|probably|todo|idea|i think|i guess|i wonder if|"
    r"we should|we could|we might|we need to|we ought to|should we|could we|"
    r"it would be nice to|it might be worth|let'?s|lets|someday|later)\b[\s,:;.!?-]*)+",
    re.IGNORECASE,
)


# Scripts written without spaces between words (Chinese, Japanese; Korean's particles cling
# to its words): `words` sees a whole phrase as one word, so a word typed in them is
# looked for inside the item's text; fewer than `_MIN_UNSPACED` of its characters are only
# offered. (The jamo: `normalize` decomposes a Hangul syllable into them.)
_MIN_UNSPACED = 2
_UNSPACED = (
    "[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff]"
)


@functools.cache
def _unspaced() -> re.Pattern[str]:
    """`_UNSPACED`, compiled on first use: its ranges cost ~4 ms to compile, on every
    `park` and `drop` when done on import, and only a query that is not ASCII needs it."""
    return re.compile(_UNSPACED)


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


def _similar_words(query_words: Sequence[str], table: Table) -> dict[str, dict[str, float]]:
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
        # score (word_similarity), and stem strips one of a few suffixes: those forms are
        # all there is to try, and they share a prefix, looked up in one pass.
        q_stem = stem(q)
        forms = {q, q_stem, *(q_stem + end for end in ("ing", "ed", "es", "s", "e"))}
        if q_stem.endswith("y"):
            forms.add(q_stem[:-1] + "ies")
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
    """`best_similarity` from a query word's `_similar_words` entry."""
    if len(scores) <= len(candidates):
        return max((s for w, s in scores.items() if w in candidates), default=0.0)
    return max((scores.get(w, 0.0) for w in candidates), default=0.0)


def _word_score(
    query_words: Sequence[str], prepared: Prepared, similar: dict[str, dict[str, float]]
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


def _significant(query_words: list[str]) -> list[str]:
    kept = [w for w in query_words if w not in STOPWORDS]
    return kept or query_words


def _exact_key(query: str, choices: Sequence[Choice]) -> tuple[list[int], list[str] | None]:
    """Items whose key is the query: verbatim (`**slug**` and case aside), else word for word.

    Also the normalised keys, when it had to compute them (for Table).
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


def _as_stored(text: str) -> str:
    """A text as park stores it: its whitespace folded, a closing "." cut."""
    return " ".join(text.split()).rstrip(" .")


def _same_text(query: str, choices: Sequence[Choice]) -> list[int]:
    """Items one of whose texts is the query, word for word as typed: an idea with no
    word `words` sees (🚀🚀🚀) is still named by itself. Case counts only to tell apart
    items that differ by it alone."""
    typed = _as_stored(query)
    if not typed:
        return []
    stored = [[_as_stored(t) for t in c.texts] for c in choices]
    bare = typed.casefold()
    same = [i for i, texts in enumerate(stored) if any(t.casefold() == bare for t in texts)]
    if len(same) > 1:
        same = [i for i in same if typed in stored[i]] or same
    return same


def _by_substring(
    query: str, query_words: list[str], choices: Sequence[Choice]
) -> Resolution | None:
    """A query in an unspaced script (`_UNSPACED`): the items whose text holds each such
    word of it (any other word as a whole word). One is the match, several a question; so
    is one, when the query is a single character. None: no item holds them."""
    held = []
    for index, prepared in enumerate(prepare_all(choices)):
        text = " ".join(prepared.phrases)
        if all(
            (w in text) if _unspaced().search(w) else (w in prepared.all_words) for w in query_words
        ):
            held.append(index)
    if not held:
        return None
    if len(held) == 1 and len(_unspaced().findall(query)) >= _MIN_UNSPACED:
        return Resolution("match", held[0], 100.0, [(held[0], 100.0)])
    return Resolution("ambiguous", None, 100.0, [(i, 100.0) for i in held[:MAX_CANDIDATES]])


def _short_query(query_words: list[str], choices: Sequence[Choice]) -> Resolution:
    """Too little to go on ("a", "ci"): offer the items that have it as a slug word."""
    keys = normalize_all([c.key for c in choices])
    offered = [i for i, key in enumerate(keys) if set(query_words) <= set(key.split())]
    if not offered:
        return Resolution("none", None, 0.0, [])
    return Resolution("ambiguous", None, 100.0, [(i, 100.0) for i in offered[:MAX_CANDIDATES]])


def resolve(query: str, choices: Sequence[Choice]) -> Resolution:
    """Resolve what the user typed to one of `choices`, or say it is ambiguous or absent."""
    res = _resolve(query, choices)
    if res.kind == "match":
        return res  # an item's whole text typed scores it at least as high: the same one
    # The whole text of an item names it, when the words did not (🚀🚀🚀 has none; "fix
    # cache" is also all the words of "fix cache in redis"). Looked for only here: a
    # clear match, the common case, never reads every text again.
    same = _same_text(query, choices)
    if len(same) == 1:
        return Resolution("match", same[0], 100.0, [(same[0], 100.0)])
    if len(same) > 1:
        return Resolution("ambiguous", None, 100.0, [(i, 100.0) for i in same[:MAX_CANDIDATES]])
    return res


def _resolve(query: str, choices: Sequence[Choice]) -> Resolution:
    exact, keys = _exact_key(query, choices)
    if len(exact) == 1:
        return Resolution("match", exact[0], 100.0, [(exact[0], 100.0)])
    if len(exact) > 1:
        tied = [(i, 100.0) for i in exact[:MAX_CANDIDATES]]
        return Resolution("ambiguous", None, 100.0, tied)

    all_words = words(query)
    query_words = [w for w in all_words if w not in STOPWORDS]
    if not all_words or not choices:
        return Resolution("none", None, 0.0, [])
    if not query.isascii() and _unspaced().search(query):
        found = _by_substring(query, query_words or all_words, choices)
        if found is not None:
            return found
    if not query_words:
        # Filler alone ("the", "it", "the one") names nothing: never a match. An item that
        # has the word in its slug is offered, as a short query's would be.
        return _short_query(all_words, choices)
    if sum(len(w) for w in query_words) < MIN_QUERY_CHARS:
        return _short_query(query_words, choices)
    query_text = " ".join(query_words)
    query_numbers = set(DIGITS.findall(query_text))

    # Only items ranking at least CANDIDATE_SCORE, and within CANDIDATE_SPREAD of the best,
    # take part in the outcome: the candidates list stops there, and a lead over anything
    # lower is more than MATCH_MARGIN. An item holding no word similar to a query word has
    # a word score of 0, so it can rank that high only by its string score. So: score the
    # items holding such words; their best word score bounds the best rank from below and
    # so sets a bar; run the string scorers over all items, letting rapidfuzz drop in C
    # whatever cannot reach the bar; score what is left. The first bar is MATCH_MARGIN
    # under that bound: all a clear match needs, and it usually spares the costliest
    # scorer. Only when that is not a match is it lowered to CANDIDATE_SPREAD, for the list.
    table = Table(choices, keys)
    similar = _similar_words(query_words, table)
    holding: dict[int, tuple[Prepared, float]] = {}
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
                    STRING_WEIGHT * string_score(query_text, table.prepared(index)),
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
    """The idea itself: a leading hedge ("Maybe", "We should") and a parked bullet's
    `Why:` / `Next:` / `Raised:` tail cut off."""
    idea = _TRAILERS.split(text, maxsplit=1)[0]
    return _HEDGE.sub("", idea, count=1) or idea


def duplicate_score(text: str, choice: Choice) -> float:
    """How nearly `text` restates `choice`, 0-100.

    Unlike `resolve`, where a short query may name a long item, both directions count:
    every word of `text` must be in the item (slug or summary), and every word of the
    item's summary must be in `text`, in the summary's order; typos allowed, numbers
    exact. Only the idea is compared: `Why:` / `Next:` / `Raised:` parts (SPEC §6) are
    left out on both sides. The order counts because the same words in another order are
    often the opposite idea: "merge dev into main" is not "merge main into dev".
    """
    new_words = _significant(words(_idea(text)))
    if not new_words:
        return 0.0
    old = prepare(Choice(choice.key, tuple(_idea(t) for t in choice.texts)))
    return _duplicate_score(new_words, old, words(choice.key))


def _duplicate_score(
    new_words: list[str], old: Prepared, slug_words: list[str], at_least: float = 0.0
) -> float:
    """`duplicate_score` from its prepared parts. When the score is under `at_least` it
    may stop early and return 0.0 (`best_duplicate` only wants scores above its best)."""
    new_set = frozenset(new_words)
    # The slug restated ("retry budget") is a name, not the idea; compare summaries.
    summaries = [p for p in old.phrases if p.split() != slug_words] or list(old.phrases)
    n = len(new_words)
    similarities = []
    for w in new_words:
        similarities.append(best_similarity(w, old.all_words))
        # Each word left adds 100 at most; once even that falls short, so does the score.
        if sum(similarities) + 100.0 * (n - len(similarities)) < at_least * n - 1e-6:
            return 0.0
    forward = sum(similarities) / n
    backward = 0.0
    # A bullet copied back opens on its slug, which names the idea before saying it.
    named = _significant(slug_words)
    in_order = new_words[len(named) :] if new_words[: len(named)] == named else new_words
    for phrase in summaries:
        old_words = _significant(phrase.split())
        covered = sum(best_similarity(w, new_set) for w in old_words) / len(old_words)
        if covered > backward and _in_order(in_order, old_words):
            backward = covered
    return min(forward, backward)


def _in_order(new_words: list[str], old_words: list[str]) -> bool:
    """Do the words of `new_words` that `old_words` holds come in `old_words`' order? Each
    is placed at the first of its likeliest words after the one before it; a word the
    phrase does not hold (one of the slug's, say) places nothing."""
    at = -1
    for w in new_words:
        scores = [word_similarity(w, o) for o in old_words]
        best = max(scores)
        if best < _ORDER_MIN:
            continue
        at = next((j for j in range(at + 1, len(scores)) if scores[j] == best), -2)
        if at == -2:
            return False
    return True


def best_duplicate(text: str, choices: Sequence[Choice], threshold: float = 90) -> int | None:
    """The index of the open item `text` nearly duplicates (score >= threshold), or None."""
    new_words = _significant(words(_idea(text)))
    olds = prepare_all([Choice(c.key, tuple(_idea(t) for t in c.texts)) for c in choices])
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

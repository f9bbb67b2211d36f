"""`matching`'s choices normalised once: word sets; for long lists, batched rapidfuzz scoring."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence

from session_skill.matching.wordsim import DIGITS, normalize_all
from session_skill.records import FrozenRecord

_init = object.__setattr__  # frozen records set their fields past __setattr__

# Substring scoring is noise for short queries ("log" inside "catalog").
MIN_PARTIAL_CHARS = 6


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


class Prepared(FrozenRecord):
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


def prepare(choice: Choice) -> Prepared:
    return prepare_all([choice])[0]


def prepare_all(choices: Sequence[Choice]) -> list[Prepared]:
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


def _prepared(key: str, phrases: tuple[str, ...]) -> Prepared:
    """From the normalised key and the non-empty normalised texts."""
    slug_words = frozenset(key.split())
    all_words = slug_words.union(*(p.split() for p in phrases))
    numbers = frozenset(DIGITS.findall(" ".join((key, *phrases))))
    return Prepared(slug_words, all_words, numbers, phrases)


class Table:
    """Every choice's normalised key and texts, flat and joined by newlines.

    `resolve` over thousands of choices (`drop` in a long PARKED.md) works on this as a
    whole: it finds the few choices that can matter with string searches and one rapidfuzz
    pass per scorer, and prepares only those.
    """

    def __init__(self, choices: Sequence[Choice], keys: list[str] | None = None) -> None:
        """`keys`: the choices' keys, normalised already (see matching._exact_key)."""
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

    def prepared(self, index: int) -> Prepared:
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
        """`string_score` of each choice where it is `cutoff` or more (the rest are below).

        The same scorers as `string_score`, each run over all texts in one rapidfuzz
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


def string_score(query: str, prepared: Prepared) -> float:
    from rapidfuzz import fuzz

    compact_query = query.replace(" ", "")
    best = 0.0
    for phrase in prepared.phrases:
        compact = phrase.replace(" ", "")
        best = max(best, fuzz.token_sort_ratio(query, phrase), fuzz.ratio(compact_query, compact))
        if len(compact_query) >= MIN_PARTIAL_CHARS:
            best = max(best, 0.9 * fuzz.partial_ratio(compact_query, compact))
    return float(best)

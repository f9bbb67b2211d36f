"""Word-level comparison for `matching`: normalised words, stems, typo-tolerant similarity."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

_MARKUP = re.compile(r"[*`]+")
_APOSTROPHES = re.compile(r"['\u2019]")
_NON_WORD = re.compile(r"[\W_]+")
DIGITS = re.compile(r"\d+")


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


@functools.lru_cache(maxsize=65536)  # each word's stem is asked for once per pair it is in
def stem(word: str) -> str:
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
    if stem(query_word) == stem(word):
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


def best_similarity(query_word: str, candidates: frozenset[str], literal: bool = False) -> float:
    if query_word in candidates:
        return 100.0
    return max((word_similarity(query_word, w, literal) for w in candidates), default=0.0)

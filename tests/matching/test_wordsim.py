"""wordsim: normalised words, crude stems, typo-tolerant word similarity."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.matching import wordsim


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("**Retry-Backoff** — exponential_vs linear!", "retry backoff exponential vs linear"),
        ("don't `touch` it", "dont touch it"),
        ("Café  naïve", "cafe naive"),
        ("", ""),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert wordsim.normalize(text) == expected


@given(st.lists(st.text(max_size=40), max_size=12))
def test_normalize_all_is_normalize_of_each(texts: list[str]) -> None:
    assert wordsim.normalize_all(texts) == [wordsim.normalize(t) for t in texts]


@pytest.mark.parametrize(
    ("a", "b"),
    [("retries", "retry"), ("rotated", "rotate"), ("parsing", "parse"), ("caches", "cache")],
)
def test_same_stem(a: str, b: str) -> None:
    assert wordsim.stem(a) == wordsim.stem(b)


def test_stem_leaves_short_and_ss_words() -> None:
    assert wordsim.stem("uses") == "uses"  # too short to strip
    assert wordsim.stem("process") == "process"


@pytest.mark.parametrize(
    ("query", "word", "low", "high"),
    [
        ("retry", "retry", 100, 100),
        ("retries", "retry", 95, 95),
        ("perf", "performance", 75, 90),
        ("backof", "backoff", 70, 90),  # one edit in seven letters
        ("v2", "v3", 0, 0),  # digits must be equal
        ("cat", "car", 0, 0),  # too short for a typo
        ("migration", "integration", 0, 0),  # two edits, but not from one typing slip
    ],
)
def test_word_similarity(query: str, word: str, low: float, high: float) -> None:
    assert low <= wordsim.word_similarity(query, word) <= high


def test_literal_allows_only_exact_and_stem() -> None:
    assert wordsim.word_similarity("perf", "performance", literal=True) == 0
    assert wordsim.word_similarity("retries", "retry", literal=True) == 95


def test_best_similarity() -> None:
    words = frozenset({"retry", "budget"})
    assert wordsim.best_similarity("budget", words) == 100
    assert wordsim.best_similarity("retries", words) == 95
    assert wordsim.best_similarity("zebra", words) == 0
    assert wordsim.best_similarity("x", frozenset()) == 0

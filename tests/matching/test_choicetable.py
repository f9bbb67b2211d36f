"""choicetable: choices prepared once; the batched table scores as one choice at a time would."""

from __future__ import annotations

from session_skill.matching import choicetable
from session_skill.matching.resolve import Choice


def test_prepare_splits_key_words_text_words_and_numbers() -> None:
    p = choicetable.prepare(Choice("migrate-v2", ("Migrate the DB to v2 by 2027",)))
    assert p.slug_words == frozenset({"migrate", "v2"})
    assert {"db", "2027", "migrate"} <= p.all_words
    assert p.numbers == frozenset({"2", "2027"})
    assert p.phrases == ("migrate the db to v2 by 2027",)


def test_prepare_all_equals_prepare_of_each() -> None:
    choices = [
        Choice("retry-backoff", ("revisit exponential vs linear",)),
        Choice("café", ("naïve caching",)),
        Choice("empty", ("",)),
    ]
    assert choicetable.prepare_all(choices) == [choicetable.prepare(c) for c in choices]


def test_empty_texts_are_not_phrases() -> None:
    assert choicetable.prepare(Choice("x", ("", "  "))).phrases == ()


def test_string_score_prefers_the_matching_phrase() -> None:
    near = choicetable.prepare(Choice("retry-budget", ("cap the retries per request",)))
    far = choicetable.prepare(Choice("flaky-login", ("the login test times out",)))
    query = "cap the retries"
    assert choicetable.string_score(query, near) > choicetable.string_score(query, far)
    assert choicetable.string_score(query, near) >= 80


def test_near_length_keeps_only_lengths_that_can_reach_the_cutoff() -> None:
    lengths = [1, 5, 10, 20, 40, 200]
    kept = choicetable._near_length(10, lengths, 80.0)
    assert 10 in [lengths[i] for i in kept]
    assert 200 not in [lengths[i] for i in kept] and 1 not in [lengths[i] for i in kept]
    assert choicetable._near_length(10, lengths, 0) == list(range(len(lengths)))

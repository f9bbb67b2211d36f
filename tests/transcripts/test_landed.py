"""Stems, a loose end's subject, and when a later sentence settles it (issue 16)."""

from __future__ import annotations

import pytest

from session_skill.transcripts.landed import (
    Ledger,
    content_stems,
    settles,
    stem,
    subject,
    surface_forms,
)


@pytest.mark.parametrize(
    "words",
    [
        ("manual", "manually", "manuals"),
        ("fix", "fixes", "fixed", "fixing"),
        ("commit", "commits", "committed", "committing"),
        ("migrate", "migrated", "migration", "migrations", "migrating"),
        ("normalize", "normalized", "normalization", "normalizes"),
        ("underscore", "underscores"),
        ("policy", "policies"),
        ("pass", "passes", "passed", "passing"),
        ("stub", "stubbed", "stubbing", "stubs"),
        ("user", "users"),
    ],
)
def test_inflections_share_a_stem(words: tuple[str, ...]) -> None:
    assert len({stem(w) for w in words}) == 1


def test_different_words_keep_different_stems() -> None:
    assert len({stem(w) for w in ("test", "status", "process", "user", "use")}) == 5
    assert stem("bug.") == stem("bug") and stem("(fix") == "fix"


def test_a_word_is_tried_against_the_suffixes_it_can_end_with_in_their_order() -> None:
    from session_skill.transcripts import landed

    by_last = landed._SUFFIXES_BY_LAST
    for last, suffixes in by_last.items():
        assert list(suffixes) == [x for x in landed._SUFFIXES if x[0].endswith(last)]
    assert sum(map(len, by_last.values())) == len(landed._SUFFIXES)
    # (what the order decides: the longest ending first)
    assert [stem(w) for w in ("normalizations", "fixing", "policies", "committed")] == [
        "normaliz", "fix", "policy", "commit"
    ]  # fmt: skip


def test_a_thing_named_after_a_framing_word_stays_in_the_subject() -> None:
    """ "worker" is not "work", the framing a subject leaves out: "do the sync worker" takes
    up "The sync worker that drains the outbox"."""
    assert stem("worker") == stem("workers") != stem("work")
    assert {"worker", "pointer", "holder"} <= set(
        subject("The sync worker, a pointer and the token holder")
    )
    wanted = frozenset(subject("The sync worker that drains the outbox"))
    assert settles(wanted, content_stems("yes do the sync worker and connectivity."))
    assert stem("later") == "later" and not subject("we'll do it later")


def test_an_irregular_past_is_the_verb_it_comes_from() -> None:
    assert stem("wrote") == stem("write") == stem("written")
    assert stem("built") == stem("build") and stem("ran") == stem("run")
    assert "built" in surface_forms("build", "build")  # a message saying it is found
    wanted = frozenset(subject("Rebuild the cache"))
    assert settles(wanted, content_stems("Rebuilt the cache."))


def test_the_subject_drops_the_marker_and_the_framing() -> None:
    found = subject("Would you like me to proceed with Sprint 0 (fixing the underscore bug) now?")
    assert set(found) == {"sprint", "fix", "underscor", "bug"}
    assert set(subject("We should come back to it later.")) == set()
    assert "spotter-4te.5" in subject("spotter-4te.5: Trace LiveView and TerminalChannel")


@pytest.mark.parametrize(
    ("loose_end", "sentence", "settled"),
    [
        (
            "Would you like me to proceed with Sprint 0 (fixing the underscore bug) now?",
            "fix the underscore path normalization bug",
            True,
        ),
        ("We should handle the Windows paths later.", "Windows paths are handled now.", True),
        ("Should I also add jitter to the retry backoff?", "Added jitter to the backoff.", True),
        # the shared words are most of neither side
        (
            "We could also precompute the tenant table when the parser starts.",
            "I renamed the tenant option in the parser config and updated the three callers.",
            False,
        ),
        # generic words only
        ("Should I add a test for the loader?", "All tests pass.", False),
    ],
)
def test_settles(loose_end: str, sentence: str, settled: bool) -> None:
    assert settles(frozenset(subject(loose_end)), content_stems(sentence)) is settled


def test_the_ledger_finds_a_loose_end_by_any_spelling_of_its_words() -> None:
    ledger = Ledger()
    ledger.watch("k", subject("The eviction policy of the cache can wait."))
    assert ledger.hits({"evictions,", "whatever"}) == {"k"}
    assert ledger.hits({"(policies", "fine"}) == {"k"}
    assert ledger.hits({"policy-free", "evict", "the"}) == set()
    ledger.forget("k")
    assert ledger.hits({"(policies", "evictions,"}) == set() and not ledger.forms


@pytest.mark.parametrize("said", ["migrated", "migrating", "migrates", "(migration"])
def test_a_verb_ending_in_e_is_found_by_its_inflections(said: str) -> None:
    """ "Migrate the refund endpoint" is named by "Migrated …": `stem` maps "migrated" to the
    stem of "migrate", and the spellings a message is tested with must hold it too."""
    ledger = Ledger()
    ledger.watch("k", {stem("migrate"): "migrate"})
    assert ledger.hits({said, "the"}) == {"k"}


def test_a_word_that_becomes_common_stops_telling_loose_ends_apart() -> None:
    ledger = Ledger()
    ledger.watch("k", subject("Should I add the mailer retries?"))
    assert ledger.hits({"mailer", "retries"}) == {"k"}
    assert ledger.forms.get("mailer") == stem("mailer")
    for _ in range(8 * 40):  # "mailer" in every message from now on
        ledger.observe({"mailer", "the"})
    assert ledger.hits({"mailer", "retries"}) == {"k"}  # by "retries" alone
    assert ledger.forms.get("mailer") is None
    assert ledger.hits({"mailer"}) == set()

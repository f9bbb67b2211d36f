"""The phrasing classes (issue 16), each with sentences it takes and sentences it leaves;
when a question counts as answered; the cheap paths agree with the slow ones."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_skill.transcripts import prose
from session_skill.transcripts.anchors import ANCHORS
from session_skill.transcripts.candidates import DEFERRED, DIVERGING
from session_skill.transcripts.lazyre import Lazy
from session_skill.transcripts.phrasing import RULES
from session_skill.transcripts.redact import scan as full_redact

# (class, sentence): the sentence is a loose end of that class.
TAKEN = [
    # explicit markers
    ("explicit", "We can come back to the caching question once the API is stable."),
    ("explicit", "The CSV export can go in a follow-up PR."),
    ("explicit", "I'll follow up on the flaky upload test tomorrow."),
    ("explicit", "We should handle the Windows paths later."),
    ("explicit", "Next time we touch this module we should split it."),
    ("explicit", "not today, I need to think about whether categories should be cached"),
    ("explicit", "tomorrow we add the xlsx variant"),
    ("explicit", "We should remove the fallback in the next major release."),
    ("explicit", "Batch uploads are out of scope for this change."),
    ("explicit", "The pagination polish can wait until the next release."),
    ("explicit", "Park the pagination idea, the crash matters more."),
    ("explicit", "We'll handle the pagination in another PR."),
    ("explicit", "Ignore the flaky upload test for the moment."),
    ("explicit", "Leave the retry limit hard-coded for the time being."),
    ("explicit", "let's not worry about pagination for now, fix the crash"),
    ("explicit", "forget pagination for today, the crash comes first"),
    ("explicit", "put a pin in pagination and fix the crash"),
    ("explicit", "let's table pagination until the crash is fixed"),
    ("explicit", "We'll punt on pagination, the crash comes first."),
    ("explicit", "deprioritize pagination, fix the crash"),
    ("explicit", "Pagination isn't a priority right now."),
    ("explicit", "Pagination is low priority, after the release."),
    ("explicit", "Pagination can come later."),
    ("explicit", "pagination is a nice-to-have, skip it"),
    ("explicit", "let's circle back on pagination once the crash is fixed"),
    ("explicit", "We'll do pagination next sprint."),
    ("explicit", "Both are reasonable follow-ups but not part of the current optimization."),
    ("explicit", "Pagination is not part of this PR."),
    ("explicit", "I've left pagination out of this change."),
    ("explicit", "We should add the same check to the export path at some point."),
    ("explicit", "let's do the backfill tomorrow, it'll hammer the warehouse."),
    ("explicit", "I'll measure the current draw next week with the lab's meter."),
    # tense and form: past tense and participles
    ("explicit", "I stubbed out the mailer for now; it logs instead of sending."),
    ("explicit", "I left the changelog for later."),
    ("explicit", "The retry limit stays hard-coded for now."),
    ("explicit", "I kept the old parser around for now, behind a flag."),
    # negated completion
    ("not-done", "The metrics are not wired up yet."),
    ("not-done", "I never got around to the migration."),
    ("not-done", "The export to Parquet is not implemented yet."),
    ("not-done", "Error handling for network timeouts isn't implemented yet."),  # "n't" in a word
    ("not-done", "The Windows build isn't yet supported."),
    ("not-done", "We haven't had a chance to test it on ARM."),
    ("not-done", "The cleanup job is still a stub."),
    # sentence-initial markers
    ("lead-later", "Later: add metrics for the queue depth."),
    ("lead-later", "Later, we can split the importer into two modules."),
    ("lead-later", "Eventually we should shard the events table."),
    ("lead-later", "In the future, we could cache the parsed config."),
    ("lead-later", "Eventually the import command should use the new parser too."),
    # gerunds and the verbs of deferring
    ("gerund", "Postponing the cleanup until the migration has landed."),
    ("gerund", "I deferred the index rebuild to the weekend window."),
    ("gerund", "Let's put the locale work on hold."),
    ("gerund", "Hold off on pagination until the crash is fixed."),
    ("gerund", "Virtualization is parked, as agreed."),
    # standing caveats
    ("caveat", "Heads-up: the ARM build is still red."),
    ("caveat", "Known issue: the importer drops rows with an empty tenant."),
    ("caveat", "Note: the Windows path handling is still broken."),
    ("caveat", "Important — the nightly export remains broken on ARM."),
    ("caveat", "Warning - the staging deploy is still failing."),
    # the user's side: asides kept for another time
    ("aside", "save the pagination idea for another time, the bug matters more"),
    ("aside", "don't forget we owe the docs a pass"),
    ("aside", "not today, but the cache needs an eviction policy"),
    ("aside", "not this time, but the importer should validate tenants"),
    ("aside", "remind me to rotate the staging keys"),
    ("aside", "put it on the backlog, it is not urgent"),
    ("aside", "add pagination to the backlog, the crash comes first"),
    # TODO notes
    ("todo", "TODO: add a test for the empty input case."),
    ("todo", "I left a TODO in the loader for the encoding detection."),
    # side ideas
    ("diverging", "We could also precompute the index at build time."),
    ("diverging", "Another option is to stream the rows instead of loading them."),
    ("diverging", "A bloom filter might be worth trying for the lookups."),
    ("diverging", "I'd recommend adding a test for the CRLF case."),
    ("diverging", "Consider adding rate limiting before this goes to production."),
]

# (class the words point at, sentence): ordinary senses of the marker words, attempts,
# narration — none is a loose end.
LEFT = [
    ("explicit", "It did not today, but it will fail tomorrow morning."),
    ("explicit", "Tomorrow we found the bug in the parser."),
    ("explicit", "A follow-up email is sent by the signup service after registration."),
    ("explicit", "The later rows of the table come from the nightly backfill."),
    ("explicit", "I'll check the later rows of the export first."),
    ("explicit", "The next time the cron job fires it retries the failed batch."),
    ("explicit", "For now the service runs on a single node in one region."),
    ("explicit", "For now, let me try skipping the pre-commit hook to finish the task."),
    ("explicit", "Let me revisit the function and read it again."),
    ("explicit", "Let's go back to the version where the header scrolled away."),  # issue 19
    ("explicit", "It failed later with a timeout in the second test."),
    ("explicit", "The fix is in another branch of the switch statement."),
    ("explicit", "Users park their cars in the lot behind the office."),
    ("explicit", "For the moment the cache holds every page in memory."),
    ("explicit", "Add an index to the users table before the migration runs."),
    ("explicit", "The priority field decides which job runs first."),
    ("explicit", "Jobs with a low priority are retried less often."),  # no "low priority" in it
    ("explicit", "The next release of the SDK ships the new client."),
    ("explicit", "I'll table the results in the summary below."),
    ("explicit", "Don't worry about the lint warning; it is fixed now."),
    ("explicit", "The retry is part of the upload client now."),
    ("explicit", "We'll defer to the caller's timeout when one is given."),
    ("explicit", "I left the helper out of the public API on purpose."),
    ("not-done", "I have not seen this error yet in the staging logs."),
    ("not-done", "The metrics are wired up now and the dashboard shows them."),
    ("not-done", "The tests still pass after the rename."),
    ("lead-later", "Later releases of Node drop the legacy flag entirely."),
    ("lead-later", "Eventually the test passed after the third retry."),
    ("lead-later", "Eventually consistent reads are fine for the dashboard."),
    ("lead-later", "The replica is eventually consistent, so reads may be stale."),
    ("gerund", "The scheduler defers the callback to the next tick of the loop."),
    ("gerund", "A deferred promise resolves once the data is loaded."),
    ("gerund", "The delivery van is parked outside the depot in the demo data."),
    ("caveat", "Note: the function returns None when the list is empty."),
    ("caveat", "Heads up, I'm restarting the dev server now."),
    ("aside", "I found another time zone bug in the report dates."),
    ("aside", "Don't forget to run the tests before you commit."),
    ("aside", "Can you remind me what the verbose flag does?"),
    ("aside", "I added the login page to the roadmap section of the README."),
    ("todo", "Now I'll execute the remaining tasks to complete the TODO app."),
    ("todo", "Here is the TODO list component with its tests."),
    ("diverging", "The option is read once at start-up."),
    ("diverging", "I considered adding a cache, but the lookups are fast enough."),
    ("diverging", "Consider the case where the list is empty: the loop never runs."),
    ("diverging", "The linter suggests adding a docstring to every public function."),
    ("explicit", "The job failed at some point during the night."),
    ("explicit", "The cron job runs tomorrow at 3am and again next week."),
    ("explicit", "I have to show the rollback plan to the team tomorrow."),
    ("lead-later", "Eventually the old parser was removed in the same commit."),
]


@pytest.mark.parametrize(("name", "sentence"), TAKEN)
def test_each_class_takes_its_phrasings(name: str, sentence: str) -> None:
    assert prose.classify(sentence) is not None
    assert prose.classify(sentence)[0] == name  # type: ignore[index]
    kind = DIVERGING if name == "diverging" else DEFERRED
    assert prose.marked_sentences(sentence) == [(kind, sentence)]
    if sentence[0].isupper():  # a sentence among others is found just the same
        text = f"Done with the fix. {sentence} The tests pass."
        assert prose.marked_sentences(text) == [(kind, sentence)]


@pytest.mark.parametrize(("name", "sentence"), LEFT)
def test_each_class_leaves_ordinary_senses(name: str, sentence: str) -> None:
    assert prose.classify(sentence) is None
    assert prose.marked_sentences(sentence) == []
    assert prose.marked_sentences(f"Done with the fix. {sentence} The tests pass.") == []


def test_every_class_has_both_kinds_of_example() -> None:
    names = {rule.name for rule in RULES}
    assert names == {n for n, _ in TAKEN} == {n for n, _ in LEFT}


def test_every_rule_word_is_an_anchor() -> None:
    # A rule whose words are not anchors would never be tried.
    anchored = set(ANCHORS.values())
    assert all(rule.words <= anchored for rule in RULES)


def test_still_open_only_in_a_closing_text() -> None:
    text = "I ran the suite twice. The ARM job is still failing on the float test."
    assert prose.still_open(text) == ["The ARM job is still failing on the float test."]
    assert prose.marked_sentences(text) == []  # mid-turn it is narration
    assert prose.still_open("The build is still green after the merge.") == []


def test_listed_next_steps() -> None:
    text = (
        "## Summary\nAll done.\n\n### Next Steps\nThe remaining tasks are:\n"
        "- spotter-4te.4: Enable tracing of the async jobs\n"
        "- ✅ spotter-4te.3: controllers\n"
        "- [x] write the changelog entry\n"
        "- spotter-4te.5: Trace the LiveView events\n\n"
        "### Recommended Next Step\n1. Copy a session to another folder\n"
    )
    assert prose.listed_items(text) == [
        (DEFERRED, "spotter-4te.4: Enable tracing of the async jobs", "Next Steps"),
        (DEFERRED, "spotter-4te.5: Trace the LiveView events", "Next Steps"),
    ]
    assert prose.listed_items("Next steps: none, it is all merged.") == []


# ---------------------------------------------------------------- fast paths agree


_SECRETS = [
    "AKIAIOSFODNN7EXAMPLE",
    "sk-ant-api03-FAKE0fake1FAKE2fake3",
    "sk-proj-abcdef0123456789XYZ",
    "ghp_FAKEfakeFAKEfake0123456789abcdefABCD",
    "github_pat_11AAAAAAA0123456789_abcdefghij",
    "xoxb-123456789012-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
    "Bearer abcdefghijklmnopqrstuvwxyz0123",
    "password = hunter2-not-real",
    "API_KEY: 'not-a-real-key-123'",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_SECRETS + ["plain words", "token_count = 3", "x: 1"])))
def test_the_guarded_redact_is_redact(parts: list[str]) -> None:
    text = " and ".join(parts)
    assert prose.redact(text) == full_redact(text)


# -- the fast paths of the loose-ends reader agree with what they replace -------------------
_WORDS = st.text(alphabet="abyst' -", min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=12), st.text(alphabet="abyst' -x.", max_size=40))
def test_alternation_finds_what_the_plain_alternation_finds(words: list[str], text: str) -> None:
    import re

    from session_skill.transcripts.lazyre import alternation

    plain = re.compile("|".join(map(re.escape, words))).search(text)
    factored = re.compile(alternation(words)).search(text)
    assert (plain is None) == (factored is None)
    if plain is not None and factored is not None:
        assert plain.start() == factored.start()


# Words the branches of `ending._NOT_YET` and `ending._UNDONE` are made of, and look-alikes
# of their cheap tests' ("nothing", "notes").
_NOT_YET_PARTS = st.sampled_from(
    "still not n't never yet been be pushed tested covered isn't aren't haven't didn't "
    "doesn't don't did do is are have but in there place remains stays open a stub to-do "
    "pending your review awaiting waiting on for you instead of without untracked unpushed "
    "unexercised nothing notes notably nevertheless yesterday stayed so far x i we "
    "wasn't weren't added checked really fully looked at chase".split()
)


def _cheap_tests() -> list[tuple[Lazy, re.Pattern[str]]]:
    from session_skill.transcripts import ending

    return [(ending._NOT_YET, ending._NOT_YET_WORDS), (ending._UNDONE, ending._NOT_SAID)]


@settings(max_examples=500, deadline=None)
@given(st.lists(_NOT_YET_PARTS, min_size=1, max_size=10),
       st.sampled_from([" ", "  ", "\n", ". ", ", ", "\t"]))  # fmt: skip
def test_what_not_yet_finds_holds_a_word_of_its_cheap_test(words: list[str], gap: str) -> None:
    text = gap.join(words)
    for pattern, cheap in _cheap_tests():
        if next(pattern.finditer_lowered(text, text), None) is not None:
            assert cheap.search(text) is not None, (pattern._source[:40], text)


@pytest.mark.parametrize(
    "said",
    [
        # one of each branch of `ending._NOT_YET`…
        "the readme still says v1", "it has never been merged so far", "not pushed",
        "we didn't deploy", "it doesn't handle retries yet", "not yet", "yet to land",
        "retention isn't in yet", "written but not applied", "two files are untracked",
        "the ticket stays open", "it remains a to-do", "pending your review", "ci is pending",
        "awaiting approval", "waiting on you",
        # …and of `ending._UNDONE`
        "i haven't added the translations", "we did not chase the flake",
        "the windows path isn't covered", "it was not really tested",
    ],
)  # fmt: skip
def test_each_way_not_yet_says_it_holds_a_word_of_its_cheap_test(said: str) -> None:
    tests = [cheap for pattern, cheap in _cheap_tests() if pattern.search_lowered(said, said)]
    assert tests  # (the phrase says it)
    assert all(cheap.search(said) is not None for cheap in tests)


def test_alternation_factors_shared_prefixes() -> None:
    from session_skill.transcripts.lazyre import alternation

    assert alternation(["still", "stay", "so far"]) == r"s(?:o\ far|t(?:ay|ill))"
    assert alternation(["a", "ab", "abc"]) == "a(?:bc?)?"


# The patterns searched in lowered text (`Lazy.search_lowered`): none may hold an upper-case
# letter of its own, or the lowered text could never match it.
def _lowered_patterns() -> list[tuple[str, Lazy]]:
    from session_skill.transcripts import ending, phrasing, turns

    return [("DONE", phrasing.DONE), ("UNDONE", phrasing.UNDONE),
            ("_YOURS", ending._YOURS), ("_LEFT_OVER", ending._LEFT_OVER),
            ("_NOT_YET", ending._NOT_YET), ("_UNDONE", ending._UNDONE),
            ("_ACK", turns._ACK)]  # fmt: skip


def test_patterns_searched_lowered_hold_no_upper_case_letter() -> None:
    import re

    for name, lazy in _lowered_patterns():
        own = re.sub(r"\\.", "", lazy._source)  # \b, \W, \S … are classes, not letters
        if lazy._flags & re.VERBOSE:
            own = re.sub(r"#.*", "", own)  # …and a comment is no part of the pattern
        assert not re.search("[A-Z]", own), name
        assert lazy._flags & re.IGNORECASE, name  # …and the text it is given is lowered


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        # Cyrillic capitals open a sentence, as Latin ones do
        ("Исправил баг в парсере, тесты проходят. Обновить ещё и документацию?",
         ["Исправил баг в парсере, тесты проходят.", "Обновить ещё и документацию?"]),
        # …and "¿"
        ("Listo, los tests pasan. ¿Quieres que actualice también el README?",
         ["Listo, los tests pasan.", "¿Quieres que actualice también el README?"]),
        # Chinese and Japanese end a sentence on "。", "！", "？", with no space after
        ("测试都通过了。要不要我也更新一下文档？", ["测试都通过了。", "要不要我也更新一下文档？"]),
        ("直りました！READMEも更新しますか？", ["直りました！", "READMEも更新しますか？"]),
        # (an English line is split as before: no capital, no split)
        ("Fixed it. then ran the tests.", ["Fixed it. then ran the tests."]),
    ],
)  # fmt: skip
def test_sentences_of_other_scripts(text: str, sentences: list[str]) -> None:
    assert [s for s, _ in prose._units(text)] == sentences


@pytest.mark.parametrize(
    "text",
    ["测试都通过了。要不要我也更新一下文档？", "テストは全部通りました。READMEも更新しますか？",
     "Тесты проходят. Обновить ещё и документацию?"],
)  # fmt: skip
def test_a_question_a_reply_ends_on_in_another_script(text: str) -> None:
    from session_skill.transcripts.asks import asks

    assert [a.text for a in asks(text)] == [prose._units(text)[-1][0]]


def test_search_lowered_of_text_lowering_lengthens_is_search() -> None:
    from session_skill.transcripts.phrasing import DONE

    # "İ" lowers to two characters, the second no letter: "i̇added" would hold the word
    # "added" where "İadded" does not
    assert DONE.search("İadded") is None
    assert DONE.search_lowered("İadded", "İadded".lower()) is None
    assert DONE.search_lowered("Added", "added") is not None


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        ["Added the TEST", "Still NEEDS a Review", "We Haven't Tested it", "still Broken",
         "You'll Need To Rotate it", "That Leaves the docs", "WORKING directory", "It Works",
         "Not Done YET", "I'll Port It Next", "Thanks, LOOKS GOOD", "OK", "Great Job!"]
    ),
    st.text(alphabet="aAbBkKİ ,.!?'", max_size=12),
)  # fmt: skip
def test_search_lowered_answers_as_search(said: str, noise: str) -> None:
    text = f"{noise} {said} {noise}"
    for name, lazy in _lowered_patterns():
        found = lazy.search(text) is not None
        assert (lazy.search_lowered(text, text.lower()) is not None) is found, (name, text)
        spans = [m.span() for m in lazy.finditer(text)]
        assert [m.span() for m in lazy.finditer_lowered(text, text.lower())] == spans, name
        found = lazy.match(text) is not None
        assert (lazy.match_lowered(text, text.lower()) is not None) is found, (name, text)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60) | st.text(alphabet="ab 1_.-é", max_size=60))
def test_is_prose_counts_letters_as_the_pattern_does(sentence: str) -> None:
    if len(sentence.split()) < 4:
        return
    expected = len(prose._NOT_PLAIN.sub("", sentence)) >= 0.75 * len(sentence)
    assert prose._is_prose(sentence) is expected


def test_units_of_the_last_text_are_kept_not_confused() -> None:
    first = "The cache is stale. We fix it later."
    second = "Another text. Entirely different."
    a = prose._units(first)
    assert prose._units(second) == (("Another text.", False), ("Entirely different.", False))
    assert prose._units(first) == a
    assert prose._units("".join(["The cache is stale. ", "We fix it later."])) == a


def test_units_drop_the_bracket_of_a_parenthesis_they_split() -> None:
    text = (
        "Removed the green flash. (The red one still shows, and the final line is untouched."
        " Let me know if you want either of those gone too.) Done (see the diff)."
        "\n_Should I also update the changelog?_\n*Or leave it.*"
    )
    assert [unit for unit, _ in prose._units(text)] == [
        "Removed the green flash.",
        "The red one still shows, and the final line is untouched.",
        "Let me know if you want either of those gone too.",
        "Done (see the diff).",
        "Should I also update the changelog?",
        "Or leave it.",
    ]


_CLOSING = st.lists(
    st.sampled_from(
        [
            "The parser is done.",
            "The README still says Level 1.",
            "**Later:** the cache needs an eviction policy.",
            "You'll need to redeploy the web chat.",
            "Should I also add a test for the empty tenant?",
            "- the retry flag stays hard-coded for now",
            "```\nstill inside code\n```",
            "We could also split the loader later.",
            "Déjà vu: the export is still untested.",
        ]
    ),
    max_size=8,
).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(_CLOSING, st.booleans())
def test_caveats_read_the_same_with_the_callers_lowercased_text(text: str, ideas: bool) -> None:
    from session_skill.transcripts.ending import caveats

    low = text.lower()
    assert caveats(text, ideas, low, set(low.split())) == caveats(text, ideas)


def test_a_list_goes_on_past_blank_lines_and_wrapped_lines() -> None:
    """A "loose" list (each item a paragraph) and an item wrapped onto an indented line are
    one list; a paragraph after it ends it."""
    text = (
        "**Remaining work:**\n\n"
        "1. **Commit & PR**: nothing is committed yet, just staged.\n\n"
        "2. **E2E tests**: they pass in-process, but need a real git\n"
        "   binary to run against.\n\n"
        "3. **Compare with the old branch** on a real repository.\n\n"
        "Want me to commit this, or tackle the rest first?\n\n"
        "- a list after the question is another one\n"
    )
    lines = text.splitlines()
    items, end = prose.list_under(lines, 1, 8)
    assert items == [
        "Commit & PR: nothing is committed yet, just staged.",
        "E2E tests: they pass in-process, but need a real git",
        "Compare with the old branch on a real repository.",
    ]
    assert next(line for line in lines[end:] if line.strip()).startswith("Want me to commit")


def test_a_list_item_of_a_word_or_two_is_an_item_unless_code_or_a_path() -> None:
    lines = ["- pagination", "- rate limits", "- `npm test`", "- src/app.py", "- 2024", "- Docs."]
    items, _ = prose.list_under(lines, 0, 8)
    assert items == ["pagination", "rate limits", "Docs."]


@pytest.mark.parametrize(
    "sentence",
    [
        "If you want, I can add a retry.", "Just say the word and I'll ship it.",
        "Happy to wire it in if you like.", "I'm also happy to add the flag.",
        "I could also add a flag if that would help.", "I can run EXPLAIN if needed.",
        "They'd disappear with `--no-merges` if you want that.",
        "Apply it and send me `kubectl top pod` for one of the new pods.",
        "If useful, I can run EXPLAIN on those two.",
        "Not sure if you want the old parser removed.",
        "Let me know whether the bucket should stay.", "Tell me which one you prefer.",
    ],
)  # fmt: skip
def test_every_plain_offer_passes_the_cheap_test_before_it(sentence: str) -> None:
    from session_skill.transcripts.asks import _PLAIN_OFFER, _may_offer_plainly

    assert _PLAIN_OFFER.search(sentence) is not None
    assert _may_offer_plainly(sentence)


@pytest.mark.parametrize(
    ("sentence", "named"),
    [
        ("no do hsts now, we got dinged on the pentest for it", {"hst"}),
        ("ok and throttle the resend, someone will spam it.", {"resend"}),
        ("do the psycopg thing now", {"psycopg"}),
        ("yes add coyote time, 0.12s.", {"coyot"}),
        ("handle windows too", {"window"}),
        ("do pricing and the footer too.", {"pric"}),  # the order names it first
        # an order of another time, the user's own step, a question, no order, a generic word
        ("ok will run it on staging tomorrow morning", set()),
        ("ok I'll ping Dana for approval. ty", set()),
        ("sounds good but not today", set()),
        ("do we need hsts?", set()),
        ("i checked the capability in xcode, its on.", set()),
        ("it is. push", set()),
        ("fix the bug", set()),
    ],
)  # fmt: skip
def test_the_orders_of_a_reply_name_their_objects(sentence: str, named: set[str]) -> None:
    from session_skill.transcripts.asks import asked_for

    assert asked_for(sentence) == named

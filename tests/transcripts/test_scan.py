from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from session_skill.records import replace
from session_skill.transcripts import claude
from session_skill.transcripts import scan as sweep
from session_skill.transcripts.reader import AssistantText, ReadStats, UserText, iter_events
from session_skill.transcripts.scan import (
    DEFERRED,
    DIVERGING,
    UNANSWERED,
    UNFINISHED,
    Candidate,
    PendingTask,
    analyze,
    clip,
    filter_known,
    merge_near_duplicates,
    render_table,
    to_json,
)
from session_skill.transcripts.toolcalls import ToolState
from tests.lines import write as write_lines
from tests.spies import after_each

FIXTURES = Path(__file__).parent.parent / "fixtures" / "transcripts"
REPO = Path(__file__).resolve().parents[2]
APP = "/home/dev/app"


@pytest.fixture(autouse=True)
def utc() -> Iterator[None]:
    """Times in `why` are local; pin the zone so the expected strings hold everywhere."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


# ---------------------------------------------------------------- building transcripts

_clock = iter(range(1_000_000))
_START = datetime(2026, 11, 29, 14, 0, tzinfo=timezone.utc)


def _ts() -> str:
    return (_START + timedelta(seconds=next(_clock))).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def user(content: Any, **extra: Any) -> dict[str, Any]:
    record = {
        "isSidechain": False,
        "sessionId": "s1",
        "cwd": APP,
        "type": "user",
        "message": {"role": "user", "content": content},
        "timestamp": _ts(),
    }
    record.update(extra)
    return record


def assistant(*blocks: dict[str, Any], msg_id: str | None = None) -> dict[str, Any]:
    msg_id = msg_id or f"msg_{next(_clock)}"
    return {
        "isSidechain": False,
        "sessionId": "s1",
        "cwd": APP,
        "type": "assistant",
        "message": {"id": msg_id, "role": "assistant", "content": list(blocks)},
        "timestamp": _ts(),
    }


def say(value: str) -> dict[str, Any]:
    return assistant({"type": "text", "text": value})


def call(tool_id: str, name: str, **inputs: Any) -> dict[str, Any]:
    return assistant({"type": "tool_use", "id": tool_id, "name": name, "input": inputs})


def result(
    tool_id: str, content: Any = "ok", *, error: bool = False, meta: Any = None
) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if error:
        block["is_error"] = True
    extra = {"toolUseResult": meta} if meta is not None else {}
    return user([block], **extra)


def run(tmp_path: Path, records: list[dict[str, Any]]) -> sweep.TranscriptFacts:
    path = tmp_path / "t.jsonl"
    return analyze(write_lines(path, records))


def kinds(facts: sweep.TranscriptFacts) -> list[tuple[str, str]]:
    return [(c.type, c.text) for c in facts.candidates]


# ---------------------------------------------------------------- the project's fixtures


def test_tasks_through_toolsearch() -> None:
    facts = analyze(FIXTURES / "claude_tasks_toolsearch.jsonl")
    assert facts.pending_tasks == [
        PendingTask("Cap retries at 5 and surface the last error", "in_progress", "TaskCreate"),
        PendingTask("Write tests for the retry policy", "pending", "TaskCreate"),
    ]
    # …and the request: the session ends on "I'm now capping the retries", the work on it
    # announced and not done.
    assert [(c.type, c.why) for c in facts.candidates] == [
        (UNFINISHED, "in progress in the task list"),
        (UNFINISHED, "still pending in the task list"),
        (
            UNFINISHED,
            "the last request; the reply ends announcing more work; nothing came after it",
        ),
    ]
    assert facts.written_files == [f"{APP}/src/http/client.py", f"{APP}/src/http/retry.py"]
    assert facts.first_user_request == (
        "Add retry with exponential backoff to the HTTP client in src/http/client.py"
    )
    assert facts.agent == "claude-code"
    assert facts.started == datetime(2026, 11, 29, 14, 0, 20, 3000, tzinfo=timezone.utc)
    assert facts.session_id == "7c1d9a4e-2b4f-4a51-9d0e-5f3a2b1c0d01"
    assert facts.cwd == APP


def test_todowrite_last_state() -> None:
    facts = analyze(FIXTURES / "claude_todowrite_v1.jsonl")
    assert [(t.text, t.status) for t in facts.pending_tasks] == [
        ("Add the CLI entry point", "in_progress"),
        ("Write the first test", "pending"),
    ]
    assert (
        facts.first_user_request == "Set up the project skeleton with a CLI entry point and tests"
    )


def test_loose_ends_fixture() -> None:
    facts = analyze(FIXTURES / "claude_loose_ends.jsonl")
    assert [(c.type, c.text, c.why) for c in facts.candidates] == [
        (
            UNANSWERED,
            "Should I also add jitter to the retry backoff so the workers don't retry in lockstep?",
            "asked at 14:00; the user moved on",
        ),
        (
            DEFERRED,
            "The key in `.env` ([REDACTED:anthropic_key]) is committed to the repo; we should "
            "rotate it and come back to the secret handling later.",
            "deferred at 14:01",
        ),
        (
            DEFERRED,
            "Let's handle the retry limits later, it is out of scope for this fix.",
            "deferred at 14:01",
        ),
    ]
    # The question answered with "yes please", the side idea ("We could also route…") of a
    # summary the user then answered, the TODO inside a code block, the closing pleasantry
    # ("What would you like to tackle next…?") and the thanks are not candidates.


def test_a_session_over_more_than_one_day_names_the_day_of_each_loose_end(
    tmp_path: Path,
) -> None:
    """ "deferred at 14:00" of a session that went on the next day reads as today's: each
    time names its day then. Within one day, the time alone, as ever."""
    first = [user("the upload worker dies on flaky wifi, add retries"),
             *_edit("t1", "upload.py"), say("Added retries."),
             user("Let's handle the retry limits later, it is out of scope here.")]  # fmt: skip
    for n, record in enumerate(first):  # one afternoon, whatever the clock of the tests before
        record["timestamp"] = f"2026-11-29T14:00:{n:02d}.000Z"
    assert [c.why for c in run(tmp_path, first).candidates] == ["deferred at 14:00"]
    later = [*first, say("Noted."),
             user("now bump the timeout to 30s", timestamp="2026-11-30T09:00:00.000Z"),
             *_edit("t2", "upload.py"), say("Bumped the timeout to 30s.")]  # fmt: skip
    facts = run(tmp_path, later)
    assert [c.why for c in facts.candidates] == ["deferred on 2026-11-29 at 14:00"]
    assert "retry limits later" in render_table(facts.candidates)


def test_no_secret_leaves_the_sweep() -> None:
    facts = analyze(FIXTURES / "claude_loose_ends.jsonl")
    raw = (FIXTURES / "claude_loose_ends.jsonl").read_text(encoding="utf-8")
    secrets = [
        "AKIAIOSFODNN7EXAMPLE",
        "sk-ant-api03-FAKE0fake1FAKE2fake3FAKE4fake5",
        "ghp_FAKEfakeFAKEfake0123456789abcdefABCD",
        "hunter2-not-real",
    ]
    assert all(s in raw for s in secrets)
    outputs = [
        render_table(facts.candidates),
        json.dumps(to_json(facts.candidates)),
        repr(replace(facts, stats=sweep.ReadStats())),
    ]
    for output in outputs:
        for secret in secrets:
            assert secret not in output
    assert facts.first_user_request is not None
    assert "[REDACTED:github_token]" in facts.first_user_request


def test_session_command_is_not_a_request_or_a_candidate() -> None:
    facts = analyze(FIXTURES / "claude_session_command.jsonl")
    assert facts.first_user_request == "Why does the login test fail on CI but not locally?"
    assert facts.candidates == []
    assert facts.written_files == [f"{APP}/src/auth/token.py"]


def test_clear_split_fixtures() -> None:
    before = analyze(FIXTURES / "claude_clear_before.jsonl")
    # The rename was made, then a question asked: the question is what the session stopped
    # on, not the request it followed (its work changed a file).
    assert kinds(before) == [
        (UNANSWERED, "Do you want me to keep a deprecated alias for the old module name?"),
    ]
    assert before.candidates[0].why == "asked at 16:00; the session ended"
    assert before.unfinished is None
    after = analyze(FIXTURES / "claude_clear_after.jsonl")
    assert after.first_user_request == "Now make the settings loader read TOML as well as YAML"
    assert after.candidates == []
    assert after.session_id == "e3f4a5b6-7c8d-4e9f-8a0b-1c2d3e4f5a04"


def test_clear_inside_one_file_keeps_only_the_new_conversation(tmp_path: Path) -> None:
    clear = user("<command-name>/clear</command-name>\n<command-args></command-args>")
    old = [
        user("first conversation request"),
        call("t1", "Write", file_path="/a.py"),
        result("t1"),
        call("t2", "TodoWrite", todos=[{"content": "old task", "status": "pending"}]),
        say("Done. Should I also port the config loader to the new API?"),
    ]
    new = [user("second conversation request"), call("t3", "Edit", file_path="/b.py")]
    facts = run(tmp_path, old + [clear] + new)
    assert facts.first_user_request == "second conversation request"
    assert facts.started == sweep.parse_ts(new[0]["timestamp"])
    assert facts.written_files == ["/b.py"]
    # Nothing of the old conversation; the new one stops mid-work (an Edit, no result).
    assert facts.pending_tasks == []
    assert kinds(facts) == [(UNFINISHED, "second conversation request")]
    # A file that ends on /clear is the conversation being left: it keeps what it holds.
    ended = run(tmp_path, old + [clear])
    assert ended.written_files == ["/a.py"]
    assert [t.text for t in ended.pending_tasks] == ["old task"]
    assert (UNANSWERED, "Done. Should I also port the config loader to the new API?") not in kinds(
        ended
    )
    assert (UNANSWERED, "Should I also port the config loader to the new API?") in kinds(ended)


def test_split_sidechain_progress_fixture() -> None:
    facts = analyze(FIXTURES / "claude_split_sidechain_progress.jsonl")
    assert facts.written_files == [
        f"{APP}/src/csvparse.py",
        f"{APP}/src/app.py",
        f"{APP}/notebooks/explore.ipynb",
        f"{APP}/src/cli.py",
    ]
    # "come back to the CLI flags later" is in the compact summary, not a loose end; the
    # last request stops after its Edit, with no closing text.
    assert kinds(facts) == [(UNFINISHED, "Continue (caf\ufffd): also update src/cli.py")]
    assert facts.candidates[0].why.endswith("the transcript ends in the middle of the work on it")
    assert facts.stats.malformed == 4


def test_codex_fixture() -> None:
    facts = analyze(FIXTURES / "codex_rollout.jsonl")
    assert facts.agent == "codex"
    assert facts.started == datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
    assert facts.written_files == [
        "/home/dev/svc/src/health.py",
        "/home/dev/svc/src/server.py",
        "/home/dev/svc/src/app.py",
        "/home/dev/svc/src/legacy_health.py",
        "/home/dev/svc/tests/test_app.py",
    ]  # exec_command's sed/cat writes are not counted; the shell apply_patch heredoc is
    assert facts.pending_tasks == [
        PendingTask("Add a test for /healthz", "in_progress", "update_plan")
    ]
    # The request's work changed files, so the question after it is the loose end, not the
    # request (`test_a_question_after_changes_leaves_the_question_open`).
    assert [(c.type, c.why) for c in facts.candidates] == [
        (UNFINISHED, "in progress in the plan"),
        (UNANSWERED, "asked at 12:00; the session ended"),
        (DEFERRED, "deferred at 12:00"),
    ]
    assert facts.candidates[2].text == (
        "The readiness probe is out of scope here; it can go in a follow-up PR."
    )
    assert [c.line for c in facts.candidates] == [15, 18, 18]  # where each came from


# ---------------------------------------------------------------- precision and recall

CHIT_CHAT = [
    "Thanks!",
    "Sounds good, thank you.",
    "Let me read the file first.",
    "I'll run the tests now.",
    "All 42 tests pass.",
    "Great, that works. The build is green again.",
    "Later versions of Python support this syntax natively.",
    "I updated the README and the changelog.",
    "The function returns early when the list is empty.",
    "Now I'll execute the remaining tasks to complete the TODO app.",
    "I'll help you create a TODO app using Next.js.",
    "The tokenizer handles unicode now.",
    "See the section later in this file for the details.",
    "Here is the diff:\n\n```python\n# TODO: handle errors later\nx = 1\n```",
    "Is there anything else you'd like me to help with?",
    "What would you like me to work on next?",
    "Does that help?",
    "Why does it fail? Because the fixture is shared between tests.",
    "Here are the results:\n| name | note |\n| --- | --- |\n| a | we could also do b |",
]


@pytest.mark.parametrize("chatter", CHIT_CHAT)
def test_chit_chat_is_not_a_candidate(tmp_path: Path, chatter: str) -> None:
    facts = run(tmp_path, [user("Please fix the build"), say(chatter)])
    # A reply that only announces the work ("Let me read the file first.") leaves the
    # request open; the chatter itself is no loose end.
    assert [c for c in facts.candidates if c.rule != "unfinished"] == []
    facts = run(tmp_path, [say("Fixed."), user(chatter), say("Done.")])
    assert facts.candidates == []


def _edit(tool_id: str, name: str) -> list[dict[str, Any]]:
    return [call(tool_id, "Edit", file_path=f"{APP}/{name}"), result(tool_id)]


LEFT_IN_THE_CLOSING = [
    "Error handling for network timeouts isn't implemented yet.",
    "Two flaky tests in tests/test_sync.py are unrelated to this change and still fail.",
    "If you'd like, I can also add a --dry-run flag.",
    "I couldn't verify the email flow, since SMTP is not configured here.",  # a check not made
    "Can't test the login without valid credentials.",
    "The integration tests couldn't run here (no database).",
    "Only the CSV export is left.",  # what is left, said of the work
    "Everything else is done except the CSV export.",
    "Next I'd tackle the CSV export.",
    "The CSV export will need to be done separately.",
    "This doesn't cover the CSV export yet.",
    "The CSV export remains a TODO.",
    "The CSV export remains a to-do.",
    # what is next, waiting on the user, or given up on, in ordinary words
    "The next step would be to wire the CSV export into the import command.",
    "If the CRLF test keeps failing, the next thing to try is normalising line endings.",
    "One remaining issue: the cache isn't invalidated on logout.",
    "The only remaining failure is test_timeout, which looks flaky.",
    "Once you've set STRIPE_KEY, I can finish the billing integration.",
    "Let me know once the staging deploy finishes so I can verify the import.",
    "We should also add the same check to the CSV export at some point.",
    "Eventually the import command should use the new parser too.",
    # side ideas and offers said without a question mark
    "I'd recommend adding a test for the CRLF case.",
    "Consider adding rate limiting before this goes to production.",
    "I can also add a --verbose flag if that would help.",
    "I'm happy to wire the parser into the import command next.",
    "Not sure if you want the old parser removed; I left it in place.",
    # not pushed; a step for when someone else has done theirs; an offer "if useful"
    "The commit isn't pushed.",
    "Committed as `a1b2c3d`; not pushed.",
    "Once Sara has regenerated the certificate, restart the deploy workflow.",
    "If useful, I can run EXPLAIN on the two slow queries.",
    # work not done, said without "yet"; a step for the user said with "also"
    "I haven't added the German translations.",
    "Haven't tested it in Outlook, which usually breaks button layouts.",
    "Retries on the batch path aren't covered by the tests.",
    "The retry path isn't fully covered by the tests.",  # a word between
    "The Windows build wasn't really tested.",
    "I didn't add a retention policy, so the audit table grows without bound.",
    "We did not test the Windows build.",
    "You'll also need to enable the webhook event in the Stripe dashboard.",
    "The keys aren't in the repo (they're gitignored); you'll need to drop them in.",
    "Most components don't have `dark:` variants yet.",
    "If you need the old checkpoints' scores, re-evaluate them with the fixed loop.",
    "Before prod, run the migration on staging and check the lock timeout.",
]

# …and the same words telling what was done: nothing is left.
DONE_IN_THE_CLOSING = [
    "The next step was to run the migrations, and they all passed.",
    "The only remaining failure was the flaky timeout test, which I fixed too.",
    "I stopped here to check the logs, found the real bug and fixed it as well.",
    "When you ran the suite earlier, I could see the CRLF failure; it passes now.",
    "Once I had the fixture, I could reproduce the bug, and the fix covers it.",
    "After you pointed at the CRLF case, I added a test for it.",
    "Eventually the old parser was removed in the same commit.",
    "I considered adding a cache, but the lookups are fast enough.",
    "Not pushed, as you said.",
    "Once the cache was warm, the build took two minutes.",
    # what the change kept as it was, none of a thing, a choice with its reason
    "I haven't changed the public API.",
    "I haven't added any new dependencies.",
    "I haven't added a migration since the column is nullable.",
    "I didn't change the public API.",
    "I didn't add any new dependencies.",
    "I didn't add a migration since the column is nullable.",
    "Peak memory is 9 GB. That leaves plenty of headroom on a 32 GB box.",  # room, not work
    # a file kept out of git on purpose
    "The plan file `tfplan` is untracked and ignored by `.gitignore`, so it stays local.",
    "The log files under `tools/logs/` are gitignored, so they're not part of the commit.",
]


@pytest.mark.parametrize("left", LEFT_IN_THE_CLOSING)
@pytest.mark.parametrize("apostrophe", ["'", "\u2019"])
def test_what_the_closing_text_leaves_open_whatever_its_apostrophe(
    tmp_path: Path, left: str, apostrophe: str
) -> None:
    """A caveat, a failure set aside, an offer — with Codex's typographic apostrophe too."""
    said = left.replace("'", apostrophe)
    facts = run(tmp_path, [user("Add the sync retries"), *_edit("t1", "sync.py"),
                           say(f"Added the retries. {said}")])  # fmt: skip
    assert [c.text for c in facts.candidates] == [left]


@pytest.mark.parametrize("done", DONE_IN_THE_CLOSING)
def test_what_was_done_said_in_the_words_of_what_is_left_is_not_open(
    tmp_path: Path, done: str
) -> None:
    facts = run(tmp_path, [user("Add the sync retries"), *_edit("t1", "sync.py"),
                           say(f"Added the retries. {done}")])  # fmt: skip
    assert facts.candidates == []


@pytest.mark.parametrize(
    "said",
    [
        "The planner can't verify upfront that the result is sound, so it pushes everything.",
        "Old clients cannot run the new migrations, so they are gated on the version.",
    ],
)
def test_what_the_code_cannot_do_is_no_check_left_undone(tmp_path: Path, said: str) -> None:
    facts = run(tmp_path, [user("Add the sync retries"), *_edit("t1", "sync.py"),
                           say(f"Added the retries. {said}")])  # fmt: skip
    assert facts.candidates == []


@pytest.mark.parametrize(
    "heading", ["### What's left", "**What remains:**", "Deferred:", "Out of scope:", "Not done:"]
)
def test_what_is_left_heads_an_open_list(tmp_path: Path, heading: str) -> None:
    item = "the billing service still calls the old client"
    facts = run(tmp_path, [user("Refactor the payments client"), *_edit("t1", "client.py"),
                           say(f"Refactor complete.\n\n{heading}\n- {item}\n")])  # fmt: skip
    assert [(c.rule, c.text) for c in facts.candidates] == [("open-list", item)]


@pytest.mark.parametrize(
    "heading",
    ["**Suggested next steps:**", "Up next:", "### Left for later", "What I didn't do:",
     "Things to verify:", "Before merging:", "You'll need to:", "Possible improvements:"],
)  # fmt: skip
def test_the_session_ends_on_a_list_of_what_is_left_under_an_ordinary_lead(
    tmp_path: Path, heading: str
) -> None:
    """At the session's end these leads list what is left; earlier in it, what the user
    answers next ("Practical next step: rerun …" — "it worked"), so not there."""
    item = "backfill the audit_log table"
    closing = say(f"Refactor complete.\n\n{heading}\n- {item}\n")
    work = [user("Refactor the payments client"), *_edit("t1", "client.py"), closing]
    facts = run(tmp_path, work)
    assert [(c.rule, c.text) for c in facts.candidates] == [("open-list", item)]
    later = [*work, user("now bump the version to 1.4"), *_edit("t2", "pyproject.toml"),
             say("Bumped the version to 1.4.")]  # fmt: skip
    assert run(tmp_path, later).candidates == []


@pytest.mark.parametrize(
    "heading",
    ["**Changes:**", "What I did:", "Skipped (not worth the risk):", "Root cause:",
     "Before merging, I ran:", "Next, we verified:"],
)  # fmt: skip
def test_a_list_of_what_was_done_leaves_nothing_open(tmp_path: Path, heading: str) -> None:
    closing = say(f"Refactor complete.\n\n{heading}\n- moved the retry into the client\n")
    facts = run(tmp_path, [user("Refactor the payments client"), *_edit("t1", "client.py"),
                           closing])  # fmt: skip
    assert facts.candidates == []


_STILL_WRONG = "it reported something still wrong; the transcript ends before any reply"


@pytest.mark.parametrize(
    ("last", "why"),
    [
        ("still broken", _STILL_WRONG),
        ("nope, the test still fails", _STILL_WRONG),
        ("the login page no longer loads", _STILL_WRONG),
        (
            "Node v24 no longer requires the flag, please update the scripts",
            "the transcript ends before any reply to it",
        ),
        ("now add a test for the redirect", "the transcript ends before any reply to it"),
        ("great, that fixed it", None),
        ("works now, thanks", None),
        # a job well done, a goodbye: no request
        ("great job", None),
        ("that's all for today", None),
        ("we're done here, bye!", None),
        ("👍", None),
        (
            "we're done with the parser, now do the export",
            "the transcript ends before any reply to it",
        ),
        # what the user does next themselves: no request either
        ("great, pushing", None),
        ("good. merged, thanks", None),
        ("ok good enough for today, deploying", None),
        ("sent, thanks. looks good", None),
        ("👌 merging", None),
        ("merged. now bump the version", "the transcript ends before any reply to it"),
    ],
)
def test_the_users_last_words_with_no_reply_are_the_work_in_hand(
    tmp_path: Path, last: str, why: str | None
) -> None:
    """A session that ends on the user's message (a checkpoint, a /clear before the reply)
    ends on work nobody did — "It is still failing" above all (issue 19). Thanks are not."""
    facts = run(tmp_path, [user("Fix the login redirect"), *_edit("t1", "login.py"),
                           say("Fixed: the redirect keeps next= now."), user(last)])  # fmt: skip
    found = [(c.rule, c.text, c.why) for c in facts.candidates]
    said = f"Fix the login redirect — {last}" if why == _STILL_WRONG else last
    assert found == ([] if why is None else [("unfinished", said, f"the last request; {why}")])


@pytest.mark.parametrize(
    "last",
    [
        "didn't work",
        "that broke the build",
        "same thing happens on firefox",
        "continue implementation",
    ],  # fmt: skip
)
def test_a_few_words_that_ask_for_no_work_are_shown_after_the_request_before(
    tmp_path: Path, last: str
) -> None:
    """Last words of a few words that ask for nothing new of their own report on the work in
    hand, whether or not they say it failed in words the sweep reads: shown after the
    request, the reader knows what "didn't work". Work asked for is its own request."""
    base = [user("Fix the login redirect"), *_edit("t1", "login.py"),
            say("Fixed: the redirect keeps next= now.")]  # fmt: skip
    for closing in ([], [say("Let me look again.")]):
        texts = [c.text for c in run(tmp_path, [*base, user(last), *closing]).candidates]
        assert texts and texts[0].startswith(f"Fix the login redirect — {last}"), texts
    assert [c.text for c in run(tmp_path, [*base, user("push it")]).candidates] == ["push it"]


@pytest.mark.parametrize("asked", [False, True])
def test_a_few_words_that_raise_something_new_are_their_own_request(
    tmp_path: Path, asked: bool
) -> None:
    """…but not words that name a matter of their own, sharing nothing with the request
    before and pointing nowhere back: "our docker build takes 9 minutes" is new work."""
    base = [user("Fix the login redirect"), *_edit("t1", "login.py"),
            say("Fixed: the redirect keeps next= now.")]  # fmt: skip
    options = say("Two ways: cache the pip layer, or use BuildKit mounts. Which do you want?")
    new = [user("our docker build takes 9 minutes"), *([options] if asked else [])]
    facts = run(tmp_path, [*base, *new])
    assert facts.unfinished is not None
    assert facts.unfinished.text == "our docker build takes 9 minutes"


def test_a_long_request_leading_the_users_last_words_is_clipped_before_them(
    tmp_path: Path,
) -> None:
    """The request a reply goes on with is clipped so that the user's own last words show
    whole, however long the request was."""
    request = "Fix the login redirect " + "so that the next parameter survives " * 12
    records = [user(request), *_edit("t1", "login.py"), say("Fixed: the redirect keeps next.")]
    for closing in ([], [say("Let me look again.")]):
        found = run(tmp_path, [*records, user("same thing happens on firefox"), *closing])
        text = found.candidates[0].text
        assert text.startswith("Fix the login redirect so that")
        assert "… — same thing happens on firefox" in text, text


@pytest.mark.parametrize(
    "lead",
    [
        "Two things I need from you:", "**Questions for you:**", "For you to decide:",
        "I can't create the secret from here, so two things are on you:",
        "To check on your side:",
    ],
)  # fmt: skip
def test_what_the_assistant_needs_from_the_user_is_open(tmp_path: Path, lead: str) -> None:
    items = ["The production database URL", "Whether downtime is acceptable"]
    listed = "\n".join(f"{n}. {item}" for n, item in enumerate(items, 1))
    facts = run(tmp_path, [user("Add the migration"), *_edit("t1", "migrate.py"),
                           say(f"The migration is written. {lead}\n{listed}")])  # fmt: skip
    assert [c.text for c in facts.candidates] == items


@pytest.mark.parametrize(
    ("said", "open_"),
    [
        ("There are no uncommitted changes.", False),
        ("The working tree is clean, with nothing uncommitted.", False),
        ("All migrations are applied and nothing is pending.", False),
        ("No tasks are pending.", False),
        ("Committed and pushed, no untracked files left.", False),
        ("There are uncommitted changes in src/app.py.", True),
        ("There are no uncommitted changes besides src/app.py.", True),  # src/app.py is
        ("Nothing is pending except the release notes.", True),
        ("Three tasks are pending.", True),
        ("The two new files are still untracked.", True),
    ],
)
def test_a_state_said_of_nothing_is_not_left_open(tmp_path: Path, said: str, open_: bool) -> None:
    """Many a summary closes on "no uncommitted changes": the marker is negated, nothing
    is left."""
    facts = run(tmp_path, [user("Fix the export"), *_edit("t1", "export.py"),
                           say(f"Fixed the export. {said}")])  # fmt: skip
    assert [c.text for c in facts.candidates] == ([said] if open_ else [])


def test_an_offer_that_leads_a_list_carries_its_items(tmp_path: Path) -> None:
    """An offer ending "If you want, I can:" says what it offers in the items after it."""
    offer = "If you want, I can:\n1. Add a max-retry setting\n2. Log each retry at debug level"
    facts = run(tmp_path, [user("Add retries"), *_edit("t1", "upload.py"),
                           say(f"Added retry with jitter.\n\n{offer}")])  # fmt: skip
    assert [(c.rule, c.text) for c in facts.candidates] == [
        ("final-ask", "If you want, I can: Add a max-retry setting; Log each retry at debug level")
    ]


@pytest.mark.parametrize(
    ("request_", "open_"),
    [
        ("why does the login test fail?", False),
        ("what's the best way to cache the parsed config?", False),
        ("should we cache the parsed config?", False),
        ("can you add a retry to the uploader?", True),  # work asked for, waiting on the answer
        ("add a retry to the uploader", True),
        # A review or an explanation asked for, with no change: the reply is the work.
        ("Review the diff on this branch.", False),
        ("can you check whether the uploader is safe to retry", False),
        ("ok, explain how the uploader handles timeouts", False),
        ("take a look at the uploader and tell me what you think", False),
        ("don't make any changes yet, just walk me through the retry logic", False),
        ("hmm no tension yet..dont make any changes..lets just analyze", False),
        # …unless it asks for a change too, or only spares something from it.
        ("Review the uploader and fix what you find.", True),
        ("look at the failing upload test and fix it", True),
        ("Don't change the API, just add a retry flag to the uploader.", True),
    ],
)
def test_a_question_answered_in_words_is_not_left_waiting_on_the_offer_after(
    tmp_path: Path, request_: str, open_: bool
) -> None:
    """A question ("Why does it fail?") answered with the cause and "Want me to fix it?":
    the offer is open, the question answered — so is a review asked for ("review the diff").
    Work asked for and met with a question is still to do."""
    reply = "The fixture is shared between tests, so the session leaks. Want me to fix it?"
    facts = run(tmp_path, [user(request_), say(reply)])
    assert [c.rule for c in facts.candidates] == (["unfinished"] if open_ else []) + ["final-ask"]


SIGN_OFFS = [
    "Let me know if anything else comes up!",
    "Let me know if you'd like any changes.",
    "Let me know if you run into any issues.",
    "Feel free to let me know if you need anything else.",
    "If you have any other questions, let me know.",
    "If you need anything else, just ask.",
    "If you want me to change the wording, I can do that.",
]


@pytest.mark.parametrize("sign_off", SIGN_OFFS)
def test_a_sign_off_after_finished_work_leaves_nothing_open(tmp_path: Path, sign_off: str) -> None:
    """A stock closing line asks for nothing in particular and hands nothing back: neither
    it nor the request it closes is a loose end."""
    closing = f"Fixed the slice bound; all 42 tests pass. {sign_off}"
    facts = run(tmp_path, [user("Fix the off-by-one in the pager"), *_edit("t1", "pager.py"),
                           say(closing)])  # fmt: skip
    assert facts.candidates == []
    assert facts.unfinished is None


def test_an_offer_is_not_the_work_handed_back(tmp_path: Path) -> None:
    """An offer ("Let me know if you want me to add tests") asks for more work: the offer
    is open, the request it follows is done. "Try it and let me know if it works" hands the
    work back."""
    offer = "Fixed the slice bound. Let me know if you want me to add tests for the pager."
    facts = run(tmp_path, [user("Fix the off-by-one in the pager"), *_edit("t1", "pager.py"),
                           say(offer)])  # fmt: skip
    assert [(c.rule, c.text) for c in facts.candidates] == [("final-ask", offer.split(". ")[1])]
    tried = "Fixed the slice bound. Try it and let me know if it works."
    facts = run(tmp_path, [user("Fix the off-by-one in the pager"), *_edit("t1", "pager.py"),
                           say(tried)])  # fmt: skip
    assert facts.unfinished is not None
    assert facts.unfinished.why == "the reply hands it back to be tried"


@pytest.mark.parametrize(
    ("last", "open_"),
    [
        ("tested on pixel 6, works now!! thank you very much", False),
        ("works, thanks", False),
        ("thanks", False),
        # a failure, or a step the user takes on first: the work is still to be seen working
        ("still off by one on the last page", True),
        ("thanks, ill try it tomorrow", True),
    ],
)
def test_work_handed_back_to_be_tried_is_closed_by_the_users_words_after_it(
    tmp_path: Path, last: str, open_: bool
) -> None:
    """ "Try it and let me know if it works", then the user's last words reporting it works
    or signing off: the hand-back was answered, and the request is done."""
    tried = "Fixed the slice bound. Try it and let me know if it works."
    facts = run(tmp_path, [user("Fix the off-by-one in the pager"), *_edit("t1", "pager.py"),
                           say(tried), user(last)])  # fmt: skip
    assert (facts.unfinished is not None) is open_, facts.unfinished


@pytest.mark.parametrize(
    "offer",
    [
        "Do you want me to rerun the full grid search now?",
        "Should I re-run the benchmark to compare?",
        "I can also take a look at the other callers if you like.",
    ],
)
def test_an_offer_to_run_it_again_hands_nothing_back(tmp_path: Path, offer: str) -> None:
    """The work done, the reply offers to rerun or look further itself: the offer is the
    loose end, the request is done ("rerun the", "take a look" are words of a hand-back
    only when the user is to do it)."""
    closing = f"Updated the search to use the new pipeline. {offer}"
    facts = run(tmp_path, [user("update the grid search to use the new pipeline"),
                           *_edit("t1", "search.py"), say(closing)])  # fmt: skip
    assert facts.unfinished is None
    assert [c.text for c in facts.candidates] == [offer]


@pytest.mark.parametrize(
    ("request_", "closing", "open_"),
    [
        ("the bulk discount test fails randomly in CI. fix it",
         "Ran it 50 times: no failure. I couldn't reproduce it, so I haven't changed anything.",
         True),
        ("make the export faster", "No changes made. It is bound by the database.", True),
        ("fix the flaky checkout test", "It passed 200 times; I haven't modified any files.",
         True),
        # …a review or an answer is the reply itself; "anything else" changed something
        ("review the diff on this branch", "Two nits; I haven't changed anything.", False),
        ("why does the test fail on weekends?", "It reads the clock. I didn't touch anything.",
         False),
    ],
)  # fmt: skip
def test_work_asked_for_and_a_reply_that_changed_nothing_leave_the_request_open(
    tmp_path: Path, request_: str, closing: str, open_: bool
) -> None:
    facts = run(tmp_path, [user(request_), say(closing)])
    if not open_:
        assert facts.unfinished is None
        return
    assert facts.unfinished is not None
    assert facts.unfinished.why == "the reply says it changed nothing"
    assert facts.unfinished.text == request_


def test_a_reply_that_changed_nothing_keeps_the_thread_s_request(tmp_path: Path) -> None:
    """An answer to the reply's question goes on with the request the thread is about; "let
    me find one" is a step of the user's: the fix asked for is still to do."""
    fix = "the bulk discount test fails randomly in CI, like 1 in 10. fix it"
    records = [user(fix), say("50 passes here. Does CI do anything differently?"),
               user("CI uses --shard=3/4 and TZ is UTC"),
               say("Still no failure, so I haven't changed anything. If you can grab the failing "
                   "output, I can pin it down."),
               user("let me find one")]  # fmt: skip
    facts = run(tmp_path, records)
    assert facts.unfinished is not None
    assert facts.unfinished.text.startswith(fix), facts.unfinished.text


def test_what_the_work_should_still_do_is_no_failure_reported(tmp_path: Path) -> None:
    """Words of "search should still show them" ask for something and report nothing wrong: the
    reply's announced next step is what is left ("it still shows them" reports a fault)."""
    announce = "Done: the dashboard hides them, search is untouched. Now I'll run the migration."
    for said, why in [
        ("search should still show them, that part is fine", "the reply ends announcing more"),
        ("search still shows them", "it reported something still wrong"),
    ]:
        facts = run(tmp_path, [user("hide archived projects from the dashboard"),
                               *_edit("t1", "queries.py"), say("Hidden."), user(said),
                               *_edit("t2", "queries.py"), say(announce)])  # fmt: skip
        assert facts.unfinished is not None
        assert facts.unfinished.why.startswith(why), (said, facts.unfinished.why)


MARKED = [
    ("We can come back to the caching question once the API is stable.", DEFERRED),
    ("Let's revisit the error messages after the release.", DEFERRED),
    ("Batch uploads are out of scope for this change.", DEFERRED),
    ("I'd leave the retry limit hard-coded for now.", DEFERRED),
    ("Let's park this and focus on the parser.", DEFERRED),
    ("We should handle the Windows paths later.", DEFERRED),
    ("The CSV export can go in a follow-up PR.", DEFERRED),
    ("The old helpers are unrelated; that could be a separate cleanup PR.", DEFERRED),
    ("Next time we touch this module we should split it.", DEFERRED),
    ("TODO: add a test for the empty input case.", DEFERRED),
    ("I left a TODO in the loader for the encoding detection.", DEFERRED),
    ("Not now, the migration matters more.", DEFERRED),
    ("Maybe later we can try a shrinking header.", DEFERRED),  # hedged, opening on "later"
    ("We could also precompute the index at build time.", DIVERGING),
    ("Another option is to stream the rows instead of loading them.", DIVERGING),
    ("Alternatively, the cache could live in Redis.", DIVERGING),
    ("A bloom filter might be worth trying for the lookups.", DIVERGING),
    ("It would be nice to have a dry-run flag for the importer.", DIVERGING),
    ("What if we generated the client from the OpenAPI spec?", DIVERGING),
]


@pytest.mark.parametrize(("sentence", "kind"), MARKED)
def test_markers_are_found(tmp_path: Path, sentence: str, kind: str) -> None:
    # In the text the session stopped on, deferrals and side ideas alike.
    facts = run(
        tmp_path,
        [user("Please fix the build"), say(f"The build is fixed. {sentence} The tests pass.")],
    )
    asked = sentence.endswith("?")  # a question put to the user: the stronger type wins
    found = [k for k in kinds(facts) if k[0] != UNFINISHED]
    assert found == [(UNANSWERED if asked else kind, sentence)]
    # A turn's summary the user answered: its deferrals stand, its side ideas were read
    # and passed over.
    later = run(
        tmp_path,
        [
            user("Please fix the build"),
            say(f"The build is fixed. {sentence} The tests pass."),
            user("ok thanks"),
        ],
    )
    assert kinds(later) == ([(kind, sentence)] if kind == DEFERRED else [])


def test_user_deferrals_count_too(tmp_path: Path) -> None:
    """Shown as the clause that puts the work off; kept (and parked) as the user said it."""
    said = "Fix the parser first; we'll deal with the logging later."
    facts = run(tmp_path, [user(said), say("Fixed the parser: empty input is handled.")])
    assert kinds(facts) == [(DEFERRED, "we'll deal with the logging later")]
    assert [c.full for c in facts.candidates] == [said]


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("park the pagination idea, fix the crash first", "park the pagination idea"),
        ("let's not worry about pagination for now - also add a retry",
         "let's not worry about pagination for now"),
        ("we'll handle pagination in another PR. fix the crash",
         "we'll handle pagination in another PR"),
        ("hold off on pagination until the crash is fixed",
         "hold off on pagination until the crash is fixed"),  # one clause: the whole
        ("skip pagination for now and fix the crash",
         "skip pagination for now and fix the crash"),  # "and" also joins what goes together
        # the user's shorthand: a word or two and "later"; "leave … for the next …"
        ("hsts later. run it on web1 first", "hsts later"),
        # a clause that only says when: what it puts off is the clause it leads
        ("If needed later, add an optional buffering mode for the push paths",
         "If needed later, add an optional buffering mode for the push paths"),
        # a clause that names nothing points back: shown with what it follows (issue 19's
        # "let's shelve this for now, make a TODO note about fixing X")
        ("the export pagination is off but let's shelve this for now, make a TODO note",
         "the export pagination is off but let's shelve this for now"),
        ("the dark mode toggle is nice, park that for later, fix the crash first",
         "the dark mode toggle is nice, park that for later"),
        # …opening its sentence: with the sentence before it, or the clause after it
        ("The export pagination is off by one. Let's shelve this for now, make a TODO note.",
         "The export pagination is off by one. Let's shelve this for now"),
        ("Let's shelve this for now, make a TODO note about fixing the export pagination.",
         "Let's shelve this for now, make a TODO note about fixing the export pagination"),
        ("lets park it, not needed for the release", "lets park it, not needed for the release"),
    ],
)  # fmt: skip
def test_a_users_deferral_is_shown_as_its_clause(tmp_path: Path, said: str, shown: str) -> None:
    facts = run(tmp_path, [user(said), say("Added the null check to the parser.")])
    # pooled (and parked) as the user said it: their sentence, whole
    full = said if ". L" not in said else said[said.index(". L") + 2 :]
    assert [(c.rule, c.text, c.full) for c in facts.candidates] == [("user-deferral", shown, full)]


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("park the pagination idea, fix the crash first", "park the pagination idea"),
        # a clause that only points at the rest of its sentence is shown in it
        ("set up i18n, translate the landing page first, the rest later",
         "set up i18n, translate the landing page first, the rest later"),
    ],
)  # fmt: skip
def test_the_work_the_rest_of_a_deferring_sentence_asks_for_lands_nothing_it_puts_off(
    tmp_path: Path, said: str, shown: str
) -> None:
    """The deferral is weighed against later work by the clause that defers: doing what
    the rest of the sentence asks for ("Set up next-intl …", "Fixed the crash") is not
    doing what it put off."""
    done = "Set up i18n with next-intl and translated the landing page. Fixed the crash too."
    facts = run(tmp_path, [user(said), *_edit("t1", "i18n.ts"), say(done)])
    assert [(c.rule, c.text) for c in facts.candidates] == [("user-deferral", shown)]
    # …what it put off, done, lands it; "the rest" names nothing a later report could do
    later = "Added pagination to the list: 50 per page. Translated the pricing page too."
    facts = run(tmp_path, [user(said), *_edit("t1", "i18n.ts"), say(done), user("go on"),
                           *_edit("t2", "list.ts"), say(later)])  # fmt: skip
    assert [c.text for c in facts.candidates] == ([] if "pagination" in said else [shown])


def test_a_deferral_that_names_nothing_in_a_reply_is_shown_with_what_was_asked(
    tmp_path: Path,
) -> None:
    """ "park that for later", the reply to "Want me to add an xlsx export too?": the row
    says what was put off (and a park of it matches the row)."""
    records = [user("add the csv export"), *_edit("t1", "export.py"),
               say("Added the CSV export. Want me to add an xlsx export too?"),
               user("park that for later"), say("OK.")]  # fmt: skip
    facts = run(tmp_path, records)
    assert [(c.rule, c.text, c.full) for c in facts.candidates] == [
        (
            "user-deferral",
            "Want me to add an xlsx export too? — park that for later",
            "park that for later",
        )
    ]


def test_sentences_typed_in_lower_case_are_read_one_by_one(tmp_path: Path) -> None:
    """A message typed in lower case is several sentences, not one: the deferral in it is
    its own row, not the whole message a second time beside the request it also holds."""
    said = "nice. let's leave no_std for later, not a priority. bump the version and tag it"
    facts = run(tmp_path, [user("add the csv export"), *_edit("t1", "export.py"),
                           say("Added the CSV export."), user(said)])  # fmt: skip
    assert [(c.rule, c.text) for c in facts.candidates] == [
        ("unfinished", said),
        ("user-deferral", "nice. let's leave no_std for later, not a priority."),
    ]


@pytest.mark.parametrize(
    ("said", "shown", "full"),
    [
        ("maybe we do that later..but my idea for the map is a glow", "maybe we do that later..",
         "maybe we do that later.."),
        ("ugh. backfill later, finance uses those numbers. run the import for today",
         "backfill later", "ugh. backfill later, finance uses those numbers."),
        ("yeah leave it for the next run. can you make the checkpoints go to gcs too",
         "yeah leave it for the next run.", "yeah leave it for the next run."),
    ],
)  # fmt: skip
def test_a_users_deferral_typed_in_lower_case_is_its_own_sentence(
    tmp_path: Path, said: str, shown: str, full: str
) -> None:
    """Pooled (and parked) as the sentence the user typed ("later.." as typed), not with the
    request that follows it."""
    facts = run(tmp_path, [user(said), say("Added the null check to the parser.")])
    assert [(c.rule, c.text, c.full) for c in facts.candidates] == [("user-deferral", shown, full)]


def test_an_abbreviation_typed_in_lower_case_ends_no_sentence(tmp_path: Path) -> None:
    """What is parked is the user's sentence whole, "e.g. …" included."""
    said = "let's leave the other exports for later, e.g. the xlsx and pdf ones. fix the bug first"
    facts = run(tmp_path, [user(said), say("Fixed the crash: empty input is handled.")])
    assert [(c.text, c.full) for c in facts.candidates] == [
        ("let's leave the other exports for later",
         "let's leave the other exports for later, e.g. the xlsx and pdf ones.")
    ]  # fmt: skip


def test_work_done_on_one_item_settles_not_its_sibling(tmp_path: Path) -> None:
    """ "Migrated the /refund endpoint" names one item of the list whole; the other shares
    two of its three words ("migrate", "endpoint") and is still open."""
    records = [user("move billing to the new payments client"), *_edit("t1", "charge.py"),
               say("The /charge endpoint uses the new client.\n\nRemaining:\n"
                   "- Migrate the /refund endpoint\n- Migrate the /payout endpoint"),
               user("go on"), *_edit("t2", "refund.py"),
               say("Migrated the /refund endpoint: it now uses the new client.")]  # fmt: skip
    assert [c.text for c in run(tmp_path, records).candidates] == ["Migrate the /payout endpoint"]


def test_a_user_sentence_typed_in_lower_case_settles_what_it_reports(tmp_path: Path) -> None:
    """ "i checked the capability in xcode, its on." settles the caveat it answers, though
    the rest of the message is about something else."""
    caveat = ("I didn't touch iOS. The push notifications capability also has to be on in "
              "xcode, which I can't verify from here.")  # fmt: skip
    facts = run(tmp_path, [user("ask for the notification permission"),
                           *_edit("t1", "permissions.ts"), say(f"Done.\n\n{caveat}"),
                           user("i checked the capability in xcode, its on. tested on a pixel "
                                "and the prompt shows"),
                           *_edit("t2", "settings.ts"),
                           say("Added the banner in settings.")])  # fmt: skip
    assert [c.text for c in facts.candidates if "xcode" in c.text] == []


def test_a_deferral_that_points_back_is_weighed_by_what_it_points_at(tmp_path: Path) -> None:
    """ "the dark mode toggle is nice, park that for later": the crash fixed lands nothing it
    put off; the dark mode toggle done lands it."""
    said = "the dark mode toggle is nice, park that for later, fix the crash first"
    fixed = [user(said), *_edit("t1", "app.ts"), say("Fixed the crash: the null check is in.")]
    assert [c.rule for c in run(tmp_path, fixed).candidates] == ["user-deferral"]
    done = [*fixed, user("go on"), *_edit("t2", "theme.ts"),
            say("Added the dark mode toggle to the settings page.")]  # fmt: skip
    assert run(tmp_path, done).candidates == []


@pytest.mark.parametrize(
    "said",
    ["so the later run synced against an existing target, fix that",
     "it failed again two days later. fix the retry", "see you later"],
)  # fmt: skip
def test_later_as_an_adjective_or_a_time_or_a_goodbye_defers_nothing(
    tmp_path: Path, said: str
) -> None:
    facts = run(tmp_path, [user(said), *_edit("t1", "sync.py"), say("Fixed the retry.")])
    assert [c for c in facts.candidates if c.rule == "user-deferral"] == []


def test_long_sentences_are_clipped_and_tool_output_is_ignored(tmp_path: Path) -> None:
    long = "We should come back to " + "the very long explanation " * 20 + "later."
    facts = run(
        tmp_path,
        [
            call("t1", "Bash", command="cat notes.md"),
            result("t1", "TODO: we should come back to this later, it is out of scope"),
            say(long),
        ],
    )
    assert len(facts.candidates) == 1
    text = facts.candidates[0].text
    assert len(text) <= sweep.CLIP_CHARS and text.endswith("…")
    assert text.startswith("We should come back to the very long explanation")


# ---------------------------------------------------------------- questions


@pytest.mark.parametrize(
    ("reply", "answered"),
    [
        ("yes", True),
        ("No, keep it simple.", True),
        ("Go ahead and add it, but keep the delay under a second please", True),
        ("Option 2", True),
        ("b) with the cache warmed on startup, as in the staging setup", True),
        ("A different problem: the nightly export job crashes on empty tables.", False),
        ("Add jitter with full randomisation to the retry backoff", True),
        ("Now look at why the log output is duplicated in the console.", False),
        ("<command-name>/session</command-name>\n<command-args>sweep</command-args>", False),
    ],
)
def test_question_answered_or_left(tmp_path: Path, reply: str, answered: bool) -> None:
    question = "Should I also add jitter to the retry backoff?"
    facts = run(
        tmp_path, [user("Fix the retries"), say(f"Retries are fixed. {question}"), user(reply)]
    )
    asked = [c for c in facts.candidates if c.type == UNANSWERED]
    if answered:
        assert asked == []
    else:
        assert [(c.type, c.text) for c in asked] == [(UNANSWERED, question)]
        assert asked[0].why.endswith("; the user moved on")
    # The reply is the session's last message: the work in hand. Our own command is no
    # request: the last one is "Fix the retries", whose reply offered more than was asked
    # ("also"), which it does not wait on.
    rest = [(c.rule, c.why) for c in facts.candidates if c.type != UNANSWERED]
    if reply.startswith("<command-name>/session"):
        assert rest == []
    else:
        why = "the last request; the transcript ends before any reply to it"
        assert rest == [("unfinished", why)]


@pytest.mark.parametrize(
    ("reply", "answered"),
    [
        ("run the full suite first", False),
        ("sure, and the monthly one as well", True),
        ("weekly.py is getting deleted next sprint, no need", True),
    ],
)
def test_an_offer_naming_nothing_itself_is_about_what_it_points_back_at(
    tmp_path: Path, reply: str, answered: bool
) -> None:
    """ "want me to fix it too?" names nothing itself: it is about the words before it in its
    sentence, so an instruction that says nothing of them leaves it open."""
    offer = "I noticed `reports/weekly.py` has the same bug — want me to fix it too?"
    records = [user("fix the timezone bug in reports/daily.py"), *_edit("t1", "daily.py"),
               say(f"Fixed: the day boundary uses the account's timezone. {offer}"),
               user(reply), say("Done.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert (offer not in texts) is answered, texts


def test_question_before_an_options_list(tmp_path: Path) -> None:
    text = (
        "Two ways to do this. Which approach do you prefer for the cache?\n\n"
        "1. An in-process LRU\n2. Redis with a short TTL\n"
    )
    # The next instruction answers a question put to the user (issue 19).
    moved_on = user("Let's fix the flaky login test instead.")
    facts = run(tmp_path, [say(text), moved_on, say("Fixed: the login test waits for the form.")])
    assert kinds(facts) == []
    picked = user("Let's go with Redis, it is already deployed.")
    picked = run(tmp_path, [say(text), picked, say("Added the Redis cache with a 60 s TTL.")])
    assert picked.candidates == []
    # With nothing after it, it is open, its options kept with it.
    ended = run(tmp_path, [user("Add a cache"), say(text)])
    assert (UNANSWERED, "Which approach do you prefer for the cache?") in kinds(ended)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Two ways to do this:\n\n1. An in-process LRU\n2. Redis with a short TTL\n\n"
         "Which would you prefer?",
         "Which would you prefer? — An in-process LRU; Redis with a short TTL"),
        ("I can cache in-process or in Redis with a short TTL. Which would you prefer?",
         "Which would you prefer? — I can cache in-process or in Redis with a short TTL."),
        # a question that names its subject is shown alone
        ("Two ways:\n\n1. An in-process LRU\n2. Redis\n\nWhich cache do you prefer?",
         "Which cache do you prefer?"),
    ],
)  # fmt: skip
def test_a_question_naming_nothing_is_shown_with_what_it_asks_about(
    tmp_path: Path, text: str, shown: str
) -> None:
    """ "Which would you prefer?" alone tells the next session nothing: the options before
    it (the list, or the sentence) are shown with it."""
    ended = run(tmp_path, [user("Add a cache"), say(text)])
    assert (UNANSWERED, shown) in kinds(ended)


def test_a_question_in_the_middle_of_the_last_message_is_open(tmp_path: Path) -> None:
    text = (
        "The parser handles the empty case now. Want me to also add a fuzz test for it? "
        "The rest of the suite passes, and the release notes are updated."
    )
    facts = run(tmp_path, [user("Fix the parser"), say(text)])
    assert (UNANSWERED, "Want me to also add a fuzz test for it?") in kinds(facts)


def test_a_question_after_changes_leaves_the_question_open(tmp_path: Path) -> None:
    asked = "Done, and the tests pass. Want me to commit these changes?"
    facts = run(
        tmp_path,
        [
            user("Add dark mode to the settings page"),
            call("e1", "Edit", file_path=f"{APP}/src/settings.py"),
            result("e1"),
            say(asked),
        ],
    )
    # The request was worked on: what it asks is what is left, not the request.
    assert facts.unfinished is None
    assert kinds(facts) == [(UNANSWERED, "Want me to commit these changes?")]


@pytest.mark.parametrize(
    "work",
    [
        [],  # asked before doing anything: a choice the work waits on
        # the edit was rejected: nothing changed
        [call("e1", "Edit", file_path=f"{APP}/src/api.py"), result("e1", "denied", error=True)],
        # plan mode wrote only its plan file
        [call("w1", "Write", file_path="/home/dev/.claude/plans/api.md"), result("w1")],
    ],
)
def test_a_question_before_any_change_leaves_the_request_open(
    tmp_path: Path, work: list[dict[str, Any]]
) -> None:
    facts = run(
        tmp_path,
        [
            user("Make the API return a clear error for missing users"),
            *work,
            say("Should a missing user be a 404 or a 400?"),
        ],
    )
    assert facts.unfinished is not None
    assert facts.unfinished.why == "the reply ends by asking the user"
    assert kinds(facts) == [
        (UNFINISHED, "Make the API return a clear error for missing users"),
        (UNANSWERED, "Should a missing user be a 404 or a 400?"),
    ]


@pytest.mark.parametrize(
    "asked",
    [
        "Want me to also add a test that pins the backoff?",
        "Do you want a `--json` variant of the report as well, or is plain text enough?",
    ],
)
def test_an_offer_of_more_work_before_any_change_leaves_only_the_offer(
    tmp_path: Path, asked: str
) -> None:
    # The request was answered in words (nothing needed changing); the offer of more is
    # what is left, and the request does not wait on it.
    facts = run(
        tmp_path,
        [
            user("the retry loop in fetch.py was written by an intern, definitely go over it"),
            say(f"It backs off from 1 s to 30 s and gives up after five tries. {asked}"),
        ],
    )
    assert facts.unfinished is None
    assert kinds(facts) == [(UNANSWERED, asked)]


def test_a_check_in_answered_by_the_next_instruction_is_not_open(tmp_path: Path) -> None:
    for question in ("Want me to commit these changes?", "Different worktree?"):
        facts = run(
            tmp_path,
            [
                user("Fix the parser"),
                say(f"Fixed, and the tests pass. {question}"),
                user("Now update the docs for the new flag"),
                say("Updated the docs."),
            ],
        )
        assert [k for k in kinds(facts) if k[0] == UNANSWERED] == [], question


def test_an_offer_of_more_work_the_user_walks_past_is_open(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            user("Fix the parser"),
            say("Fixed. Want me to also update the tap's README to mention it?"),
            user("Now look at the failing deploy job on CI"),
            say("The deploy job needed a token; added."),
        ],
    )
    assert kinds(facts) == [(UNANSWERED, "Want me to also update the tap's README to mention it?")]
    assert facts.candidates[0].why.endswith("the user moved on")


@pytest.mark.parametrize(
    "reply",
    [
        "❯ go test ./internal/syncer -count=1\n--- FAIL: TestSync (0.02s)\nFAIL",
        "$ make deploy\nerror: no such target\nmake: *** [deploy] Error 2",
        'time=2026-04-15T14:31:44 level=INFO msg="planning" refs=152\n'
        'time=2026-04-15T14:31:45 level=INFO msg="fetching" have_count=0',
    ],
)
def test_an_offer_is_not_taken_up_by_a_pasted_run(tmp_path: Path, reply: str) -> None:
    # The user shows what a run printed and types nothing: the offer is still open.
    offer = "Want me to add a note to the docs describing this change before committing?"
    facts = run(tmp_path, [user("Plan trunk first"), say(f"Done. {offer}"), user(reply)])
    assert (UNANSWERED, offer) in kinds(facts)


def test_words_before_a_paste_still_answer_an_offer(tmp_path: Path) -> None:
    offer = "Want me to fix this?"
    reply = "yes, and here is the log:\n$ make deploy\nerror: no such target\nError 2"
    facts = run(tmp_path, [user("Deploy it"), say(f"It fails. {offer}"), user(reply)])
    assert [k for k in kinds(facts) if k[0] == UNANSWERED] == []
    # A plain question asking for the output is answered by the paste itself.
    asked = "Can you paste the output of the failing run?"
    pasted = "$ make deploy\nerror: no such target\nmake: *** [deploy] Error 2"
    facts = run(tmp_path, [user("Deploy it"), say(f"It fails. {asked}"), user(pasted)])
    assert [k for k in kinds(facts) if k[0] == UNANSWERED] == []


def test_question_followed_by_more_work_is_not_open(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            say("Should I check the logs? Let me just look."),
            call("t1", "Bash", command="tail log"),
            result("t1"),
            say("The logs are clean."),
        ],
    )
    assert facts.candidates == []


def test_question_in_the_middle_is_not_open(tmp_path: Path) -> None:
    facts = run(tmp_path, [say("Why did it fail? The fixture was shared. I fixed it.")])
    assert facts.candidates == []


def test_dismissed_ask_user_question(tmp_path: Path) -> None:
    ask = call(
        "q1",
        "AskUserQuestion",
        questions=[
            {
                "question": "Which database should the tests use?",
                "header": "DB",
                "options": [{"label": "sqlite"}, {"label": "postgres"}],
                "multiSelect": False,
            }
        ],
    )
    facts = run(tmp_path, [ask, result("q1", "The user doesn't want to proceed", error=True)])
    assert kinds(facts) == [(UNANSWERED, "Which database should the tests use?")]
    assert facts.candidates[0].why.endswith("the user dismissed the question")
    answered = run(tmp_path, [ask, result("q1", 'User answered: "sqlite"')])
    assert answered.candidates == []


# ---------------------------------------------------------------- tasks


def test_task_tools_edge_cases(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            call("c1", "TaskCreate", subject="Rejected task"),
            result("c1", "<tool_use_error>bad input</tool_use_error>", error=True),
            call("c2", "TaskCreate", subject="Id from text only"),
            result("c2", "Task #7 created successfully: Id from text only"),
            call("u1", "TaskUpdate", taskId="7", status="completed"),
            result("u1", "error", error=True),
            call("c3", "TaskCreate", subject="Never answered"),
            call(
                "u2",
                "TaskUpdate",
                task_id="12",
                subject="Created before compaction",
                status="in_progress",
            ),
            call("u3", "TaskUpdate", taskId="99", status="completed"),
        ],
    )
    assert [(t.text, t.status) for t in facts.pending_tasks] == [
        ("Id from text only", "pending"),
        ("Never answered", "pending"),
        ("Created before compaction", "in_progress"),
    ]


def test_task_update_renames_and_deletes(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            call("c1", "TaskCreate", subject="Draft"),
            result("c1", "Task #1 created successfully: Draft", meta={"task": {"id": "1"}}),
            call("c2", "TaskCreate", subject="Gone"),
            result("c2", "Task #2 created successfully: Gone", meta={"task": {"id": "2"}}),
            call("u1", "TaskUpdate", taskId="1", subject="Final wording"),
            result("u1", "Updated task #1 subject"),
            call("u2", "TaskUpdate", taskId="2", status="deleted"),
            result("u2", "Updated task #2 deleted"),
        ],
    )
    assert [t.text for t in facts.pending_tasks] == ["Final wording"]


def _created(n: int, subject: str) -> list[dict[str, Any]]:
    return [
        call(f"c{n}", "TaskCreate", subject=subject),
        result(f"c{n}", f"Task #{n} created: {subject}", meta={"task": {"id": str(n)}}),
    ]


def test_task_list_answer_is_the_list_as_it_stands(tmp_path: Path) -> None:
    # A teammate completed #1 and the lead never updated it; #3 is no longer on the list.
    rows = [
        {"id": "1", "subject": "Add the dependencies", "status": "completed"},
        {"id": "2", "subject": "Create the database", "status": "in_progress"},
    ]
    events = [*_created(1, "Add the dependencies"), *_created(2, "Create the database"),
              *_created(3, "Wire the router")]  # fmt: skip
    text = "#1 [completed] Add the dependencies (data-dev)\n#2 [in_progress] Create the database"
    listing = call("l1", "TaskList")
    by_meta = run(tmp_path, [*events, listing, result("l1", text, meta={"tasks": rows})])
    by_text = run(tmp_path, [*events, listing, result("l1", text)])
    for facts in (by_meta, by_text):
        assert [(t.text, t.status) for t in facts.pending_tasks] == [
            ("Create the database", "in_progress")
        ]


def test_task_list_answer_empty_or_unread(tmp_path: Path) -> None:
    events = [*_created(1, "Add the dependencies"), call("l1", "TaskList")]
    emptied = run(tmp_path, [*events, result("l1", "No tasks found", meta={"tasks": []})])
    assert emptied.pending_tasks == []
    assert run(tmp_path, [*events, result("l1", "No tasks found")]).pending_tasks == []
    # An answer of another shape, or an error, says nothing about the list.
    for answer in (result("l1", "Tasks: see the board"), result("l1", "boom", error=True)):
        facts = run(tmp_path, [*events, answer])
        assert [t.text for t in facts.pending_tasks] == ["Add the dependencies"]


def test_task_list_row_found_by_subject_when_the_number_is_not_known(tmp_path: Path) -> None:
    # No result was read for the creations: the numbers are guesses (1, 2), the list's are
    # 7 and 8. Each task is found by its subject.
    text = "#7 [completed] Add the dependencies (data-dev)\n#8 [pending] Create the database"
    facts = run(
        tmp_path,
        [
            call("c1", "TaskCreate", subject="Add the dependencies"),
            call("c2", "TaskCreate", subject="Create the database"),
            call("l1", "TaskList"),
            result("l1", text),
        ],
    )
    assert [(t.text, t.status) for t in facts.pending_tasks] == [("Create the database", "pending")]


def test_task_list_number_given_to_another_task(tmp_path: Path) -> None:
    # A new list numbers from #1 again: the old #1 (done) is not the listed #1 (to do).
    row = {"id": "1", "subject": "Accumulate the haves", "status": "pending"}
    events = [
        *_created(1, "Find the default branch"),
        call("u1", "TaskUpdate", taskId="1", status="completed"),
        result("u1", "Updated task #1 status"),
        *_created(1, "Accumulate the haves"),
        call("l1", "TaskList"),
        result("l1", "#1 [pending] Accumulate the haves", meta={"tasks": [row]}),
    ]
    facts = run(tmp_path, events)
    assert [(t.text, t.status) for t in facts.pending_tasks] == [
        ("Accumulate the haves", "pending")
    ]


def test_todowrite_and_a_matching_deferral_merge(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            call(
                "t1",
                "TodoWrite",
                todos=[
                    {
                        "content": "Add tests for the retry policy",
                        "status": "pending",
                        "activeForm": "Adding",
                    }
                ],
            ),
            say("We should add tests for the retry policy later."),
        ],
    )
    assert kinds(facts) == [(UNFINISHED, "Add tests for the retry policy")]


# ---------------------------------------------------------------- merging, filtering, output


def test_merge_near_duplicates_keeps_the_stronger_type() -> None:
    cands = [
        Candidate("We could also cache the parsed config between runs", DIVERGING, "w"),
        Candidate("we could also cache the parsed config between runs.", DEFERRED, "w"),
        Candidate("Cache the config", DEFERRED, "w"),
        Candidate("Cache the config files", DEFERRED, "w"),
        Candidate("Add tests", UNFINISHED, "w"),
        Candidate("Add tests for the scheduler", DEFERRED, "w"),
    ]
    merged = merge_near_duplicates(cands)
    # Two words are too few to call anything a duplicate of them.
    assert [(c.type, c.text) for c in merged] == [
        (DEFERRED, "we could also cache the parsed config between runs."),
        (DEFERRED, "Cache the config"),
        (UNFINISHED, "Add tests"),
        (DEFERRED, "Add tests for the scheduler"),
    ]


def test_items_the_author_set_apart_are_never_folded() -> None:
    def task(area: str, rule: str = "task-list", line: int | None = None) -> Candidate:
        text = f"Move the {area} handler to the new retry policy, then check the {area} errors"
        return Candidate(text, UNFINISHED, "w", line=line, rule=rule)

    tasks = [task("invoices"), task("refunds"), task("coupons")]
    assert merge_near_duplicates(tasks) == tasks  # three entries of the task list
    listed = [task("invoices", "open-list", 40), task("refunds", "open-list", 40)]
    assert merge_near_duplicates(listed) == listed  # two items of one message's list
    # The same loose end said again elsewhere still folds.
    again = [task("invoices", "open-list", 40), task("invoices", "caveat", 90)]
    assert len(merge_near_duplicates(again)) == 1


def test_one_message_read_by_two_rules_is_one_row() -> None:
    """A caveat that says a sentence of the list item on its line (or the item a sentence of
    the caveat), or two rows of the same words, is one loose end said once; the last request
    beside the deferral inside it is two — the work asked, and the work put off."""

    def row(text: str, rule: str, kind: str = DEFERRED) -> Candidate:
        return Candidate(text, kind, "w", line=30, rule=rule)

    listed = row("error messages with expected tokens, and the round-trip tests.", "open-list")
    caveat = row("Still open in TODO.md: error messages with expected tokens, and the "
                 "round-trip tests.", "caveat")  # fmt: skip
    assert merge_near_duplicates([listed, caveat]) == [listed]
    item = row("Docker isn't running here. Start Docker and run make integration again.", "listed")
    said = row("I couldn't run the integration tests: Docker isn't running here.", "caveat")
    assert merge_near_duplicates([item, said]) == [item]
    request = row("ok i'll ping sara, she has admin. push it anyway", "unfinished", UNFINISHED)
    theirs = row("ok i'll ping sara, she has admin. push it anyway", "user-deferral")
    assert merge_near_duplicates([request, theirs]) == [request]
    request = row("lets skip the molecule tests for now. run it for real on staging",
                  "unfinished", UNFINISHED)  # fmt: skip
    deferral = row("lets skip the molecule tests for now", "user-deferral")
    assert merge_near_duplicates([request, deferral]) == [request, deferral]
    # two items of one list that share a sentence are still two
    first = row("Same as before. Move the invoices handler to the retry policy.", "open-list")
    second = row("Same as before. Move the refunds handler to the retry policy.", "open-list")
    assert merge_near_duplicates([first, second]) == [first, second]


def test_filter_known_drops_parked_and_dropped_items() -> None:
    cands = [
        Candidate("Should we revisit exponential vs linear backoff?", UNANSWERED, "w"),
        Candidate("Split the ratio 80/20 vs 70/30 later", DEFERRED, "w"),
        Candidate("Add a dry-run flag to the importer", DIVERGING, "w"),
        Candidate("Add tests", UNFINISHED, "w"),
    ]
    known = [
        "- **retry-backoff** — revisit exponential vs linear backoff. Raised: 2026-11-20.",
        "80/20 vs 70/30 split ratio later",
        "tests",
    ]
    assert filter_known(cands, known) == [cands[2], cands[3]]
    assert filter_known(cands, []) == cands


def test_a_known_item_hides_only_the_same_item_said_shorter_or_longer() -> None:
    """Alike but each naming something of its own is two items: dropping "the /payout
    endpoint …" does not hide "the /coupon endpoint …" as dropped."""
    payout = "The /payout endpoint is left for next time: it needs the new ledger client."
    coupon = Candidate(payout.replace("/payout", "/coupon"), DEFERRED, "w")
    longer = Candidate("We could try a jittered backoff for the retries", DIVERGING, "w")
    parked = Candidate(payout, DEFERRED, "w")
    known = [payout, "try a jittered backoff", f"{payout} Why: deferred exploration; at 10:01."]
    assert filter_known([coupon, longer, parked], known) == [coupon]


def test_a_parked_item_with_a_hyphenated_word_is_not_offered_again() -> None:
    """`sweep --park` keeps the text with its why, and the slug; the known texts are read
    with "-" as a space (for the slug), the candidate's as well: "rate-limit" is the same
    words on both sides."""
    said = "Add a rate-limit to the export endpoint before the launch"
    cand = Candidate(said, DEFERRED, "w")
    known = [f"{said}. Why: deferred exploration; left open in the summary at 10:00",
             "add-a-rate-limit-to-the-export"]  # fmt: skip
    assert filter_known([cand], known) == []
    assert filter_known([cand], known[1:]) == []  # the slug alone: "add rate limit export"


def test_render_table_and_json() -> None:
    cands = [
        Candidate(
            "Add jitter | backoff",
            UNANSWERED,
            "asked at 14:02; the user moved on",
            "2026-11-29T14:02:00Z",
        )
    ]
    assert render_table(cands) == (
        "## Unlanded — 1 item\n"
        "| # | Item | Type | Why it did not land |\n"
        "| --- | --- | --- | --- |\n"
        "| 1 | Add jitter \\| backoff | Unanswered question | asked at 14:02; the user moved on |"
    )
    assert render_table(cands * 2).startswith("## Unlanded — 2 items\n")
    assert render_table([]).startswith("No unlanded items")
    assert "\n" not in render_table([])
    assert to_json(cands) == [
        {
            "n": 1,
            "text": "Add jitter | backoff",
            "type": UNANSWERED,
            "why": "asked at 14:02; the user moved on",
            "ts": "2026-11-29T14:02:00Z",
            "line": None,
        }
    ]


def test_clip() -> None:
    assert clip("  a\n b  ") == "a b"
    long = "word " * 60
    clipped = clip(long, 40)
    assert len(clipped) <= 40 and clipped.endswith("…") and not clipped.endswith(" …")


def test_pool_is_bounded() -> None:
    from session_skill.transcripts import loose as sweep_loose
    from session_skill.transcripts.reader import UserText

    state = sweep._Loose(ToolState(set()))
    for n in range(500):
        state.feed(
            AssistantText(f"We should revisit item {n} later on.", f"2026-11-29T{n:05d}", None)
        )
        state.feed(UserText("ok", f"2026-11-29T{n:05d}"))
    assert len(state.pool) == 200  # the newest 200: items 300..499
    texts = [c.text for c in state.pool.values()]
    assert texts[0] == "We should revisit item 300 later on."
    assert texts[-1] == "We should revisit item 499 later on."
    # At the end only the last LIST_TURNS turns' deferrals are kept (the rest were said long
    # ago and never again); near-identical as they are, they fold into one row.
    pool, _ = state.finish()
    assert len(pool) == sweep_loose.LIST_TURNS
    assert [c.text for c in merge_near_duplicates(pool)] == ["We should revisit item 490 later on."]


def test_missing_timestamps_still_give_a_reason(tmp_path: Path) -> None:
    records = [say("Should I also add a changelog entry for this?")]
    del records[0]["timestamp"]
    facts = run(tmp_path, records)
    assert facts.candidates[0].why == "asked; the session ended"


# ---------------------------------------------------------------- memory


@pytest.mark.slow
def test_memory_is_flat_on_a_large_transcript(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("synth", REPO / "bench" / "synth_transcript.py")
    assert spec is not None and spec.loader is not None
    synth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synth)
    path = tmp_path / "big.jsonl"
    synth.write_synthetic(path, 40 << 20)
    # VmHWM is the peak of this process's own memory; ru_maxrss would also count the
    # parent's footprint, which Linux carries across fork + exec.
    code = (
        "import resource, sys; from pathlib import Path\n"
        "from session_skill.transcripts import scan as sweep\n"
        "f = sweep.analyze(Path(sys.argv[1]))\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        "    status = Path('/proc/self/status').read_text()\n"
        "    peak = int(status.split('VmHWM:')[1].split()[0])\n"
        "except (OSError, IndexError):\n"
        "    pass\n"
        "print(peak, f.stats.lines)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout.split()
    peak_mb = int(out[0]) / 1024  # KiB on Linux
    assert int(out[1]) > 10_000
    assert peak_mb < 80


# ---------------------------------------------------------------- issue 11 #12: not a transcript


@pytest.mark.parametrize(
    ("content", "records"),
    [
        (b"root:x:0:0:root:/root:/bin/bash\n", 0),
        (b"# README\n\ntext\n", 0),
        (bytes(range(256)) * 4, 0),
        (b'{"name": "pkg"}\n{"type": "whatever"}\n[1, 2]\n', 0),
        (b"", 0),
    ],
)
def test_transcript_records_of_files_that_are_not_transcripts(
    tmp_path: Path, content: bytes, records: int
) -> None:
    path = tmp_path / "f"
    path.write_bytes(content)
    assert sweep.transcript_records(analyze(path).stats) == records


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("claude_loose_ends.jsonl", 16),
        ("claude_split_sidechain_progress.jsonl", 22),  # one `future-record-kind` left out
        ("codex_rollout.jsonl", 19),  # one `future_kind` left out
    ],
)
def test_transcript_records_of_real_transcripts(name: str, known: int) -> None:
    assert sweep.transcript_records(analyze(FIXTURES / name).stats) == known


# ---------------------------------------------------------------- issue 16: landing, answers


def test_a_deferral_that_landed_after_a_compaction_is_not_open() -> None:
    facts = analyze(FIXTURES / "claude_compact_landed.jsonl")
    assert kinds(facts) == [
        (DEFERRED, "The CSV export of failed invoices can go in a follow-up PR.")
    ]
    settled = [(c.text, c.why) for c in facts.settled]
    assert settled == [
        (
            "I hard-coded the retry limit for now; we should make it configurable later.",
            "done later: Make the retry limit configurable (RETRY_LIMIT)",
        )
    ]


def test_a_listed_item_reported_done_in_a_short_sentence_of_a_long_message_lands(
    tmp_path: Path,
) -> None:
    # The message is weighed by what it says, not by its every word: "The profile page is
    # migrated too." settles "the profile page still uses the old library" though they
    # share two words of five, as a sentence of its own would. Before, the message's
    # stopwords counted against it ("the", "is", "too.") and the item stayed open.
    filler: list[dict[str, Any]] = []
    for n in range(12):
        filler += [user(f"tweak the spacing of card {n} in the dashboard grid"), say("Done.")]
    listed = (
        "Done — the settings page uses react-hook-form now.\n\nRemaining:\n"
        "- the profile page still uses the old library\n"
        "- validation messages aren't translated\n\nWant me to do the profile page next?"
    )
    records = [
        *filler,
        user("migrate the settings page to the new form library"),
        *_edit("e1", "settings.tsx"),
        say(listed),
        user("yes"),
        *_edit("e2", "profile.tsx"),
        say("The profile page is migrated too. I kept the field names as they were."),
    ]
    facts = run(tmp_path, records)
    assert kinds(facts) == [(DEFERRED, "validation messages aren't translated")]
    assert [(c.text, c.why) for c in facts.settled] == [
        (
            "the profile page still uses the old library",
            "done later: The profile page is migrated too.",
        )
    ]


@pytest.mark.parametrize(
    "later",
    [
        "Your local checkout directory is the working directory of this session.",
        "I'm working on renaming the local checkout directory now.",
    ],
)
def test_working_that_names_a_thing_or_work_in_hand_lands_nothing(
    tmp_path: Path, later: str
) -> None:
    # "working" reports work done ("the export is working now"), not in "the working
    # directory" or "working on …".
    filler: list[dict[str, Any]] = []
    for n in range(12):
        filler += [user(f"tweak the spacing of card {n} in the dashboard grid"), say("Done.")]
    records = [
        *filler,
        user("set up the repo"),
        say("Set up.\n\nStill open:\n- rename the local checkout directory to gitsync"),
        user("what else"),
        say(later),
    ]
    facts = run(tmp_path, records)
    assert (DEFERRED, "rename the local checkout directory to gitsync") in kinds(facts)
    assert facts.settled == []


def test_questions_answered_by_option_counter_proposal_output_or_later_work() -> None:
    facts = analyze(FIXTURES / "claude_answered_later.jsonl")
    # Issue 19: a question is answered when the user's next message replies to it or gives
    # the next instruction ("Let's look at the export command next."); only an offer of more
    # work ("Should I also add jitter…?") the user walks past stays open — and this one was
    # done later.
    assert kinds(facts) == []
    assert [(c.text, c.why.split(":")[0]) for c in facts.settled] == [
        ("Should I also add jitter to the retry backoff?", "done later")
    ]


def test_a_deferral_the_user_takes_up_is_not_open(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            user("Speed up the nightly report"),
            say("The report is faster now. The pagination of the export is out of scope here."),
            user("ok. now do the pagination of the export, with cursor tokens"),
            say("Paginated the export with cursor tokens."),
        ],
    )
    assert facts.candidates == []
    assert facts.settled[0].why.startswith("taken up: ")


def test_a_later_mention_that_is_not_the_work_done_settles_nothing(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            user("Speed up the nightly report"),
            say("Done. We should handle the Windows paths of the report later."),
            user("thanks"),
            say("I looked at the Windows paths of the report; they need a rewrite."),
        ],
    )
    assert kinds(facts) == [(DEFERRED, "We should handle the Windows paths of the report later.")]


# ---------------------------------------------------------------- a very long conversation


def _conversation(tmp_path: Path, size: int) -> Path:
    spec = importlib.util.spec_from_file_location("synth", REPO / "bench" / "synth_transcript.py")
    assert spec is not None and spec.loader is not None
    synth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synth)
    path = tmp_path / "long.jsonl"
    synth.write_conversation(path, size)
    return path


@pytest.fixture(params=["one process", "tail read by a helper"])
def tail_reader(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> tuple[bool, list[bool]]:
    """The tail read by this process, or by the forked helper (on a one-core machine too);
    the list says, for each tail read, whether the helper's reading was used."""
    helper = request.param == "tail read by a helper"
    monkeypatch.setattr(sweep, "_cores", lambda: 2 if helper else 1)
    return helper, _helper_readings(monkeypatch)


def _helper_readings(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For each time the pass asks for a helper's reading, whether it got one it used."""
    return after_each(monkeypatch, sweep._Sweep, "_helper_tail", lambda _, found: found is not None)


def _forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The helpers forked from here on (their pids)."""
    import os

    forked: list[int] = []
    real_fork = os.fork

    def counted() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted)
    return forked


def test_the_tail_of_a_long_conversation_gives_the_loose_ends_one_pass_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail_reader: tuple[bool, list[bool]]
) -> None:
    from session_skill.transcripts import loose

    path = _conversation(tmp_path, 3 << 20)
    # A pool of 20: the tail that fills it twice is a small part of this file, so it is
    # worth going cheap (with 200, the whole file is barely three tails).
    monkeypatch.setattr(loose, "POOL_MAX", 20)
    monkeypatch.setattr(sweep, "POOL_MAX", 20)
    for list_turns in (None, loose.LIST_TURNS):  # old lists kept (the pool fills), dropped
        monkeypatch.setattr(loose, "LIST_TURNS", list_turns)
        monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 10**9)
        whole = analyze(path)
        monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 120)
        monkeypatch.setattr(sweep, "_TAIL_MIN", 50)
        read_twice = analyze(path)
        assert read_twice.candidates == whole.candidates
        assert [c.line for c in read_twice.candidates] == [c.line for c in whole.candidates]
        if list_turns is None:
            assert len(whole.candidates) > 15  # the pool (20) was full: the tail had to fill it
    assert read_twice.goal == whole.goal and read_twice.pending_tasks == whole.pending_tasks
    assert read_twice.stats == whole.stats  # the first pass read the whole file
    helper, used = tail_reader
    assert used == [helper] * 2  # each went cheap; the helper's reading used when there


def _threaded_ending(before: int) -> list[dict[str, Any]]:
    """`before` short turns, each leaving a deferral (loose ends at a steady rate: a long
    conversation goes cheap), then a thread: a request, a question its turn closes on, a
    reply of thirteen words to it, and the last request, a reply to what it was asked."""
    records = [user("Add rate limiting to the upload endpoint"), say("Done.")]
    for i in range(before):
        records += [user(f"check the importer for batch {i} and tidy it")]
        deferral = f"I'd leave the batch {i} retry queue for a follow-up PR."  # each its own
        records += [say(f"Batch {i} is tidy. {deferral}")]
    edit = f"{APP}/src/api/upload.py"
    records += [
        user("Make the uploads retry when the storage service times out"),
        call("w1", "Edit", file_path=edit, old_string="a", new_string="b"), result("w1"),
        say("The upload retries now. Want to try this pass first, or talk about the delay?"),
        user("talk about the delay. thirty seconds is the most any upload should wait for"),
        call("w2", "Edit", file_path=edit, old_string="b", new_string="c"), result("w2"),
        say("The delay is capped at 30 s now. Try an upload and tell me what it looks like."),
        user("big files are not finishing, the last part times out and the bar stays at ninety"),
    ]  # fmt: skip
    return records


@pytest.mark.parametrize("before", range(13))
def test_a_thread_is_followed_wherever_the_count_of_requests_falls(
    tmp_path: Path, before: int
) -> None:
    """The requests are chained, each to the one before, for the thread a reply goes on
    with; the chain is kept to the newest ones. It was kept short by cutting it at every
    thirteenth request, and a reply that fell on a cut lost its thread: the sweep offered
    the reply as the request, depending only on how many came before."""
    path = write_lines(tmp_path / "t.jsonl", _threaded_ending(before))
    facts = analyze(path)
    assert facts.unfinished is not None
    assert facts.unfinished.text.startswith("Make the uploads retry when the storage service")


def test_a_long_conversation_links_a_reply_as_one_pass_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the first requests of a very long conversation only what the session did is
    followed; the question a reply answers is still found as one pass finds it, whatever
    the reply's length: "talk about the delay. thirty seconds is …" goes on with the request
    its question was about (found only for replies of four words, it was the request)."""
    from session_skill.transcripts import loose

    path = write_lines(tmp_path / "t.jsonl", _threaded_ending(390))
    monkeypatch.setattr(loose, "POOL_MAX", 20)
    monkeypatch.setattr(sweep, "POOL_MAX", 20)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 10**9)
    whole = analyze(path)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 120)
    monkeypatch.setattr(sweep, "_TAIL_MIN", 50)
    went = after_each(monkeypatch, sweep._Sweep, "_go_cheap", lambda it, _: it.tail is not None)
    cheap = analyze(path)
    assert went == [True]
    assert whole.unfinished is not None and cheap.unfinished is not None
    assert whole.unfinished.text.startswith("Make the uploads retry when the storage service")
    assert cheap.unfinished.text == whole.unfinished.text


def test_a_long_conversation_weighs_what_it_began_with_in_the_part_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail_reader: tuple[bool, list[bool]]
) -> None:
    """The loose ends a restored handover left open reach the tail's reading (by this
    process or the helper), and a pool filled by the session's own does not push them out."""
    from session_skill.transcripts import loose

    path = _conversation(tmp_path, 3 << 20)
    monkeypatch.setattr(loose, "POOL_MAX", 20)
    monkeypatch.setattr(sweep, "POOL_MAX", 20)
    monkeypatch.setattr(loose, "LIST_TURNS", None)  # old lists kept: the pool fills
    carried = (Candidate("Rotate the zebra credentials every quarter", UNFINISHED, "carried",
                         rule="carried"),)  # fmt: skip
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 10**9)
    whole = analyze(path, carried)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 120)
    monkeypatch.setattr(sweep, "_TAIL_MIN", 50)
    read_twice = analyze(path, carried)
    assert len(whole.candidates) > 15  # the pool was full
    assert carried[0] in whole.candidates and read_twice.candidates == whole.candidates
    helper, used = tail_reader
    assert used == [helper]


def _alone_then_helper(path: Path, monkeypatch: pytest.MonkeyPatch, pool: int = 20) -> Any:
    """A pool of 20 and an early switch, so a 3 MB conversation goes cheap (with the pool
    of 200, it does not: a helper goes on reading its loose ends); the facts read by this
    process alone, and from then on a second core for the helper."""
    from session_skill.transcripts import loose

    monkeypatch.setattr(loose, "POOL_MAX", pool)
    monkeypatch.setattr(sweep, "POOL_MAX", pool)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 120)
    monkeypatch.setattr(sweep, "_TAIL_MIN", 50)
    monkeypatch.setattr(sweep, "_cores", lambda: 1)
    alone = analyze(path)
    monkeypatch.setattr(sweep, "_cores", lambda: 2)
    return alone


def _no_fork() -> int:
    raise OSError("fork: resource temporarily unavailable")


def _dies_in_helper(real: Any) -> Any:
    """`real`, except in a forked helper: there it dies."""
    import os

    me = os.getpid()

    def dies(*args: Any) -> Any:
        if os.getpid() != me:
            raise MemoryError
        return real(*args)

    return dies


def _grows_before_finish(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file gains a blank line just before the pass finishes: read as nothing, but it
    is not the file the helper read."""
    grown = sweep._Sweep.finish

    def grows_first(self: sweep._Sweep, path_: Path, stats: Any) -> Any:
        with open(path_, "ab") as fh:
            fh.write(b"\n")
        return grown(self, path_, stats)

    monkeypatch.setattr(sweep._Sweep, "finish", grows_first)


def test_a_helper_that_fails_or_guesses_wrong_costs_only_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No fork, a helper that dies, one whose tail starts elsewhere, a file that grew: the
    tail is read here, and the result is the same."""
    import os

    path = _conversation(tmp_path, 3 << 20)
    alone = _alone_then_helper(path, monkeypatch)
    real = sweep._tail_in_helper
    dies = _dies_in_helper(real)

    def elsewhere(*args: Any) -> Any:
        found = real(*args)
        return (found[0] + 1, *found[1:]) if isinstance(found, tuple) else found

    def same(facts: Any) -> bool:
        return (facts.candidates, facts.settled) == (alone.candidates, alone.settled) and [
            c.line for c in facts.candidates
        ] == [c.line for c in alone.candidates]

    assert same(analyze(path))  # the helper's reading, used
    with monkeypatch.context() as m:
        m.setattr(os, "fork", _no_fork)
        assert same(analyze(path))
    for fake in (dies, elsewhere):
        with monkeypatch.context() as m:
            m.setattr(sweep, "_tail_in_helper", fake)
            assert same(analyze(path))
    used: list[bool] = []
    original = sweep._Sweep._helper_tail
    _grows_before_finish(monkeypatch)
    monkeypatch.setattr(sweep._Sweep, "_helper_tail", lambda *a: used.append(True) or original(*a))
    assert same(analyze(path))
    assert used  # asked, and its reading of the smaller file refused
    with pytest.raises(ChildProcessError):  # every helper reaped
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("pool", [20, 200], ids=["tail read by a helper", "helper going on"])
def test_a_helper_for_the_conversation_before_a_clear_is_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool: int
) -> None:
    """/clear between two long conversations: each forks a helper — the first's reads the
    second's tail (or goes on into it), and is let go at the clear; the result is the
    one-process result, and no helper is left."""
    import os

    first = _conversation(tmp_path, 3 << 20).read_bytes()
    clear = json.dumps(user("<command-name>/clear</command-name>\n<command-args></command-args>"))
    path = tmp_path / "two.jsonl"
    path.write_bytes(first + clear.encode() + b"\n" + first)
    alone = _alone_then_helper(path, monkeypatch, pool)
    forked = _forks(monkeypatch)
    both = analyze(path)
    assert len(forked) == 2  # one for each conversation: the second's pace is its own
    assert _facts_of(both) == _facts_of(alone)
    with pytest.raises(ChildProcessError):  # every helper reaped
        os.waitpid(-1, os.WNOHANG)


def _facts_of(facts: Any) -> tuple[object, ...]:
    """Everything a pass found, lines included (a candidate compares without its line)."""
    lines = [c.line for c in facts.candidates + facts.settled]
    return (facts.candidates, facts.settled, lines, facts.goal, facts.unfinished,
            facts.pending_tasks, facts.written_files, facts.last_reply, facts.stats)  # fmt: skip


def test_a_long_conversation_that_leaves_few_loose_ends_shares_its_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loose ends too few for a tail worth reading again (a pool of 200 at this rate is
    most of the conversation): one pass reads it all — and with a second core a forked
    helper goes on reading the loose ends from the switch while the pass follows what
    the session did. The facts are one pass's, to the line; the helper's reading is the
    one used, and no helper is left."""
    import os

    path = _conversation(tmp_path, 3 << 20)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 120)
    monkeypatch.setattr(sweep, "_cores", lambda: 1)
    alone = analyze(path)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 10**9)
    assert _facts_of(analyze(path)) == _facts_of(alone)  # on one core: one pass
    assert len(alone.candidates) > 5 and alone.settled
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 120)
    monkeypatch.setattr(sweep, "_cores", lambda: 2)
    forked, used = _forks(monkeypatch), _helper_readings(monkeypatch)
    shared = analyze(path)
    assert len(forked) == 1 and used == [True]
    assert _facts_of(shared) == _facts_of(alone)
    with pytest.raises(ChildProcessError):  # the helper reaped
        os.waitpid(-1, os.WNOHANG)


def test_a_helper_going_on_that_fails_costs_only_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No fork, a helper that dies, a file that grew while it read: the loose ends are
    read here from where the helper took over, and the facts are the same."""
    import os

    path = _conversation(tmp_path, 3 << 20)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 120)
    monkeypatch.setattr(sweep, "_cores", lambda: 1)
    alone = _facts_of(analyze(path))
    monkeypatch.setattr(sweep, "_cores", lambda: 2)
    used = _helper_readings(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(os, "fork", _no_fork)
        assert _facts_of(analyze(path)) == alone
        assert used == []  # no helper to ask: one pass read it all
    with monkeypatch.context() as m:
        m.setattr(sweep, "_go_on", _dies_in_helper(sweep._go_on))
        assert _facts_of(analyze(path)) == alone
        assert used == [False]
    _grows_before_finish(monkeypatch)
    assert _facts_of(analyze(path))[:-1] == alone[:-1]  # (the stats count the blank line)
    assert used == [False, False]
    with pytest.raises(ChildProcessError):  # every helper reaped
        os.waitpid(-1, os.WNOHANG)


def _tail_start_as_the_pass_counts(path: Path, begin: int, size: int, tail: int) -> int | None:
    """Where the newest `tail` requests of [begin, size) begin, found by the pass itself (a
    `_Sweep` reading only what the session did), as the helper found it before."""
    from collections import deque

    probe = sweep._Sweep(ReadStats(), 0, go_cheap=False)
    probe.loose, probe.tail = None, deque(maxlen=tail)
    for event in iter_events(path, probe.stats, wanted_results=probe.watched, start=begin,
                             stop=size):  # fmt: skip
        probe.feed(event)
    if probe.tail is None or len(probe.tail) < tail:
        return None
    return int(probe.tail[0][0])


def test_the_helper_finds_the_tail_where_the_pass_would(tmp_path: Path) -> None:
    """The helper counts requests without following the tools and the turns: it finds the
    newest ones where a `_Sweep` finds them — commands, our own, a /clear (after which its
    count begins again), a request typed while the assistant worked, every fixture."""
    from session_skill.transcripts.reader import line_start

    first = _conversation(tmp_path, 1 << 20).read_bytes()
    clear = json.dumps(user("<command-name>/clear</command-name>\n<command-args></command-args>"))
    own = json.dumps(
        user("<command-name>/session</command-name>\n<command-args>park x</command-args>")
    )
    model = json.dumps(
        user("<command-name>/model</command-name>\n<command-args>opus</command-args>")
    )
    typed = [user("$session park the flag"), _queue("enqueue", "also drop it"), _queue("remove")]
    lines = first.splitlines(keepends=True)
    near_end = len(lines) - 12
    inserted = [own, model, *(json.dumps(r) for r in typed)]
    mixed = b"".join([*lines[:near_end], *(r.encode() + b"\n" for r in inserted),
                      *lines[near_end:]])  # fmt: skip
    after = first + clear.encode() + b"\n"
    files = {
        "mixed": mixed,
        "two": after + first,  # another conversation after the clear: its own count
        "said": after + json.dumps(say("Cleared.")).encode() + b"\n",  # none begun yet
    }
    paths = []
    for name, data in files.items():
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_bytes(data)
    shared = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
    paths += sorted(FIXTURES.glob("*.jsonl"))
    paths += sorted(shared.rglob("*.jsonl")) if shared.is_dir() else []
    found = 0
    for path in paths:
        size = path.stat().st_size
        for share in (0.0, 0.4, 0.9):
            begin = line_start(path, int(size * share))
            for tail in (1, 7, 60, 400):
                expected = _tail_start_as_the_pass_counts(path, begin, size, tail)
                assert sweep._tail_start(path, begin, size, tail) == expected, (path, share, tail)
                found += expected is not None
    assert found > 20  # not only files too short for the tails asked


def test_a_short_tail_continues_the_first_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail_reader: tuple[bool, list[bool]]
) -> None:
    """Going cheap near the end of the file: the tail reaches back to the switch, and the
    loose ends read before it are kept — the same result as one pass, settled items too."""
    path = _conversation(tmp_path, 1 << 20)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 10**9)
    whole = analyze(path)
    monkeypatch.setattr(sweep, "_DEEP_REQUESTS", 60)
    monkeypatch.setattr(sweep, "_TAIL_MIN", 10**6)
    monkeypatch.setattr(sweep, "_TAIL_MAX", 10**6)
    monkeypatch.setattr(sweep, "_TAIL_FACTOR", 0.0)  # always worth it, whatever the rate
    seen: list[int] = []
    original = sweep._Sweep._go_cheap

    def go_cheap(self: sweep._Sweep) -> None:
        self.size = 10**12  # pretend most of the file is still ahead
        original(self)
        seen.append(self.switched_at)

    monkeypatch.setattr(sweep._Sweep, "_go_cheap", go_cheap)
    read_twice = analyze(path)
    assert seen  # it did switch
    assert read_twice.candidates == whole.candidates
    assert read_twice.settled == whole.settled


# ---------------------------------------------------------------- issue 19: evidence


def test_a_prompt_typed_while_the_assistant_worked_is_the_users_words(tmp_path: Path) -> None:
    queued = {
        "isSidechain": False, "sessionId": "s1", "cwd": APP, "type": "attachment",
        "attachment": {"type": "queued_command", "prompt": "also drop the old flag",
                       "commandMode": "prompt"},
        "timestamp": _ts(),
    }  # fmt: skip
    facts = run(
        tmp_path,
        [user("Rename the flag"), call("t1", "Bash", command="ls"), queued, result("t1"),
         call("t2", "Bash", command="grep -r old_flag .")],
    )  # fmt: skip
    assert facts.unfinished is not None and facts.unfinished.text == "also drop the old flag"


def _queue(operation: str, content: str | None = None) -> dict[str, Any]:
    record = {"type": "queue-operation", "operation": operation, "timestamp": _ts(),
              "sessionId": "s1"}  # fmt: skip
    if content is not None:
        record["content"] = content
    return record


def _typed(path: Path) -> list[tuple[int, str]]:
    stats = ReadStats()
    return [(stats.line, e.text) for e in iter_events(path, stats) if isinstance(e, UserText)]


def test_a_prompt_typed_while_the_assistant_worked_in_an_older_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code 2.1.76 and earlier wrote no `queued_command` attachment: the queue's
    "enqueue" record is all that holds the words (its "remove" says they were handed over
    with the next tool result). They are read where they were typed, once, in both paths."""
    records = [
        user("Rename the flag"),
        call("t1", "Bash", command="ls"),
        _queue("enqueue", "also drop the old flag"),  # line 3
        say("Now the callers."),
        call("t2", "Bash", command="grep -r flag ."),
        _queue("remove"),
        result("t1"),
        result("t2"),
        call("t3", "Bash", command="grep -r old_flag ."),
    ]
    facts = run(tmp_path, records)
    assert facts.unfinished is not None and facts.unfinished.text == "also drop the old flag"
    assert facts.unfinished.line == 3
    assert _typed(tmp_path / "t.jsonl") == [(1, "Rename the flag"), (3, "also drop the old flag")]
    with monkeypatch.context() as m:
        m.setattr(claude, "FAST_PATH", False)
        assert _typed(tmp_path / "t.jsonl")[1] == (3, "also drop the old flag")

    # The transcript stops before the model went on: still the user's (last) words.
    run(tmp_path, records[:7])
    assert _typed(tmp_path / "t.jsonl")[-1] == (3, "also drop the old flag")

    # A newer client's attachment carries the same words: read once, where it stands.
    attachment = {
        "isSidechain": False, "sessionId": "s1", "cwd": APP, "type": "attachment",
        "attachment": {"type": "queued_command", "prompt": "also drop the old flag"},
        "timestamp": _ts(),
    }  # fmt: skip
    newer = [*records[:6], say("Checking."), result("t1"), attachment, *records[7:]]
    run(tmp_path, newer)
    assert _typed(tmp_path / "t.jsonl") == [(1, "Rename the flag"), (9, "also drop the old flag")]

    # Sent as the next request (a user record follows), taken back to edit, a command
    # run after the turn, a notification: no words handed over mid-turn.
    for queued in (
        [_queue("enqueue", "also drop the old flag"), _queue("dequeue")],
        [_queue("enqueue", "also drop the old flag"), _queue("popAll", "also drop it")],
        [_queue("enqueue", "/mcp"), _queue("remove")],
        [_queue("enqueue", "<task-notification>\n<task-id>b1</task-id>"), _queue("remove")],
    ):
        run(tmp_path, [user("Rename the flag"), call("t1", "Bash", command="ls"), *queued,
                       result("t1"), say("Done.")])  # fmt: skip
        assert _typed(tmp_path / "t.jsonl") == [(1, "Rename the flag")]


REFUSED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file)."
)


def test_what_the_user_said_refusing_a_call_is_their_words(tmp_path: Path) -> None:
    """Claude Code (2.1.x to the pinned 2.1.328) puts what the user typed when refusing a
    call into the call's result: "…To tell you how to proceed, the user said:\\n<words>"."""
    said = "don't use Playwright for this, just open the Linear form"
    note = "\n\nNote: The user's next message may contain a correction or preference. Pay…"
    records = [
        user("Create the two Linear issues"),
        call("b1", "Bash", command="npx playwright open https://linear.app"),
        result(
            "b1", f"{REFUSED} To tell you how to proceed, the user said:\n{said}{note}", error=True
        ),  # fmt: skip
        call("b2", "Bash", command="open https://linear.app/new"),
    ]
    facts = run(tmp_path, records)
    assert _typed(tmp_path / "t.jsonl") == [(1, "Create the two Linear issues"), (3, said)]
    # How to go on with the request in hand: the request stays what is asked.
    assert facts.unfinished is not None
    assert facts.unfinished.text == f"Create the two Linear issues — {said}"
    assert facts.last_request == said

    # Two calls refused with one answer: said once.
    both = [block for r in (result("b1", "x"), result("b2", "y")) for block in
            r["message"]["content"]]  # fmt: skip
    for block in both:
        block.update(
            is_error=True, content=f"{REFUSED} To tell you how to proceed, the user said:\n{said}"
        )
    run(tmp_path, [user("Create the two Linear issues"), user(both)])
    assert [t for _, t in _typed(tmp_path / "t.jsonl")].count(said) == 1

    # Not the user's words: AskUserQuestion's own text when they pick "clarify", a refusal
    # without words, a command's failing output that quotes a refusal.
    clarify = (
        f"{REFUSED} To tell you how to proceed, the user said:\nThe user wants to "
        "clarify these questions.\n    This means they may have additional information"
    )
    quoted = f'grep: 2 matches\n"{REFUSED} To tell you how to proceed, the user said:\\nok"'
    for content in (clarify, REFUSED, quoted):
        run(tmp_path, [user("Create the two Linear issues"), call("b1", "Bash", command="x"),
                       result("b1", content, error=True)])  # fmt: skip
        assert _typed(tmp_path / "t.jsonl") == [(1, "Create the two Linear issues")]


def test_a_rejected_or_failed_edit_touches_no_file(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            user("Edit the files"),
            call("e1", "Edit", file_path=f"{APP}/a.py", old_string="x", new_string="y"),
            result("e1", "The user doesn't want to proceed with this tool use.", error=True),
            call("e2", "Edit", file_path=f"{APP}/b.py", old_string="x", new_string="y"),
            result(
                "e2", "<tool_use_error>String to replace not found</tool_use_error>", error=True
            ),  # fmt: skip
            call("e3", "Edit", file_path=f"{APP}/b.py", old_string="z", new_string="y"),
            result("e3", "The file has been updated."),
            call("w1", "Write", file_path=f"{APP}/c.py", content="x"),
            result("w1", "File created"),
            call("w2", "Write", file_path=f"{APP}/c.py", content="y"),
            result("w2", "File updated"),
        ],
    )
    assert facts.written_files == [f"{APP}/b.py", f"{APP}/c.py"]
    assert facts.written_weights == {f"{APP}/b.py": 1, f"{APP}/c.py": 2}


def test_codex_reports_which_patches_applied(tmp_path: Path) -> None:
    def line(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": _ts(), "type": kind, "payload": payload})

    meta = {"id": "t-1", "cwd": "/srv/app", "originator": "codex_cli_rs"}
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch"
    records = [
        line("session_meta", meta),
        line("response_item", {"type": "message", "role": "user",
                               "content": [{"type": "input_text", "text": "fix it"}]}),
        line("response_item", {"type": "custom_tool_call", "name": "apply_patch",
                               "call_id": "p1", "input": patch}),
        line("event_msg", {"type": "patch_apply_end", "call_id": "p1", "success": False,
                           "changes": {"/srv/app/src/a.py": {"type": "update"}}}),
        # a patch sent through code-mode `exec`: only the event names its files
        line("event_msg", {"type": "patch_apply_end", "call_id": "exec-2", "success": True,
                           "changes": {"/srv/app/src/b.py": {"type": "add"}}}),
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    facts = analyze(path)
    assert facts.written_files == ["/srv/app/src/b.py"]


def test_a_codex_patch_that_failed_verification_wrote_nothing(tmp_path: Path) -> None:
    """Codex reports a patch whose hunks do not fit the file only in the call's output,
    with no `patch_apply_end`; and a patch given to the shell fails by its exit code. Lines
    written compact, as Codex writes them, so that the reader's fast paths are taken."""

    def line(kind: str, payload: dict[str, Any]) -> str:
        record = {"timestamp": _ts(), "type": kind, "payload": payload}
        return json.dumps(record, separators=(",", ":"))

    def patch(name: str) -> str:
        return f"*** Begin Patch\n*** Update File: src/{name}\n@@\n-x\n+y\n*** End Patch"

    heredoc = json.dumps({"cmd": f"apply_patch <<'PATCH'\n{patch('c.py')}\nPATCH"})
    records = [
        line("session_meta", {"id": "t-1", "cwd": "/srv/app", "originator": "codex_cli_rs"}),
        line("response_item", {"type": "message", "role": "user",
                               "content": [{"type": "input_text", "text": "fix it"}]}),
        line("response_item", {"type": "custom_tool_call", "name": "apply_patch",
                               "call_id": "p1", "input": patch("a.py")}),
        line("response_item", {"type": "custom_tool_call_output", "call_id": "p1", "output":
                               "apply_patch verification failed: Failed to find expected "
                               "lines in /srv/app/src/a.py:\nx"}),
        line("response_item", {"type": "function_call", "name": "exec_command",
                               "call_id": "p2", "arguments": heredoc}),
        line("response_item", {"type": "function_call_output", "call_id": "p2", "output":
                               "Chunk ID: 1\nWall time: 0.1 seconds\n"
                               "Process exited with code 1\nOutput:\nerror"}),
        line("response_item", {"type": "custom_tool_call", "name": "apply_patch",
                               "call_id": "p3", "input": patch("b.py")}),
        line("event_msg", {"type": "patch_apply_end", "call_id": "p3", "success": True,
                           "changes": {"/srv/app/src/b.py": {"type": "update"}}}),
        line("response_item", {"type": "custom_tool_call_output", "call_id": "p3", "output":
                               "Success. Updated the following files:\nM src/b.py\n"}),
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    assert analyze(path).written_files == ["/srv/app/src/b.py"]


@pytest.mark.parametrize("answered", [False, True])
def test_a_codex_question_left_unanswered_is_open(tmp_path: Path, answered: bool) -> None:
    """Codex's Plan mode asks through request_user_input (AskUserQuestion's `questions`)."""

    def line(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": _ts(), "type": kind, "payload": payload})

    ask = {"questions": [{"header": "Store", "id": "store", "question":
                          "Which store should the cache use?", "options": [
                              {"label": "Redis (Recommended)", "description": "shared"},
                              {"label": "SQLite", "description": "local"}]}]}  # fmt: skip
    records = [
        line("session_meta", {"id": "t-1", "cwd": "/srv/app", "originator": "codex_cli_rs"}),
        line("response_item", {"type": "message", "role": "user",
                               "content": [{"type": "input_text", "text": "Plan the cache"}]}),
        line("response_item", {"type": "function_call", "name": "request_user_input",
                               "call_id": "q1", "arguments": json.dumps(ask)}),
    ]  # fmt: skip
    if answered:
        answer = {"answers": {"store": {"answers": ["Redis (Recommended)"]}}}
        records.append(line("response_item", {"type": "function_call_output", "call_id": "q1",
                                              "output": json.dumps(answer)}))  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    asked = [c.text for c in analyze(path).candidates if c.type == UNANSWERED]
    assert asked == ([] if answered else ["Which store should the cache use?"])


@pytest.mark.parametrize(
    "gap",
    [
        "`ferry remote` still ignores `--json`; it's the only command left without it.",
        "The admin export still lacks the date filter.",
        "Retention isn't in yet: old snapshots are never pruned.",
    ],
)
def test_a_part_that_still_lacks_what_the_work_added_or_is_not_in_yet_is_left_open(
    tmp_path: Path, gap: str
) -> None:
    facts = run(tmp_path, [user("add --json to status and log"), *_edit("t1", "cli.rs"),
                           say(f"Done: both take `--json`. {gap}")])  # fmt: skip
    assert gap in [c.text for c in facts.candidates]


@pytest.mark.parametrize(
    ("reply", "settled"),
    [
        ("merged. the next PR's build took 5m10s. nice", True),
        ("ok merged it", True),
        ("yep, merged", True),
        # not the step done: another step, or the step not done
        ("added a reviewer, will merge after lunch", False),
        ("merging is blocked by a required check", False),
        ("the build is still slow", False),
    ],
)
def test_a_step_handed_to_the_user_is_settled_by_their_words_saying_they_did_it(
    tmp_path: Path, reply: str, settled: bool
) -> None:
    """ "Open a PR when you're ready; the cache only warms once it's merged", answered
    "merged. …": the user did the step they were handed."""
    step = "Open a PR from it when you're ready; the cache only warms once it's merged."
    records = [user("cache the gradle deps in CI"), *_edit("t1", "android.yml"),
               say(f"Pushed `ci/gradle-cache`. {step}"), user(reply)]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert (step not in texts) is settled, texts


@pytest.mark.parametrize(
    ("reply", "settled"),
    [
        ("no do hsts now, we got dinged on the pentest for it", True),
        ("ok and add the hsts header too", True),
        ("keep hsts off, the cdn sets it", True),  # dismissed: no loose end either
        # not taken up: put off again, the user's own for later, another order, a question
        ("fine, hsts later", False),
        ("ok will do hsts myself tomorrow", False),
        ("add a redirect for whatever lacks hsts", False),
        ("do we need hsts?", False),
        ("what about hsts", False),
    ],
)
@pytest.mark.parametrize(
    "put_off",
    [
        "I left HSTS off these vhosts for now; it's a separate change.",
        # "that" is weighed against the sentence before; the reply may name the sentence's own
        "HSTS isn't set on these vhosts; I'll leave that for later, it's a separate change.",
    ],
)
def test_what_a_closing_text_put_off_is_taken_up_when_the_reply_orders_it_by_name(
    tmp_path: Path, reply: str, settled: bool, put_off: str
) -> None:
    """ "I left HSTS off these vhosts for now", answered "no do hsts now": the thing the
    reply's order names is what was put off — one distinctive word of it is enough, as the
    object of an order in the reply to the text that said it."""
    records = [user("fix the certbot renewal in the ansible role"), *_edit("t1", "certbot.yml"),
               say(f"Renewal works again: the deploy hook is executable now.\n\n{put_off}"),
               user(reply)]  # fmt: skip
    facts = run(tmp_path, records)
    assert (put_off not in [c.text for c in facts.candidates]) is settled, facts.candidates
    assert any(put_off == c.text for c in facts.settled) is settled


def test_an_order_naming_a_word_common_in_the_session_takes_nothing_up(tmp_path: Path) -> None:
    """In a game whose every other message says "level", "so far level 1 we just collected 3
    items" names no level the reply put off: a word the session uses all the time tells no
    loose end apart, in an order as in any words."""
    chatter = []
    for n in range(1, 21):
        chatter += [user(f"play test level {n}: the doors open fine"), say(f"Level {n} passes.")]
    put_off = "The boss fight is stubbed, so I'd shelve it for a later level."
    records = [*chatter, user("add the boss room"), *_edit("t1", "boss.gd"),
               say(f"Added the boss room. {put_off}"),
               user("so far level 1 we just collected 3 items.")]  # fmt: skip
    assert put_off in [c.text for c in run(tmp_path, records).candidates]


def test_an_order_naming_what_an_older_reply_put_off_is_weighed_as_any_other_words(
    tmp_path: Path,
) -> None:
    """One word is enough only in the reply to the text that put it off: later, an order
    must name the loose end as any other words must."""
    put_off = "I left HSTS off these vhosts for now; it's a separate change."
    records = [user("fix the certbot renewal in the ansible role"), *_edit("t1", "certbot.yml"),
               say(f"Renewal works again.\n\n{put_off}"), user("run molecule"),
               say("`molecule test` passed."), user("ok and do hsts on staging")]  # fmt: skip
    assert put_off in [c.text for c in run(tmp_path, records).candidates]


@pytest.mark.parametrize(
    ("left", "then", "name"),
    [
        ("I didn't add `preload` to the HSTS header.", "Added `preload`:", "preload"),
        ("`retry_jitter` isn't wired up yet.", "Wired `retry_jitter`.", "retry_jitter"),
    ],
)
def test_work_that_names_the_thing_in_backticks_lands_it(
    tmp_path: Path, left: str, then: str, name: str
) -> None:
    """ "Added `preload`:" names `preload`, backticks, colon and all."""
    records = [user("add HSTS to kettle.conf"), *_edit("t1", "kettle.conf"),
               say(f"Added HSTS.\n\n{left}"), user("ok"), *_edit("t2", "kettle.conf"),
               say(then)]  # fmt: skip
    facts = run(tmp_path, records)
    assert not [c.text for c in facts.candidates if name in c.text], facts.candidates
    assert any(name in c.text for c in facts.settled)  # it was read, and landed


@pytest.mark.parametrize(
    ("then", "settled"),
    [
        ("Added `preload`:", True),
        ("Raised the www redirect to a 308; `nginx -t` passes.", False),
    ],
)
def test_a_deferral_of_what_the_sentence_before_names_lands_with_it(
    tmp_path: Path, then: str, settled: bool
) -> None:
    """ "I didn't add `preload` to the HSTS header. … so I'd hold that until the header has
    been live for a while.": "that" is the preload, and the work that adds it lands both."""
    held = (
        "Once the domain is on the preload list it's very hard to undo, so I'd hold that "
        "until the header has been live for a while."
    )
    closing = f"Added HSTS. I didn't add `preload` to the HSTS header. {held}"
    records = [user("add HSTS to kettle.conf"), *_edit("t1", "kettle.conf"), say(closing),
               user("all subdomains are https already. go on"), *_edit("t2", "kettle.conf"),
               say(then)]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert (held not in texts) is settled, texts


_STAGING = "Should I run it against staging now?"
_BATCH_NOW = "Want me to batch the backfill now instead?"


@pytest.mark.parametrize(
    ("question", "reply", "listed"),
    [
        (_STAGING, "yeah batching as a follow-up. what's the lock impact of step 3?", True),
        # a question about something else answered: what the text put off stands
        (_STAGING, "yes run it on staging", True),
        # the choice the deferral was put as, taken up either way
        (_BATCH_NOW, "yes batch it now", False),
        (_BATCH_NOW, "not now, the platform team owns staging", False),
    ],
)
def test_a_deferral_stands_unless_the_reply_takes_up_the_choice_it_was_put_as(
    tmp_path: Path, question: str, reply: str, listed: bool
) -> None:
    """ "… we should split the backfill into batches of ~50k in a follow-up PR before this
    runs on prod. Should I run it against staging now?", answered "yes run it on staging",
    or "yeah batching as a follow-up. …": the batching stays put off. Answered a question
    about the batching itself, the user took that choice."""
    put_off = (
        "The single `UPDATE` is fine for dev data, but we should split the backfill into "
        "batches of ~50k in a follow-up PR before this runs on prod."
    )
    closing = f"Wrote the migration; its test passes. {put_off}\n\n{question}"
    records = [user("add tenant_id to invoices"), *_edit("t1", "migration.py"), say(closing),
               user(reply), say("It takes an ACCESS EXCLUSIVE lock for seconds.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert (put_off in texts) is listed, texts


def test_where_it_stopped_is_kept_verbatim(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [
            user("Make the importer skip empty rows"),
            say("Done.\n\nThe importer skips empty rows now; the nightly job still needs a rerun."),
        ],
    )
    assert facts.last_request == "Make the importer skip empty rows"
    assert facts.last_reply == (
        "The importer skips empty rows now; the nightly job still needs a rerun."
    )


def test_where_it_stopped_is_the_work_not_our_own_command(tmp_path: Path) -> None:
    """A `/session park …` at the end is neither the last request nor its reply: "Parked: …"
    is not where the work stopped."""
    work = "Added retries with a fixed 1 s delay; the jitter is still to do."
    records = [user("Add retries to the HTTP client"), *_edit("t1", "http.py"), say(work),
               *_command("session", "park try a jittered backoff", "Park this idea."),
               say("Parked: try-a-jittered-backoff (1 open)")]  # fmt: skip
    facts = run(tmp_path, records)
    assert (facts.last_request, facts.last_reply) == ("Add retries to the HTTP client", work)
    # …and the reply to the next request of the user's is the last reply again
    facts = run(tmp_path, [*records, user("now add a timeout"), say("Added a 10 s timeout.")])
    assert (facts.last_request, facts.last_reply) == ("now add a timeout", "Added a 10 s timeout.")


@pytest.mark.parametrize("pick", ["drop 1", "park 1,2", "none", "ok park both please", "#2"])
def test_a_reply_picking_from_our_sweep_is_no_request(tmp_path: Path, pick: str) -> None:
    """The skill asks which of the sweep's items to park (in Codex, as numbered options in
    plain text); the user's "drop 1" goes on with our command's turn. Read as a request, it
    was the session's unfinished last request, with the work's request before it."""
    ask = "Add retries to the HTTP client"
    work = "Done. We could also add jitter to the backoff later. Should I add a circuit breaker?"
    records = [user(ask), *_edit("t1", "http.py"), say(work),
               *_command("session", "sweep", "Sweep for unlanded items."),
               say("1. Should I add a circuit breaker? 2. Jitter, later. Park, drop or leave?"),
               user(pick)]  # fmt: skip
    facts = run(tmp_path, records)
    assert facts.unfinished is None
    assert [c.text for c in facts.candidates] == [
        "Should I add a circuit breaker?",
        "We could also add jitter to the backoff later.",
    ]
    assert (facts.last_request, facts.last_reply) == (ask, work)
    # Words of a request of their own are one, after our command's turn as anywhere.
    facts = run(tmp_path, [*records[:-1], user("now drop the retries from the uploader")])
    assert facts.last_request == "now drop the retries from the uploader"


@pytest.mark.parametrize(
    ("first", "goal"),
    [
        # Claude Code's own wrapper around an approved plan: the plan's title
        ("Implement the following plan:\n\n# Retry backoff with jitter\n\n1. Add it",
         "Retry backoff with jitter (the plan the session followed)"),
        # an IDE's tag before the words
        ("<ide_opened_file>The user opened src/a.py in the IDE.</ide_opened_file>"
         "Fix the unit labels in the replies", "Fix the unit labels in the replies"),
        # a skill's raw tag around them
        ("<objective>Audit the logging setup for duplicated handlers</objective>",
         "Audit the logging setup for duplicated handlers"),
    ],
)  # fmt: skip
def test_the_goal_names_the_work(tmp_path: Path, first: str, goal: str) -> None:
    facts = run(tmp_path, [user(first), say("On it.")])
    assert facts.goal == goal


def test_a_rejected_plan_is_not_the_plan_followed(tmp_path: Path) -> None:
    ask = "Add caching to the image proxy"
    first = call("p1", "ExitPlanMode", plan="# Cache in Redis\n\nPut a Redis cache in front.")
    rejected = result("p1", "The user doesn't want to proceed with this tool use.", error=True)
    second = call("p2", "ExitPlanMode", plan="# Cache on disk\n\nAn LRU cache on local disk.")
    facts = run(tmp_path, [user(ask), first, rejected, second, result("p2"), say("Done.")])
    assert facts.goal == (
        "Cache on disk — An LRU cache on local disk. (the plan the session followed)"
    )
    # Refused and not replaced: the request names the work.
    alone = run(tmp_path, [user(ask), first, rejected, say("Sure, what would you prefer?")])
    assert alone.goal == ask


def _command(name: str, args: str, prompt: str) -> list[dict[str, Any]]:
    typed = (
        f"<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n"
        f"<command-args>{args}</command-args>"
    )
    return [user(typed), user([{"type": "text", "text": prompt}], isMeta=True)]


def test_a_skills_tagged_sections_are_read_for_what_it_does(tmp_path: Path) -> None:
    prompt = (
        "<objective>\nCreate executable phase prompts for a roadmap phase.\n</objective>\n\n"
        "<execution_context>\n@./workflows/plan-phase.md\n</execution_context>\n"
    )
    facts = run(tmp_path, [*_command("gsd:plan-phase", "3", prompt), say("Planning.")])
    assert facts.goal == "Create executable phase prompts for a roadmap phase. (/gsd:plan-phase 3)"


def test_a_command_with_no_arguments_is_followed_by_the_work_typed_after_it(
    tmp_path: Path,
) -> None:
    """An agent's command typed bare shows a menu: the Goal is what it does (not the comment
    its file opens with) and then the work the user typed — not the menu's "2"."""
    prompt = "<!-- Powered by BMAD-CORE™ -->\n\n# Developer Agent\n\n```xml\n<agent/>\n```\n"
    menu = "1. *help\n2. *develop-story\nPick one."
    opened = [*_command("bmad:agents:dev", "", prompt), say(menu), user("2"), say("Which?")]
    work = [user("story 1.2: the password reset flow"), say("Implementing story 1.2.")]
    assert run(tmp_path, [*opened, *work]).goal == (
        "Developer Agent (/bmad:agents:dev) Then: story 1.2: the password reset flow"
    )
    assert run(tmp_path, opened).goal == "Developer Agent (/bmad:agents:dev)"


def test_a_commands_arguments_fill_its_placeholder(tmp_path: Path) -> None:
    prompt = "---\ndescription: Review a pull request\n---\n\nReview the pull request $ARGUMENTS."
    facts = run(tmp_path, [*_command("review-pr", "PR 90", prompt), say("Reviewing.")])
    assert facts.goal == "Review the pull request PR 90. (/review-pr)"


def test_an_opener_or_a_pasted_error_is_not_the_goal(tmp_path: Path) -> None:
    pasted = "src/app.ts:12:5 - error TS2322: Type 'string' is not assignable\n" * 3
    fenced = "Here's the error:\n```\nTraceback (most recent call last):\nKeyError: 'id'\n```"
    # one line, pasted right after /clear (issue 19): the report's own form, no typed words
    one_line = (
        "src/app.ts(12,5): error TS2345: Argument of type 'string' is not assignable "
        "to parameter of type 'number'.",
        "KeyError: 'id'",
        "fatal: not a git repository",
    )
    openers = (
        "ok lets get back to main",
        "where did we leave off",
        pasted,
        fenced,
        "[Image #1] fix this",
        "Let's continue where we left off yesterday",
        *one_line,
    )
    for opener in openers:
        facts = run(
            tmp_path,
            [user(opener), say("Here."), user("Add retry with backoff to the upload client"),
             say("Added.")],
        )  # fmt: skip
        assert facts.goal == "Add retry with backoff to the upload client", opener
    # …but typed words that name an error are the work
    for typed in ("TypeError when I click save, fix it", "src/app.ts:12 throws on empty input"):
        facts = run(tmp_path, [user(typed), say("Fixed."), user("Add a retry"), say("Added.")])
        assert facts.goal == typed


@pytest.mark.parametrize(
    ("then", "goal"),
    [
        ("make it use the user id when logged in",
         "how does the rate limiter pick its key? — make it use the user id when logged in"),
        ("Add retry with backoff to the upload client",
         "Add retry with backoff to the upload client"),
        # …a second question is not the work
        ("and where is the key logged?", "how does the rate limiter pick its key?"),
    ],
)  # fmt: skip
def test_a_question_answered_with_no_change_gives_the_goal_to_the_work_asked_next(
    tmp_path: Path, then: str, goal: str
) -> None:
    asked = [user("how does the rate limiter pick its key?"), say("The API key, else the IP.")]
    facts = run(tmp_path, [*asked, user(then), *_edit("t1", "limiter.py"), say("Done.")])
    assert facts.goal == goal
    # …but a question whose answer changed files was the work
    changed = [user("how does the rate limiter pick its key?"), *_edit("t0", "limiter.py"),
               say("The API key, else the IP; I fixed a typo in it too.")]  # fmt: skip
    facts = run(tmp_path, [*changed, user(then), *_edit("t1", "limiter.py"), say("Done.")])
    assert facts.goal == "how does the rate limiter pick its key?"


@pytest.mark.parametrize(
    ("first", "named"),
    [
        ("https://github.com/acme/uploader/issues/42", True),
        ("https://gitlab.com/acme/uploader/-/merge_requests/7 review this", True),
        ("https://linear.app/acme/issue/UP-12/upload-fails", True),
        ("https://github.com/acme/uploader", False),
        ("https://docs.python.org/3/library/re.html", False),
    ],
)
def test_a_link_to_an_issue_or_a_pull_request_names_the_work(
    tmp_path: Path, first: str, named: bool
) -> None:
    later = "Add retry with backoff to the upload client"
    goal = run(tmp_path, [user(first), say("Sure."), user(later), say("Added.")]).goal
    assert goal == (first if named else later)


def test_what_a_request_pasted_is_left_out_of_the_goal(tmp_path: Path) -> None:
    pad = " " * 30
    request = (
        "The MCP server replies wrongly, it reports this:\n\n"
        f"● Latest Radiation Reading from Yokohama{pad}\n{pad}\n"
        f"  Location: Yokohama (35.476N){pad}\n  Radiation Level: 27.59 CPS\n\n"
        "  Context:\n\n  This level is normal. For reference:\n  - Typical: 0.05-0.30\n\n"
        "The level was saved in CPM, but reported in CPS. Can you correct that?"
    )
    goal = run(tmp_path, [user(request), say("Fixed the unit.")]).goal
    assert goal == (
        "The MCP server replies wrongly, it reports this: […] The level was saved in CPM, "
        "but reported in CPS. Can you correct that?"
    )


def test_a_fenced_block_is_left_out_of_the_goal(tmp_path: Path) -> None:
    request = "The import fails with this:\n```\nrow 3 of 10\n```\nCan you fix the importer?"
    goal = run(tmp_path, [user(request), say("Fixed.")]).goal
    assert goal == "The import fails with this: […] Can you fix the importer?"


@pytest.mark.parametrize(
    ("paste", "named"),
    [
        ("```\nKeyError: 'id'\n```", "[… KeyError: 'id']"),
        (
            "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
            "    import yaml\nModuleNotFoundError: No module named 'yaml'",
            "[… ModuleNotFoundError: No module named 'yaml']",  # a traceback's last line
        ),
        (
            "```\nsrc/a.ts(3,5): error TS2345: Argument of type 'string' is not assignable.\n"
            "src/b.ts(9,1): error TS2304: Cannot find name 'x'.\n```",
            "[… src/a.ts(3,5): error TS2345: Argument of type 'string' is not assignable.]",
        ),
        ("error[E0382]: borrow of moved value: `v`\n --> src/main.rs:4:20",
         "[… error[E0382]: borrow of moved value: `v`]"),
    ],
)  # fmt: skip
def test_a_pasted_error_is_named_in_the_goal_by_its_headline(
    tmp_path: Path, paste: str, named: str
) -> None:
    """The paste is left out, but the line naming its failure stays: it names the work."""
    request = f"The import fails with this:\n\n{paste}\n\nCan you fix the importer?"
    goal = run(tmp_path, [user(request), say("Fixed.")]).goal
    assert goal == f"The import fails with this: {named} Can you fix the importer?"


@pytest.mark.parametrize(
    "request_",
    [
        "can you look at\n\n  - docs/rewrite-issue-list.md\n  - docs/rewrite-memo.md\n\n"
        "and do the implementation",
        "# Multi-profile support\n\n> Scope: profiles in the mobile app.\n\n## 1. Summary\n",
        "Fix the crash when\n    the list is empty\nplease",
    ],
)
def test_what_a_user_typed_stays_in_the_goal(tmp_path: Path, request_: str) -> None:
    """An indented list, a Markdown heading or quote, an indented line: typed, not pasted."""
    goal = run(tmp_path, [user(request_), say("Done.")]).goal or ""
    assert "[…]" not in goal and goal == " ".join(request_.split())


@pytest.mark.parametrize(
    "opener",
    [
        "read CLAUDE.md and get familiar with the codebase",
        "explore the codebase and understand the architecture first",
        "look around the repo and tell me what it does",
        "what's the current state of the project?",
        "summarize what we did last time",
        "good morning! ready to work?",
        "can you help me with something?",
        "I have a few things for you today",
        "read README and CONTRIBUTING first pls",
        "can you check whats on this branch vs main, i forgot",
        "I'm going to give you a task",
        "check git status please",
        "update from our parent branch",  # the branch brought up to date
        "pull the latest main please",
        "merge origin/main into the current branch",
        "ok, can you rebase onto upstream",
        "checkout the feature branch and pull",
        "create a new branch called feature/retry-backoff",
        "install the dependencies first",
        "start the dev server",
        "continue",  # a few words that name none
        "ok go ahead",
        "ok sounds good, go ahead",  # a reply, whatever follows it
        "yes. staging first",
        "yes, add it",
        "fix it",
        "do it",
    ],
)
def test_an_opener_that_names_no_work_is_not_the_goal(tmp_path: Path, opener: str) -> None:
    """Getting to know the project, small talk, the branch brought up to date, a branch or
    setup chore: nothing of the work, so the request after it names the session."""
    work = "Add retry with backoff to the uploader"
    records = [user(opener), say("Sure."), user(work), say("Added.")]
    assert run(tmp_path, records).goal == work


@pytest.mark.parametrize(
    "request_",
    [
        "read the error log and fix the crash on upload",
        "add dark mode",  # a few words that name the work
        "fix issue #42",
        "refactor auth.py",
        "run the tests and see what fails",
        "review the codebase for SQL injection",
        "create a new settings page for the uploader",
    ],
)
def test_an_opener_that_names_work_is_the_goal(tmp_path: Path, request_: str) -> None:
    records = [user(request_), say("Done."), user("Add retry with backoff"), say("Added.")]
    assert run(tmp_path, records).goal == request_


@pytest.mark.parametrize(
    "request_",
    [
        "right. finish the french strings. settings billing errors",
        "ok, fix the flaky upload test in ci",
        "yes — and add retry with backoff to the uploader",
        # …with no mark after the answer word
        "ok now add the export to csv",
        "yes fix the flaky upload test in ci",
    ],
)
def test_a_reply_that_goes_on_to_name_work_is_the_goal(tmp_path: Path, request_: str) -> None:
    """An answer word opens it, and the request after it names the work: when nothing
    before named any, that request is the session's."""
    records = [
        user("can you check whats on this branch vs main, i forgot"),
        say("You're on `feat/i18n-fr`, 3 commits ahead. Missing: settings, billing, errors."),
        user(request_),
        say("Done."),
        user("now bump the version"),
        say("Bumped."),
    ]
    assert run(tmp_path, records).goal == request_


@pytest.mark.parametrize(
    "request_",
    [
        "merge main and then add retry with backoff to the uploader",
        "update the readme from the main branch docs",
        "update the parser to handle the main config",
    ],
)
def test_a_request_that_only_mentions_a_branch_can_be_the_goal(
    tmp_path: Path, request_: str
) -> None:
    records = [user(request_), say("Done."), user("Add retry with backoff"), say("Added.")]
    assert run(tmp_path, records).goal == request_


def test_a_user_saying_something_still_fails_leaves_it_open(tmp_path: Path) -> None:
    facts = run(
        tmp_path,
        [user("Fix the login"), say("Fixed."), user("It is still failing"), say("Patched again.")],
    )
    # A short report says little alone: the request it reports on leads it.
    assert facts.unfinished is not None
    assert facts.unfinished.text == "Fix the login — It is still failing"


def test_a_yes_to_fixing_something_broken_is_no_failure_report(tmp_path: Path) -> None:
    # The question a short reply answers leads the request when it is reported, but only
    # the user's own words say whether something still fails: "yes" does not.
    asked = [
        user("Check the README links"),
        say("One link is broken. Want me to fix the broken link?"),
        user("yes"),
    ]
    assert run(tmp_path, [*asked, say("Fixed the link.")]).unfinished is None
    interrupted = run(tmp_path, [*asked, user("[Request interrupted by user]")])
    assert interrupted.unfinished is not None
    assert interrupted.unfinished.text == (
        "Check the README links — Want me to fix the broken link? — yes"
    )


def test_an_open_list_is_read_in_the_assistants_text_only() -> None:
    """ "Still open:" lists are the assistant's account of what is left; the same shape in
    the user's message (bold lead-in or plain) is their request, not a loose end — not even
    one their own message then reads as taken up."""
    from session_skill.transcripts.reader import UserText

    listing = "**Still open:**\n- rewrite the parser\n- document the flags\n"
    state = sweep._Loose(ToolState(set()))
    state.feed(UserText(listing, "2026-11-29T10:00:00Z"))
    state.feed(AssistantText("Both are done now.", "2026-11-29T10:01:00Z", None))
    state.feed(UserText("Still open:\n- rewrite the parser\n", "2026-11-29T10:02:00Z"))
    assert state.pool == {} and state.settled == []
    state.feed(AssistantText(listing, "2026-11-29T10:03:00Z", None))
    assert sorted(c.text for c in state.pool.values()) == [
        "document the flags",
        "rewrite the parser",
    ]


@pytest.mark.parametrize(
    ("listing", "lead"),
    [
        # the bold closes mid-line, before what the lead goes on to say
        (
            "**Untuned on purpose** — these want a feel pass:\n- `TOTAL_TIME = 50` (rescue)\n",
            "Untuned on purpose — these want a feel pass",
        ),
        (
            "### **Next steps** for `cli.py`\n1. Wire the --json flag into the parser\n",
            "Next steps for cli.py",
        ),
        # the lead is the line's last sentence, not the narration before it
        (
            "Now let me go on. What's left from earlier:\n- Test gaps in the fetch path (#18-22)\n",
            "What's left from earlier",
        ),
    ],
)
def test_a_lists_lead_is_shown_without_its_marks(tmp_path: Path, listing: str, lead: str) -> None:
    """ "Why it did not land" quotes the lead an item was listed under as the reader saw it:
    the bold and code marks the list's own items lose are gone from it too."""
    found = run(tmp_path, [user("Tune the rescue level"), say("Tuned.\n\n" + listing)]).candidates
    assert [c.why.split(" at ")[0] for c in found] == [f"listed under “{lead}”"], found


@pytest.mark.parametrize("turns_after", [2, 9, 10, 30])
def test_an_old_list_of_what_is_open_stands_until_settled(tmp_path: Path, turns_after: int) -> None:
    """The assistant's "Still open:" list says what is left in so many words: it stands,
    however long ago, until the session settles it (the work reported done). An aside it
    put off ("We should revisit …") is let go after `LIST_TURNS` turns."""
    from session_skill.transcripts import loose

    listing = (
        "Done with the parser. We should revisit the lexer errors later.\n\n"
        "**Still open:**\n- document the retry flags\n"
    )
    later = []
    for n in range(turns_after):
        later += [user(f"Now tune the cache size number {n}"), say(f"Tuned it, round {n}.")]
    records = [user("Fix the parser"), say(listing), *later]
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert "document the retry flags" in texts, texts
    aside = "We should revisit the lexer errors later."
    assert loose.LIST_TURNS is not None
    assert (aside in texts) is (turns_after < loose.LIST_TURNS), texts
    done = [*records, user("Document them"), say("Documented the retry flags in the README.")]
    assert "document the retry flags" not in [c.text for c in run(tmp_path, done).candidates]


_CUT = "the last request; the transcript ends in the middle of the work on it"
_ANNOUNCED = "the last request; the reply ends announcing more work; nothing came after it"


@pytest.mark.parametrize("compact", [True, False])  # the reader's fast path, its full parse
@pytest.mark.parametrize(
    ("stop", "text", "why"),
    [
        ("tool_use", "Added the limiter. Let me run the tests.", _CUT),
        ("tool_use", "Added the limiter; the tests pass.", _CUT),
        # a response that ended on announcing work stopped before doing it
        ("end_turn", "Now let me run the tests to make sure nothing broke.", _ANNOUNCED),
        (None, "Now let me run the tests to make sure nothing broke.", _ANNOUNCED),
        ("end_turn", "Added the limiter. Checking the burst path now.", _ANNOUNCED),
        ("end_turn", "Build passes. Next: a test with a fake server that returns 429.", _ANNOUNCED),
        ("end_turn", "Added the limiter; the tests pass.", None),
        (
            "end_turn",
            "Added the limiter; the tests pass. I'll leave the defaults as they were.",
            None,
        ),
        (None, "Added the limiter. Let me know if anything else comes up.", None),
    ],
)
def test_a_transcript_cut_after_a_text_that_goes_on_to_a_tool_call(
    tmp_path: Path, compact: bool, stop: str | None, text: str, why: str | None
) -> None:
    """Claude Code writes a response's blocks as records of their own, each saying how the
    response stopped: a text whose response stopped to call a tool, with no call after it,
    is where the transcript was cut — in the middle of the work. A reply that ends on the
    work it is about to do ("Now let me run the tests.") stopped before it, too."""
    announce = say(text)
    if stop is not None:
        announce["message"]["stop_reason"] = stop
    records = [user("Add rate limiting to the upload endpoint"), call("e1", "Edit",
               file_path=f"{APP}/src/limits.py", old_string="a", new_string="b"),
               result("e1"), announce]  # fmt: skip
    path = tmp_path / "t.jsonl"
    separators = (",", ":") if compact else None
    path.write_text("".join(json.dumps(r, separators=separators) + "\n" for r in records))
    found = [(c.rule, c.why) for c in analyze(path).candidates]
    assert found == ([("unfinished", why)] if why else [])


def test_a_task_list_left_unticked_in_the_closing_text_is_open(tmp_path: Path) -> None:
    """ "- [ ]" is not done in the list's own notation, whatever leads it; "- [x]" is done,
    and a checklist inside a fenced block is a file's content shown."""
    text = (
        "Here's the PR description:\n\n## Test plan\n"
        "- [x] go test ./... passes\n- [ ] `E2E=1` gated integration tests\n\n"
        "The template I added:\n```markdown\n- [ ] Describe the change\n```\n"
    )
    facts = run(tmp_path, [user("Write the PR description"), say(text)])
    assert [(c.rule, c.text) for c in facts.candidates] == [
        ("unticked", "E2E=1 gated integration tests")
    ]
    # Said earlier, a list some of which is ticked stays the work's state…
    earlier = [user("Write the PR description"), say(text), user("thanks"), say("Sure.")]
    assert [c.text for c in run(tmp_path, earlier).candidates] == ["E2E=1 gated integration tests"]
    # …until ticked, or done; a checklist none of which is ticked, the last text alone lists.
    ticked = text.replace("- [ ] `E2E", "- [x] `E2E")
    later = [user("Write the PR description"), say(text), user("run the e2e ones"),
             *_edit("t1", "e2e_test.go"), say(f"All green.\n{ticked}")]  # fmt: skip
    assert run(tmp_path, later).candidates == []
    handed = "Before you merge:\n- [ ] run the E2E suite\n- [ ] bump the chart version\n"
    earlier = [user("Write the PR description"), say(handed), user("thanks"), say("Sure.")]
    assert run(tmp_path, earlier).candidates == []
    # The box drawn as a glyph, beside ticked ones.
    drawn = "Plan:\n1. ✅ reflection macro\n2. ☐ editor File → Save/Load\n⬜ docs\n"
    facts = run(tmp_path, [user("whats left"), say(drawn)])
    assert [(c.rule, c.text) for c in facts.candidates] == [
        ("unticked", "editor File → Save/Load"),
        ("unticked", "docs"),
    ]


_PROGRESS = (
    "Progress:\n- [x] 1. `ExportService` to CSV\n- [x] 2. the month picker\n"
    "- [ ] 3. write the temp file and share it through `share_plus`\n"
    "- [ ] 4. widget tests for the export button\n\nNow the sharing step."
)


def test_a_task_list_the_turn_goes_on_from_is_the_work_s_state(tmp_path: Path) -> None:
    """A progress list said between tool calls (the turn goes on from it) stands as one a
    turn closes on does: the session ending in the middle of its next step leaves its
    unticked items open; they land when ticked later, or the work reports them done."""
    mid = [user("add a CSV export with a share sheet"), say(_PROGRESS),
           *_edit("t1", "export.dart"),
           say("Halfway: computing the popover origin from the button's render box —")]  # fmt: skip
    assert [(c.rule, c.text) for c in run(tmp_path, mid).candidates] == [
        ("unticked", "3. write the temp file and share it through share_plus"),
        ("unticked", "4. widget tests for the export button"),
    ]
    done = _PROGRESS.replace("- [ ]", "- [x]")
    ticked = [*mid, user("go on"), *_edit("t2", "export_test.dart"), say(f"Done.\n{done}")]
    assert run(tmp_path, ticked).candidates == []


def test_an_item_ticked_in_a_list_said_again_shorter_lands(tmp_path: Path) -> None:
    """A task list shown again says its items shorter (or longer): "Coupon and
    CouponRedemption + migration" ticked is the item "… models in Prisma + migration" left
    unticked before, and "validateCoupon() with the rules (type, expiry, …)" is
    "validateCoupon() with the rules"."""
    first = ("Plan:\n1. [x] read the checkout flow\n2. [ ] Coupon and CouponRedemption "
             "models in Prisma + migration\n3. [ ] validateCoupon() with the rules\n")  # fmt: skip
    again = ("Done:\n1. [x] read the checkout flow\n2. [x] Coupon and CouponRedemption + "
             "migration\n3. [x] validateCoupon() with the rules (type, expiry, one per "
             "customer)\n")  # fmt: skip
    records = [user("add discount coupons to the checkout"), say(first),
               *_edit("t1", "schema.prisma"), say(again)]  # fmt: skip
    facts = run(tmp_path, records)
    assert facts.candidates == []
    assert sorted(c.why.split(":")[0] for c in facts.settled) == ["ticked later"] * 2


def test_an_item_left_unticked_again_is_one_loose_end_as_last_said(tmp_path: Path) -> None:
    """The same item left unticked in two lists, said longer the second time, is one loose
    end, in the newer words; a different item of the older list stays."""
    first = ("Plan:\n1. [x] read the checkout flow\n2. [ ] the order summary line\n"
             "3. [ ] a concurrency guard on redemptions\n")  # fmt: skip
    again = (
        "Plan:\n1. [x] read the checkout flow\n2. [x] the order summary line\n"
        "3. [ ] a concurrency guard on redemptions: two orders at once with one coupon\n"
    )
    records = [user("add discount coupons to the checkout"), say(first), user("go on"),
               *_edit("t1", "a.ts"), say(again), user("ok, open a PR"),
               say("PR #212 is open.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert texts == ["a concurrency guard on redemptions: two orders at once with one coupon"]


@pytest.mark.parametrize(
    "reply",
    [
        # the next instruction answers a plain question, "also" or not (issue 19's
        # definition; read otherwise, answered questions were reported open)
        "also need a dash sound and a little trail",
        "cool. also add pagination to the orders endpoint",
        "yes, pass through. also add a dash sound",
        "pass through please",
        "add a dash sound",
    ],
)
def test_the_next_instruction_answers_a_question_also_when_it_opens_on_also(
    tmp_path: Path, reply: str
) -> None:
    asked = "Dash is in. Should projectiles pass through the player instead?"
    records = [user("add a dash to the player"), *_edit("t1", "Player.cs"), say(asked),
               user(reply), *_edit("t2", "Player.cs"), say("Done.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert "Should projectiles pass through the player instead?" not in texts, texts


@pytest.mark.parametrize(
    ("closing", "stopped"),
    [
        ("Migrated 5 of 7. I've stopped here because the last step needs production "
         "credentials.", "I've stopped here because the last step needs production credentials."),
        ("Fixed the renames. The iOS build still fails, at `pod install`:\n```\n[!] no pod\n```",
         "The iOS build still fails, at `pod install`:"),
        ("Fixed the parser. I couldn't get the Windows build to pass.",
         "I couldn't get the Windows build to pass."),
        # …or only begun: "Started on …", and what is still to do listed
        ("Started on the read routing.\n\n- `config.go`: added `ReadDSN`\n\nStill to do:\n"
         "- switch `ListOrders` to the read pool", "Started on the read routing."),
        # …not a check it could not make, a failure set aside, a story of a stop
        ("Done. I couldn't verify the email flow here (no SMTP).", None),
        ("Done. `test_tz` still fails; it is pre-existing and unrelated to this change.", None),
        ("I stopped here to check the logs, found the real bug and fixed it as well.", None),
        # …nor what the work means to fail
        ("Fixed the parser. Specs without a host still fail with a usage error, which is "
         "intended.", None),
        ("Fixed the parser; malformed lines still fail fast, as expected.", None),
    ],
)  # fmt: skip
def test_a_reply_that_says_the_work_stopped_undone_leaves_the_request_open(
    tmp_path: Path, closing: str, stopped: str | None
) -> None:
    records = [user("get the ios build working again"), *_edit("t1", "router.dart"), say(closing)]
    facts = run(tmp_path, records)
    if stopped is None:
        assert facts.unfinished is None
        return
    assert facts.unfinished is not None
    assert facts.unfinished.why == "the reply says the work stopped undone"
    # …shown with the sentence that says where, which is not listed a second time
    assert facts.unfinished.text == f"get the ios build working again — stopped: {stopped}"
    texts = [c.text for c in facts.candidates]
    assert texts[0] == facts.unfinished.text and stopped not in texts


@pytest.mark.parametrize(
    ("closing", "open_"),
    [
        ("Upgraded. 38 of 40 tests pass; the other two need `pydantic-settings`, a new "
         "dependency, so I stopped there.", True),
        ("Fixed the parser. I couldn't get the Windows build to pass.", True),
        # a failure reported as it stands may be known and let be: the thanks close it
        ("Bumped to 0.4.0 and committed. `test_windows_paths` is still failing.", False),
    ],
)  # fmt: skip
@pytest.mark.parametrize("thanks", ["thanks", "ok", "great, thx!"])
def test_thanks_for_a_reply_that_stopped_undone_leaves_the_request_open(
    tmp_path: Path, closing: str, open_: bool, thanks: str
) -> None:
    records = [user("get the ios build working again"), *_edit("t1", "router.dart"),
               say(closing), user(thanks)]  # fmt: skip
    facts = run(tmp_path, records)
    if not open_:
        assert facts.unfinished is None
        return
    assert facts.unfinished is not None
    assert facts.unfinished.why == "the reply says the work stopped undone"
    assert facts.unfinished.text.startswith("get the ios build working again — stopped: ")
    # …and thanks for a new request's reply is about that one
    records += [user("add a --verbose flag"), *_edit("t2", "cli.py"), say("Added."), user(thanks)]
    assert run(tmp_path, records).unfinished is None


@pytest.mark.parametrize(
    ("asked", "reply", "open_"),
    [
        ("Should the PDF include the company logo?", "nice", True),
        ("Should the PDF include the company logo?", "thanks, that's all for today", True),
        ("Which page size do you want, A4 or Letter?", "cool, thx", True),
        # …but thanks do answer a check on the work, and words answer anything
        ("Does that look right?", "nice, thanks", False),
        ("Should the PDF include the company logo?", "yes", False),
        ("Should the PDF include the company logo?", "ok", False),
        ("Should the PDF include the company logo?", "now add a total row", False),
    ],
)  # fmt: skip
def test_thanks_alone_answer_no_question(
    tmp_path: Path, asked: str, reply: str, open_: bool
) -> None:
    records = [user("export invoices as pdf"), *_edit("t1", "invoices.py"),
               say(f"Added `GET /invoices/{{id}}.pdf`. {asked}"), user(reply)]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert (asked in texts) is open_, texts


@pytest.mark.parametrize(
    ("closing", "reply", "open_"),
    [
        ("Should it stream for large tables? For now it loads everything.\n\n"
         "Want me to add tests for it?", "yes", True),
        ("Should it stream for large tables? For now it loads everything.\n\n"
         "Want me to add tests for it?", "sure, go ahead", True),
        # …answered in words, or a check on the work, or no offer the "yes" took up
        ("Should it stream for large tables? For now it loads everything.\n\n"
         "Want me to add tests for it?", "yes, and make it stream", False),
        ("Does that look right? Want me to add tests for it?", "yes", False),
        ("Should it stream for large tables? Should it gzip the output?", "yes", False),
    ],
)  # fmt: skip
def test_a_bare_yes_to_an_offer_answers_no_question_before_it(
    tmp_path: Path, closing: str, reply: str, open_: bool
) -> None:
    asked = closing.split("?")[0] + "?"
    records = [user("add the export endpoint"), *_edit("t1", "export.py"), say(closing),
               user(reply), *_edit("t2", "test_export.py"), say("Added 4 tests.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert (asked in texts) is open_, texts


@pytest.mark.parametrize(
    ("last", "nothing_new"),
    [
        # words that ask for nothing new: the request before them is the work in hand
        ("let me find one", True),
        ("ok ping me when done", True),
        ("exact is enough", True),
        ("no Maybe is fine. thanks that was helpful", True),
        ("just the chrome for now. i gotta go, thx", True),
        ("great. remind me to rerun it once the ci cache is cleared", True),
        ("good, let's stop here for today. tomorrow we add the xlsx variant", True),
        # …an offer declined, or a step the user takes on
        ("nvm, it's fine", True),
        ("that's fine", True),
        ("no need", True),
        ("never mind", True),
        ("don't bother", True),
        ("fine as is", True),
        ("no thanks", True),
        ("will do", True),
        ("ok will schedule it", True),
        ("yep, next week", True),
        ("we only ship English, fine. the reports can wait for next sprint", True),
        # …words that do
        ("that's fine, but add a fuzzier check", False),
        ("thanks! one more thing: can you add a summary print", False),
        ("ok im going to lunch, keep an eye on it", False),
    ],
)
def test_last_words_that_ask_nothing_new_leave_the_request_before_them_in_hand(
    tmp_path: Path, last: str, nothing_new: bool
) -> None:
    """The session ends on the user's words, unanswered: when they ask for nothing new, the
    request before them is what was in hand — unfinished if its reply asked before doing
    anything, finished if the work was done."""
    asked = say("I couldn't reproduce it in 50 runs. Can you grab the failing output?")
    waiting = run(tmp_path, [user("fix the flaky discount test"), asked, user(last)])
    assert waiting.unfinished is not None
    assert (last not in waiting.unfinished.text) is nothing_new, waiting.unfinished.text
    assert waiting.unfinished.text.startswith("fix the flaky discount test")
    done = say("Fixed: the clock is mocked now. Want a fuzzier check too?")
    finished = run(tmp_path, [user("fix the flaky discount test"), *_edit("t1", "spec.ts"),
                              done, user(last)])  # fmt: skip
    assert (finished.unfinished is None) is nothing_new


@pytest.mark.parametrize(
    ("replies", "reported"),
    [
        # a go-ahead after an answer: the thread's first request is the work in hand
        (["CI uses --shard=3/4 and TZ is UTC", "ok go"], True),
        (["the gateway links to the old url", "go ahead"], True),
        # a question back about the work goes on with it too
        (["is the gateway really pinned? we have a redirect", "ok go"], True),
        # a reply that asks for work of its own opens a thread of its own
        (["CI uses --shard=3/4. please also pin node", "ok go"], False),
        (["now add a retry to the uploader", "ok go"], False),
    ],
)  # fmt: skip
def test_an_unfinished_go_ahead_is_shown_with_the_request_its_thread_began_with(
    tmp_path: Path, replies: list[str], reported: bool
) -> None:
    """ "ok go" says little alone: when the replies before it only answered the questions
    put to them, the work it goes on with is the request that opened the thread."""
    records = [user("upgrade us from spring boot 2.7 to 3.2"),
               say("Two ways to do this. Is the gateway pinned to the old URL?"),
               user(replies[0]), say("Noted; that works with the redirect."),
               user(replies[1]), *_edit("t1", "pom.xml"),
               say("Fixed the compile errors. Running the full test suite now.")]  # fmt: skip
    facts = run(tmp_path, records)
    assert facts.unfinished is not None
    text = facts.unfinished.text
    assert text.startswith("upgrade us from spring boot") is reported, text
    assert text.endswith("then: Running the full test suite now.")


@pytest.mark.parametrize(
    ("reply", "carried"),
    [
        ("is 1 really a bug? we save in a transaction", True),
        ("what's the apk size hit for coil?", True),
        ("wait, does the changelog say the timeout change can break people?", True),
        # …or asks for something to come first
        ("wait, first show me the diff again", True),
        ("before that, run the full suite", True),
        # …an answer, a counter-proposal or a request answers it
        ("first one", False),
        ("yes, fix them on the branch", False),
        ("what about fixing only the first two?", False),
        ("can you check the other branch too?", False),
        ("leave them as comments", False),
    ],
)
def test_a_reply_that_asks_back_leaves_the_question_for_the_message_after(
    tmp_path: Path, reply: str, carried: bool
) -> None:
    asked = "Want me to leave these as PR comments, or fix them on the branch?"
    review = f"Reviewed it.\n\n1. `attempt` is incremented before the save.\n\n{asked}"
    records = [user("review the diff, dont change anything"), say(review), user(reply),
               say("Looked again: it is lower severity than I said.")]  # fmt: skip
    facts = run(tmp_path, records)
    open_asks = [c.text for c in facts.candidates if c.rule == "final-ask"]
    assert (asked in open_asks) is carried, [c.text for c in facts.candidates]
    # …and the message after the answer to it answers it, as any reply does
    answered = run(tmp_path, [*records, user("ok fix them on the branch"), say("Fixed.")])
    assert asked not in [c.text for c in answered.candidates]


def test_a_question_after_an_ack_is_answered_by_the_reply(tmp_path: Path) -> None:
    """ "good. does the current run pick this up?": answered in words, whatever the reply
    asks after it."""
    records = [user("good. does the current run pick this up?"),
               say("No — it imported the old code. Restart it now, or let it finish?")]  # fmt: skip
    facts = run(tmp_path, records)
    assert facts.unfinished is None
    assert [c.rule for c in facts.candidates] == ["final-ask"]


@pytest.mark.parametrize(
    "lead",
    [
        "A few small loose ends, none urgent:",
        "Open items:",
        "Two open threads from before:",
        "## Still open",  # a Markdown heading leads without its colon
    ],
)
def test_a_list_of_loose_ends_in_the_closing_reply_is_open(tmp_path: Path, lead: str) -> None:
    text = (
        "Committed and pushed.\n\n"
        f"{lead}\n\n"
        '- **The level name**: "Launch Clearance" is still the placeholder.\n'
        "- **`.codex/`** remains untracked, pending your call.\n"
    )
    facts = run(tmp_path, [user("Ship the finale"), say(text)])
    texts = [c.text for c in facts.candidates]
    assert any("Launch Clearance" in t for t in texts) and any(".codex/" in t for t in texts)


def test_a_heading_leads_a_list_only_when_it_says_what_is_left(tmp_path: Path) -> None:
    text = (
        "## What changed\n\n- Added jitter to the upload retry backoff.\n\n"
        "## Where it landed\n\n- The retry flags are documented in the README.\n\n"
        "#412 is still open\n- nothing else in the tracker mentions the retries\n"  # no heading
    )
    assert run(tmp_path, [user("Add jitter to the retries"), say(text)]).candidates == []


@pytest.mark.parametrize(
    ("line", "item"),
    [
        (
            "Next up: step 6 — move the sessions table, step 7 — backfill the audit log.",
            "step 6 — move the sessions table, step 7 — backfill the audit log.",
        ),
        (
            "**Remaining:** the Windows paths and the retry jitter.",
            "the Windows paths and the retry jitter.",
        ),
        ("- Still to do: wire `--dry-run` into the installer", "wire --dry-run into the installer"),
        # a status line's "left:", naming a few
        ("- left: `CartShipping.vue`, `CartCheckoutButton.vue`",
         "CartShipping.vue, CartCheckoutButton.vue"),
        # the line goes on to ask: the question is `asks`' own, the list before it stands
        (
            "Next up: step 6 — move the sessions table, step 7 — drop the old index. "
            "Want to continue with step 6?",
            "step 6 — move the sessions table, step 7 — drop the old index.",
        ),
    ],
)  # fmt: skip
def test_what_the_last_reply_lists_as_left_on_one_line_is_open(
    tmp_path: Path, line: str, item: str
) -> None:
    text = f"Steps 1–5 are done and the tests pass.\n\n{line}\n\nWant to continue?"
    facts = run(tmp_path, [user("Do steps 1 to 5"), say(text)])
    listed = [c for c in facts.candidates if c.rule == "open-list"]
    assert [c.text for c in listed] == [item] and listed[0].type == DEFERRED


@pytest.mark.parametrize(
    "line",
    [
        "Next steps: none.",
        "Remaining: nothing, all green.",
        "- left: none, all 7 migrated",
        "- left: `Cart.vue`",  # one name, no list: a line of something else
        "Remaining work: I've completed all of the tasks.",
        "Still open: done, pushed to the release branch.",
        "Next up: want me to start on step 6?",  # a question: `asks` reads it
        "Next steps: should I open the PR? Or wait for CI?",  # questions, one after another
        "Summary: the parser and the CLI are both rewritten.",  # not a lead of what is left
        "The things I would look at next if we had more time: the cache and the CLI flags.",
        "Next up: the cache and the CLI flags.\nLet me start on these now.",  # taken up at once
    ],
)
def test_a_line_that_only_looks_like_an_inline_list_is_not_open(tmp_path: Path, line: str) -> None:
    facts = run(tmp_path, [user("Do steps 1 to 5"), say(f"Done.\n\n{line}")])
    assert [c.text for c in facts.candidates if c.rule == "open-list"] == []


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        (
            "Done. One thing: the bucket name is hard-coded — is that intended, or should it come"
            " from the env? Everything else is in the PR.",
            "One thing: the bucket name is hard-coded — is that intended, or should it come from"
            " the env?",
        ),
        ("Root cause: why did it fail? The fixture was shared. I copied it per test.", None),
    ],
)
def test_a_question_after_a_lead_in_mid_reply_is_asked(
    tmp_path: Path, text: str, asked: str | None
) -> None:
    facts = run(tmp_path, [user("Ship the upload fix"), say(text)])
    found = [c.text for c in facts.candidates if c.type == UNANSWERED]
    assert found == ([asked] if asked else [])


@pytest.mark.parametrize(
    "lead",
    [
        "If you want to compare, a couple of alternatives I'd consider runners-up:",
        "Zero console errors. Here is the full manual test report:",
    ],
)
def test_a_lead_in_of_the_closing_reply_is_no_caveat(tmp_path: Path, lead: str) -> None:
    text = f"{lead}\n\n| page | result |\n| --- | --- |\n| login | pass |\n"
    assert run(tmp_path, [user("Test the login page"), say(text)]).candidates == []


@pytest.mark.parametrize("lead", ["**Still failing:**", "Two tests not yet fixed:"])
def test_what_a_caveat_lead_in_introduces_is_open(tmp_path: Path, lead: str) -> None:
    text = f"Pushed.\n\n{lead}\n- test_upload_retry times out on CI\n- the lint job on docs/\n"
    facts = run(tmp_path, [user("Fix the CI"), say(text)])
    assert [c.text for c in facts.candidates] == [
        "test_upload_retry times out on CI",
        "the lint job on docs/",
    ]


def test_an_inline_list_is_read_in_the_last_reply_only(tmp_path: Path) -> None:
    earlier = "Done with the parser.\n\nNext up: document the retry flags and the cache size."
    records = [user("Fix the parser"), say(earlier), user("Now tune the cache"), say("Tuned.")]
    assert [c for c in run(tmp_path, records).candidates if c.rule == "open-list"] == []


def _commit(tool_id: str, command: str, output: str = "ok", *, error: bool = False) -> list[Any]:
    return [call(tool_id, "Bash", command=command), result(tool_id, output, error=error)]


def test_the_goal_names_what_the_commits_say_was_done(tmp_path: Path) -> None:
    heredoc = (
        "git add -A && git commit -m \"$(cat <<'EOF'\n"
        'Add Level 3 "Launch Clearance" finale\n\nCo-Authored-By: Claude\nEOF\n)"'
    )
    records = [
        user("what about level 3 plans for the game"),
        say("PLAN.md has no Level 3 yet."),
        *_commit("c1", 'git commit -m "Add Level 3 design to PLAN.md"'),
        *_commit("c2", heredoc),
        *_commit("c3", 'git commit -m "Add Level 3 design to PLAN.md"'),  # said once
    ]
    facts = run(tmp_path, records)
    assert facts.goal == (
        "what about level 3 plans for the game — committed: Add Level 3 design to PLAN.md; "
        'Add Level 3 "Launch Clearance" finale'
    )
    # A commit that failed names nothing; one whose push failed after it still committed.
    failed = _commit("c4", 'git commit -m "Tidy the HUD"', "pre-commit hook failed", error=True)
    pushed = _commit(
        "c5",
        'git commit -m "Carry wins forward" && git push',
        "[main fa08316] Carry wins forward\n 1 file changed\nerror: failed to push",
        error=True,
    )
    goal = run(tmp_path, [*records, *failed, *pushed]).goal or ""
    assert "Tidy the HUD" not in goal and goal.endswith("; Carry wins forward")


@pytest.mark.parametrize("refused", [False, True], ids=["as-at-SessionEnd", "refused"])
def test_a_request_answered_by_a_plan_not_yet_carried_out_stays_open(
    tmp_path: Path, refused: bool
) -> None:
    """The transcript of a plan approved with "clear context" ends on ExitPlanMode (its
    refusal and the interrupt may follow); so does one whose plan the user refused. Either
    way the request is still to do."""
    records = [
        user("Validation message unstyled on login - fix this"),
        call("p1", "ExitPlanMode", plan="# Fix the validation message\n\nUse Tailwind.\n"),
    ]
    if refused:
        records += [
            result("p1", "The user doesn't want to proceed with this tool use.", error=True),
            user("[Request interrupted by user for tool use]"),
        ]
    facts = run(tmp_path, records)
    assert facts.plan is not None
    (request,) = facts.candidates
    assert (request.type, request.text) == (
        UNFINISHED, "Validation message unstyled on login - fix this"
    )  # fmt: skip
    assert (
        request.why == "the last request; a plan for it was shown for approval, not carried out yet"
    )


def recap(text: str, **extra: Any) -> dict[str, Any]:
    """Claude Code's recap for a user coming back, as 2.1.9x–2.1.3xx write it."""
    record = {"parentUuid": "u1", "isSidechain": False, "type": "system",
              "subtype": "away_summary", "content": text, "timestamp": _ts(), "uuid": "r1",
              "isMeta": False}  # fmt: skip
    record.update(extra)
    return record


def test_the_goal_is_the_latest_recap_of_claude_code(tmp_path: Path) -> None:
    """Claude Code's recap leads "with the overall goal and current task" (its own prompt):
    the latest one's first sentence is the Goal, without the label its model may put first
    or the note the client adds; the commits still say what was done."""
    records = [
        user("lets take a look at level 2. no one likes walking up to the items"),
        say("Here are three directions."),
        recap("Redesigning Level 2 around a new verb. Next: pick a direction. "
              "(disable recaps in /config)"),  # fmt: skip
        user("the second one"),
        *_commit("c1", 'git commit -m "Lay out the dispatch yard"'),
        recap("Goal: turn Level 2 into a 12-track dispatch yard for subagent cars. The layout "
              "is committed. Next: reload and check the framing. (turn off recaps in /config)"),
        user("the tracks start too far from the island"),
        say("Moved them."),
    ]  # fmt: skip
    facts = run(tmp_path, records)
    assert facts.goal == (
        "turn Level 2 into a 12-track dispatch yard for subagent cars. (Claude Code's recap)"
        " — committed: Lay out the dispatch yard"
    )
    # A sidechain's is not the session's; a plan followed is still the Goal first.
    sidechain = recap("We're writing a haiku about queues.", isSidechain=True)
    assert "haiku" not in (run(tmp_path, [*records, sidechain]).goal or "")
    plan = [call("p1", "ExitPlanMode", plan="# Dispatch yard\n\nTwelve tracks.\n"),
            result("p1", "approved")]  # fmt: skip
    assert (run(tmp_path, [*records, *plan]).goal or "").startswith("Dispatch yard")


def test_a_recap_of_the_conversation_before_clear_is_not_the_goal(tmp_path: Path) -> None:
    clear = user("<command-name>/clear</command-name>\n<command-args></command-args>")
    old = [user("Fix the login page"), say("Fixed."), recap("We fixed the login page.")]
    facts = run(tmp_path, [*old, clear, recap("We fixed the login page, again."),
                           user("Now add rate limiting to the upload endpoint")])  # fmt: skip
    assert facts.goal == "Now add rate limiting to the upload endpoint"
    # …and a recap of a few words names nothing
    assert run(tmp_path, [user("Add rate limiting"), recap("All done.")]).goal == (
        "Add rate limiting"
    )


def test_a_plan_goal_is_the_plan_whatever_was_committed(tmp_path: Path) -> None:
    plan = "# Retry backoff\n\nUploads fail under load, so retry with jitter.\n"
    records = [
        user("Add retries"),
        call("p1", "ExitPlanMode", plan=plan),
        result("p1", "approved"),
        *_commit("c1", 'git commit -m "Add jittered retries"'),
    ]
    goal = run(tmp_path, records).goal or ""
    assert goal.startswith("Retry backoff") and "committed" not in goal


def test_what_happens_instead_of_waiting_is_not_left_open(tmp_path: Path) -> None:
    closing = (
        "Pushed. A large source now starts in batched mode instead of waiting for a failed "
        "push. The release is still waiting on the review."
    )
    texts = [c.text for c in run(tmp_path, [user("Batch big sources"), say(closing)]).candidates]
    assert texts == ["The release is still waiting on the review."]


@pytest.mark.parametrize(
    ("after", "open_"),
    [
        ("Let me write these in parallel:", False),
        ("I'll take them one at a time.", False),
        ("Want me to take these on?", True),
        ("", True),
    ],
)
def test_a_list_the_assistant_takes_up_at_once_is_not_open(
    tmp_path: Path, after: str, open_: bool
) -> None:
    text = (
        "The biggest remaining gaps:\n\n"
        "1. **strategy/incremental** (0%) — Execute is pure logic\n"
        "2. **planner** — ObjectsToPush is at 0%\n\n"
        f"{after}"
    )
    texts = [c.text for c in run(tmp_path, [user("Raise the coverage"), say(text)]).candidates]
    assert any("strategy/incremental" in t for t in texts) is open_, texts


@pytest.mark.parametrize(
    ("closing", "open_"),
    [
        (
            "Control-plane has pre-existing compilation errors unrelated to this change.",
            True,
        ),
        ("Done. The two failing tests in billing are unrelated to this change.", True),
        ("Done. The only mentions are the pre-existing safe ones (the Bug Bash page).", False),
        ("Done. The diagnostic is in pre-existing code, not touched by this change.", False),
    ],
)
def test_a_failure_set_aside_as_pre_existing_is_left_open(
    tmp_path: Path, closing: str, open_: bool
) -> None:
    facts = run(tmp_path, [user("Move the libraries into the monorepo"), say(closing)])
    assert bool(facts.candidates) is open_, [c.text for c in facts.candidates]


@pytest.mark.parametrize(
    "command",
    [
        'git commit -am "Add jittered retries"',
        'git commit -sm "Add jittered retries"',
        'git commit -m "Add jittered retries" -m "The body says why."',
        'git commit --message="Add jittered retries"',
    ],
)
def test_a_commits_subject_whichever_way_it_is_given(tmp_path: Path, command: str) -> None:
    facts = run(tmp_path, [user("Retry the uploads with backoff"), *_commit("c1", command)])
    assert facts.goal == "Retry the uploads with backoff — committed: Add jittered retries"


def _todos(tool_id: str, *items: tuple[str, str]) -> list[dict[str, Any]]:
    todos = [{"content": text, "status": status, "activeForm": text} for text, status in items]
    return [call(tool_id, "TodoWrite", todos=todos), result(tool_id)]


@pytest.mark.parametrize(
    ("closing", "open_"),
    [
        ("Done: added the CSV export endpoint and wrote a test for the CSV export.", False),
        ("Added the CSV export endpoint. The test for the CSV export is not written yet.", True),
        ("Added the CSV export endpoint and a retry on timeouts.", True),
    ],
)
def test_a_task_the_closing_text_reports_done_is_done_ticked_or_not(
    tmp_path: Path, closing: str, open_: bool
) -> None:
    """The task list's last item is often left in progress when the closing text says it is
    done: a task reported done after the list last changed is not pending."""
    export, test = "Add the CSV export endpoint", "Write a test for the CSV export"
    records = [
        user("Add a CSV export and a test for it"),
        *_todos("a", (export, "in_progress"), (test, "pending")),
        *_edit("e1", "export.py"),
        *_todos("b", (export, "completed"), (test, "in_progress")),
        *_edit("e2", "test_export.py"),
        say(closing),
    ]
    facts = run(tmp_path, records)
    assert [t.text for t in facts.pending_tasks] == ([test] if open_ else [])
    assert (("task-list", test) in [(c.rule, c.text) for c in facts.candidates]) == open_


def test_a_report_before_the_list_last_changed_settles_no_task(tmp_path: Path) -> None:
    """The list is the later word: a task it still holds after the report is pending."""
    test = "Write a test for the CSV export"
    records = [
        user("Add a CSV export and a test for it"),
        say("Wrote a test for the CSV export."),
        *_todos("a", (test, "in_progress")),
        say("Working on it."),
    ]
    assert [t.text for t in run(tmp_path, records).pending_tasks] == [test]


def _goal_status(**fields: Any) -> dict[str, Any]:
    return {"isSidechain": False, "sessionId": "s1", "cwd": APP, "type": "attachment",
            "attachment": {"type": "goal_status", **fields}, "timestamp": _ts()}  # fmt: skip


def test_the_goal_claude_code_checks_before_stopping(tmp_path: Path) -> None:
    """`/goal <condition>` (Claude Code 2.1.3xx; the shapes the pinned 2.1.328 wrote): a
    `goal_status` attachment when set (`sentinel`), after each check of its Stop hook (`met`,
    `reason`), and when cleared (a `sentinel` marked met). Not met when the session ends: the
    work in hand, with the hook's reason."""
    condition = "make the upload retries jittered"
    command = user(
        "<command-name>/goal</command-name>\n            <command-message>goal"
        f"</command-message>\n            <command-args>{condition}</command-args>"
    )
    start = [
        _goal_status(met=False, sentinel=True, condition=condition),
        command,
        user(f'A session-scoped Stop hook is now active with condition: "{condition}". '
             "Briefly acknowledge the goal, then immediately start…", isMeta=True),
        say("I'll add jitter to the retries."),
        _goal_status(met=False, condition=condition, reason="the retries have no jitter yet"),
        say("Added jitter to the backoff."),
        _goal_status(met=False, condition=condition, reason="no test shows the jitter"),
    ]  # fmt: skip
    facts = run(tmp_path, start)
    assert facts.goal == f"{condition} (/goal)"
    (goal,) = [c for c in facts.candidates if c.rule == "goal"]
    assert (goal.type, goal.text, goal.line) == (UNFINISHED, condition, 1)
    assert goal.why == "its /goal, not met yet: no test shows the jitter"
    # Met, or cleared by the user: nothing open. Judged impossible: blocked, and why.
    met = _goal_status(met=True, condition=condition, reason="jitter is in", iterations=2)
    cleared = _goal_status(met=True, sentinel=True, condition=condition)
    for end in (met, cleared):
        assert not [c for c in run(tmp_path, [*start, end]).candidates if c.rule == "goal"]
    failed = _goal_status(met=False, failed=True, condition=condition, reason="no network")
    assert [c.why for c in run(tmp_path, [*start, failed]).candidates if c.rule == "goal"] == [
        "its /goal, blocked: no network"
    ]

    # As Claude Code writes it — compact; a sentinel's envelope "type" before the attachment,
    # a check's after it — the fast path reads the same.
    def compact(records: list[dict[str, Any]]) -> sweep.TranscriptFacts:
        lines = []
        for r in records:
            if r.get("type") == "attachment" and not r["attachment"].get("sentinel"):
                r = {
                    "attachment": r["attachment"],
                    **{k: v for k, v in r.items() if k != "attachment"},
                }
            lines.append(r)
        return analyze(write_lines(tmp_path / "compact.jsonl", lines))

    assert [c.why for c in compact(start).candidates if c.rule == "goal"] == [
        "its /goal, not met yet: no test shows the jitter"
    ]
    assert not [c for c in compact([*start, cleared]).candidates if c.rule == "goal"]


def test_a_reply_of_a_few_words_to_a_question_goes_on_with_the_request(tmp_path: Path) -> None:
    """The session stops in the work after the user answered the assistant's question
    ("segmented control, like ios settings"): the work in hand is the request the question
    was about, so it leads."""
    records = [
        user("Add a dark mode toggle to the settings screen"),
        *_edit("t1", "theme.ts"),
        say("The store is in. Do you want a segmented control or a plain switch?"),
        user("segmented control, like ios settings"),
        *_edit("t2", "settings.tsx"),
        say("Added the control. Now let me switch the other screens over to useTheme()."),
    ]
    facts = run(tmp_path, records)
    assert [c.text for c in facts.candidates] == [
        "Add a dark mode toggle to the settings screen — segmented control, like ios settings"
        " — then: Now let me switch the other screens over to useTheme()."
    ]
    # A longer message is a request of its own, and so is one that asks for work itself.
    for own in (
        "segmented control please, and also move the settings gear into the top bar",
        "can we do a full export first",
        "let's fix the flaky snapshot test first",
        "please bump the version to 1.4 before that",
    ):
        records[4] = user(own)
        facts = run(tmp_path, records)
        assert [c.text.split(" — then: ")[0] for c in facts.candidates] == [own]


_NEXT_STEPS = (
    "Found it: the merge is an outer join on email.\n\nNext steps:\n"
    "1. normalise the emails in both loaders\n2. add a regression test for mixed case\n"
)


@pytest.mark.parametrize(
    ("reply", "closing", "settled"),
    [
        ("do all 3", "Done. Both loaders normalise emails now; 9 tests pass.", True),
        ("ok go ahead with both", "Done: the loaders and the regression test.", True),
        ("yes, all of them please", "Done.", True),
        ("yeah the drawer crashes too, sentry has it, fix all 3", "Done.", True),
        ("do 1 and 2", "Done.", True),  # …or picks each by number
        ("yes to 1+2", "Done.", True),
        # the work did not finish, or failed
        ("do all 3", "The loaders are updated but the regression test is still failing.", False),
        ("do 1 and 2", "Both are in, but the regression test is still failing.", False),
        ("thanks, looks right", "Done.", False),
    ],
)
def test_a_list_the_user_took_up_whole_is_settled_by_the_work_after_it(
    tmp_path: Path, reply: str, closing: str, settled: bool
) -> None:
    """ "Next steps: 1. … 2. …" then "do all 3": the turn that follows changed files and
    finished, so the items were its work — unless its closing reports a failure."""
    records = [user("Why does the ETL duplicate customers?"), say(_NEXT_STEPS), user(reply),
               *_edit("t1", "customers.py"), say(closing)]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    listed = ["normalise the emails in both loaders", "add a regression test for mixed case"]
    assert (not set(listed) & set(texts)) is settled, texts


@pytest.mark.parametrize(
    ("reply", "settled"),
    [
        ("do 1", ["normalise the emails in both loaders"]),
        ("let's do 2. the loaders can wait", ["add a regression test for mixed case"]),
        (
            "ok, 1 and 2 please",
            ["normalise the emails in both loaders", "add a regression test for mixed case"],
        ),  # fmt: skip
        # a number that is not a pick, nor an item of the list
        ("3 tests fail on main, look at that first", []),
        ("do 5", []),
        ("it took 1 hour", []),
    ],
)
def test_the_items_the_user_took_up_by_number_are_settled_by_the_work(
    tmp_path: Path, reply: str, settled: list[str]
) -> None:
    """ "do 1" takes up the item numbered 1 of the list it answers: the work after it
    settles that item, and the others stay open."""
    records = [user("Why does the ETL duplicate customers?"), say(_NEXT_STEPS), user(reply),
               *_edit("t1", "customers.py"), say("Done.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    listed = ["normalise the emails in both loaders", "add a regression test for mixed case"]
    assert [t for t in listed if t not in texts] == settled, texts


def test_a_path_spelled_whole_in_the_work_done_settles_the_item_naming_it(
    tmp_path: Path,
) -> None:
    """ "Write the output to `data/customers_dedup.csv`" is done by "Done — wrote
    `data/customers_dedup.csv` (17,961 rows).": the path in backticks names its parts, and
    "wrote" is "write"."""
    listed = (
        "Added the script.\n\nNext steps\n1. Write the output to `data/customers_dedup.csv`\n"
        "2. Spot-check a few of the merged emails\n\nWant me to run it for real?"
    )
    records = [user("write a script that dedupes customers.csv by email"), say(listed),
               user("yes go ahead"), call("t1", "Bash", command="python dedupe.py -o out.csv"),
               result("t1"), say("Done — wrote `data/customers_dedup.csv` (17,961 rows)."),
               user("great")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert texts == ["Spot-check a few of the merged emails"], texts


@pytest.mark.parametrize(
    ("closing", "rows"),
    [
        ("Committed. Virtualization is parked, as agreed — the trade-offs above still hold.", 1),
        ("Committed. Virtualization stays for later, as you said.", 1),
        # not said back: another loose end, and the user's stays beside it
        ("Committed. If you want to lean in further later, the print path has room.", 2),
    ],
)
def test_the_users_put_off_said_back_by_the_reply_is_one_row(
    tmp_path: Path, closing: str, rows: int
) -> None:
    """ "yeah agreed, not now", then "Virtualization is parked, as agreed": the reply names
    what the user put off, and its row stands for both."""
    records = [user("the invoice table lags, could we virtualize it?"),
               say("We could, but it's a bigger change, so I'd do it as its own PR."),
               user("yeah agreed, not now. commit what we have"),
               call("t1", "Bash", command="git commit -am perf"), result("t1"),
               say(closing)]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert len(texts) == rows, texts
    assert (rows == 2) is ("yeah agreed, not now" in texts), texts


def test_a_number_two_lists_share_picks_nothing(tmp_path: Path) -> None:
    """ "do 1" after a text with two numbered lists: which item 1, it does not say."""
    two = _NEXT_STEPS + "\nStill open from before:\n1. the Windows paths\n2. the retry jitter\n"
    records = [user("Why does the ETL duplicate customers?"), say(two), user("do 1"),
               *_edit("t1", "customers.py"), say("Done.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert "normalise the emails in both loaders" in texts, texts
    assert "the Windows paths" in texts, texts


@pytest.mark.parametrize(
    ("reply", "edits", "closing", "settled"),
    [
        ("great. go on", True, "**CSV export**\n\nStreams now; 60 passed.", True),
        ("ok go ahead", True, "The export streams its rows now.", True),
        ("continue", True, "Streams now.", True),
        # no work after it, work that failed, or a reply that is not a bare go-ahead
        ("great. go on", False, "Looked at it: the export is fine.", False),
        ("go on", True, "The export is still timing out at 5k rows.", False),
        ("great. but first the admin filters", True, "Added the filters.", False),
    ],
)
def test_the_step_the_reply_said_it_takes_next_is_settled_by_the_work_a_go_ahead_starts(
    tmp_path: Path, reply: str, edits: bool, closing: str, settled: bool
) -> None:
    """ "Next I'll look at the CSV export." answered "great. go on": the turn of work after
    the go-ahead is that step, though its closing never says "done" of it."""
    said = "Fixed the admin page: 9 queries now.\n\nNext I'll look at the CSV export."
    work = _edit("t1", "billing/exports.py") if edits else []
    records = [user("admin is slow and the csv export times out"), say(said), user(reply),
               *work, say(closing)]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert ("Next I'll look at the CSV export." not in texts) is settled, texts


def test_a_list_taken_up_is_not_settled_by_a_turn_that_changed_nothing(tmp_path: Path) -> None:
    records = [user("Why does the ETL duplicate customers?"), say(_NEXT_STEPS),
               user("do all 3"), say("Done.")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert "normalise the emails in both loaders" in texts
    # …nor by one whose every write was rejected or failed (an error, which is always read).
    rejected = "The user doesn't want to proceed with this tool use. The tool use was rejected."
    for tried in (
        [call("t1", "Edit", file_path=f"{APP}/customers.py"), result("t1", rejected, error=True)],
        [call("t1", "Write", file_path=f"{APP}/customers.py"),
         result("t1", "File has not been read yet. Read it first.", error=True)],
    ):  # fmt: skip
        records[3:] = [*tried, say("Done.")]
        texts = [c.text for c in run(tmp_path, records).candidates]
        assert "normalise the emails in both loaders" in texts, tried
    # A write that succeeded counts, though the reader skips its result unparsed (as it does
    # every result nobody waits for, in the compact lines Claude Code writes).
    records[3:] = [call("t1", "Write", file_path=f"{APP}/customers.py"), result("t1"),
                   say("Done.")]  # fmt: skip
    assert "normalise the emails in both loaders" not in [
        c.text for c in run(tmp_path, records).candidates
    ]


@pytest.mark.parametrize("applied", [True, False])
def test_a_codex_list_taken_up_is_settled_by_a_patch_that_applied(
    tmp_path: Path, applied: bool
) -> None:
    """Codex says whether a patch applied: one sent through code mode's `exec`, which no
    writing call announces, is work done too; one that failed is none."""

    def line(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": _ts(), "type": kind, "payload": payload})

    def said(role: str, text: str) -> str:
        kind = "input_text" if role == "user" else "output_text"
        return line("response_item", {"type": "message", "role": role,
                                      "content": [{"type": kind, "text": text}]})  # fmt: skip

    records = [
        line("session_meta", {"id": "t-1", "cwd": APP, "originator": "codex_cli_rs"}),
        said("user", "Why does the ETL duplicate customers?"), said("assistant", _NEXT_STEPS),
        said("user", "do all 3"),
        line("response_item", {"type": "custom_tool_call", "name": "exec", "call_id": "x1",
                               "input": "await tools.apply_patch('…')"}),
        line("event_msg", {"type": "patch_apply_end", "call_id": "exec-x1", "success": applied,
                           "changes": {f"{APP}/customers.py": {"type": "update"}}}),
        line("response_item", {"type": "custom_tool_call_output", "call_id": "x1",
                               "output": "Script completed"}),
        said("assistant", "Done."),
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    texts = [c.text for c in analyze(path).candidates]
    assert ("normalise the emails in both loaders" not in texts) is applied, texts


@pytest.mark.parametrize(
    ("said", "open_"),
    [
        ("Left the existing `# TODO: switch to multipart` comment where it was.", False),
        ("That also takes care of the `// TODO: remove after 3.0` in config.ts.", False),
        ("I added a `// TODO: handle CRLF` in parser.ts for the Windows case.", True),
        ("TODO: handle CRLF line endings in the parser.", True),
        ("`--dry-run` exits 2 when there are pending changes, 0 when in sync.", False),
        ("Two migrations are pending on staging.", True),
        ("The merge commits would go away with `--no-merges` if you want that.", True),
        ("Swapping walkdir for the ignore crate might be worth a separate change.", True),
        ("Let me know if you want any of the wording tweaked.", False),
    ],
)
def test_a_closing_sentence_is_open_or_not(tmp_path: Path, said: str, open_: bool) -> None:
    """A TODO quoted from the code is no deferral, unless the assistant left it; a state
    under a condition ("when there are pending changes") is what the code does."""
    facts = run(tmp_path, [user("Fix the export"), *_edit("t1", "export.py"),
                           say(f"Fixed the export. {said}")])  # fmt: skip
    assert [c.text for c in facts.candidates] == ([said] if open_ else [])


def test_the_users_idea_for_some_point_is_open(tmp_path: Path) -> None:
    idea = "also we could swap chalk for picocolors at some point, chalk 5 is esm only"
    records = [user(f"group the notes by commit type. {idea}"), *_edit("t1", "render.js"),
               say("Grouped the notes by type.")]  # fmt: skip
    shown = "also we could swap chalk for picocolors at some point"  # the clause that defers
    assert [c.text for c in run(tmp_path, records).candidates] == [shown]


@pytest.mark.parametrize(
    ("request_", "reply", "unfinished"),
    [
        # a question typed without its question mark, answered with steps that end by
        # asking the user for a run's output: the ask is open, the question answered
        ("how do i roll this out without a bad deploy", "1. Apply the alerts first.\n"
         "2. Apply the deployment.\n\nApply it and send me `kubectl top pod` after an hour.",
         False),
        # a text asked for is the reply, whatever it offers after
        ("nice. write a short summary for the PR description", "**Retries with jitter** — "
         "uploads retry 5 times.\n\nWant me to also emit a metric for retry counts?", False),
        # …but not one asked into a file, which nothing wrote: it waits on the question
        ("write a summary of the changes to docs/summary.md", "Here it is.\n\nShould I "
         "link it from the README?", True),
        ("how about adding a retry to the uploader", "Sure — which errors should it retry?",
         True),
    ],
)  # fmt: skip
def test_a_question_or_a_text_asked_for_is_answered_by_the_reply(
    tmp_path: Path, request_: str, reply: str, unfinished: bool
) -> None:
    facts = run(tmp_path, [user(request_), say(reply)])
    assert (facts.unfinished is not None) is unfinished
    if "send me" in reply:
        assert [c.rule for c in facts.candidates] == ["final-ask"]


def test_a_reply_announcing_what_it_does_now_stopped_before_it(tmp_path: Path) -> None:
    closing = "Cold run: 11m 40s. I’m pushing an empty commit now to trigger a warm run."
    facts = run(tmp_path, [user("push it and see what the timings look like"), say(closing)])
    assert [c.text for c in facts.candidates] == [
        "push it and see what the timings look like — then: I'm pushing an empty commit now to "
        "trigger a warm run."
    ]


@pytest.mark.parametrize(
    ("closing", "then"),
    [
        # work it waits to do, once something else is done
        ("The base pass is at 340 of 2,000. When both passes are done I'll write up the table.",
         "When both passes are done I'll write up the table."),
        ("Started the build. Once it finishes, I will deploy it to staging.",
         "Once it finishes, I will deploy it to staging."),
        # a lead-in to what never came
        ("Redis looks fine. Running the load test again with pool stats to confirm:",
         "Running the load test again with pool stats to confirm:"),
        # waiting on the user is no work announced
        ("Started the build. Once you're ready, I'll deploy it.", None),
        ("Started the build. When you have a minute, I'll walk you through it.", None),
    ],
)  # fmt: skip
def test_a_reply_ending_on_work_it_waits_to_do_or_a_lead_in_stopped_there(
    tmp_path: Path, closing: str, then: str | None
) -> None:
    facts = run(tmp_path, [user("run the eval on the held-out split"), say(closing)])
    texts = [c.text for c in facts.candidates if c.rule == "unfinished"]
    want = [f"run the eval on the held-out split — then: {then}"] if then else []
    assert texts == want


def test_a_commit_asked_for_is_work_done_before_the_question_after_it(tmp_path: Path) -> None:
    """ "commit" → a commit, then "Want me to push too?": the commit is the work, so the
    question is the loose end, not the request."""
    records = [user("commit. one commit for both is fine"),
               call("c1", "Bash", command='git commit -am "refactor: migrate prefs"'),
               result("c1", "[main d41f07b] refactor: migrate prefs"),
               say("Committed as d41f07b. Want me to push it too?")]  # fmt: skip
    facts = run(tmp_path, records)
    assert facts.unfinished is None
    assert [c.rule for c in facts.candidates] == ["final-ask"]


@pytest.mark.parametrize(
    ("said", "taken_on"),
    [
        ("thanks. i'll send the release notes to the docs team", True),
        ("ill push and open the pr myself", True),
        ("ok, i'll kick off the benchmark run on the cluster tonight", True),
        ("manifests are in the infra repo, ill bump the grace period there to 60", True),
        ("i'll be back in 10 min", False),
        ("i'll change my mind if the numbers say so", False),
        ("i'll test it and let you know", False),
        (
            "sorry to interrupt. Ill tell you what I have observed. renaming the dir breaks it",
            False,
        ),
        ("i'll send you the full log in a sec", False),
    ],
)
def test_a_step_the_user_takes_on_is_theirs_to_do(
    tmp_path: Path, said: str, taken_on: bool
) -> None:
    records = [user("Fix the export"), *_edit("t1", "export.py"), say("Fixed the export."),
               user(said), say("Sounds good.")]  # fmt: skip
    found = [c.text for c in run(tmp_path, records).candidates if c.rule == "user-deferral"]
    assert bool(found) is taken_on, found


def test_a_step_the_user_takes_on_that_the_reply_left_open_is_listed_once(
    tmp_path: Path,
) -> None:
    """ "ok I'll ping Dana for approval" after "… needs approval from someone on the
    platform team": one loose end, listed where the reply left it."""
    left = "Planned. The run needs approval from someone on the platform team before it applies."
    records = [user("Bump the staging RDS instance"), *_edit("t1", "rds.tf"), say(left),
               user("ok I'll ping Dana for approval. ty")]  # fmt: skip
    assert [c.rule for c in run(tmp_path, records).candidates] == ["caveat"]
    # …a step the reply did not name is the user's own
    records[-1] = user("ok I'll send the release notes to the docs team. ty")
    rules = [c.rule for c in run(tmp_path, records).candidates]
    assert rules == ["caveat", "user-deferral"], rules


def test_the_reply_before_the_users_unanswered_last_words_is_read_as_the_last(
    tmp_path: Path,
) -> None:
    """The session ends on the user's message: the reply before it is the last word on the
    work, so what it lists as left on one line is open."""
    records = [user("Clear the Sendable warnings"), *_edit("t1", "Feed.swift"),
               say("Done with the feed.\n\nRemaining: the Analytics module (9) and misc (7)."),
               user("the previews for the feed crash now")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert "the Analytics module (9) and misc (7)." in texts


_OFFERED = (
    "90% of the time is in `resolve_category()`, one query per row. "
    "Want me to batch the category lookups?"
)


@pytest.mark.parametrize(
    ("last", "shown"),
    [
        # a few words: shown after what they put off
        ("not now, thanks", "Want me to batch the category lookups? — not now, thanks"),
        ("maybe later", "Want me to batch the category lookups? — maybe later"),
        # a sentence of its own: shown as typed
        ("not today, I need to think about whether categories should be cached instead",
         "not today, I need to think about whether categories should be cached instead"),
    ],
)  # fmt: skip
def test_an_offer_the_last_words_put_off_is_left_open_as_put_off(
    tmp_path: Path, last: str, shown: str
) -> None:
    """The profile was done and its reply offered more: "not now" leaves the offer put
    off — not the request it answered unfinished, and not lost."""
    records = [user("profile the import job, it takes 40 minutes"), say(_OFFERED), user(last)]
    facts = run(tmp_path, records)
    assert facts.unfinished is None
    assert [(c.type, c.text) for c in facts.candidates] == [("Deferred exploration", shown)]


@pytest.mark.parametrize("typed", ["thats", "that's"])
def test_a_deferral_typed_without_its_apostrophe_is_shown_with_what_it_puts_off(
    tmp_path: Path, typed: str
) -> None:
    """ "but thats for later" names nothing — "thats" is "that's" — so it is shown with what
    its sentence said before it, not alone."""
    said = f"also the export button is broken on safari but {typed} for later"
    records = [user(f"fix the csv export header. {said}"), *_edit("t1", "export.py"),
               say("Fixed the header row."), user("thx")]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert texts == [said], texts


def test_an_offer_put_off_and_then_a_question_is_one_row_and_the_question_waits(
    tmp_path: Path,
) -> None:
    """In "not now, thanks. do the tests pass?" the decline answers the offer — one row, the
    offer put off, not the offer "moved on" past and a bare "not now, thanks" beside it —
    and the question after it, which nothing answered, is the open request."""
    records = [user("profile the import job, it takes 40 minutes"), say(_OFFERED),
               user("not now, thanks. do the tests pass?")]  # fmt: skip
    facts = run(tmp_path, records)
    put_off = [(c.type, c.text) for c in facts.candidates if c.type == "Deferred exploration"]
    assert put_off == [("Deferred exploration",
                        "Want me to batch the category lookups? — not now, thanks")]  # fmt: skip
    assert not [c for c in facts.candidates if c.type == "Unanswered question"]
    assert facts.unfinished is not None
    assert facts.unfinished.text.endswith("not now, thanks. do the tests pass?")


def test_an_offer_put_off_in_a_few_words_lands_when_the_work_is_done(tmp_path: Path) -> None:
    records = [user("profile the import job, it takes 40 minutes"), say(_OFFERED),
               user("maybe later"), say("Sure."),
               user("ok now batch the category lookups"), *_edit("t1", "import.py"),
               say("Batched the category lookups: one query per 1000 rows.")]  # fmt: skip
    assert run(tmp_path, records).candidates == []


def test_a_request_for_input_put_off_still_waits(tmp_path: Path) -> None:
    """What the reply asked for to do the work ("Can you grab the failing output?") is not
    an offer declined: the request waits on it."""
    asked = say("I couldn't reproduce it in 50 runs. Can you grab the failing output?")
    facts = run(tmp_path, [user("fix the flaky discount test"), asked, user("not now, thanks")])
    assert facts.unfinished is not None
    assert facts.unfinished.text.startswith("fix the flaky discount test")


@pytest.mark.parametrize(
    ("closing", "left"),
    [
        ("The client calls /v3 now. I'll leave the README's API section to you, since it "
         "documents the old auth flow you wanted to rewrite.",
         "I'll leave the README's API section to you, since it documents the old auth flow "
         "you wanted to rewrite."),
        ("Done. Leaving the production rollout to you.", "Leaving the production rollout to you."),
        # …not leaving the user with something, nor work handed on to another
        ("Done. Leaving you with a green build on main.", None),
        ("Done. I'll leave the old endpoint in place until the clients move.", None),
    ],
)  # fmt: skip
def test_work_the_closing_reply_leaves_to_the_user_is_open(
    tmp_path: Path, closing: str, left: str | None
) -> None:
    records = [user("bump the api to v3 in the client"), *_edit("t1", "client/api.ts"),
               say(closing)]  # fmt: skip
    texts = [c.text for c in run(tmp_path, records).candidates]
    assert texts == ([left] if left else [])


@pytest.mark.parametrize(
    ("last", "put_off"),
    [
        ("good, let's stop here for today. tomorrow we add the xlsx variant",
         "tomorrow we add the xlsx variant"),
        ("great. remind me to drop the old composite index once this is in prod",
         "remind me to drop the old composite index once this is in prod"),
        # …but work asked for now is a request
        ("good. tomorrow we add the xlsx variant, but first fix the header row", None),
    ],
)  # fmt: skip
def test_last_words_that_only_put_work_off_are_listed_once_as_put_off(
    tmp_path: Path, last: str, put_off: str | None
) -> None:
    said = say("Added `GET /export.csv`, streaming rows in batches of 1000.")
    records = [user("add the csv export endpoint"), *_edit("t1", "api/export.py"), said, user(last)]
    facts = run(tmp_path, records)
    if put_off is None:
        assert facts.unfinished is not None and facts.unfinished.text == last
        return
    assert facts.unfinished is None
    assert [(c.type, c.text) for c in facts.candidates] == [("Deferred exploration", put_off)]


def test_work_a_closing_reply_calls_worth_doing_separately_is_open(tmp_path: Path) -> None:
    said = (
        "One thing I noticed: `week_start()` has the same off-by-one bug — worth fixing separately."
    )
    records = [user("fix the off-by-one in month_start()"), *_edit("t1", "utils/date.py"),
               say(f"Fixed: `month_start()` used a 0-based day. {said}")]  # fmt: skip
    assert [c.text for c in run(tmp_path, records).candidates] == [said]


@pytest.mark.parametrize(
    "asking",
    ["To confirm which invoice you saw, send me its id.", "Which invoice was it?",
     "Try it again with the cache cleared."],
)  # fmt: skip
def test_a_few_words_after_a_reply_that_asked_for_them_go_on_with_the_request(
    tmp_path: Path, asking: str
) -> None:
    """ "INV-2231" names nothing of the request before it, but the reply before asked for
    it: it goes on with that request, and is shown after it."""
    said = say(f"Totals are rounded per line, then summed. {asking}")
    records = [user("why is the invoice total off by a cent"), said, user("INV-2231")]
    facts = run(tmp_path, records)
    assert facts.unfinished is not None
    text = facts.unfinished.text
    assert text.startswith("why is the invoice total off by a cent — "), text
    assert text.endswith("INV-2231"), text


@pytest.mark.parametrize(
    ("closing", "open_"),
    [
        ("Opened PR #123. CI is running; I'll check back when it finishes.",
         "CI is running; I'll check back when it finishes."),
        ("Pushed; it needs another approval from @maria before it can merge.",
         "Pushed; it needs another approval from @maria before it can merge."),
        ("Deployed to staging. Production needs a sign-off from marketing first.",
         "Production needs a sign-off from marketing first."),
        # …not what was looked at, nor an approval not needed
        ("Pushed. I checked the logs; no approval is needed for this repo.", None),
        # the work it meant to do next, and never did
        ("Fixed `session.py`. The `reports` and `digest` jobs still use the old token — "
         "I'll do those next.",
         "The `reports` and `digest` jobs still use the old token — I'll do those next."),
        ("Fixed `session.py`. The refresh logic is still in the view; next, we'll move it "
         "into the client.",
         "The refresh logic is still in the view; next, we'll move it into the client."),
        # what it waits on to go on: the wait named, not a pointer back at the sentence before
        ("Stubbed the handlers. Once #42 is merged I can rebase this and fill them in.",
         "Once #42 is merged I can rebase this and fill them in."),
        ("Fixed `session.py`. You'll need to rotate the token on the runner. Once that's in, "
         "I can deploy the fix.",
         "You'll need to rotate the token on the runner."),
    ],
)  # fmt: skip
def test_what_a_closing_reply_waits_on_is_open(
    tmp_path: Path, closing: str, open_: str | None
) -> None:
    records = [user("address the review comments on the auth PR"),
               *_edit("t1", "auth/session.py"), say(closing)]  # fmt: skip
    assert [c.text for c in run(tmp_path, records).candidates] == ([open_] if open_ else [])


def test_where_it_stopped_quotes_the_last_paragraphs_that_fit(tmp_path: Path) -> None:
    """What the closing text says before its last paragraph is as much where the work
    stopped: whole paragraphs from the end, as many as fit in 400 characters — never the last
    one cut for an earlier one."""
    story = "Background: " + "the parser walks every row of the sheet, " * 12
    ending = [
        "Fixed the parser for empty rows.",
        "The Windows build was not tried: there is no runner here.",
        "Want me to open the PR?",
    ]
    facts = run(tmp_path, [user("fix the parser"), say("\n\n".join([story, *ending]))])
    assert facts.last_reply == " … ".join(ending)
    long = "The last paragraph says a lot " + "about the parser and its rows " * 20
    facts = run(tmp_path, [user("fix the parser"), say(f"Short one first.\n\n{long}")])
    assert facts.last_reply is not None and facts.last_reply.startswith("The last paragraph")
    assert facts.last_reply.endswith("…") and len(facts.last_reply) <= 400


def test_what_our_own_command_relays_is_not_the_sessions(tmp_path: Path) -> None:
    """`/session recall` in Claude Code: the model relays the handover — its Outstanding,
    what it Verified. None of it is a loose end of this session, and "Migrated the /payout
    endpoint" there settles nothing the session left open."""
    left = "The /payout endpoint is left for next time: it needs the ledger client."
    relayed = (
        "Recalled.\n\n## Outstanding\n- Write the failing test for an expired token "
        "(Unfinished task)\n\n## Verified\n- Migrated the /payout endpoint to v2\n"
    )
    recall = _command("session", "recall", "Run session-skill dispatch.")
    records = [user("Migrate the /refund and /payout endpoints to v2"),
               say(f"Migrated /refund to v2. {left}"), *recall, say(relayed)]  # fmt: skip
    assert [c.text for c in run(tmp_path, records).candidates] == [left]

"""The goal a person would state, and the last request left unfinished (issue 16)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_skill.transcripts.candidates import UNFINISHED
from session_skill.transcripts.scan import analyze

FIXTURES = Path(__file__).parent.parent / "fixtures" / "transcripts"


def test_a_slash_command_with_arguments_asks_for_them() -> None:
    facts = analyze(FIXTURES / "claude_command_goal.jsonl")
    assert facts.goal == "the retry branch, focus on the backoff (/review-pr)"
    assert facts.first_user_request == "cap it and run the tests"  # the first one typed


def test_init_with_no_arguments_asks_for_what_it_does() -> None:
    facts = analyze(FIXTURES / "claude_init_goal.jsonl")
    assert facts.goal == (
        "Please analyze this codebase and create a CLAUDE.md file, which will be given to "
        "future instances of Claude Code to operate in this repository. (/init) "
        "Then: Now add a make target that runs the linters"
    )
    assert facts.unfinished is None  # every turn ended on a closing text


def test_a_lone_file_mention_is_completed_by_the_restatement() -> None:
    facts = analyze(FIXTURES / "claude_mention_goal.jsonl")
    assert facts.goal == (
        "@docs/billing-migration.md ultrathink this — I'll help you with the migration of "
        "the billing service to the new ledger."
    )


_PASTE = (
    "$ kubectl -n jobs get pods -l app=report-worker\n"
    "NAME                             READY   STATUS             RESTARTS   AGE\n"
    "report-worker-7c9d8f6b5d-2xkqp   0/1     CrashLoopBackOff   14         48m\n"
)


def test_a_paste_alone_is_completed_by_what_the_reply_says_it_shows(tmp_path: Path) -> None:
    """A session opened on pasted output, nothing typed, then only "yes. staging first":
    the Goal is the paste's first line and the reply's first sentence, which names it."""
    reply = (
        "The workers are being OOM-killed at the container limit, not crashing on their "
        "own.\n\nWant me to raise the limit in the chart?"
    )
    records = [_user(_PASTE), _call("t1", 1), _say(reply, 2), _user("yes. staging first"),
               _call("t2", 3), _say("Rolled out to staging.", 4)]  # fmt: skip
    facts = analyze(_write(tmp_path / "t.jsonl", records))
    assert facts.goal == (
        "$ kubectl -n jobs get pods -l app=report-worker […] — The workers are being "
        "OOM-killed at the container limit, not crashing on their own."
    )
    assert not facts.goal_guessed
    # A request that names the work is still the Goal; words typed with it are not a paste.
    records[3] = _user("make the workers stop getting killed, staging first")
    assert analyze(_write(tmp_path / "t.jsonl", records)).goal == records[3]["message"]["content"]
    records[0] = _user("the report workers keep crashing:\n\n" + _PASTE)
    records[3] = _user("yes. staging first")
    assert analyze(_write(tmp_path / "t.jsonl", records)).goal.startswith(
        "the report workers keep crashing"
    )


@pytest.mark.parametrize(
    ("last", "asks"),
    [
        ("tested on pixel 6, prompt appear and push is arriving now!! thank you very much", False),
        ("deployed, no restarts for 20 min. 👍", False),
        ("danke!", False),
        ("спасибо", False),
        # thanks in other languages, after their own punctuation ("，", "！")
        ("läuft, danke dir", False),
        ("完美，谢谢！", False),
        ("直りました！ありがとうございます", False),
        ("спс, всё работает", False),
        ("valeu!", False),
        ("고마워요", False),
        ("muchas gracias", False),
        ("thank you, it reads very natural", False),
        ("ok thanks. the numbers match the dashboard now", False),
        # a request, a question or a failure, with thanks after it
        ("write the changelog entry too, thanks", True),
        ("thanks, can you also add a test", True),
        ("now bump the version, thanks", True),
        ("thanks, but it still fails on CI", True),
        ("thanks, the page is still slow on big accounts", True),
        ("thanks, can you also add the example as a test", True),
        ("still failing on CI, thanks", True),
    ],
)
def test_last_words_that_report_how_it_went_and_thank_ask_nothing(
    tmp_path: Path, last: str, asks: bool
) -> None:
    records = [_user("fix the push permission on android 13"), _call("t1", 1),
               _say("Added the runtime permission request.", 2), _user(last)]  # fmt: skip
    facts = analyze(_write(tmp_path / "t.jsonl", records))
    assert (facts.unfinished is not None) is asks, facts.unfinished


def test_the_sessions_own_command_is_never_the_goal() -> None:
    facts = analyze(FIXTURES / "claude_session_command.jsonl")
    assert facts.goal == "Why does the login test fail on CI but not locally?"
    # Its own turn (the Bash call running the sweep) is not the user's unfinished work.
    assert facts.unfinished is None


def test_a_tool_call_with_no_result_leaves_the_request_unfinished() -> None:
    facts = analyze(FIXTURES / "claude_command_goal.jsonl")
    assert facts.unfinished is not None
    assert (facts.unfinished.text, facts.unfinished.why) == (
        "cap it and run the tests",
        "the transcript ends in the middle of the work on it",
    )
    assert facts.candidates[0].type == UNFINISHED
    assert facts.candidates[0].text == "cap it and run the tests"


def test_an_interrupted_request_is_unfinished() -> None:
    facts = analyze(FIXTURES / "claude_mention_goal.jsonl")
    assert facts.unfinished is not None
    assert (facts.unfinished.text, facts.unfinished.why) == (
        "start with the dual writes",
        "the user interrupted it",
    )


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    base = {"isSidechain": False, "sessionId": "s1", "cwd": "/app"}
    lines = [json.dumps({**base, **r, "timestamp": f"2026-11-29T10:00:{n:02d}.000Z"})
             for n, r in enumerate(records)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _user(text: str) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def _say(text: str, n: int) -> dict[str, Any]:
    message = {"id": f"m{n}", "role": "assistant", "content": [{"type": "text", "text": text}]}
    return {"type": "assistant", "message": message}


def _call(tool_id: str, n: int) -> dict[str, Any]:
    block = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}
    return {
        "type": "assistant",
        "message": {"id": f"m{n}", "role": "assistant", "content": [block]},
    }


@pytest.mark.parametrize(
    ("records", "unfinished"),
    [
        # a closing text: done
        ([_user("rename the flag"), _call("t1", 1), _say("Renamed.", 2)], None),
        # the transcript stops after the call
        ([_user("rename the flag"), _call("t1", 1)], "rename the flag"),
        # a thank-you closes the request; a new one replaces it
        ([_user("rename the flag"), _call("t1", 1), _user("thanks!")], None),
        ([_user("rename the flag"), _call("t1", 1), _user("now the docs"), _call("t2", 2)],
         "now the docs"),
        # "yes" to a question reads as the question's answer, after the request it was about
        ([_user("fix it"), _say("Fixed. Should I also add a test for it?", 1), _user("yes"),
          _call("t2", 2)], "fix it — Should I also add a test for it? — yes"),
        # the sweep's own command: the request before it is what counts
        ([_user("rename the flag"), _say("Renamed.", 1),
          _user("<command-name>/session</command-name>\n<command-args>sweep</command-args>"),
          _call("t9", 2)], None),
    ],
)  # fmt: skip
def test_the_last_request(
    tmp_path: Path, records: list[dict[str, Any]], unfinished: str | None
) -> None:
    facts = analyze(_write(tmp_path / "t.jsonl", records))
    assert (facts.unfinished.text if facts.unfinished else None) == unfinished


@pytest.mark.parametrize(
    "typed",
    [
        "ultrathink: design the retry policy for uploads",
        "ultrathink - design the retry policy for uploads",
        "design the retry policy for uploads. ultrathink",
        "Ultrathink design the retry policy for uploads",
    ],
)
def test_the_word_for_more_thinking_is_not_the_goal(tmp_path: Path, typed: str) -> None:
    """The word "ultrathink" says how hard to think, not what the work is; a word that only
    holds it ("ultrathinking") is the user's."""
    facts = analyze(_write(tmp_path / "t.jsonl", [_user(typed), _say("Designed.", 1)]))
    assert facts.goal is not None
    assert facts.goal.rstrip(".") == "design the retry policy for uploads"


def test_a_word_holding_ultrathink_stays(tmp_path: Path) -> None:
    typed = "ultrathinking about retries: design the policy"
    facts = analyze(_write(tmp_path / "t.jsonl", [_user(typed), _say("Designed.", 1)]))
    assert facts.goal == "ultrathinking about retries: design the policy"


def test_a_codex_session_typed_skill_is_not_the_goal(tmp_path: Path) -> None:
    def typed(text: str) -> dict[str, Any]:
        content = [{"type": "input_text", "text": text}]
        payload = {"type": "message", "role": "user", "content": content}
        return {"type": "response_item", "payload": payload}

    items = [
        {"type": "session_meta", "payload": {"id": "t1", "cwd": "/app"}},
        typed("$session recall"),
        typed("Make login() reject expired tokens"),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps({"timestamp": "t", **i}) + "\n" for i in items))
    assert analyze(path).goal == "Make login() reject expired tokens"


RELAYED = (
    "Recalled.\n\nHandover `main-2026-12-05T10-00-00Z`\n\n## Outstanding\n"
    "- Write the failing test for an expired token (Unfinished task)\n\n"
    "## Verified\n- Migrated the /payout endpoint to v2\n"
)


def test_the_turn_of_a_codex_typed_skill_is_not_the_sessions(tmp_path: Path) -> None:
    """`$session recall` typed in Codex (the reader makes it a command named `$session`): the
    reply relays our output — a handover's Outstanding, what it Verified — which is none of
    the session's loose ends, no work done, and no reply to the session's last request."""

    def typed(text: str, role: str = "user") -> dict[str, Any]:
        kind = "input_text" if role == "user" else "output_text"
        payload = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        return {"type": "response_item", "payload": payload}

    left = "The /payout endpoint is left for next time: it needs the ledger client."
    items = [
        {"type": "session_meta", "payload": {"id": "t1", "cwd": "/app"}},
        typed("Migrate the /refund and /payout endpoints to v2"),
        typed(f"Migrated /refund to v2. {left}", "assistant"),
        typed("$session recall"),
        typed(RELAYED, "assistant"),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps({"timestamp": "t", **i}) + "\n" for i in items))
    facts = analyze(path)
    assert [c.text for c in facts.candidates] == [left]
    assert facts.last_reply == f"Migrated /refund to v2. {left}"


# -- a plan's Goal: its title, and the sentence that says what it is about ------------------
def test_a_plan_is_named_by_its_title_and_the_first_sentence_of_its_overview() -> None:
    from session_skill.transcripts.turns import plan_title

    plan = (
        "# Implementation Plan\n\n## Overview\nEnhance the projects page with **richer data** and "
        "three view modes. It keeps the API.\n\n## Steps\n1. Add the cache.\n"
    )
    assert plan_title(plan) == (
        "Implementation Plan — Enhance the projects page with richer data and three view modes."
    )
    # Lists, tables and code are not what it is about; a bare title stays bare.
    assert plan_title("# Add retry backoff\n\n1. Wrap the call.\n- jitter\n| a | b |\n") == (
        "Add retry backoff"
    )
    assert plan_title("Fix the upload client timeouts\n\nsteps follow") == (
        "Fix the upload client timeouts"
    )
    assert plan_title("") == ""
    # Nor is a code block's line, nor a tree drawn with box-drawing lines (a plan of
    # findings that shows the layout it found before saying a sentence).
    tree = "├── projects/   # Session JSONL files (419MB, 764 sessions)"
    fenced = f"# Phase 0 Investigation\n\n## Storage\n```\n~/.claude/\n{tree}\n```\n"
    assert plan_title(fenced) == "Phase 0 Investigation"
    assert plan_title(fenced + "~~~\nsome code here too\n~~~\nWe map the store first.\n") == (
        "Phase 0 Investigation — We map the store first."
    )
    assert plan_title(f"# Layout\n\n{tree}\n") == "Layout"
    secret = "sk-ant-api03-" + "a" * 40
    assert secret not in plan_title(f"# Rotate keys\n\nReplace {secret} with the new one.")

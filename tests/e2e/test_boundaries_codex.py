"""End-to-end, issue 20 (phase 1): the session boundaries of the real Codex 0.171.0 TUI —
``/clear``, ``/compact`` and automatic compaction — under tmux against the scripted mock.

No session-skill here: a logging hook (``hook_log.py`` in the scratch
``$CODEX_HOME/hooks.json``, trusted at the "Hooks need review" prompt as a user would)
records which events fire, in which order, with which payload, and answers SessionStart with
a marker ``additionalContext``; the mock logs what the model is sent around each boundary.
BOUNDARIES.md holds the shapes in full. Phase 2: test_boundaries_session_skill_codex.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codex_harness import (
    CodexWorld,
    hook_context,
    rollout_records,
    rollouts_for_cwd,
    session_meta,
)
from codex_mock import COMPACT_NEEDLE, SUMMARY_MARKER, LoggedRequest, reply
from hook_log import HookLog, context, install

pytestmark = pytest.mark.e2e

START = "hooklog start-context"  # what SessionStart(startup|clear) injects
COMPACTED = "hooklog compact-context"  # what SessionStart(compact) injects
PRE_COMPACT_OUT = "hooklog pre-compact stdout: keep the backoff numbers"
SUMMARY_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process."
)
THREAD_FIELDS = ["cwd", "hook_event_name", "model", "permission_mode", "session_id", "source"]
COMPACT_FIELDS = ["cwd", "hook_event_name", "model", "session_id", "transcript_path", "trigger"]


@pytest.fixture
def world(bare_codex_world: CodexWorld) -> CodexWorld:
    return bare_codex_world


def logger(w: CodexWorld) -> HookLog:
    log = install(w)
    log.reply("SessionStart:startup", context("SessionStart", f"{START} {{source}} {{session_id}}"))
    log.reply("SessionStart:clear", context("SessionStart", f"{START} {{source}} {{session_id}}"))
    log.reply("SessionStart:compact", context("SessionStart", f"{COMPACTED} {{session_id}}"))
    log.reply("PreCompact", PRE_COMPACT_OUT)
    return log


def turn(t: Any, log: HookLog, prompt: str, answer: str) -> None:
    """Send ``prompt``; return once ``answer`` is on screen and the turn's Stop hook ran."""
    t.type(prompt)
    t.wait_screen(answer)
    log.wait("Stop", where=lambda p: p["last_assistant_message"] == answer)
    t.wait_ready()


def kept_messages(req: LoggedRequest) -> list[tuple[str, str]]:
    """(role, text) of the request's messages, the base instructions, skills list and
    environment left out."""
    out = []
    for item in req.input:
        if item.get("type") != "message":
            continue
        role = str(item.get("role"))
        text = "\n".join(c.get("text", "") for c in item.get("content") or [])
        if text.startswith(("You are a coding agent", "<skills_instructions>", "<environment")):
            continue
        if text.startswith("<permissions instructions>"):
            continue
        out.append((role, text))
    return out


# --- 4. /clear ---------------------------------------------------------------------------------


def test_clear_starts_a_thread_without_ending_the_old_one(world: CodexWorld) -> None:
    w = world
    log = logger(w)
    w.mock.script(["Hi, retries it is.", "Fresh start."])
    t = w.tui()
    t.trust_hooks()
    turn(t, log, "hello, we work on retries", "Hi, retries it is.")
    (old,) = log.payloads("SessionStart")
    assert old["source"] == "startup"

    before = log.mark()
    t.clear()
    assert log.events(since=before) == []  # /clear itself fires nothing, SessionEnd included
    mark = w.mock.mark()
    turn(t, log, "after the clear", "Fresh start.")
    assert log.sequence(since=before) == ["SessionStart:clear", "UserPromptSubmit", "Stop"]
    new = log.entry("SessionStart", since=before)["payload"]
    assert sorted(new) == sorted([*THREAD_FIELDS, "transcript_path"]), new
    assert new["source"] == "clear" and new["cwd"] == str(w.proj) and new["model"] == "mock-model"
    assert new["session_id"] != old["session_id"]
    # the payload names only the NEW thread's rollout
    assert new["session_id"] in new["transcript_path"]
    assert old["session_id"] not in str(new)
    new_rollout, old_rollout = Path(new["transcript_path"]), Path(old["transcript_path"])
    assert new_rollout.is_file() and new_rollout.parent.parent.parent.parent == (
        w.codex_home / "sessions"
    )

    # the previous thread: found under $CODEX_HOME/sessions by its cwd
    found = rollouts_for_cwd(w.codex_home, w.proj)
    assert found == [old_rollout, new_rollout], found
    assert session_meta(old_rollout)["id"] == old["session_id"]
    assert session_meta(old_rollout)["cwd"] == str(w.proj)
    old_users = [
        c.get("text")
        for r in rollout_records(old_rollout)
        if r["type"] == "response_item" and (r["payload"].get("role") == "user")
        for c in r["payload"].get("content") or []
    ]
    assert "hello, we work on retries" in old_users

    # what the model is sent: the new thread only, with SessionStart(clear)'s context
    (req,) = w.mock.main_requests(since=mark)
    assert hook_context(req, START) == [f"{START} clear {new['session_id']}"]
    assert "hello, we work on retries" not in req.text()
    assert kept_messages(req)[-2:] == [
        ("developer", f"{START} clear {new['session_id']}"),
        ("user", "after the clear"),
    ]

    # SessionEnd comes only when the TUI exits: one per thread, reason other
    before = log.mark()
    t.quit()
    ends = log.payloads("SessionEnd", since=before)
    assert sorted(e["session_id"] for e in ends) == sorted(
        [old["session_id"], new["session_id"]]
    ), log.entries()[before:]
    assert {e["reason"] for e in ends} == {"other"}
    assert sorted(ends[0]) == ["cwd", "hook_event_name", "reason", "session_id", "transcript_path"]
    assert w.mock.errors == [] and log.errors() == ""


# --- 5. /compact and automatic compaction ----------------------------------------------------


def compaction_checks(
    w: CodexWorld, log: HookLog, summary_req: LoggedRequest, before: int, trigger: str
) -> str:
    """The hooks' payloads and the summary request, for either trigger; returns the
    session id."""
    (pre,) = log.payloads("PreCompact", since=before)
    (post,) = log.payloads("PostCompact", since=before)
    sid = log.payloads("SessionStart")[0]["session_id"]
    assert sorted(pre) == sorted([*COMPACT_FIELDS, "turn_id"]), pre
    assert pre["trigger"] == trigger and pre["session_id"] == sid and pre["cwd"] == str(w.proj)
    assert post == dict(pre, hook_event_name="PostCompact"), post  # no summary in it
    # the summary request: no tools, the compaction prompt last; PreCompact's stdout is
    # nowhere in it (nor in any later request)
    assert summary_req.body.get("tools") == []
    assert summary_req.last_user_text().startswith(
        "You are performing a CONTEXT CHECKPOINT COMPACTION."
    )
    assert COMPACT_NEEDLE in summary_req.last_user_text()
    assert all(PRE_COMPACT_OUT not in r.text() for r in w.mock.requests if r.body)
    assert START in summary_req.text()  # it still sees the context injected at startup
    return str(sid)


def post_compact_checks(w: CodexWorld, req: LoggedRequest, sid: str, prompt: str) -> None:
    """The request after compaction: the user messages, the summary, SessionStart(compact)'s
    context, the prompt — no assistant replies, no startup context."""
    kept = kept_messages(req)
    (role, summary), *tail = kept[-3:]
    assert tail == [("developer", f"{COMPACTED} {sid}"), ("user", prompt)], kept
    assert role == "user" and summary.startswith(SUMMARY_PREFIX), summary
    assert SUMMARY_MARKER in summary
    assert [r for r, _ in kept].count("assistant") == 0, kept  # the replies are dropped
    assert ("user", "remember the backoff: 1s 2s 4s") in kept  # the user's messages stay
    assert hook_context(req, COMPACTED) == [f"{COMPACTED} {sid}"]
    assert START not in req.text()  # the context injected at startup is gone
    (rollout,) = [p for p in w.rollouts() if sid in p.name]
    compacted = [r for r in rollout_records(rollout) if r["type"] == "compacted"]
    assert len(compacted) == 1 and compacted[0]["payload"]["message"] == summary, compacted


def test_manual_compact(world: CodexWorld) -> None:
    w = world
    log = logger(w)
    w.mock.script(["Hi, retries it is.", "Noted: 1s, 2s, 4s.", "Next: the backoff test."])
    t = w.tui()
    t.trust_hooks()
    turn(t, log, "hello, we work on retries", "Hi, retries it is.")
    turn(t, log, "remember the backoff: 1s 2s 4s", "Noted: 1s, 2s, 4s.")
    before = log.mark()
    summary_req = t.compact()
    log.wait("PostCompact", since=before)
    # SessionStart(compact) waits for the next prompt
    assert log.sequence(since=before) == ["PreCompact:manual", "PostCompact:manual"]
    sid = compaction_checks(w, log, summary_req, before, "manual")
    pre = log.payloads("PreCompact", since=before)[0]

    mark = w.mock.mark()
    turn(t, log, "what next?", "Next: the backoff test.")
    assert log.sequence(since=before) == [
        "PreCompact:manual",
        "PostCompact:manual",
        "SessionStart:compact",
        "UserPromptSubmit",
        "Stop",
    ], log.entries()[before:]
    start = log.entry("SessionStart", since=before)["payload"]
    assert start["session_id"] == sid and sorted(start) == sorted(
        [*THREAD_FIELDS, "transcript_path"]
    )
    prompt_turn = log.payloads("UserPromptSubmit", since=before)[0]["turn_id"]
    assert pre["turn_id"] != prompt_turn  # /compact ran as a turn of its own
    (req,) = w.mock.main_requests(since=mark)
    post_compact_checks(w, req, sid, "what next?")
    assert "SessionEnd" not in log.events() and w.mock.errors == [] and log.errors() == ""


def test_auto_compact(world: CodexWorld) -> None:
    w = world
    log = logger(w)
    w.mock.script(
        [
            "Hi, retries it is.",
            reply("Noted: 1s, 2s, 4s.", total_tokens=6000),  # over the 2,000 limit
            "Next: the backoff test.",
        ]
    )
    t = w.tui("-c", "model_auto_compact_token_limit=2000")
    t.trust_hooks()
    turn(t, log, "hello, we work on retries", "Hi, retries it is.")
    turn(t, log, "remember the backoff: 1s 2s 4s", "Noted: 1s, 2s, 4s.")
    assert w.mock.compactions() == [] and "PreCompact" not in log.events()  # not yet
    before = log.mark()
    mark = w.mock.mark()
    turn(t, log, "what next?", "Next: the backoff test.")
    # compaction runs at the start of the next turn, before its prompt is submitted; all
    # of it, SessionStart(compact) included, inside that turn
    assert log.sequence(since=before) == [
        "PreCompact:auto",
        "PostCompact:auto",
        "SessionStart:compact",
        "UserPromptSubmit",
        "Stop",
    ], log.entries()[before:]
    (summary_req,) = w.mock.compactions(since=mark)
    sid = compaction_checks(w, log, summary_req, before, "auto")
    pre = log.payloads("PreCompact", since=before)[0]
    assert pre["turn_id"] == log.payloads("UserPromptSubmit", since=before)[0]["turn_id"]
    assert "what next?" not in summary_req.text()
    (req,) = w.mock.main_requests(since=mark)
    assert summary_req["seq"] < req["seq"]
    post_compact_checks(w, req, sid, "what next?")
    assert "SessionEnd" not in log.events() and w.mock.errors == [] and log.errors() == ""

"""End-to-end, issue 20 (phase 1): the session boundaries of the real Claude Code 2.1.328
that lose the conversation — plan approval that clears context, ``/compact``, automatic
compaction — driven under tmux against the scripted mock.

No session-skill here: a logging hook (``hook_log.py``, registered for every observable
event in the scratch ``~/.claude/settings.json``) records which events fire, in which order,
with which payload, and answers SessionStart with a marker ``additionalContext``; the mock
logs what the model is sent around each boundary. BOUNDARIES.md holds the shapes in full.
Phase 2 (session-skill's hooks next to the logger): test_boundaries_session_skill.py.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_harness import World
from e2e_scripted import exit_plan_mode, hook_contexts, message_texts, write_plan
from hook_log import HookLog, context, install
from mock_api import COMPACT_NEEDLE, SUMMARY_MARKER, default_summary, reply

pytestmark = pytest.mark.e2e

PLAN = "# Add retry backoff\n\n1. Wrap the HTTP call in a retry loop.\n2. Back off 1s, 2s, 4s.\n"
REQUEST = "Plan retry backoff for the HTTP client"
START = "hooklog start-context"  # what SessionStart(startup|clear) injects
COMPACTED = "hooklog compact-context"  # what SessionStart(compact) injects
PRE_COMPACT_OUT = "hooklog pre-compact stdout: keep the backoff numbers"
# Notification ("Claude needs your permission…") comes after some seconds of idling at a
# dialog: timing, not a boundary.
TIMING = ("Notification",)


def transcript(path: str | Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip()]


def conversation(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The user/assistant records (what a handover is built from)."""
    return [r for r in records if r.get("type") in ("user", "assistant")]


def markers(log: HookLog) -> None:
    """SessionStart answers: the source and session id in the text, to tell them apart."""
    log.reply("SessionStart:startup", context("SessionStart", f"{START} {{source}} {{session_id}}"))
    log.reply("SessionStart:clear", context("SessionStart", f"{START} {{source}} {{session_id}}"))
    log.reply("SessionStart:compact", context("SessionStart", f"{COMPACTED} {{session_id}}"))


def two_turns(w: World, t: Any, log: HookLog, *, second: Any = "Noted: 1s, 2s, 4s.") -> None:
    """Two prompts and replies; returns once the second turn's Stop hook ran (it runs
    after the reply is on screen)."""
    w.mock.script(["Hi, retries it is.", second])
    t.type("hello, we work on retries")
    t.wait_screen("Hi, retries it is.")
    t.type("remember the backoff: 1s 2s 4s")
    t.wait_screen("Noted: 1s, 2s, 4s.")
    log.wait("Stop", where=lambda p: p["last_assistant_message"] == "Noted: 1s, 2s, 4s.")
    t.wait_ready()


# --- 1. plan approval that clears context -------------------------------------------------


def test_plan_approval_clearing_context(bare_tmux_world: World) -> None:
    w = bare_tmux_world
    log = install(w, settings={"showClearContextOnPlanAccept": True})
    markers(log)
    plan_paths: list[str] = []
    # the model writes the plan file, then calls ExitPlanMode with its own (stale) copy
    w.mock.script(
        [write_plan(PLAN, plan_paths), exit_plan_mode("stale copy"), "Implementing the plan."]
    )
    t = w.tui("--permission-mode", "plan")
    t.type(REQUEST)
    menu = t.approve_plan_clearing_context()
    assert "Ready to code?" in menu and "Add retry backoff" in menu, menu
    options = [label for _, label, _ in t.menu(menu)]
    assert options[0].startswith("Yes, clear context (") and "% used) and use" in options[0]
    mark = w.mock.mark()
    req = w.mock.wait_main(since=mark)  # sent by itself: nobody typed a prompt
    t.wait_screen("Implementing the plan.")
    log.wait("Stop", where=lambda p: p["last_assistant_message"] == "Implementing the plan.")

    # the hooks: the /clear routine, nothing saying a plan caused it, no UserPromptSubmit
    assert log.sequence(ignore=TIMING) == [
        "SessionStart:startup",
        "UserPromptSubmit",
        "PreToolUse",  # Write (the plan file)
        "PostToolUse",
        "PreToolUse",  # ExitPlanMode
        "PermissionRequest",  # the approval menu
        "SessionEnd:clear",
        "SessionStart:clear",
        "Stop",  # the new session's first turn
    ], log.entries()
    (plan_path,) = plan_paths
    assert plan_path.startswith(f"{w.home}/.claude/plans/") and plan_path.endswith(".md")
    pre_exit = log.payloads("PreToolUse")[1]
    assert pre_exit["tool_name"] == "ExitPlanMode"
    # the client hands on the plan FILE, not what the model sent
    assert pre_exit["tool_input"] == {"plan": PLAN, "planFilePath": plan_path}, pre_exit
    assert log.payloads("PermissionRequest")[0]["tool_input"] == pre_exit["tool_input"]
    (start,) = log.payloads("SessionStart")[:1]
    end = log.entry("SessionEnd")
    new = log.entry("SessionStart", source="clear")
    old_id, old_path = end["payload"]["session_id"], end["payload"]["transcript_path"]
    assert old_id == start["session_id"]
    assert sorted(end["payload"]) == [
        "cwd",
        "hook_event_name",
        "prompt_id",
        "reason",
        "session_id",
        "transcript_path",
    ], end["payload"]
    assert sorted(new["payload"]) == [
        "cwd",
        "hook_event_name",
        "session_id",
        "source",
        "transcript_path",
    ], new["payload"]  # no `model` after a clear, no word of the plan
    new_id = new["payload"]["session_id"]
    assert new_id != old_id and new["payload"]["transcript_path"] != old_path
    assert end["ts"] < new["ts"]

    # the old transcript ends with ExitPlanMode, the rejection and the interrupt; when
    # SessionEnd ran it held the ExitPlanMode tool_use (the plan) but, in every run seen,
    # not yet the two records after it: they are written just after SessionEnd returns
    at_end = conversation(transcript(end["snapshot"]))
    final = conversation(transcript(old_path))
    assert at_end == final[: len(at_end)] and len(at_end) >= len(final) - 2
    use, result, interrupt = final[-3:]
    assert use in at_end
    (block,) = use["message"]["content"]
    assert block["type"] == "tool_use" and block["name"] == "ExitPlanMode"
    assert block["input"] == {"plan": PLAN, "planFilePath": plan_path}, block
    (res,) = result["message"]["content"]
    assert res["type"] == "tool_result" and res["tool_use_id"] == block["id"]
    assert res["is_error"] is True
    assert res["content"].startswith("The user doesn't want to proceed with this tool use."), res
    assert result["toolUseResult"] == "User rejected tool use"
    assert result["toolDenialKind"] == "user-rejected" and result["toolDenialBeforeRun"] is True
    assert interrupt["message"]["content"] == [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}
    ]

    # the new session: its first prompt is the plan, with a pointer to the old transcript
    implement = (
        f"Implement the following plan:\n\n{PLAN}\n\nIf you need specific details from before "
        "exiting plan mode (like exact code snippets, error messages, or content you "
        f"generated), read the full transcript at: {old_path}"
    )
    first = conversation(transcript(new["payload"]["transcript_path"]))[0]
    assert first["type"] == "user" and first["message"]["content"] == implement, first
    assert first["origin"] == {"kind": "auto-continuation"} and first["planContent"] == PLAN
    assert first["sessionId"] == new_id
    texts = message_texts(req.body)
    assert implement in texts and REQUEST not in req.text()
    assert hook_contexts(req.body) == [f"{START} clear {new_id}"], req.text()[-3000:]
    assert log.payloads("Stop")[0]["permission_mode"] == "auto"
    assert w.mock.errors == [] and w.mock.pending_steps == 0 and log.errors() == ""


# --- 2. /compact ---------------------------------------------------------------------------


def compaction_checks(
    w: World, log: HookLog, mark: int, before: int, trigger: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What manual and automatic compaction share: the payloads of the hooks logged from
    ``before``, the one summary request sent from ``mark``. Returns (PreCompact entry,
    PostCompact payload)."""
    (summary_req,) = w.mock.compactions(since=mark)  # a proper summary: no second ask
    assert summary_req.tool_names(), "the summary request carries the tools (cache sharing)"
    ask = summary_req.last_user_text()
    assert ask.startswith("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.")
    assert COMPACT_NEEDLE in ask
    # PreCompact's stdout (exit 0) is appended to the summarisation prompt
    assert f"\n\nAdditional Instructions:\n{PRE_COMPACT_OUT}\n\n" in ask, ask[-800:]
    assert START in summary_req.text()  # the summary still sees the injected context

    pre = log.entry("PreCompact", since=before)
    (post,) = log.payloads("PostCompact", since=before)
    (start,) = log.payloads("SessionStart", since=before)
    sid = log.payloads("SessionStart")[0]["session_id"]
    assert pre["payload"] == {
        "session_id": sid,
        "transcript_path": pre["payload"]["transcript_path"],
        "cwd": str(w.proj),
        "prompt_id": pre["payload"]["prompt_id"],
        "hook_event_name": "PreCompact",
        "trigger": trigger,
        "custom_instructions": None,
    }, pre["payload"]
    assert start["source"] == "compact" and start["session_id"] == sid  # same session
    assert sorted(start) == [
        "cwd",
        "hook_event_name",
        "model",
        "prompt_id",
        "session_id",
        "source",
        "transcript_path",
    ], start
    assert sorted(post) == [
        "compact_summary",
        "cwd",
        "hook_event_name",
        "prompt_id",
        "session_id",
        "transcript_path",
        "trigger",
    ], post
    assert post["trigger"] == trigger and post["session_id"] == sid
    # compact_summary is the model's reply verbatim, <analysis> included
    assert post["compact_summary"] == default_summary(summary_req.body)
    assert pre["payload"]["prompt_id"] == start["prompt_id"] == post["prompt_id"]
    assert log.errors() == "" and w.mock.errors == []
    return pre, post


def post_compact_checks(w: World, log: HookLog, req: Any, prompt: str, trigger: str) -> None:
    """The request after compaction: summary, the kept tail, the new prompt, and only the
    SessionStart(compact) context."""
    sid = log.payloads("SessionStart")[0]["session_id"]
    opening = (
        "This session is being continued from a previous conversation that ran out of "
        "context. The summary below covers the earlier portion of the conversation."
    )
    (first,) = [x for x in message_texts(req.body) if x.startswith(opening)]
    assert SUMMARY_MARKER in first and "<analysis>" not in first
    assert "Summary:\n1. Primary Request and Intent:" in first, first
    assert prompt in message_texts(req.body)
    assert hook_contexts(req.body) == [f"{COMPACTED} {sid}"], hook_contexts(req.body)
    assert START not in req.text()  # context injected at the session's start is gone
    assert "Hi, retries it is." not in req.text()  # older turns live in the summary only
    assert "Noted: 1s, 2s, 4s." in req.text()  # the last reply is kept verbatim
    # The client writes its transcript on its own time: the boundary may land a moment
    # after the Stop hook (seen once in a full run, under load).
    path = log.payloads("SessionStart")[0]["transcript_path"]
    deadline = time.monotonic() + 10
    while True:
        records = transcript(path)
        boundary = [r for r in records if r.get("subtype") == "compact_boundary"]
        if boundary or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    (b,) = boundary
    assert b["type"] == "system" and b["compactMetadata"]["trigger"] == trigger, b
    assert b["parentUuid"] is None and b["content"] == "Conversation compacted"
    after = conversation(records[records.index(b) + 1 :])[0]  # attachments may come between
    assert after["type"] == "user" and after.get("isCompactSummary") is True, after
    assert after["isVisibleInTranscriptOnly"] is True


def test_manual_compact(bare_tmux_world: World) -> None:
    w = bare_tmux_world
    log = install(w)
    markers(log)
    log.reply("PreCompact", PRE_COMPACT_OUT)
    t = w.tui()
    two_turns(w, t, log)
    before = log.mark()
    mark = w.mock.mark()
    t.compact()
    log.wait("PostCompact", since=before)
    # the summary is asked of a forked agent: SubagentStop (agent_type "") fires for it
    assert log.sequence(since=before) == [
        "PreCompact:manual",
        "SubagentStop",
        "SessionStart:compact",
        "PostCompact:manual",
    ], log.entries()[before:]
    sub = log.payloads("SubagentStop", since=before)[0]
    assert sub["agent_type"] == "" and SUMMARY_MARKER in sub["last_assistant_message"], sub
    compaction_checks(w, log, mark, before, "manual")
    # /compact's own output (hook lines, PreCompact's stdout among them) is shown and kept
    shown = f"completed successfully: {PRE_COMPACT_OUT}"
    t.wait_screen(lambda s: shown in " ".join(s.split()), what="PreCompact's output")  # wrapped

    w.mock.script(["Next: the test for the backoff."])
    mark = w.mock.mark()
    t.type("what next?")
    req = w.mock.wait_main(since=mark)
    post_compact_checks(w, log, req, "what next?", "manual")
    stdout = [x for x in message_texts(req.body) if x.startswith("<local-command-stdout>")]
    assert len(stdout) == 1 and PRE_COMPACT_OUT in stdout[0], stdout
    t.wait_screen("Next: the test for the backoff.")
    log.wait("Stop", where=lambda p: p["last_assistant_message"].startswith("Next: the test"))

    # /compact with instructions: they are PreCompact's custom_instructions, and the hook's
    # stdout follows them in the same "Additional Instructions" block
    before, mark = log.mark(), w.mock.mark()
    t.compact("focus on the retry numbers")
    pre = log.wait("PreCompact", since=before)
    assert pre["trigger"] == "manual" and pre["custom_instructions"] == "focus on the retry numbers"
    (again,) = w.mock.compactions(since=mark)
    assert again.last_user_text().endswith(
        f"\n\nAdditional Instructions:\nfocus on the retry numbers\n\n{PRE_COMPACT_OUT}\n\n"
        "REMINDER: Do NOT call any tools. Respond with plain text only — an <analysis> block "
        "followed by a <summary> block. Tool calls will be rejected and you will fail the task."
    ), again.last_user_text()[-600:]
    log.wait("PostCompact", since=before)
    assert "SessionEnd" not in log.events()  # compaction ends nothing


# --- 3. automatic compaction -----------------------------------------------------------------

AUTO_ENV = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}


def test_auto_compact(bare_tmux_world: World) -> None:
    w = bare_tmux_world
    log = install(w)
    markers(log)
    log.reply("PreCompact", PRE_COMPACT_OUT)
    t = w.tui(env=AUTO_ENV)
    two_turns(w, t, log, second=reply("Noted: 1s, 2s, 4s.", input_tokens=60_000))
    assert w.mock.compactions() == []  # 10-token turns: nothing yet
    before = log.mark()
    w.mock.script(["Next: the test for the backoff."])
    mark = w.mock.mark()
    t.type("what next?")  # the context now counts 60,000 tokens: over the threshold
    req = w.mock.wait_main(since=mark)
    log.wait("Stop", since=before)
    assert log.sequence(since=before) == [
        "UserPromptSubmit",
        "PreCompact:auto",
        "SubagentStop",
        "SessionStart:compact",
        "PostCompact:auto",
        "Stop",
    ], log.entries()[before:]
    pre, _ = compaction_checks(w, log, mark, before, "auto")
    assert pre["payload"]["prompt_id"] == log.payloads("UserPromptSubmit")[-1]["prompt_id"]
    (summary_req,) = w.mock.compactions(since=mark)
    assert summary_req["seq"] < req["seq"]
    assert "what next?" not in message_texts(summary_req.body)  # summarised before the prompt
    post_compact_checks(w, log, req, "what next?", "auto")
    assert not any(x.startswith("<local-command-stdout>") for x in message_texts(req.body))
    t.wait_screen("Next: the test for the backoff.")
    assert "Compacted" not in t.screen()  # automatic compaction says nothing on screen
    assert "SessionEnd" not in log.events()

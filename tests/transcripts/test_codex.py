"""The Codex rollout parser on a rollout the real codex-cli 0.171.0 wrote (issue 13).

`codex_0171_rollout.jsonl` comes from the e2e sweep scenario (`python
tests/e2e/codex_fixture.py` regenerates it; `tests/e2e/test_codex.py` checks it still holds
every record type the pinned Codex writes): a plan with one step done and one pending,
`$session sweep` run through the skill's dispatch block, the sweep's table relayed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from session_skill.transcripts import scan
from session_skill.transcripts.codex import CodexParser
from session_skill.transcripts.reader import (
    AssistantText,
    ReadStats,
    SessionMeta,
    ToolCall,
    ToolResult,
    UserText,
    iter_events,
)
from tests.lines import write as write_lines

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
ROLLOUT = FIXTURE / "codex_0171_rollout.jsonl"
PROMPT = "Plan the token-expiry work in two steps, then $session sweep"
OPEN_STEP = "Add the expiry check to login()"
DONE_STEP = "Write the failing test"


def records() -> list[dict[str, object]]:
    return [json.loads(x) for x in ROLLOUT.read_text(encoding="utf-8").splitlines()]


def test_the_fixture_is_what_0171_writes() -> None:
    recs = records()
    kinds = {str(r["type"]) for r in recs}
    assert {"world_state", "token_usage_record", "session_meta", "turn_context"} <= kinds
    assert [r["ordinal"] for r in recs] == list(range(len(recs)))
    meta = recs[0]["payload"]
    assert isinstance(meta, dict) and meta["cli_version"] == "0.171.0"
    assert ROLLOUT.stat().st_size < 32_000  # small: long texts are cut


def test_events() -> None:
    stats = ReadStats()
    events = list(iter_events(ROLLOUT, stats))
    assert stats.format == "codex" and stats.malformed == 0
    # the new records are known and skipped, like event_msg
    assert stats.skipped["world_state"] == 1
    assert stats.skipped["token_usage_record"] == 3
    metas = [e for e in events if isinstance(e, SessionMeta)]
    assert metas[0].cwd == "/home/dev/e2e/proj" and metas[0].agent == "codex"
    users = [e for e in events if isinstance(e, UserText)]
    # environment context, the <skill> body Codex pasted in: not the user's words
    assert [u.text for u in users] == [PROMPT] and not users[0].is_command
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.name for c in calls] == ["update_plan", "exec_command"]
    assert calls[0].input["plan"][1] == {"step": OPEN_STEP, "status": "pending"}
    assert "session-skill dispatch <<'SESSION_ARGS'\nsweep\nSESSION_ARGS" in calls[1].input["cmd"]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.tool_use_id for r in results] == [c.id for c in calls]
    assert "Process exited with code 0" in str(results[1].content)
    (reply,) = [e for e in events if isinstance(e, AssistantText)]
    assert reply.text.startswith("## Unlanded — 1 item")


def test_sweep_finds_the_pending_plan_step() -> None:
    facts = scan.analyze(ROLLOUT)
    assert facts.agent == "codex"
    assert facts.session_id == records()[0]["payload"]["id"]  # type: ignore[index]
    assert [(t.text, t.status, t.source) for t in facts.pending_tasks] == [
        (OPEN_STEP, "pending", "update_plan")
    ]
    assert [c.text for c in facts.candidates if c.type == "Unfinished task"] == [OPEN_STEP]
    assert all(DONE_STEP not in c.text for c in facts.candidates)
    assert facts.first_user_request == PROMPT


def test_state_records_are_skipped_before_parsing() -> None:
    parser = CodexParser(ReadStats())
    lines = ROLLOUT.read_bytes().splitlines()
    skipped = {parser.cheap_skip(raw, None) for raw in lines if b'"type":"world_state"' in raw}
    assert skipped == {"world_state"}
    usage = [raw for raw in lines if b'"type":"token_usage_record"' in raw]
    assert {parser.cheap_skip(raw, None) for raw in usage} == {"token_usage_record"}


def rollout(tmp_path: Path, *user_texts: str) -> Path:
    head = {
        "timestamp": "2026-12-01T08:00:00.000Z",
        "ordinal": 0,
        "type": "session_meta",
        "payload": {"id": "t-1", "session_id": "t-1", "cwd": "/home/dev/e2e/proj"},
    }
    lines = [head]
    for i, text in enumerate(user_texts, 1):
        lines.append(
            {
                "timestamp": f"2026-12-01T08:0{i}:00.000Z",
                "ordinal": i,
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                },
            }
        )
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize(
    ("typed", "name", "args"),
    [
        (
            "$session park revisit the retry backoff later",
            "$session",
            "park revisit the retry backoff later",
        ),
        ("$session-skill:session dump auth", "$session-skill:session", "dump auth"),
        ("$session", "$session", ""),
    ],
)
def test_a_typed_skill_is_a_command_not_a_request(
    tmp_path: Path, typed: str, name: str, args: str
) -> None:
    path = rollout(tmp_path, typed, "Make login() reject expired tokens.")
    first, second = [e for e in iter_events(path) if isinstance(e, UserText)]
    assert (first.is_command, first.command_name, first.command_args) == (True, name, args)
    assert not second.is_command
    facts = scan.analyze(path)
    assert facts.first_user_request == "Make login() reject expired tokens."
    # "later" in a park command is not a deferral to sweep; the request, unanswered, is open
    assert [(c.rule, c.text) for c in facts.candidates] == [
        ("unfinished", "Make login() reject expired tokens.")
    ]


def test_dollar_session_inside_a_sentence_is_a_request(tmp_path: Path) -> None:
    path = rollout(tmp_path, "$sessions are fine; run $session list later")
    (only,) = [e for e in iter_events(path) if isinstance(e, UserText)]
    assert not only.is_command


def _message(role: str, text: str, n: int) -> dict[str, object]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {
        "timestamp": f"2026-12-01T08:{n:02d}:00.000Z",
        "type": "response_item",
        "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
    }


PROPOSED = (
    "<proposed_plan>\n# Retry backoff for uploads\n\nUploads fail under load, so retry them "
    "with jitter.\n\n## Verification\n- `pytest tests/test_upload.py` passes\n</proposed_plan>"
)


@pytest.mark.parametrize("answer", ["Implement the plan.", "ok, implement this plan"])
def test_a_proposed_plan_carried_out_is_the_plan_the_session_followed(
    tmp_path: Path, answer: str
) -> None:
    """Codex's plan mode: the plan is the reply's <proposed_plan>, and "Implement the plan."
    (the prompt Codex offers) carries it out — its title is the Goal, its checks are read."""
    path = tmp_path / "rollout.jsonl"
    lines = [
        _message("user", "uploads keep failing under load, what should we do about it", 1),
        _message("assistant", PROPOSED, 2),
        _message("user", answer, 3),
        _message("assistant", "Done: uploads retry with jittered backoff.", 4),
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    facts = scan.analyze(path)
    assert facts.goal == (
        "Retry backoff for uploads — Uploads fail under load, so retry them with jitter. "
        "(the plan the session followed)"
    )
    assert [(c.rule, c.text) for c in facts.candidates] == [
        ("plan-check", "`pytest tests/test_upload.py` passes")
    ]


def test_a_proposed_plan_not_carried_out_is_not_followed(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    lines = [
        _message("user", "uploads keep failing under load, what should we do about it", 1),
        _message("assistant", PROPOSED, 2),
        _message("user", "no, make the retries linear and add a cap", 3),
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    facts = scan.analyze(path)
    assert facts.goal == "uploads keep failing under load, what should we do about it"
    assert all(c.rule != "plan-check" for c in facts.candidates)


def test_codex_typographic_apostrophes_read_as_plain_ones(tmp_path: Path) -> None:
    """Codex writes "isn’t", "If you’d like": the phrases the sweep reads are spelt "isn't"."""
    path = tmp_path / "rollout.jsonl"
    said = "Added the retries. Jitter isn’t implemented yet. If you’d like, I can add it next."
    lines = [_message("user", "add retries to the uploader", 1), _message("assistant", said, 2)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    facts = scan.analyze(path)
    found = [c.text for c in facts.candidates]
    assert "Jitter isn't implemented yet." in found
    assert "If you'd like, I can add it next." in found


@pytest.mark.parametrize(
    ("role", "said"),
    [
        ("user", "<turn_aborted>\nThe user interrupted the previous turn on purpose."),
        ("developer", "<turn_aborted>\nThe previous turn was interrupted on purpose."),
    ],
)
def test_an_interrupted_turn_leaves_its_request_open(tmp_path: Path, role: str, said: str) -> None:
    """Codex says a turn was stopped in a message of its own: the user's in earlier rollouts,
    a developer message in later ones (seen in a public rollout of July 2026)."""
    path = tmp_path / "rollout.jsonl"
    lines = [
        _message("user", "add retries to the uploader", 1),
        _message("assistant", "Adding the retries to the uploader now.", 2),
        _message(role, said, 3),
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    facts = scan.analyze(path)
    assert [(c.rule, c.text, c.why) for c in facts.candidates] == [
        ("unfinished", "add retries to the uploader", "the last request; the user interrupted it")
    ]


def _exec(n: int, command: str, output: object) -> list[dict[str, object]]:
    call_id = f"call_{n}"
    call = {"type": "function_call", "name": "exec_command", "call_id": call_id,
            "arguments": json.dumps({"cmd": command})}  # fmt: skip
    out = {"type": "function_call_output", "call_id": call_id, "output": output}
    return [
        {"timestamp": f"2026-12-01T08:{n:02d}:00.000Z", "type": "response_item", "payload": p}
        for p in (call, out)
    ]


def _exited(code: int, said: str) -> str:
    return f"Chunk ID: 3cce48\nWall time: 0.08 s\nProcess exited with code {code}\nOutput:\n{said}"


@pytest.mark.parametrize(
    ("output", "committed"),
    [
        (_exited(0, "[main 1a2b3c4] Add the retry backoff"), True),
        (_exited(1, "nothing to commit, working tree clean"), False),
        # the shell tool of earlier rollouts
        (json.dumps({"output": "error: hook failed", "metadata": {"exit_code": 1}}), False),
        (json.dumps({"output": "[main 1a2b3c4] Add …", "metadata": {"exit_code": 0}}), True),
        ([{"type": "input_text", "text": "Script failed\nWall time 0.1 s\nOutput:\n"}], False),
    ],
)
def test_a_commit_that_failed_is_not_in_the_goal(
    tmp_path: Path, output: object, committed: bool
) -> None:
    """Codex marks no result as an error: the output says how the command ended."""
    path = tmp_path / "rollout.jsonl"
    lines = [
        _message("user", "add retries to the uploader and commit", 1),
        *_exec(2, "git commit -am 'Add the retry backoff'", output),
        _message("assistant", "Committed the retries.", 3),
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    goal = scan.analyze(path).goal or ""
    assert ("committed: Add the retry backoff" in goal) is committed, goal


def _script(n: int, script: str, output: str) -> list[dict[str, object]]:
    """Code mode: a reply's `exec` script that calls the tools itself."""
    call_id = f"call_{n}"
    call = {"type": "custom_tool_call", "name": "exec", "call_id": call_id, "input": script}
    out = {"type": "custom_tool_call_output", "call_id": call_id,
           "output": [{"type": "input_text", "text": output}]}  # fmt: skip
    return [
        {"timestamp": f"2026-12-01T08:{n:02d}:00.000Z", "type": "response_item", "payload": p}
        for p in (call, out)
    ]


def test_code_mode_scripts_call_the_plan_and_the_shell(tmp_path: Path) -> None:
    """The plan and the commands of a code-mode session live in its `exec` scripts
    (`await tools.update_plan({…})`, seen in a public rollout of July 2026)."""
    steps = [("Write the failing test", "completed"), (OPEN_STEP, "in_progress")]
    plan = {"plan": [{"step": step, "status": status} for step, status in steps]}
    commit = {"cmd": "git commit -am 'Add the failing expiry test'", "workdir": "/w"}
    lines = [
        _message("user", "make login() reject expired tokens", 1),
        *_script(2, f"const r = await tools.update_plan({json.dumps(plan)});\ntext(r);", "ok"),
        *_script(3, f"await tools.exec_command({json.dumps(commit)});", "Script completed"),
        _message("assistant", "The test is committed; the check itself is next.", 4),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    facts = scan.analyze(path)
    assert [(t.text, t.status) for t in facts.pending_tasks] == [(OPEN_STEP, "in_progress")]
    assert (facts.goal or "").endswith("— committed: Add the failing expiry test")
    lines[4:6] = _script(3, f"await tools.exec_command({json.dumps(commit)});", "Script failed")
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert "committed" not in (scan.analyze(path).goal or "")


@pytest.mark.parametrize(
    ("phase", "text", "why"),
    [
        ("commentary", "Added the retries.", "the transcript ends in the middle of the work on it"),
        ("final_answer", "Added the retries to the uploader.", None),
        # an answer that ends on what it is about to do stopped before doing it
        ("final_answer", "I’m adding the retries to the uploader now.",
         "the reply ends announcing more work; nothing came after it"),
    ],
)  # fmt: skip
def test_a_rollout_that_ends_on_commentary_ends_in_the_middle(
    tmp_path: Path, phase: str, text: str, why: str | None
) -> None:
    """Codex marks a reply's progress notes "commentary" and its answer "final_answer": a
    rollout whose last word is commentary stopped in the middle of the work."""
    note = _message("assistant", text, 2)
    note["payload"]["phase"] = phase  # type: ignore[index]
    path = tmp_path / "rollout.jsonl"
    lines = [_message("user", "add retries", 1), note]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    found = [c.why for c in scan.analyze(path).candidates]
    assert found == ([f"the last request; {why}"] if why else [])


# -- the thread's goal (`/goal`), in the shapes codex-cli 0.171.0's TUI wrote (seen: `/goal
# make the upload retries jittered`, Esc, `/goal clear`, against the e2e mock) ---------------
OBJECTIVE = "make the upload retries jittered"


def _rec(n: int, kind: str, payload: dict[str, object]) -> dict[str, object]:
    return {"timestamp": f"2026-12-03T21:57:{n:02d}.000Z", "ordinal": n, "type": kind,
            "payload": payload}  # fmt: skip


def _said(n: int, role: str, text: str) -> dict[str, object]:
    kind = "output_text" if role == "assistant" else "input_text"
    return _rec(n, "response_item", {"type": "message", "role": role,
                                     "content": [{"type": kind, "text": text}]})  # fmt: skip


def _internal(n: int, source: str, text: str) -> dict[str, object]:
    return _said(n, "user", f'<codex_internal_context source="{source}">\n{text}\n'
                 "</codex_internal_context>")  # fmt: skip


def _goal_updated(n: int, status: str) -> dict[str, object]:
    goal = {"threadId": "t1", "objective": OBJECTIVE, "status": status, "tokensUsed": 0,
            "timeUsedSeconds": 0, "createdAt": 1, "updatedAt": 1}  # fmt: skip
    return _rec(n, "event_msg", {"type": "thread_goal_updated", "threadId": "t1", "goal": goal})


def _goal_session(*end: dict[str, object]) -> list[dict[str, object]]:
    continuation = ("Continue working toward the active thread goal.\n\nUse the current "
                    "goal_objective context as the task to pursue.")  # fmt: skip
    return [
        _rec(0, "session_meta", {"id": "t1", "cwd": "/srv/app", "cli_version": "0.171.0"}),
        _said(1, "user", "hi, look at app.py"),
        _said(2, "assistant", "Hello, ready."),
        _internal(
            3, "user_goal", f'User set the goal: "{OBJECTIVE}"\nUser set goal status: "active".'
        ),  # fmt: skip
        _goal_updated(4, "active"),
        _internal(5, "goal", continuation),
        _said(6, "assistant", "Working on the goal: added jitter to the backoff."),
        _internal(7, "goal", continuation),
        _said(8, "assistant", "Still going: the retry tests next."),
        *end,
    ]


def _goal_facts(tmp_path: Path, records: list[dict[str, object]]) -> scan.TranscriptFacts:
    return scan.analyze(write_lines(tmp_path / "rollout.jsonl", records))


def test_the_threads_goal_is_the_goal_and_open_until_achieved(tmp_path: Path) -> None:
    """`/goal <objective>` reaches the rollout as a user-role `<codex_internal_context
    source="user_goal">` message and a `thread_goal_updated` event; the harness's
    "Continue working toward the active thread goal" prompts are no request of the user's."""
    facts = _goal_facts(tmp_path, _goal_session())
    assert facts.goal == f"{OBJECTIVE} (/goal)"
    users = [e.text for e in iter_events(tmp_path / "rollout.jsonl") if isinstance(e, UserText)]
    assert users == ["hi, look at app.py", OBJECTIVE]  # they typed `/goal <this>`
    (goal,) = [c for c in facts.candidates if c.rule == "goal"]
    assert (goal.type, goal.text) == ("Unfinished task", OBJECTIVE)
    assert goal.why == "its /goal, not met yet"
    assert goal.line == 5  # the event's line
    assert "<codex_internal_context" not in (facts.last_request or "")

    # Paused by the user (Esc), stopped at its budget: still open, said so.
    paused = _goal_facts(tmp_path, _goal_session(
        _internal(9, "user_goal", 'User set goal status: "paused".'), _goal_updated(10, "paused")
    ))  # fmt: skip
    assert [c.why for c in paused.candidates if c.rule == "goal"] == ["its /goal, paused"]
    budget = _goal_facts(tmp_path, _goal_session(_goal_updated(9, "budgetLimited")))
    assert [c.why for c in budget.candidates if c.rule == "goal"] == [
        "its /goal, stopped at its token budget"
    ]

    # Marked achieved, or cleared by the user: nothing open; the Goal stays what it was.
    for end in (_goal_updated(9, "complete"),
                _internal(9, "user_goal", "User cleared the goal.")):  # fmt: skip
        done = _goal_facts(tmp_path, _goal_session(end))
        assert not [c for c in done.candidates if c.rule == "goal"]
        assert done.goal == f"{OBJECTIVE} (/goal)"
    cleared = _goal_facts(tmp_path, _goal_session(
        _rec(9, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        _said(10, "user", "<turn_aborted>\nThe user interrupted the turn.\n</turn_aborted>"),
        _internal(11, "user_goal", "User cleared the goal."),
    ))  # fmt: skip
    assert cleared.candidates == []  # the request it set was let go with it

"""The hooks' capture of a big transcript (`transcripts.quick`): head and tail read in full,
only the write, task and plan calls of the middle.

The sizes are shrunk (a few KB for head, tail and chunk) so a small transcript takes the
same path a 60 MB one does; what it finds is checked against a full read (`scan.analyze`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_skill.transcripts import quick
from session_skill.transcripts.candidates import UNFINISHED, Candidate
from session_skill.transcripts.scan import DEFERRED, UNANSWERED, TranscriptFacts, analyze
from tests.lines import write as write_lines

from .test_scan import APP, _goal_status, call, recap, result, say, user

FILLER = "The build log says nothing new; reading on through the output. " * 12


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "QUICK_FROM", 1)
    monkeypatch.setattr(quick, "HEAD_BYTES", 6_000)
    monkeypatch.setattr(quick, "TAIL_BYTES", 6_000)
    monkeypatch.setattr(quick, "_CHUNK", 4_000)
    monkeypatch.setattr(quick, "_RESULT_WINDOW", 2_000)


@pytest.fixture(params=["one process", "with a helper"])
def small(request: pytest.FixtureRequest, tiny: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sizes shrunk; the middle read by this process alone, or split with a helper."""
    monkeypatch.setattr(quick, "SPLIT_FROM", 1 if request.param == "with a helper" else 1 << 40)


def _filler(n: int, tag: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        out += [call(f"{tag}r{i}", "Read", file_path=f"{APP}/docs/{tag}{i}.md")]
        out += [result(f"{tag}r{i}", FILLER), say(f"Noted ({tag} {i}).")]
    return out


def _todo(tid: str, *items: tuple[str, str]) -> dict[str, Any]:
    todos = [{"content": c, "status": s, "activeForm": c} for c, s in items]
    return call(tid, "TodoWrite", todos=todos)


def _session() -> list[dict[str, Any]]:
    head = [
        user("Add rate limiting to the upload endpoint in src/api/upload.py"),
        call("w0", "Write", file_path=f"{APP}/src/api/limits.py", content="LIMIT = 5\n"),
        result("w0"),
        say("The limiter module is in place."),
        user("Let's handle the quota dashboard later, it is out of scope for this fix."),
        say("Understood."),
    ]
    middle = [
        *_filler(8, "a"),
        call("w1", "Edit", file_path=f"{APP}/src/api/upload.py", old_string="a", new_string="b"),
        result("w1"),
        _todo("t1", ("Add the limiter", "in_progress"), ("Test the limiter", "pending")),
        result("t1"),
        call("w2", "Edit", file_path=f"{APP}/src/api/broken.py", old_string="x", new_string="y"),
        result("w2", "String to replace not found in file.", error=True),
        *_filler(8, "b"),
        call("w3", "Write", file_path=f"{APP}/tests/test_limits.py", content="def test(): ...\n"),
        result("w3"),
        _todo("t2", ("Add the limiter", "completed"), ("Test the limiter", "in_progress")),
        result("t2"),
        *_filler(8, "c"),
    ]
    tail = [
        user("Now make the limit configurable through the settings file"),
        call("w4", "Edit", file_path=f"{APP}/src/api/limits.py", old_string="5", new_string="N"),
        result("w4"),
        say(
            "The limit now comes from the settings file. Should the limit also apply to the "
            "admin uploads, or should admins stay unlimited?"
        ),
    ]
    return head + middle + tail


def item(n: int, payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
    """A Codex rollout line (`kind`) at second `n`."""
    return {"timestamp": f"2026-12-01T08:00:{n % 60:02d}.000Z", "type": kind, "payload": payload}


def said(n: int, role: str, text: str) -> dict[str, Any]:
    """A Codex rollout's message of `role`."""
    kind = "output_text" if role == "assistant" else "input_text"
    return item(n, {"type": "message", "role": role, "content": [{"type": kind, "text": text}]})


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    # Compact, as Claude Code writes it: the middle is found by its bytes.
    return write_lines(tmp_path / "t.jsonl", records)


def test_the_quick_read_takes_the_middle_path_here(tmp_path: Path, small: None) -> None:
    path = _write(tmp_path, _session())
    size = path.stat().st_size
    assert size > 3 * (quick.HEAD_BYTES + quick.TAIL_BYTES)  # a middle several chunks long
    head_end = quick._line_start(path, quick.HEAD_BYTES)
    tail_start = quick._line_start(path, size - quick.TAIL_BYTES)
    raw = path.read_bytes()
    # The middle's writes and task lists are neither in the head nor in the tail.
    for needle in (b'"id":"w1"', b'"id":"w2"', b'"id":"w3"', b'"id":"t1"', b'"id":"t2"'):
        at = raw.find(needle)
        assert head_end < at < tail_start, needle


def test_files_tasks_and_goal_as_a_full_read_finds_them(tmp_path: Path, small: None) -> None:
    path = _write(tmp_path, _session())
    full = analyze(path)
    fast = quick.analyze_quick(path)
    assert (
        fast.written_files
        == full.written_files
        == [
            f"{APP}/src/api/limits.py",
            f"{APP}/src/api/upload.py",
            f"{APP}/tests/test_limits.py",
        ]
    )  # the failed Edit of broken.py, in the middle, is not a file touched
    assert fast.written_weights == full.written_weights
    assert (
        [(t.text, t.status) for t in fast.pending_tasks]
        == [(t.text, t.status) for t in full.pending_tasks]
        == [("Test the limiter", "in_progress")]
    )
    assert fast.first_user_request == full.first_user_request
    assert fast.goal == full.goal
    assert fast.last_request == full.last_request
    assert fast.last_reply == full.last_reply
    assert fast.session_id == full.session_id and fast.agent == full.agent == "claude-code"


def _created(n: int, subject: str) -> list[dict[str, Any]]:
    return [
        call(f"c{n}{subject[:3]}", "TaskCreate", subject=subject),
        result(f"c{n}{subject[:3]}", f"Task #{n} created", meta={"task": {"id": str(n)}}),
    ]


def _done(uid: str, n: int) -> list[dict[str, Any]]:
    return [call(uid, "TaskUpdate", taskId=str(n), status="completed"), result(uid, "Updated")]


def _task_lists() -> list[dict[str, Any]]:
    """Two task lists worked through in the middle, the second numbered from #1 again; a
    third task that TaskList's answer no longer holds (a team's end)."""
    return [
        user("Make the planner reuse the trunk's commit graph"),
        *_filler(8, "a"),
        *_created(1, "Find the default branch"), *_created(2, "Add haves to the fetch"),
        *_done("u1", 1), *_done("u2", 2),
        *_filler(3, "b"),
        *_created(1, "Accumulate the haves"), *_created(2, "Test the accumulation"),
        *_done("u3", 1), *_done("u4", 2),
        *_created(3, "Wire the router"),
        call("l1", "TaskList"), result("l1", "No tasks found", meta={"tasks": []}),
        *_filler(8, "c"),
        user("Now rename the flag"),
        say("Renamed."),
    ]  # fmt: skip


def test_the_task_lists_answers_in_the_middle_are_read(tmp_path: Path, small: None) -> None:
    """What TaskCreate's and TaskList's results say is read in the middle too: a list that
    counts from #1 again is updated by its own numbers, and a task the list no longer holds
    is gone. Before, the middle's results were not read: the second list's tasks took the
    numbers 3 and 4, its updates finished the first list's again, and the handover of a big
    transcript named three finished tasks as the work in hand."""
    path = _write(tmp_path, _task_lists())
    raw = path.read_bytes()
    head_end = quick._line_start(path, quick.HEAD_BYTES)
    tail_start = quick._line_start(path, len(raw) - quick.TAIL_BYTES)
    assert head_end < raw.find(b"Accumulate the haves") < raw.find(b'"id":"l1"') < tail_start
    full = analyze(path)
    assert full.pending_tasks == []
    assert quick.analyze_quick(path).pending_tasks == []
    # …and in the layout a provider that sorts the message's keys gives.
    path = _write(tmp_path, [_sorted_message(r) for r in _task_lists()])
    assert quick.analyze_quick(path).pending_tasks == []


def test_the_middles_commits_name_the_goal(tmp_path: Path, small: None) -> None:
    """A commit in the middle is named after the Goal as a full read names it; one a hook
    refused (nothing committed) is not. Before, the middle's shell calls were not read and
    the handover of a big transcript named no commit."""
    made = "[main 1a2b3c4] Add the limiter\n 1 file changed, 5 insertions(+)"
    refused = "pre-commit hook failed: ruff found 2 errors"
    records = _session()
    at = next(n for n, r in enumerate(records) if "w3" in json.dumps(r))
    commits = [
        call("b1", "Bash", command='git add -A && git commit -m "Add the limiter"'),
        result("b1", made),
        call("b2", "Bash", command="git commit -m 'Skip the lint'"),
        result("b2", refused, error=True),
        call("b3", "Bash", command="git status"),
        result("b3", "nothing to commit"),
        # A script's lines: on the raw line `git` follows an escaped newline ("\\ngit"),
        # where no word boundary is. Two corpus sessions' middles commit so.
        call("b4", "Bash", command='cd app\ngit add -A\ngit commit -m "Log rejected tokens"'),
        result("b4", "[main 5e6f7a8] Log rejected tokens"),
    ]
    path = _write(tmp_path, records[:at] + commits + records[at:])
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.goal is not None
    assert full.goal.endswith("— committed: Add the limiter; Log rejected tokens")
    assert fast.goal == full.goal


def test_a_clear_in_the_middle_begins_the_conversation(tmp_path: Path, small: None) -> None:
    """A client that kept one file across /clear: what came before it is another
    conversation's (its files are not this one's), and the first request after it, in the
    middle, is the Goal — as a full read has them."""
    clear = user("<command-name>/clear</command-name>\n<command-args></command-args>")
    after = [
        clear,
        user("Make the export stream rows instead of loading them all"),
        call("x1", "Edit", file_path=f"{APP}/src/export.py", old_string="a", new_string="b"),
        result("x1"),
        *_filler(10, "d"),
        user("ok"),
        say("Streaming now."),
    ]
    path = _write(tmp_path, _session() + after)
    raw = path.read_bytes()
    tail_start = quick._line_start(path, len(raw) - quick.TAIL_BYTES)
    assert quick.HEAD_BYTES < raw.find(b"Make the export stream") < tail_start
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.written_files == [f"{APP}/src/export.py"]
    assert full.goal == "Make the export stream rows instead of loading them all"
    assert (fast.written_files, fast.goal) == (full.written_files, full.goal)


def _sorted_message(record: dict[str, Any]) -> dict[str, Any]:
    """The record as Claude Code writes it when the provider (Amazon Bedrock) returns its
    messages with sorted keys: every key of the message sorted, the record's own "type"
    after it (seen in a real 2.1.5 transcript: `{"id":"toolu_bdrk_…","input":{…},
    "name":"Read","type":"tool_use"}`)."""
    if record["type"] != "assistant":
        return record
    message = json.loads(json.dumps(record["message"], sort_keys=True))
    rest = {k: v for k, v in record.items() if k not in ("type", "message")}
    return {**rest, "message": message, "type": "assistant"}


def test_a_provider_that_sorts_the_messages_keys(tmp_path: Path, small: None) -> None:
    """Calls laid out with sorted keys are found in the middle too: the writes (a failed one
    still no file touched), the task list. Before, the middle of such a transcript gave the
    hooks' capture none of its files or tasks."""
    records = [_sorted_message(r) for r in _session() + _failing_writes(30)]
    path = _write(tmp_path, records)
    raw = path.read_bytes()
    assert b'"type":"tool_use","id"' not in raw and b'"name":"Edit","type":"tool_use"}' in raw
    full = analyze(path)
    fast = quick.analyze_quick(path)
    assert f"{APP}/src/api/upload.py" in full.written_files
    assert f"{APP}/src/api/broken.py" not in full.written_files
    assert fast.written_files == full.written_files
    assert fast.written_weights == full.written_weights
    assert [(t.text, t.status) for t in fast.pending_tasks] == [
        (t.text, t.status) for t in full.pending_tasks
    ]


def test_a_sorted_sub_agent_call_is_not_the_sessions(tmp_path: Path, small: None) -> None:
    sub = _sorted_message(call("s1", "Write", file_path=f"{APP}/scratch/agent.py", content="x"))
    sub["isSidechain"] = True
    records = _session()
    at = next(n for n, r in enumerate(records) if "w3" in json.dumps(r))
    path = _write(tmp_path, [_sorted_message(r) for r in records[:at]] + [sub, result("s1")]
                  + [_sorted_message(r) for r in records[at:]])  # fmt: skip
    fast = quick.analyze_quick(path)
    assert f"{APP}/scratch/agent.py" not in fast.written_files
    assert fast.written_files == analyze(path).written_files


def test_the_loose_ends_are_the_tails(tmp_path: Path, small: None) -> None:
    path = _write(tmp_path, _session())
    full = analyze(path)
    fast = quick.analyze_quick(path)
    asked = "Should the limit also apply to the admin uploads, or should admins stay unlimited?"
    assert (UNANSWERED, asked) in [(c.type, c.text) for c in full.candidates]
    assert (UNANSWERED, asked) in [(c.type, c.text) for c in fast.candidates]
    # The head's deferral is read by the sweep, not by the capture (it says no line either).
    deferred = [c for c in full.candidates if c.type == DEFERRED]
    assert deferred and "quota dashboard" in deferred[0].text
    assert not [c for c in fast.candidates if c.type == DEFERRED]
    assert all(c.line is None for c in fast.candidates)


def test_a_carried_loose_end_the_head_shows_landed_stays_landed(
    tmp_path: Path, small: None
) -> None:
    """The loose ends a restored handover left open are weighed against the part read: one
    the head reports done is not open again in the tail's reading."""
    records = _session()
    records.insert(4, say("Wrote the quota exporter for the uploads."))
    path = _write(tmp_path, records)
    why = "open in `h`, the handover this session carried on"
    carried = (Candidate("Write the quota exporter", UNFINISHED, why, rule="carried"),
               Candidate("Document the upload limit in the README", UNFINISHED, why,
                         rule="carried"))  # fmt: skip
    for found in (analyze(path, carried), quick.analyze_quick(path, carried)):
        texts = [c.text for c in found.candidates]
        assert "Document the upload limit in the README" in texts
        assert "Write the quota exporter" not in texts


def test_a_small_transcript_is_read_whole(tmp_path: Path) -> None:
    path = _write(tmp_path, _session())
    assert path.stat().st_size <= quick.QUICK_FROM
    assert quick.analyze_quick(path) == analyze(path)


def test_a_middle_line_longer_than_the_chunk_is_read_on(tmp_path: Path, small: None) -> None:
    """A tool result bigger than a chunk (a whole file read back): the buffer grows to hold
    the line, and the writes after it are still found. (Growing it once raised
    BufferError, and the capture of such a session failed.)"""
    huge = [call("rh", "Read", file_path=f"{APP}/data/dump.sql"), result("rh", "x" * 20_000)]
    records = _session()
    at = next(n for n, r in enumerate(records) if "w3" in json.dumps(r))
    path = _write(tmp_path, records[:at] + huge + records[at:])
    assert len(max(path.read_bytes().split(b"\n"), key=len)) > 4 * quick._CHUNK
    full, fast = analyze(path), quick.analyze_quick(path)
    assert fast.written_files == full.written_files
    assert f"{APP}/tests/test_limits.py" in fast.written_files


def _failing_writes(n: int) -> list[dict[str, Any]]:
    """Writes to n files, every third one failed; fillers of varied size between them, so
    calls and their results fall on every side of the chunk and helper boundaries."""
    out: list[dict[str, Any]] = [user("Rename the settings module everywhere")]
    for i in range(n):
        out.append(call(f"e{i}", "Edit", file_path=f"{APP}/src/m{i}.py", old_string="a"))
        if i % 3 == 2:
            out.append(result(f"e{i}", "String to replace not found in file.", error=True))
        else:
            out.append(result(f"e{i}"))
        out.append(say("Edited." + " More detail." * (i * 37 % 90)))
    return out


def test_a_failed_write_is_no_file_touched_wherever_the_boundaries_fall(
    tmp_path: Path, small: None
) -> None:
    path = _write(tmp_path, _failing_writes(240))
    full, fast = analyze(path), quick.analyze_quick(path)
    assert len(full.written_files) == 160
    assert fast.written_files == full.written_files
    assert fast.written_weights == full.written_weights


def test_the_helper_finds_what_this_process_would(
    tmp_path: Path, tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, _session() + _failing_writes(60) + _session())
    monkeypatch.setattr(quick, "SPLIT_FROM", 1)
    fast = quick.analyze_quick(path)
    monkeypatch.setattr(quick, "SPLIT_FROM", 1 << 40)
    assert fast == quick.analyze_quick(path)


def test_a_helper_that_fails_costs_nothing_but_time(
    tmp_path: Path, tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No fork, or a helper that dies before it says anything: this process reads its half."""
    import os

    path = _write(tmp_path, _session() + _failing_writes(60))
    monkeypatch.setattr(quick, "SPLIT_FROM", 1 << 40)
    alone = quick.analyze_quick(path)
    monkeypatch.setattr(quick, "SPLIT_FROM", 1)

    def no_fork() -> int:
        raise OSError("fork: resource temporarily unavailable")

    with monkeypatch.context() as m:
        m.setattr(os, "fork", no_fork)
        assert quick.analyze_quick(path) == alone
    me = os.getpid()
    real_scan = quick._scan

    def dies_in_the_helper(*args: Any) -> Any:
        if os.getpid() != me:
            raise MemoryError
        return real_scan(*args)

    monkeypatch.setattr(quick, "_scan", dies_in_the_helper)
    assert quick.analyze_quick(path) == alone
    with pytest.raises(ChildProcessError):  # every helper reaped
        os.waitpid(-1, os.WNOHANG)


def test_a_code_mode_plan_in_the_middle_of_a_codex_rollout(tmp_path: Path, small: None) -> None:
    """Codex's code mode calls `tools.update_plan({…})` inside an `exec` script: a plan
    updated in the middle is found there too."""

    def plan(n: int, *steps: tuple[str, str]) -> dict[str, Any]:
        args = {"plan": [{"step": step, "status": status} for step, status in steps]}
        script = f"const r = await tools.update_plan({json.dumps(args)});\ntext(r);"
        return item(n, {"type": "custom_tool_call", "name": "exec", "call_id": f"p{n}",
                        "input": script})  # fmt: skip

    records = [said(0, "user", "Make login() reject expired tokens")]
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(1, 40)]
    records += [plan(40, ("Write the failing test", "completed"), ("Add the check", "pending"))]
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(41, 80)]
    path = _write(tmp_path, records)
    at = path.read_bytes().find(b"tools.update_plan(")
    assert quick.HEAD_BYTES < at < path.stat().st_size - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert [(t.text, t.status) for t in fast.pending_tasks] == [("Add the check", "pending")]
    assert fast.pending_tasks == full.pending_tasks


def test_a_codex_plan_carried_out_in_the_middle_is_the_goal(tmp_path: Path, small: None) -> None:
    """A plan Codex proposed (`<proposed_plan>`) and the user told it to carry out, both in
    the middle of a big rollout: the plan is the one the session followed, its title the
    Goal, as a full read has it. Before, the first request stood."""

    proposed = (
        "<proposed_plan>\n# Retry backoff for uploads\n\nUploads fail under load, so retry "
        "them with jitter.\n</proposed_plan>"
    )
    records = [said(0, "user", "what could we build to make uploads sturdier? ideas please")]
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(1, 30)]
    records += [said(30, "assistant", proposed), said(31, "user", "Implement the plan.")]
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(32, 70)]
    path = _write(tmp_path, records)
    at = path.read_bytes().find(b"Implement the plan.")
    assert quick.HEAD_BYTES < at < path.stat().st_size - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.goal is not None and full.goal.startswith("Retry backoff for uploads")
    assert fast.goal == full.goal


@pytest.mark.parametrize("form", ["a shell call", "a code-mode script"])
def test_a_codex_commit_in_the_middle_names_the_goal(
    tmp_path: Path, small: None, form: str
) -> None:
    """A Codex command that commits, in the middle (`git -C … commit` too, as a full read
    reads it, and `git commit` opening a line of a script), is named after the Goal; one whose
    output says it failed is not. Run by a shell call, or by a code-mode `exec` script
    (`tools.exec_command({…})`), whose calls a full read reads and the quick read did not."""

    def run(n: int, cmd: str, made: str, ok: bool) -> list[dict[str, Any]]:
        if form == "a shell call":
            args = json.dumps({"cmd": cmd, "workdir": APP})
            call = {"type": "function_call", "name": "exec_command", "arguments": args}
            output: Any = f"{made}\nProcess exited with code {0 if ok else 1}"
            kind = "function_call_output"
        else:
            code = f"const r = await tools.exec_command({json.dumps({'cmd': cmd})});\ntext(r);"
            call = {"type": "custom_tool_call", "status": "completed", "name": "exec",
                    "input": code}  # fmt: skip
            text = f"Script completed\nOutput:\n{made}" if ok else f"Script failed\n{made}"
            output, kind = [{"type": "input_text", "text": text}], "custom_tool_call_output"
        return [item(n, {**call, "call_id": f"c{n}"}),
                item(n, {"type": kind, "call_id": f"c{n}", "output": output})]  # fmt: skip

    records = [said(0, "user", "Make login() reject expired tokens")]
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(1, 30)]
    records += run(30, f'git -C {APP} commit -am "Reject expired tokens"',
                   "[main 1a2b3c4] Reject expired tokens", True)  # fmt: skip
    records += run(31, 'git commit -m "Skip the lint"', "pre-commit hook failed", False)
    records += run(32, 'cd app\ngit commit -m "Log rejected tokens"',
                   "[main 5e6f7a8] Log rejected tokens", True)  # fmt: skip
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(33, 70)]
    path = _write(tmp_path, records)
    at = path.read_bytes().find(b"Reject expired tokens")
    assert quick.HEAD_BYTES < at < path.stat().st_size - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.goal == (
        "Make login() reject expired tokens — committed: Reject expired tokens; Log rejected tokens"
    )
    assert fast.goal == full.goal


def test_a_recap_in_the_middle_names_the_goal(tmp_path: Path, small: None) -> None:
    """Claude Code's recap (the overall goal, as the session stands) found in the middle by
    its bytes, as a full read finds it; one nested in a sub-agent's record is not."""
    lead = "We're adding rate limits to uploads, configurable per tenant."
    nested = {"type": "progress", "data": {"message": recap("We're writing a haiku.")}}
    records = _session()
    at = next(n for n, r in enumerate(records) if "w3" in json.dumps(r))
    path = _write(tmp_path, [*records[:at], recap(f"{lead} Next: tests."), nested, *records[at:]])
    raw = path.read_bytes()
    assert quick.HEAD_BYTES < raw.find(b"away_summary") < len(raw) - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert fast.goal == full.goal == f"{lead} (Claude Code's recap)"


def test_a_codex_thread_goal_in_the_middle(tmp_path: Path, small: None) -> None:
    """Codex's `/goal`, set in the middle of a big rollout and cleared (or not) later in it:
    found by its bytes, as a full read finds it."""
    from .test_codex import OBJECTIVE, _goal_session, _internal, _said

    filler = [_said(20 + i, "assistant", FILLER) for i in range(40)]
    head, goal = _goal_session()[:3], _goal_session()[3:]
    for end in ([], [_internal(90, "user_goal", "User cleared the goal.")]):
        records = [*head, *filler, *goal, *filler, *end, *filler, _said(99, "user", "thanks")]
        path = write_lines(tmp_path / "rollout.jsonl", records)
        raw = path.read_bytes()
        assert quick.HEAD_BYTES < raw.find(b"thread_goal_updated") < len(raw) - quick.TAIL_BYTES
        full, fast = analyze(path), quick.analyze_quick(path)
        assert fast.goal == full.goal == f"{OBJECTIVE} (/goal)"
        rules = [[c.rule for c in f.candidates if c.rule == "goal"] for f in (full, fast)]
        assert rules == ([["goal"]] * 2 if not end else [[], []])


def _long_last_turn(request: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A session whose last request (`request`: its records) opens a turn of work longer
    than the tail: the request itself lies in the middle."""
    head = [user("Add rate limiting to the upload endpoint in src/api/upload.py"), say("Done.")]
    work = [*_filler(10, "a"), call("w1", "Edit", file_path=f"{APP}/src/api/upload.py",
                                    old_string="a", new_string="b"), result("w1")]  # fmt: skip
    running = call("z", "Bash", command="pytest -q")  # no result: the file stops here
    return head + _filler(6, "h") + request + work + _filler(10, "z") + [running]


@pytest.mark.parametrize(
    "form",
    ["typed", "blocks", "an image", "queued", "a command"],
)
def test_the_last_request_in_the_middle_is_the_last_request(
    tmp_path: Path, small: None, form: str
) -> None:
    """A last turn of work longer than the tail (an hour's autonomous run): its request is
    in the middle. It is the handover's last request, and the one left unfinished when the
    transcript stops in the middle of its work, as a full read has it — before, the middle's
    requests were read only until one named the work, and the capture's last request was an
    earlier one. Typed as text, as blocks (an IDE's selection, an image and the text), while
    the assistant worked (`queued_command`), or as a command whose prompt it expands to."""
    words = "Move the upload limits into the settings file and document them"
    request = {
        "typed": [user(words)],
        "blocks": [user([{"type": "text", "text": words}])],
        "an image": [
            user(
                [
                    {"type": "image", "source": {"type": "base64", "data": "iVBOR"}},
                    {"type": "text", "text": words},
                ]
            )
        ],  # fmt: skip
        "queued": [
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": "attachment",
                "sessionId": "s1",
                "cwd": APP,
                "timestamp": "2026-12-04T10:00:00.000Z",
                "attachment": {"type": "queued_command", "prompt": words},
            },
        ],  # fmt: skip
        "a command": [
            user(
                "<command-message>limits</command-message>\n<command-name>/limits</command-name>"
                "\n<command-args></command-args>"
            ),
            user([{"type": "text", "text": f"{words}.\n"}], isMeta=True),
        ],  # fmt: skip
    }[form]
    path = _write(tmp_path, _long_last_turn(request))
    raw = path.read_bytes()
    at = raw.find(words.encode())
    assert quick.HEAD_BYTES < at < len(raw) - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    if form != "a command":  # a command's request is the unfinished one, not the last typed
        assert full.last_request is not None and words in full.last_request
    assert fast.last_request == full.last_request
    assert full.unfinished is not None and words in full.unfinished.text
    assert full.unfinished.why == "the transcript ends in the middle of the work on it"
    assert fast.unfinished is not None
    assert (fast.unfinished.text, fast.unfinished.why) == (
        full.unfinished.text,
        full.unfinished.why,
    )


def _progress(tool_id: str, n: int) -> dict[str, Any]:
    """A sub-agent's step as Claude Code records it in the session's own file: a `progress`
    record carrying the sub-agent's message (here a file it read)."""
    inner = result(f"{tool_id}-read{n}", FILLER)
    return {
        "isSidechain": False,
        "sessionId": "s1",
        "cwd": APP,
        "type": "progress",
        "data": {"message": {"type": "user", "message": inner["message"]}},
        "parentToolUseID": tool_id,
        "timestamp": inner["timestamp"],
    }


@pytest.mark.parametrize("tool", ["Task", "Agent"])
def test_a_sub_agent_at_work_on_the_last_request(tmp_path: Path, small: None, tool: str) -> None:
    """The last request's reply hands the work to a sub-agent, whose progress fills the
    tail: nothing of the session's own thread is there. The sub-agent's call, in the middle,
    is the work on the request — the transcript ends in the middle of it, as a full read
    says (a real corpus session, `leeson-1`, read so: "ends before any reply to it")."""
    words = "Track token usage and add a refresh margin to the websocket auth"
    head = [user("Add rate limiting to the upload endpoint in src/api/upload.py"), say("Done.")]
    reply = [say("Let me look at how the token is handled."), call("t1", tool, prompt=words)]
    records = head + _filler(6, "h") + [user(words), *reply]
    records += [_progress("t1", n) for n in range(40)]
    path = _write(tmp_path, records)
    raw = path.read_bytes()
    assert quick.HEAD_BYTES < raw.find(b'"name":"' + tool.encode()) < len(raw) - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.unfinished is not None and full.unfinished.text == words
    assert full.unfinished.why == "the transcript ends in the middle of the work on it"
    assert fast.unfinished is not None
    assert (fast.unfinished.text, fast.unfinished.why) == (words, full.unfinished.why)
    # Its reply is prose of the middle, unread: Where it stopped shows no reply rather than
    # the head's "Done.", said before the request.
    assert full.last_reply == "Let me look at how the token is handled."
    assert fast.last_reply is None


def _turn_end() -> dict[str, Any]:
    """Claude Code's record of how long a turn took: between its closing text and the next
    request, with the client's other records of the kind."""
    return {"parentUuid": "a1", "isSidechain": False, "type": "system",
            "subtype": "turn_duration", "durationMs": 5000, "timestamp": "2026-01-01T00:00:00Z",
            "uuid": "d1", "isMeta": False}  # fmt: skip


def _looks_back(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int | None]:
    """What the closing-text walk `name` of `quick` finds where it looks back into the file
    before a chunk (in this process)."""
    looked_back: list[int | None] = []
    original = getattr(quick, name)

    def spy(data: bytes | bytearray, first: int, fed: int = 0) -> int | None:
        found: int | None = original(data, first, fed)
        if fed:
            looked_back.append(found)
        return found

    monkeypatch.setattr(quick, name, spy)
    return looked_back


_ORIGIN = "Make the uploads retry when the storage service times out"
_LAST = "big files are not finishing, the last part times out and the bar stays at ninety"


def _delay_thread(closing: str, reply: str, pad: int = 0) -> list[dict[str, Any]]:
    """A session whose last request answers what its turn asked the user to try, and
    whose request before it, in the middle (after `pad` steps of padding), is `reply` to
    the question the turn on `_ORIGIN` closed on (`closing`)."""
    middle = [*_filler(4, "h"), say("Reading on." + " x" * (pad * 48)), user(_ORIGIN),
              call("w1", "Edit", file_path=f"{APP}/src/api/upload.py", old_string="a",
                   new_string="b"), result("w1"), say(closing), _turn_end(), user(reply),
              *_filler(6, "m")]  # fmt: skip
    tail = [call("w2", "Edit", file_path=f"{APP}/src/api/upload.py", old_string="b",
                 new_string="c"), result("w2"),
            say("The delay is capped at 30 s now. Try an upload and tell me what it looks "
                "like."), _turn_end(), user(_LAST)]  # fmt: skip
    return [user("Add rate limiting to uploads"), say("Done."), *middle, *tail]


def _follows_the_thread(where: Path, records: list[dict[str, Any]], thread: str) -> None:
    """The reply to a turn's closing question is in the middle, and the capture reports the
    request left unfinished as the thread a full read traces (`thread`)."""
    where.mkdir()
    path = _write(where, records)
    raw = path.read_bytes()
    assert quick.HEAD_BYTES < raw.find(b"talk about the delay.") < len(raw) - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.unfinished is not None and full.unfinished.text == thread
    assert fast.unfinished is not None
    assert (fast.unfinished.text, fast.unfinished.why) == (
        full.unfinished.text,
        full.unfinished.why,
    )


@pytest.mark.parametrize("layout", ["as written", "sorted keys"])
def test_a_reply_in_the_middle_goes_on_with_its_thread(
    tmp_path: Path, small: None, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """The last request answers what its turn asked the user to try, and the request before
    it, in the middle, answered the question its own turn closed on ("… or talk about the
    delay?" — "talk about the delay. thirty seconds is …"): the work in hand is the request
    the thread began with, as a full read says. The middle reads the text each request's
    turn closed on — from the file before the chunk, when a chunk begins between them — so
    a reply is linked as a full read links it. Read unlinked, the capture offered the reply
    as the request (corpus planetfall-5 at shrunk sizes: "no leave level 3 alone …"). A
    provider's sorted keys (`_sorted_message`) put the closing text's own "type" after it:
    the middle of such a transcript linked no reply until it read that layout too."""
    looked_back = _looks_back(monkeypatch, "_closing_text")
    for pad in range(24):  # the chunks' boundaries fall everywhere around the reply
        records = _delay_thread(
            "The upload retries now, with a fixed delay. Want to try this pass first, or talk "
            "about the delay?",
            "talk about the delay. thirty seconds is the most any upload should wait for",
            pad,
        )
        if layout == "sorted keys":
            records = [_sorted_message(r) for r in records]
        _follows_the_thread(tmp_path / str(pad), records, f"{_ORIGIN} — {_LAST}")
    assert any(found is not None for found in looked_back)  # some chunk began in between


def test_a_reply_to_a_closing_text_typed_with_typographic_apostrophes(
    tmp_path: Path, small: None
) -> None:
    """The closing text the middle keeps is read as a full read reads it: its typographic
    apostrophe made plain (`events.plain`; Codex writes "If you’d like, …", and the sweep's
    phrases are spelt "you'd"). Read raw, "If you’d like, I can cap the delay next." asked
    nothing, and the reply to it in the middle lost its thread."""
    records = _delay_thread(
        "Retries are in, with a fixed delay. If you\u2019d like, I can cap the delay next.",
        "sure, talk about the delay. thirty seconds is the most any upload should wait for",
    )
    _follows_the_thread(tmp_path / "typographic", records, f"{_ORIGIN} — {_LAST}")


def _codex_turn(n: int, text: str) -> list[dict[str, Any]]:
    """A Codex turn's closing message and what the client writes after it, before the next
    request (as codex-cli 0.1xx rollouts have it): the message's own event, the turn's end
    and token count, the next turn's start and context."""
    return [item(n, {"type": "agent_message", "message": text}, "event_msg"),
            said(n, "assistant", text),
            item(n, {"type": "token_count", "info": None}, "event_msg"),
            item(n, {"type": "task_complete", "last_agent_message": text}, "event_msg"),
            item(n, {"type": "task_started"}, "event_msg"),
            item(n, {"cwd": APP, "approval_policy": "on-request"}, "turn_context")]  # fmt: skip


def _codex_request(n: int, text: str) -> list[dict[str, Any]]:
    return [said(n, "user", text), item(n, {"type": "user_message", "message": text}, "event_msg")]


def _codex_patch(n: int, file: str) -> list[dict[str, Any]]:
    patch = f"*** Begin Patch\n*** Update File: {file}\n@@\n-a\n+b\n*** End Patch\n"
    return [item(n, {"type": "custom_tool_call", "name": "apply_patch", "call_id": f"p{n}",
                     "input": patch}),
            item(n, {"type": "patch_apply_end", "call_id": f"p{n}", "success": True,
                     "changes": {f"{APP}/{file}": {"type": "update"}}}, "event_msg"),
            item(n, {"type": "custom_tool_call_output", "call_id": f"p{n}",
                     "output": "Success."})]  # fmt: skip


def test_a_reply_in_the_middle_of_a_codex_rollout_goes_on_with_its_thread(
    tmp_path: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`test_a_reply_in_the_middle_goes_on_with_its_thread` in a Codex rollout: the middle
    reads the message each request's turn closed on, past the client's records of the turn's
    end, so a reply is linked as a full read links it. Before, the middle of a rollout kept
    no closing message, and the capture offered the reply's thread's last words alone."""
    looked_back = _looks_back(monkeypatch, "_codex_closing_text")
    origin, last = _ORIGIN, _LAST
    for pad in range(24):
        records = [
            item(0, {"id": "s", "cwd": APP}, "session_meta"),
            *_codex_request(1, "Add rate limiting to uploads"),
            *_codex_turn(2, "Done."),
        ]
        records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(3, 40)]
        records += [*_codex_turn(40, "Reading on." + " x" * (pad * 48)),
                    *_codex_request(41, origin), *_codex_patch(42, "src/api/upload.py"),
                    *_codex_turn(43, "The upload retries now, with a fixed delay. Want to try "
                                 "this pass first, or talk about the delay?"),
                    *_codex_request(44, "talk about the delay. thirty seconds is the most any "
                                    "upload should wait for")]  # fmt: skip
        records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(45, 90)]
        records += [*_codex_patch(90, "src/api/upload.py"),
                    *_codex_turn(91, "The delay is capped at 30 s now. Try an upload and tell "
                                 "me what it looks like."), *_codex_request(92, last)]  # fmt: skip
        _follows_the_thread(tmp_path / str(pad), records, f"{origin} — {last}")
    if quick.SPLIT_FROM > 1:  # (a helper's look back is its own process's)
        assert any(found is not None for found in looked_back)  # some chunk began in between


def test_a_command_between_a_closing_text_and_a_request(tmp_path: Path, small: None) -> None:
    """A slash command between a turn's closing text and the next request leaves the turn
    open, as a full read does: the request after it answers what the text asked, and goes
    on with the thread."""
    origin = "Make the uploads retry when the storage service times out"
    middle = [*_filler(4, "h"), user(origin),
              say("The upload retries now. Want to try this pass first, or talk about the "
                  "delay?"), _turn_end(),
              user("<command-name>/model</command-name>\n<command-args></command-args>"),
              user("talk about the delay. thirty seconds is the most any upload should wait "
                   "for"), *_filler(6, "m")]  # fmt: skip
    tail = [say("The delay is capped at 30 s now. Try an upload and tell me what it looks "
                "like."), _turn_end(),
            user("big files are not finishing, the last part times out")]  # fmt: skip
    path = _write(tmp_path, [user("Add rate limiting to uploads"), say("Done."), *middle, *tail])
    raw = path.read_bytes()
    assert quick.HEAD_BYTES < raw.find(b"/model") < len(raw) - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.unfinished is not None and full.unfinished.text.startswith(origin)
    assert fast.unfinished is not None
    assert (fast.unfinished.text, fast.unfinished.why) == (
        full.unfinished.text,
        full.unfinished.why,
    )


def test_a_write_that_failed_where_the_head_ends(tmp_path: Path, small: None) -> None:
    """The head's last line is a write and its failure the middle's first: the middle reads
    the results of its own calls only, so the head's last calls' results are read from the
    lines after it. Before, such a write was a file touched, which a full read does not
    count."""
    fell_between = False
    for pad in range(40):  # the head's end falls everywhere around the call and its result
        records = [user("Rename the settings module everywhere"), *_filler(3, "h"),
                   say("On it." + " x" * (pad * 20)),
                   call("w1", "Edit", file_path=f"{APP}/src/api/broken.py", old_string="a"),
                   result("w1", "String to replace not found in file.", error=True),
                   *_filler(8, "m"),
                   call("w2", "Edit", file_path=f"{APP}/src/api/upload.py", old_string="a"),
                   result("w2"), *_filler(6, "t")]  # fmt: skip
        (tmp_path / str(pad)).mkdir()
        path = _write(tmp_path / str(pad), records)
        raw = path.read_bytes()
        head_end = quick._line_start(path, quick.HEAD_BYTES)
        fell_between |= raw.find(b'"id":"w1"') < head_end <= raw.find(b'"tool_use_id":"w1"')
        full, fast = analyze(path), quick.analyze_quick(path)
        assert full.written_files == [f"{APP}/src/api/upload.py"]
        assert fast.written_files == full.written_files, pad
        assert fast.written_weights == full.written_weights
    assert fell_between


@pytest.mark.parametrize("where", ["the head's end", "the tail's start"])
def test_a_command_and_its_prompt_on_either_side_of_a_boundary(
    tmp_path: Path, small: None, where: str
) -> None:
    """A slash command, and the prompt it expands to on the next line (`isMeta`): read
    after the command, the prompt is the command's work (`CommandPrompt`: its words name
    the Goal when it opens the session, and are the request when it is the last). Each
    part of the capture reads with a parser of its own; where one began between the two
    lines, the prompt was read as no one's (a real corpus session, wwbm-3, at shrunk sizes:
    the Goal was the request after it, not "Generate documentation for this project.")."""
    command = user(
        "<command-message>update-docs</command-message>\n"
        "<command-name>/update-docs</command-name>\n<command-args></command-args>"
    )
    fell_between = False
    for pad in range(30):
        words = "Generate documentation for the upload service, one page per endpoint."
        if where == "the head's end":
            prompt = user([{"type": "text", "text": f"{words}\n"}], isMeta=True)
            records = [*_filler(3, "h"), say("Reading on." + " x" * (pad * 24)), command,
                       prompt, say("Writing the pages."), *_filler(8, "m"),
                       user("Make the uploads retry on timeouts"), *_filler(6, "t")]  # fmt: skip
        else:  # the session ends on it: the turn's end records after, no reply
            prompt = user([{"type": "text", "text": f"{words}\n" + " Keep it short." * pad}],
                          isMeta=True)  # fmt: skip
            records = [user("Make the uploads retry on timeouts"), *_filler(8, "h"),
                       *_filler(8, "m"), command, prompt, *[_turn_end()] * 34]  # fmt: skip
        (tmp_path / str(pad)).mkdir()
        path = _write(tmp_path / str(pad), records)
        raw = path.read_bytes()
        size = len(raw)
        boundary = (
            quick._line_start(path, quick.HEAD_BYTES)
            if where == "the head's end"
            else quick._line_start(path, size - quick.TAIL_BYTES)
        )
        fell_between |= raw.find(b"<command-name>") < boundary <= raw.find(b'"isMeta":true')
        full, fast = analyze(path), quick.analyze_quick(path)
        assert full.goal is not None
        if where == "the head's end":
            assert full.goal.startswith("Generate documentation for the upload service")
        else:
            assert full.unfinished is not None and "upload service" in full.unfinished.text
        assert fast.goal == full.goal, pad
        assert fast.last_request == full.last_request, pad
        unfinished = [u and (u.text, u.why) for u in (full.unfinished, fast.unfinished)]
        assert unfinished[1] == unfinished[0], pad
    assert fell_between


def test_a_long_writes_failure_is_read_past_its_content(tmp_path: Path, small: None) -> None:
    """A Write's line holds the file's text: its result is looked for from where the line
    ends. Looked for from where it began, a rejected Write longer than the window was a file
    touched (the files table weighed it, a full read does not)."""
    big = "x = 1\n" * (quick._RESULT_WINDOW // 4)
    records = _session()
    at = next(n for n, r in enumerate(records) if "w3" in json.dumps(r))
    failed = [
        call("wb", "Write", file_path=f"{APP}/src/api/rejected.py", content=big),
        result("wb", "The user doesn't want to proceed with this tool use.", error=True),
    ]
    path = _write(tmp_path, records[:at] + failed + records[at:])
    full, fast = analyze(path), quick.analyze_quick(path)
    assert f"{APP}/src/api/rejected.py" not in full.written_files
    assert fast.written_files == full.written_files
    assert fast.written_weights == full.written_weights


def _both_reads(
    tmp_path: Path, records: list[dict[str, Any]], middle: bytes
) -> tuple[TranscriptFacts, TranscriptFacts]:
    """The full and the quick read of a transcript whose bytes `middle` lie in its middle."""
    path = _write(tmp_path, records)
    at = path.read_bytes().find(middle)
    assert quick.HEAD_BYTES < at < path.stat().st_size - quick.TAIL_BYTES
    return analyze(path), quick.analyze_quick(path)


def test_a_codex_patch_whose_text_commits_is_counted_once(tmp_path: Path, small: None) -> None:
    """A patch whose text says "git commit" (a plan's steps, a script) is read as a call that
    may commit, and its answer looked for: the first line with its id is Codex's
    `patch_apply_end`, which the scan keeps too. Fed twice, the second one found no claim and
    counted the file again."""

    patch = ("*** Begin Patch\n*** Add File: PLAN.md\n+1. Run the tests\n"
             "+2. git commit -m 'Ship it'\n*** End Patch\n")  # fmt: skip
    records = [item(0, {"id": "s", "cwd": APP}, "session_meta")]
    records += [said(1, "user", "Write the release plan down")]
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(2, 30)]
    records += [
        item(30, {"type": "custom_tool_call", "name": "apply_patch", "call_id": "p1",
                  "input": patch}),
        item(30, {"type": "patch_apply_end", "call_id": "p1", "success": True,
                  "changes": {f"{APP}/PLAN.md": {"type": "add"}}}, "event_msg"),
        item(30, {"type": "custom_tool_call_output", "call_id": "p1",
                  "output": "Success. Updated the following files:\nA PLAN.md"}),
    ]  # fmt: skip
    records += [said(n, "assistant", f"{FILLER} ({n})") for n in range(31, 70)]
    full, fast = _both_reads(tmp_path, records, b"patch_apply_end")
    assert full.written_weights == {f"{APP}/PLAN.md": 1}
    assert fast.written_weights == full.written_weights


def test_a_codex_patch_that_failed_in_the_middle_wrote_nothing(tmp_path: Path, small: None) -> None:
    """A patch whose hunks did not fit: Codex says so only in the call's output, with no
    `patch_apply_end`, so the middle reads the output of a patch with the call (as a full
    read does). Patches that applied, on either side of where a helper splits the middle,
    are each counted once: their `patch_apply_end` is the line the scan keeps."""
    records = [item(0, {"id": "s", "cwd": APP}, "session_meta")]
    records += [said(1, "user", "Fix the uploads")]
    for n in range(2, 60):
        records += [said(n, "assistant", f"{FILLER} ({n})"), *_codex_patch(n, "src/a.py")]
    failed = "*** Begin Patch\n*** Update File: src/b.py\n@@\n-x\n+y\n*** End Patch\n"
    records[60:60] = [
        item(30, {"type": "custom_tool_call", "name": "apply_patch", "call_id": "bad",
                  "input": failed}),
        item(30, {"type": "custom_tool_call_output", "call_id": "bad", "output":
                  f"apply_patch verification failed: Failed to find expected lines in "
                  f"{APP}/src/b.py:\nx"}),
    ]  # fmt: skip
    full, fast = _both_reads(tmp_path, records, b"verification failed")
    assert full.written_weights == {f"{APP}/src/a.py": 58}
    assert fast.written_weights == full.written_weights


def test_a_claude_goal_set_in_the_middle_is_the_goal(tmp_path: Path, small: None) -> None:
    """Claude Code's `/goal`, set in the middle of a big transcript (its `goal_status`
    attachment): the condition is the Goal, as a full read has it; the quick read found no
    attachment in the middle."""
    condition = "make the upload retries jittered"
    goal = [_goal_status(met=False, sentinel=True, condition=condition), say("On it.")]
    path = _write(tmp_path, _long_last_turn(goal))
    raw = path.read_bytes()
    assert quick.HEAD_BYTES < raw.find(b"goal_status") < len(raw) - quick.TAIL_BYTES
    full, fast = analyze(path), quick.analyze_quick(path)
    assert full.goal == f"{condition} (/goal)"
    assert fast.goal == full.goal

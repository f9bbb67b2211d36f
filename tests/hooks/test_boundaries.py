"""Every boundary keeps the session (issue 20), and round two of the adversarial defects at
them (issue 21 #1–#5): plan-approval clears, compaction, Codex's /clear, the capture's
budget, racing hooks, a dump recognised by its session, unreadable text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from session_skill.hooks import capture, pre_compact
from session_skill.hooks import session_end as hook_end
from session_skill.hooks import session_start as hook
from tests.conftest import RunCli, write_doc
from tests.hooks.test_session_end import (
    REPO,
    SESSION,
    _record,
    _result,
    _say,
    _tool,
    _user,
    _write,
    end,
    end_payload,
    latest,
    meta,
    new_docs,
    start,
    store,
    work_transcript,
)

PLAN = "# Add retry backoff\n\n1. Wrap the HTTP call in a retry loop.\n2. Add jitter.\n"


def _context(out: dict[str, object] | None) -> str:
    assert out is not None
    return out["hookSpecificOutput"]["additionalContext"]  # type: ignore[index, no-any-return]


# -- plan approval that clears context (§1) ----------------------------------------------
def plan_transcript(root: Path, tmp: Path, rejected: bool) -> Path:
    """What a plan approved with "Yes, clear context" leaves: the transcript ends on
    ExitPlanMode; its refusal and the interrupt may be written only after SessionEnd (seen
    in 2.1.328, tests/e2e/BOUNDARIES.md)."""
    plan_file = str(tmp / "home" / ".claude" / "plans" / "quiet-river.md")
    records = [
        _user("Plan the retry backoff for the upload client"),
        _tool("Write", {"file_path": plan_file, "content": PLAN}, 2),
        _result(2, f"File created successfully at: {plan_file}"),
        _tool("ExitPlanMode", {"plan": PLAN, "planFilePath": plan_file}, 4),
    ]
    if rejected:
        records += [
            _result(
                4,
                "The user doesn't want to proceed with this tool use.",
                {"toolDenialKind": "user-rejected"},
            ),  # fmt: skip
            _user("[Request interrupted by user for tool use]"),
        ]
    return _write(tmp / "plan.jsonl", root, records)


@pytest.mark.parametrize("rejected", [False, True], ids=["as-at-SessionEnd", "with-refusal"])
def test_a_plan_approved_with_clear_context_is_saved_as_the_plan(
    root: Path, tmp_path: Path, rejected: bool
) -> None:
    out = end(root, plan_transcript(root, tmp_path, rejected))
    assert "the plan approval cleared the context" in json.loads(out)["systemMessage"]
    doc = store(root) / f"{latest(root)}.md"
    m = meta(doc)
    assert m["trigger"] == "plan-approval" and m["plan_file"].endswith("quiet-river.md")
    text = doc.read_text()
    assert "## Goal\nCarry out the approved plan “Add retry backoff”" in text
    assert "## Plan\n### Add retry backoff\n\n1. Wrap the HTTP call" in text  # two levels down
    assert "## Next step\nImplement the approved plan “Add retry backoff”, step by step" in text
    # The plan is the next session's work, and the request it answers is still to do: open,
    # not "the transcript ends in the middle of the work".
    assert (
        "## Outstanding\n- Plan the retry backoff for the upload client (Unfinished task)" in text
    )
    assert "middle of the work" not in text and "interrupted" not in text


@pytest.mark.parametrize("auto", ["notice", "inject"])
def test_the_plan_clear_is_pointed_at_never_a_second_copy_of_the_plan(
    root: Path, tmp_path: Path, cli: RunCli, auto: str
) -> None:
    assert cli("config", "set", "auto", auto).code == 0
    end(root, plan_transcript(root, tmp_path, rejected=False))
    slug = latest(root)
    out = start(root)
    context = _context(out)
    assert context.startswith(f"`/session recall {slug}` loads the automatic handover `{slug}`")
    assert "plan approval cleared the context" in context
    assert "Wrap the HTTP call" not in context and "no /session dump ran" not in context
    assert len(context) <= hook.NOTICE_LIMIT
    doc = store(root) / f"{slug}.md"
    assert meta(doc)["consumed"] == "false" and "noticed_at" in meta(doc)
    assert start(root) is None  # once


def test_a_dump_before_the_plan_approval_wins(root: Path, tmp_path: Path, cli: RunCli) -> None:
    body = "## Goal\nShip the retry work.\n\n## Next step\nRun the tests.\n"
    assert cli("dump", "retry-work", "--file", "-", "--session-id", SESSION, input=body).code == 0
    assert end(root, plan_transcript(root, tmp_path, rejected=True)) == ""
    assert latest(root) == "retry-work"


# -- compaction (§2) ------------------------------------------------------------------------
def compact_payload(root: Path, transcript: Path, trigger: str = "manual") -> bytes:
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": str(transcript),
            "cwd": str(root),
            "hook_event_name": "PreCompact",
            "trigger": trigger,
            "custom_instructions": None,
        }
    ).encode()


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_pre_compact_saves_the_session_and_asks_the_summary_to_keep_it(
    root: Path, tmp_path: Path, trigger: str
) -> None:
    write_doc(store(root), "pending-dump", created="2026-11-29T18:25:00Z")
    (store(root) / "LATEST").write_text("pending-dump\n")
    out = pre_compact.run(compact_payload(root, work_transcript(root, tmp_path), trigger),
                          env=dict(os.environ))  # fmt: skip
    assert out == pre_compact.INSTRUCTIONS + "\n"  # added to the compaction's instructions
    assert latest(root) == "pending-dump"  # the session goes on: nothing pending for /clear
    (doc,) = [p for p in store(root).glob("*.md") if p.name not in ("pending-dump.md", "PARKED.md")]
    m = meta(doc)
    assert (m["trigger"], m["compaction"], m["session_id"]) == ("compact", trigger, SESSION)
    assert "Make login() reject expired tokens" in doc.read_text()
    # Codex reads nothing of a PreCompact hook's stdout: it prints none there.
    codex = pre_compact.run(compact_payload(root, tmp_path / "work.jsonl"),
                            env={**os.environ, "SESSION_SKILL_AGENT": "codex"})  # fmt: skip
    assert codex == ""


def compact_start(root: Path, session: str = "next") -> dict[str, object] | None:
    payload = json.dumps({"session_id": session, "cwd": str(root),
                          "hook_event_name": "SessionStart", "source": "compact"})  # fmt: skip
    out = hook.run(payload.encode(), env=dict(os.environ))
    return json.loads(out) if out else None


def test_after_compaction_what_the_summary_drops_comes_back_once_and_small(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    assert compact_start(root) is None  # nothing stored: nothing said
    decisions = "\n".join(f"- decision {n} — why: reason {n}" for n in range(60))
    body = (
        "## Goal\nMake the cache survive restarts.\n\n## Decisions\n"
        f"{decisions}\n\n## Next step\nWarm it on start.\n"
    )
    assert cli("dump", "cache-work", "--file", "-", input=body).code == 0
    assert start(root) is not None  # /clear: restored into session "next"
    assert meta(store(root) / "cache-work.md")["restored_in"] == "next"
    for idea in ("retry backoff with jitter", "split the exporter", "cache warmup order",
                 "rotate the staging keys"):  # fmt: skip
        assert cli("park", idea).code == 0
    payload = compact_payload(root, work_transcript(root, tmp_path)).replace(
        SESSION.encode(), b"next"
    )
    pre_compact.run(payload, env=dict(os.environ))
    out = compact_start(root)
    context = _context(out)
    assert context.startswith("Context was compacted.") and len(context) <= 2_000
    assert "`cache-work` restored earlier in this session" in context
    assert "Make the cache survive restarts." in context and "Warm it on start." in context
    assert "Parked items: 4 open — **rotate-the-staging-keys**" in context
    (saved,) = [m["slug"] for m in map(meta, new_docs(root)) if m.get("trigger") == "compact"]
    assert f"The state before this compaction is saved as `{saved}`" in context
    assert "cache-work" in out["systemMessage"]  # type: ignore[index]
    # A second compaction (later: the plugin's and a project's hook of one compaction come
    # within seconds, and only the first speaks) replaces the first's context: the same
    # size, not more.
    _later(root)
    again = _context(compact_start(root))
    assert abs(len(again) - len(context)) < 40
    # Another session's compaction is not given this one's handover.
    other = _context(compact_start(root, "someone-else"))
    assert "cache-work" not in other and "Parked items: 4 open" in other


def test_after_compaction_a_capture_still_writing_is_said(root: Path) -> None:
    """PreCompact's capture of a long transcript runs on past the hook: SessionStart(compact)
    says the doc is on its way, where it said nothing (and the summary was told "saved")."""
    store(root).mkdir(parents=True, exist_ok=True)
    held = capture.claim(str(store(root)), f"next{capture.COMPACT}")
    assert held is not None
    try:
        context = _context(compact_start(root))
    finally:
        capture.release(held)
    assert "The state before this compaction is still being saved as a handover" in context
    assert compact_start(root) is None  # nothing written, nothing running: nothing said
    assert "is saving the state" in pre_compact.INSTRUCTIONS


def test_two_installs_pre_compact_hooks_save_one_compaction_once(
    root: Path, tmp_path: Path
) -> None:
    """Both installs' PreCompact hooks run for one compaction: the second, coming after the
    first's capture ended, wrote a second doc of the same session (`<slug>-2`). It finds
    the first — written seconds ago, nothing typed since, though the client added a record
    of the first hook. The next compaction, after a request or minutes later, is saved."""

    def compactions() -> list[Path]:
        capture.wait_for_captures(str(store(root)))
        return [p for p in new_docs(root) if meta(p).get("trigger") == "compact"]

    transcript = work_transcript(root, tmp_path)
    payload = compact_payload(root, transcript)
    assert pre_compact.run(payload, env=dict(os.environ)) == pre_compact.INSTRUCTIONS + "\n"
    (first,) = compactions()
    with transcript.open("a", encoding="utf-8") as fh:  # the client's record of the hook
        fh.write(json.dumps({"type": "progress", "data": {"type": "hook_progress"}}) + "\n")
    assert pre_compact.run(payload, env=dict(os.environ)) == pre_compact.INSTRUCTIONS + "\n"
    assert compactions() == [first]

    then = time.time() - 120  # the context filled again, minutes later
    os.utime(first, (then, then))
    pre_compact.run(payload, env=dict(os.environ))
    assert len(compactions()) == 2
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(_record("user", 99, root, **_user("now add jitter")[1])) + "\n")
    pre_compact.run(payload, env=dict(os.environ))
    assert len(compactions()) == 3  # a request typed since: new work


def _later(root: Path) -> None:
    """Time passes after the SessionStart answers: their records (`.given`) are a minute old."""
    given = store(root) / ".given"
    lines = given.read_text(encoding="utf-8").splitlines()
    older = [f"{float(w) - 60:.3f} {rest}" for w, _, rest in (ln.partition(" ") for ln in lines)]
    given.write_text("".join(f"{ln}\n" for ln in older), encoding="utf-8")


def test_two_installs_hooks_give_one_compactions_context_once(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    """The plugin and a project install both in place: Claude Code runs both SessionStart
    hooks. After a compaction each gave the parked items and the handover back — twice the
    tokens on every request after it. The first hook gives it, the second stays silent; a
    later compaction, or another session, is given its own."""
    assert cli("park", "retry backoff with jitter").code == 0
    first = compact_start(root)
    assert "Parked items: 1 open" in _context(first)
    assert compact_start(root) is None  # the other install's hook of the same compaction
    assert "Parked items: 1 open" in _context(compact_start(root, "someone-else"))
    assert cli("park", "split the exporter").code == 0
    assert compact_start(root) is None  # whatever the other hook's text: one answer
    _later(root)
    assert "Parked items: 2 open" in _context(compact_start(root))  # the next compaction

    (store(root) / ".given").write_bytes(b"\xff\xfe garbage\n\nnot a line\n")
    assert compact_start(root, "third") is not None  # a record it cannot read: answered


def test_after_compaction_a_big_handover_never_cuts_the_lines_after_it(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    from session_skill.hooks import after_compact

    long = " ".join(f"clause{n} of the plan" for n in range(60))
    decisions = "\n".join(f"- decision {n} about {long[:120]} — why: reason {n}" for n in range(12))
    body = f"## Goal\n{long}\n\n## Decisions\n{decisions}\n\n## Next step\n{long}\n"
    assert cli("dump", "big-work", "--file", "-", input=body).code == 0
    assert start(root) is not None  # restored into session "next"
    for n in range(6):
        assert cli("park", f"idea number {n} with a long enough name to fill the line").code == 0
    pre_compact.run(
        compact_payload(root, work_transcript(root, tmp_path)).replace(SESSION.encode(), b"next"),
        env=dict(os.environ),
    )
    context = _context(compact_start(root))
    assert len(context) <= after_compact.LIMIT
    assert context.splitlines()[-1].endswith("shows them.")  # the parked line, whole
    assert "The state before this compaction is saved as `" in context
    # A handover with none of the four sections gives its head.
    assert after_compact._sections("## Summary\nShipped it.\n", 200) == "## Summary\nShipped it."


def test_recall_records_the_session_it_restores_into(
    root: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "## Goal\nShip it.\n\n## Next step\nTag the release.\n"
    assert cli("dump", "ship", "--file", "-", input=body).code == 0
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "live-session")
    assert cli("recall", "ship").code == 0
    assert meta(store(root) / "ship.md")["restored_in"] == "live-session"


# -- Codex's /clear (§4) --------------------------------------------------------------------
def _rollout(path: Path, cwd: Path, thread: str, request: str) -> Path:
    def message(role: str, kind: str, text: str) -> dict[str, object]:
        content = [{"type": kind, "text": text}]
        return {"type": "response_item",
                "payload": {"type": "message", "role": role, "content": content}}  # fmt: skip

    rows = [
        {"type": "session_meta", "payload": {"id": thread, "cwd": str(cwd)}},
        message("user", "input_text", request),
        message("assistant", "output_text", "Done. Want me to also add a changelog line?"),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps({"timestamp": "2026-11-29T18:20:00Z", **r})
                              for r in rows) + "\n")  # fmt: skip
    return path


OLD_THREAD = "019a0000-0000-7000-8000-0000000000a1"


def _codex_clear(root: Path, tmp_path: Path) -> tuple[bytes, dict[str, str]]:
    """A Codex SessionStart(clear) whose project left thread OLD_THREAD (another project's
    thread beside it): its payload and environment."""
    day = tmp_path / "codex" / "sessions" / "2026" / "11" / "29"
    old, new = OLD_THREAD, "019a0000-0000-7000-8000-0000000000b2"
    _rollout(day / f"rollout-2026-11-29T18-20-00-{old}.jsonl", root, old, "Add the healthz route")
    elsewhere = "019a0000-0000-7000-8000-0000000000c3"
    _rollout(day / f"rollout-2026-11-29T18-21-00-{elsewhere}.jsonl", tmp_path / "other", elsewhere,
             "Unrelated project")  # fmt: skip
    fresh = day / f"rollout-2026-11-29T18-30-00-{new}.jsonl"
    fresh.write_text(
        json.dumps({"type": "session_meta", "payload": {"id": new, "cwd": str(root)}}) + "\n"
    )
    payload = json.dumps({"session_id": new, "transcript_path": str(fresh), "cwd": str(root),
                          "hook_event_name": "SessionStart", "model": "m",
                          "permission_mode": "default", "source": "clear"}).encode()  # fmt: skip
    return payload, {**os.environ, "SESSION_SKILL_AGENT": "codex"}


def test_codex_clear_captures_the_thread_it_left_once(root: Path, tmp_path: Path) -> None:
    payload, env = _codex_clear(root, tmp_path)
    old = OLD_THREAD
    settings = root / ".claude" / "session-skill.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"auto": "off"}')
    assert hook.run(payload, env=env) == ""  # auto off: nothing written
    assert not store(root).exists() or not list(store(root).glob("*.md"))
    settings.unlink()
    context = _context(json.loads(hook.run(payload, env=env)))
    slug = latest(root)
    assert context.startswith(f"`$session recall {slug}` loads the automatic handover")
    m = meta(store(root) / f"{slug}.md")
    assert (m["trigger"], m["session_id"]) == ("session-end", old)
    assert "Add the healthz route" in (store(root) / f"{slug}.md").read_text()
    assert hook.run(payload, env=env) == ""  # once: not captured again, not told again
    assert len([p for p in store(root).glob("*.md") if p.name != "PARKED.md"]) == 1


def test_codex_clear_captures_the_thread_written_last_not_begun_last(
    root: Path, tmp_path: Path
) -> None:
    """The thread /clear left is this project's rollout written last: one begun later in
    another terminal and idle since was taken for it (by the name, the thread's start), and
    so was any thread begun after a `codex resume`d one, whose rollout is in its first
    day's folder. The thread left was never saved."""
    payload, env = _codex_clear(root, tmp_path)
    sessions = tmp_path / "codex" / "sessions"
    idle = "019a0000-0000-7000-8000-0000000000d4"
    later = _rollout(sessions / "2026" / "11" / "29" / f"rollout-2026-11-29T18-25-00-{idle}.jsonl",
                     root, idle, "Fix the README typo")  # fmt: skip
    resumed = "019a0000-0000-7000-8000-0000000000e5"
    first_day = sessions / "2026" / "11" / "20" / f"rollout-2026-11-20T09-00-00-{resumed}.jsonl"
    _rollout(first_day, root, resumed, "Migrate the payments module to the ledger API")
    old = sessions / "2026" / "11" / "29" / f"rollout-2026-11-29T18-20-00-{OLD_THREAD}.jsonl"
    os.utime(old, (1_000, 1_000))
    os.utime(later, (2_000, 2_000))  # idle since it began, before the resumed one went on
    context = _context(json.loads(hook.run(payload, env=env)))
    slug = latest(root)
    assert f"`$session recall {slug}`" in context
    assert meta(store(root) / f"{slug}.md")["session_id"] == resumed
    assert "ledger API" in (store(root) / f"{slug}.md").read_text()


def test_a_codex_capture_that_fails_is_said_and_the_restore_goes_on(
    root: Path, tmp_path: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "## Goal\nShip it.\n\n## Next step\nTag the release.\n"
    assert cli("dump", "ship", "--file", "-", input=body).code == 0  # pending, from elsewhere
    payload, env = _codex_clear(root, tmp_path)

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(capture, "write_doc", broken)
    out = json.loads(hook.run(payload, env=env))
    context = _context(out)
    assert "Tag the release." in context  # the pending handover is restored all the same
    retry = f"session-skill dump --extractive --session-id {OLD_THREAD}"
    assert "(OSError: disk full)" in context and retry in context
    assert retry in out["systemMessage"]
    assert capture.running(str(store(root))) == []  # the claim is released


# -- the budget (§3), racing hooks and a dump recognised by its session (issue 21) -----------
def test_only_an_ended_sessions_capture_is_waited_for_at_a_clear(root: Path) -> None:
    compacting = capture.claim(str(store(root)), f"{SESSION}{capture.COMPACT}")
    assert compacting is not None
    try:
        # A compaction still being saved is no cleared conversation on its way.
        assert start(root) is None
    finally:
        capture.release(compacting)
    ending = capture.claim(str(store(root)), SESSION)
    assert ending is not None
    try:
        assert start(root, "startup") is None  # nothing was cleared at a startup
        assert "still writing the automatic handover" in _context(start(root))
    finally:
        capture.release(ending)


def test_a_capture_past_the_budget_finishes_detached_and_the_next_start_says_so(
    root: Path, detaching: None, tmp_path: Path
) -> None:
    held = capture.claim(str(store(root)), SESSION)
    assert held is not None
    done = tmp_path / "done"
    started = time.monotonic()

    def slow() -> str:
        time.sleep(1.5)
        done.write_text("written")
        return "late"

    assert capture.detached(slow, held, budget=0.3) == ""  # still running: the hook returns
    assert time.monotonic() - started < 1.2
    assert capture.running(str(store(root))) == [SESSION]
    out = start(root)  # it waits ≤ 0.3 s, then says the handover is on its way
    assert "still writing the automatic handover" in _context(out)
    deadline = time.monotonic() + 10
    while not done.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert done.read_text() == "written"
    while capture.running(str(store(root))) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert capture.running(str(store(root))) == []  # the marker goes with it


def test_a_detached_capture_keeps_the_patterns_it_compiled(
    root: Path, detaching: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child ends in os._exit (no exit handlers): it saves the regex cache itself."""
    from session_skill import recache

    cache = tmp_path / "cache" / "recache.marshal"
    monkeypatch.setattr(recache, "path", lambda: str(cache))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(recache, "_loaded", {})
    monkeypatch.setattr(recache, "_used", {})
    monkeypatch.setattr(recache, "_dirty", False)
    held = capture.claim(str(store(root)), SESSION)
    assert held is not None

    def job() -> str:
        recache.compile(r"\bonly in the child\b", 0)
        return ""

    assert capture.detached(job, held) == ""
    deadline = time.monotonic() + 10
    while not cache.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cache.is_file()
    assert not recache._dirty  # this process compiled nothing: the child wrote it


def test_a_capture_that_fails_in_time_is_said_like_an_inline_one(
    root: Path, detaching: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.errors import SessionError

    # A slow release: the marker must be gone when the hook has read the child's answer, or
    # the next SessionStart says the capture is still writing (the child releases it first).
    release = capture.release
    monkeypatch.setattr(capture, "release", lambda held: (time.sleep(0.3), release(held)))
    held = capture.claim(str(store(root)), SESSION)
    assert held is not None

    def boom() -> str:
        raise SessionError("the store is locked by another process: x")

    with pytest.raises(SessionError, match="the store is locked"):
        capture.detached(boom, held, budget=10)  # in time, however loaded the machine
    assert capture.running(str(store(root))) == []
    # …and the next start says it: the hook's stderr line alone is discarded at SessionEnd.
    context = _context(start(root))
    assert "could not save the automatic handover" in context and "the store is locked" in context


def test_a_capture_that_fails_after_the_budget_is_said_at_the_next_start_once(
    root: Path, detaching: None, tmp_path: Path, cli: RunCli
) -> None:
    from session_skill.errors import SessionError

    held = capture.claim(str(store(root)), SESSION)
    assert held is not None

    def late_boom() -> str:
        time.sleep(0.6)
        raise SessionError("disk full while writing the doc")

    assert capture.detached(late_boom, held, budget=0.1) == ""  # the hook is long gone
    deadline = time.monotonic() + 10
    while capture.running(str(store(root))) and time.monotonic() < deadline:
        time.sleep(0.05)
    while not (store(root) / capture.FAILED).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert capture.running(str(store(root))) == []  # the note is no running capture
    # A dump pending too: both are said, the failure after the restore.
    assert (
        cli("dump", "other-work", "--file", "-", input="## Goal\nG.\n\n## Next step\nN.\n").code
        == 0
    )
    out = start(root)
    assert out is not None
    context = _context(out)
    assert context.index("other-work") < context.index("could not save the automatic handover")
    assert f"session-skill dump --extractive --session-id {SESSION}" in context
    assert "disk full while writing the doc" in out["systemMessage"]  # type: ignore[operator]
    assert "restored handover `other-work`" in out["systemMessage"]  # type: ignore[operator]
    assert start(root) is None  # once


def test_racing_session_end_hooks_capture_the_session_once(root: Path, tmp_path: Path) -> None:
    # A plugin's hook and a project install's both fire for one ending session.
    payload = end_payload(root, work_transcript(root, tmp_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_PROJECT")}
    env["PYTHONPATH"] = str(REPO)
    cmd = [sys.executable, "-m", "session_skill", "hook", "session-end"]
    pipe = subprocess.PIPE
    procs = [
        subprocess.Popen(cmd, stdin=pipe, stdout=pipe, stderr=pipe, env=env, cwd=root)
        for _ in range(3)
    ]
    for p in procs:
        p.communicate(payload, timeout=60)
    docs = [p for p in store(root).glob("*.md") if p.name != "PARKED.md"]
    assert len(docs) == 1, [d.name for d in docs]
    assert end(root, tmp_path / "work.jsonl") == ""  # captured already: not again


def test_a_dump_is_recognised_by_its_session_whatever_latest_says(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    body = "## Goal\nSession A's work.\n\n## Next step\nFinish it.\n"
    assert cli("dump", "a-work", "--file", "-", "--session-id", SESSION, input=body).code == 0
    # Session B, in another terminal, /clears first: its automatic doc takes LATEST.
    other = work_transcript(root, tmp_path, "b.jsonl")
    hook_end.run(end_payload(root, other, session_id="bbbb-other"), env=dict(os.environ))
    assert latest(root) != "a-work"
    # Then A /clears: its own dump wins, and its fresh session gets it.
    assert end(root, work_transcript(root, tmp_path)) == ""
    assert latest(root) == "a-work"
    assert "Session A's work." in _context(start(root))


# -- text that cannot be read as it is (issue 21 #1, #2) ------------------------------------
def test_a_parked_file_that_is_not_utf8_does_not_lose_the_session(
    root: Path, tmp_path: Path
) -> None:
    store(root).mkdir(parents=True, exist_ok=True)
    (store(root) / "PARKED.md").write_bytes(b"# Parked items\n\n- **caf\xe9** \xe0 revoir\n")
    out = end(root, work_transcript(root, tmp_path))
    assert "systemMessage" in out
    slug = latest(root)
    assert "PARKED.md" in meta(store(root) / f"{slug}.md")["skipped"]
    message = start(root)["systemMessage"]  # type: ignore[index]
    assert "(note:" in message and "not UTF-8" in message  # said where the user sees it
    assert (store(root) / "PARKED.md").read_bytes().endswith(b"\xe0 revoir\n")  # untouched


def test_unreadable_lines_of_the_transcript_are_said(root: Path, tmp_path: Path) -> None:
    transcript = work_transcript(root, tmp_path)
    lines = transcript.read_text(encoding="utf-8").splitlines()
    transcript.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    assert "systemMessage" in end(root, transcript)
    slug = latest(root)
    assert meta(store(root) / f"{slug}.md")["skipped"] == "1 unreadable line of the transcript"
    message = start(root)["systemMessage"]  # type: ignore[index]
    assert "(note: 1 unreadable line of the transcript)" in message


def test_the_middle_of_a_huge_transcript_is_said_to_be_left_out(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.transcripts import quick

    transcript = work_transcript(root, tmp_path)
    size = transcript.stat().st_size
    # As if it were past the size read whole, with a middle between its head and tail.
    monkeypatch.setattr(quick, "QUICK_FROM", size // 2)
    monkeypatch.setattr(quick, "HEAD_BYTES", size // 8)
    monkeypatch.setattr(quick, "TAIL_BYTES", size // 8)
    end(root, transcript)
    said = meta(store(root) / f"{latest(root)}.md")["skipped"]
    assert said == (
        "the middle of the 0 MB transcript, read for files, tasks, the plan, commits and "
        "requests only, not for loose ends"
    )


def test_lone_surrogates_are_read_safely_everywhere(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    raw = [
        _user("fix the \ud800 parser"),
        _tool(
            "TodoWrite",
            {"todos": [{"content": "step \udc00 one", "status": "pending", "activeForm": "x"}]},
            2,
        ),  # fmt: skip
        _result(2, "out \udbff put"),
        _say("Done. Want me to also handle \ud834 input?", 4),
    ]
    transcript = _write(tmp_path / "sur.jsonl", root, raw)
    assert "\\ud800" in transcript.read_text()  # as JSON.stringify writes one
    r = cli("sweep", "--transcript", str(transcript))
    assert r.code == 0 and "step \ufffd one" in r.out, r
    r = cli("dump", "--extractive", "--transcript", str(transcript))
    assert r.code == 0, r
    assert "systemMessage" in hook_end.run(
        end_payload(root, transcript, session_id="sur"), env=dict(os.environ)
    )


# -- a dump written for the next session beside a capture (e2e phase 2) --------------------
def test_a_dump_waiting_beside_the_capture_is_named_not_hidden(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    # Dumped elsewhere (another terminal, another client), not restored yet; this session
    # worked on and cleared: its capture takes LATEST, and the notice names the dump.
    body = "## Goal\nRetry the uploads.\n\n## Next step\nAdd jitter.\n"
    assert cli("dump", "retry-work", "--file", "-", input=body).code == 0
    end(root, work_transcript(root, tmp_path))
    assert meta(store(root) / f"{latest(root)}.md")["trigger"] == "session-end"
    out = start(root)
    context = _context(out)
    assert "The handover `retry-work` dumped <1 min ago is pending too" in context
    assert "`/session recall retry-work` loads it" in context
    assert "`retry-work`" in out["systemMessage"]  # type: ignore[index, operator]
    assert meta(store(root) / "retry-work.md")["consumed"] == "false"


@pytest.mark.parametrize("said", ["hello", "read CLAUDE.md and get familiar with the codebase"])
def test_a_greeting_answered_is_no_handover_and_the_waiting_dump_is_restored(
    root: Path, tmp_path: Path, cli: RunCli, said: str
) -> None:
    """A greeting, or getting to know the project, answered: nothing to hand over, and the
    dump waiting for the next session stays LATEST."""
    body = "## Goal\nRetry the uploads.\n\n## Next step\nAdd jitter.\n"
    assert cli("dump", "retry-work", "--file", "-", input=body).code == 0
    hello = _write(tmp_path / "hello.jsonl", root, [_user(said), _say("Noted.", 2)])
    assert end(root, hello) == ""
    assert latest(root) == "retry-work" and len(new_docs(root)) == 1
    assert "Retry the uploads." in _context(start(root))


# -- automatic handovers passed over, one after another --------------------------------------
def section(doc: Path, title: str) -> str:
    from session_skill.handover.doc import section_content

    return section_content(doc.read_text(encoding="utf-8"), title).strip()


def _cleared(root: Path, tmp_path: Path, n: int, said: str) -> tuple[str, str]:
    """A session that left a question open, cleared; the next session's notice."""
    records = [_user(said), _say(f"Done. Should I also cover case {n}?", 2)]
    transcript = _write(tmp_path / f"s{n}.jsonl", root, records)
    hook_end.run(end_payload(root, transcript, session_id=f"s{n}"), env=dict(os.environ))
    slug = latest(root)
    assert slug is not None
    return slug, _context(start(root))


def test_automatic_handovers_never_loaded_before_the_pending_one_are_named(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    """`auto notice`: each /clear's notice passed over, nothing recalled. The newest handover
    does not carry the older ones' open items, so its notice names them — until loaded."""
    first, said = _cleared(root, tmp_path, 0, "add retries to the uploader")
    assert "never loaded" not in said
    second, said = _cleared(root, tmp_path, 1, "add a --json flag to the report command")
    items = len(section(store(root) / f"{first}.md", "Outstanding").splitlines())
    assert f"The automatic handover before it, `{first}`, holding {_open(items)}, was" in said
    third, said = _cleared(root, tmp_path, 2, "fix the week parser in reports")
    assert (f"The automatic handover before it, `{second}` and 1 more before that, holding "
            f"{_open(2 * items)}, was never loaded either") in said  # fmt: skip
    assert f"`/session recall {second}` loads it." in said
    assert meta(store(root) / f"{first}.md")["consumed"] == "false"
    # …once one is loaded, it and those before it are not named again
    assert cli("recall", second).code == 0
    _, said = _cleared(root, tmp_path, 3, "bump the version to 2.4")
    assert f"`{third}`, holding {_open(items)}" in said and f"`{first}`" not in said


def _open(n: int) -> str:
    return f"{n} open item" if n == 1 else f"{n} open items"


def test_codex_work_after_a_dump_is_saved_beside_it(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    """A Codex thread dumped, went on, then /clear: the dump is restored, and what came
    after it is saved and named, not lost (as at Claude Code's SessionEnd)."""
    payload, env = _codex_clear(root, tmp_path)
    (rollout,) = (tmp_path / "codex" / "sessions").rglob(f"*{OLD_THREAD}.jsonl")
    body = "## Goal\nAdd the healthz route.\n\n## Next step\nDeploy it to staging.\n"
    r = cli("dump", "healthz", "--file", "-", "--transcript", str(rollout), input=body)
    assert r.code == 0, r
    assert meta(store(root) / "healthz.md")["transcript_bytes"] == str(rollout.stat().st_size)
    asked = "now add a readiness probe too"
    rows = [
        {"type": "event_msg", "payload": {"type": "user_message", "message": asked}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": asked}]}},
    ]  # fmt: skip
    with rollout.open("a", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({"timestamp": "2026-11-29T18:29:00Z", **row}) + "\n")
    given = json.loads(hook.run(payload, env=env))
    context = _context(given)
    (later,) = [p for p in store(root).glob("*.md") if p.stem not in ("PARKED", "healthz")]
    assert "Deploy it to staging." in context  # the dump, restored
    assert f"`$session recall {later.stem}`" in context and "readiness probe" in later.read_text()
    assert meta(later)["session_id"] == OLD_THREAD and meta(later)["consumed"] == "false"
    assert f"`{later.stem}`" in given["systemMessage"]


def test_codex_clear_restores_its_dump_whatever_claude_code_cleared(
    root: Path, tmp_path: Path, cli: RunCli
) -> None:
    """Codex fires no SessionEnd: a `.cleared` beside its /clear is Claude Code's, naming
    another session cleared in the project seconds ago. The thread's own dump is restored."""
    payload, env = _codex_clear(root, tmp_path)
    (rollout,) = (tmp_path / "codex" / "sessions").rglob(f"*{OLD_THREAD}.jsonl")
    body = "## Goal\nAdd the healthz route.\n\n## Next step\nDeploy it to staging.\n"
    r = cli("dump", "healthz", "--file", "-", "--transcript", str(rollout), input=body)
    assert r.code == 0, r
    assert meta(store(root) / "healthz.md")["session_id"] == OLD_THREAD
    (store(root) / ".cleared").write_text("a-claude-code-session\n")
    context = _context(json.loads(hook.run(payload, env=env)))
    assert "Deploy it to staging." in context and "another session" not in context
    assert meta(store(root) / "healthz.md")["consumed"] == "true"

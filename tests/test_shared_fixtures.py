"""Run the sweep over every real transcript in the shared fixture folder.

The folder sits beside the repository (`../shared/fixtures/transcripts/`), or wherever
`SESSION_SKILL_SHARED` points. It is not shipped with the project: without it these tests
skip, except under CI (`CI` set), where a missing folder is a failure.

Expected values are computed here independently of the package, with a plain JSON walk.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from pathlib import Path
from typing import Any

import pytest

from session_skill.transcripts.reader import iter_events
from session_skill.transcripts.scan import CLIP_CHARS, analyze
from tests.spies import after_each

_WRITE_KEYS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
_PATCH_PATH = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+?)\s*$", re.M)


def _shared_dir() -> Path:
    configured = os.environ.get("SESSION_SKILL_SHARED")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "shared"


FIXTURES = _shared_dir() / "fixtures" / "transcripts"
CLAUDE_FILES = sorted((FIXTURES / "claude").glob("*.jsonl")) if FIXTURES.is_dir() else []
CODEX_FILES = sorted((FIXTURES / "codex").glob("*.jsonl")) if FIXTURES.is_dir() else []
ALL_FILES = CLAUDE_FILES + CODEX_FILES


def _records(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_bytes().splitlines():
        if line.strip():
            records.append(json.loads(line))
    return records


def _main_thread_tool_uses(path: Path) -> list[dict[str, Any]]:
    uses = []
    for record in _records(path):
        if record.get("type") != "assistant" or record.get("isSidechain"):
            continue
        for block in record.get("message", {}).get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                uses.append(block)
    return uses


def _failed_tool_ids(path: Path) -> set[str]:
    """The ids of tool calls whose result is an error (a rejected or failed edit)."""
    failed = set()
    for record in _records(path):
        if record.get("type") != "user" or record.get("isSidechain"):
            continue
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                if block.get("is_error"):
                    failed.add(str(block.get("tool_use_id")))
    return failed


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def test_shared_fixtures_are_present() -> None:
    if not ALL_FILES:
        if os.environ.get("CI"):
            pytest.fail(f"shared transcript fixtures missing under {FIXTURES} (CI is set)")
        pytest.skip(f"shared transcript fixtures not found under {FIXTURES}")
    assert CLAUDE_FILES and CODEX_FILES


@pytest.mark.parametrize("path", ALL_FILES, ids=_ids(ALL_FILES))
def test_no_crash_and_sane_output(path: Path) -> None:
    facts = analyze(path)
    with open(path, "rb") as fh:
        lines = sum(1 for _ in fh)
    assert facts.stats.lines == lines
    assert facts.stats.malformed == 0  # the shared files are well-formed
    assert facts.agent == ("codex" if path.parent.name == "codex" else "claude-code")
    for cand in facts.candidates:
        assert cand.text and "\n" not in cand.text and len(cand.text) <= CLIP_CHARS
    # Reading without a result filter yields the same events as the filtered read.
    assert sum(1 for _ in iter_events(path)) >= sum(1 for _ in iter_events(path, wanted_results=()))


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=_ids(CLAUDE_FILES))
def test_claude_written_files_match_a_plain_walk(path: Path) -> None:
    # Issue 19: a write whose result is an error (rejected, or the edit failed) touched
    # nothing, unless another write of the same file succeeded.
    failed = _failed_tool_ids(path)
    expected = set()
    for use in _main_thread_tool_uses(path):
        key = _WRITE_KEYS.get(use.get("name", ""))
        if key and isinstance(use.get("input", {}).get(key), str) and use.get("id") not in failed:
            expected.add(use["input"][key])
    facts = analyze(path)
    assert set(facts.written_files) == expected
    assert len(facts.written_files) == len(expected)  # unique


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=_ids(CLAUDE_FILES))
def test_claude_pending_tasks_match_the_last_todowrite(path: Path) -> None:
    uses = _main_thread_tool_uses(path)
    last: list[dict[str, Any]] = []
    for use in uses:
        if use.get("name") == "TodoWrite":
            last = use["input"]["todos"]
    expected = [t["content"] for t in last if t.get("status") != "completed"]
    facts = analyze(path)
    assert [t.text for t in facts.pending_tasks if t.source == "TodoWrite"] == expected
    if not any(use.get("name") in ("TaskCreate", "TaskUpdate") for use in uses):
        assert [t.text for t in facts.pending_tasks] == expected


@pytest.mark.parametrize("path", CODEX_FILES, ids=_ids(CODEX_FILES))
def test_codex_written_files_and_plan(path: Path) -> None:
    cwd = None
    expected: set[str] = set()
    plan: list[dict[str, Any]] = []
    for record in _records(path):
        payload = record.get("payload") or {}
        if record.get("type") == "session_meta":
            cwd = payload.get("cwd")
        if record.get("type") != "response_item":
            continue
        patch = None
        if payload.get("type") == "custom_tool_call" and payload.get("name") == "apply_patch":
            patch = payload.get("input")
        elif payload.get("type") == "function_call":
            args = json.loads(payload["arguments"])
            if payload.get("name") == "update_plan":
                plan = args["plan"]
            command = args.get("command", args.get("cmd"))
            text = " ".join(command) if isinstance(command, list) else str(command or "")
            if "apply_patch" in text and "*** Begin Patch" in text:
                patch = text
        for match in _PATCH_PATH.finditer(patch or ""):
            expected.add(posixpath.join(cwd, match.group(1)) if cwd else match.group(1))
    facts = analyze(path)
    assert set(facts.written_files) == expected
    assert [t.text for t in facts.pending_tasks] == [
        step["step"] for step in plan if step.get("status") != "completed"
    ]


def test_known_real_fixture_facts() -> None:
    """Spot checks that pin what the real files hold (see SOURCES.md)."""
    by_name = {p.name: p for p in ALL_FILES}
    if not by_name:
        pytest.skip("shared transcript fixtures not found")
    fe5e = analyze(by_name["ccviewer_fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"])
    # 33 Writes happen in sidechains; the main thread writes CLAUDE.md only.
    assert fe5e.written_files == ["/path/to/Demo/CLAUDE.md"]
    assert fe5e.candidates == []  # "TODO app" is not a TODO
    compact = analyze(by_name["spotter_ae4a77f8_compact_TRUNCATED_prefix.jsonl"])
    assert compact.stats.skipped["progress"] == 1249
    assert compact.first_user_request is not None
    assert compact.first_user_request.startswith("Work on bead spotter-4te.")
    subagent = analyze(by_name["spotter_4d5611e5_subagents_agent-acompact-e1f845.jsonl"])
    assert subagent.stats.sidechain == 5 and subagent.first_user_request is None
    rollout = analyze(
        by_name["rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"]
    )
    assert rollout.written_files == [
        "/home/user/projects/temp/chatbot-ui/components/chat/chat-helpers/index.ts"
    ]


CORPUS_FILES = sorted((FIXTURES / "corpus").glob("*/*.jsonl")) if FIXTURES.is_dir() else []


@pytest.mark.parametrize("head", [20_000, 3_000], ids=["head 20 KB", "head 3 KB"])
@pytest.mark.parametrize("path", ALL_FILES + CORPUS_FILES, ids=_ids(ALL_FILES + CORPUS_FILES))
def test_the_hooks_quick_read_of_a_middle_agrees(
    path: Path, monkeypatch: pytest.MonkeyPatch, head: int
) -> None:
    """The hooks' capture of a big transcript reads its middle's calls by their bytes
    (`transcripts.quick`). Shrunk so that every real transcript here has such a middle, it
    finds the files and the task list a full read finds: the layouts the real clients and
    providers write (an Edit opening on `replace_all`, Bedrock's sorted keys), a rejected
    Edit, a task list renumbered or emptied in the middle; the Goal, with the commits the
    middle made (a script's `git commit` on a line of its own included); the last request,
    when the tail holds none (with images, typed while the assistant worked), and the
    request left unfinished — its words, where its thread began (the middle's requests are
    linked through the question each turn closed on, as a full read links them) and why it
    is open (a sub-agent's call in the middle is work on it: the tail may hold only that
    sub-agent's progress); and how much each file was worked on (a failed Write longer than
    the result window). A middle over 1 MB is read with a helper process, as a big one is.
    With a head of 3 KB, the head often ends in a session's opening records: a slash command
    there and its expanded prompt are read by one part (corpus wwbm-3's Goal)."""
    from session_skill.transcripts import quick

    monkeypatch.setattr(quick, "QUICK_FROM", 1)
    monkeypatch.setattr(quick, "HEAD_BYTES", head)
    monkeypatch.setattr(quick, "TAIL_BYTES", 20_000 if head == 20_000 else 33_000)
    monkeypatch.setattr(quick, "_CHUNK", 64_000)
    monkeypatch.setattr(quick, "_RESULT_WINDOW", 16_000)
    monkeypatch.setattr(quick, "SPLIT_FROM", 1 << 20)
    full, fast = analyze(path), quick.analyze_quick(path)
    assert fast.written_files == full.written_files
    assert [(t.text, t.status) for t in fast.pending_tasks] == [
        (t.text, t.status) for t in full.pending_tasks
    ]
    assert fast.goal == full.goal
    assert fast.last_request == full.last_request
    assert fast.written_weights == full.written_weights
    unfinished = [u and (u.why, u.text) for u in (full.unfinished, fast.unfinished)]
    assert unfinished[0] == unfinished[1]
    # The last reply, when the capture can tell it: never one said before a later request.
    assert fast.last_reply in (full.last_reply, None)


@pytest.mark.parametrize("switch", [2, 5], ids=["switch at request 3", "switch at request 6"])
def test_a_helper_going_on_from_the_switch_finds_what_one_pass_finds(
    monkeypatch: pytest.MonkeyPatch, switch: int
) -> None:
    """Past the first requests of a very long conversation that leaves few loose ends, a
    forked helper goes on reading them while the pass follows only what the session did
    (`scan._Sweep._go_on_in_helper`). With the switch moved to the first requests, so that
    every real session with enough of them is read that way, the facts are one pass's, to
    the line: the loose ends and those settled, the Goal, the request left unfinished and
    the thread it began on (linked through the closing questions the pass finds on its
    own from the switch), the task list, the files, where it stopped."""
    from session_skill.transcripts import scan

    def facts(path: Path) -> tuple[object, ...]:
        f = analyze(path)
        lines = [c.line for c in f.candidates + f.settled]
        return (f.candidates, f.settled, lines, f.goal, f.unfinished, f.pending_tasks,
                f.written_files, f.written_weights, f.last_request, f.last_reply,
                f.recap)  # fmt: skip

    handed = after_each(
        monkeypatch, scan._Sweep, "_go_on_in_helper", lambda sweep, _: sweep.handed_on is not None
    )
    differ, shared = [], 0
    for path in ALL_FILES + CORPUS_FILES:
        with monkeypatch.context() as m:
            m.setattr(scan, "_cores", lambda: 1)
            whole = facts(path)
            m.setattr(scan, "_cores", lambda: 2)
            m.setattr(scan, "_DEEP_REQUESTS", switch)
            m.setattr(scan, "POOL_MAX", 10**6)  # no tail worth reading apart: go on
            handed.clear()
            if facts(path) != whole:
                differ.append(path.name)
            shared += any(handed)
    assert differ == []
    assert shared >= 15, "a switch this early hands on in many real sessions"


def _opening(record: dict[str, Any]) -> tuple[str, ...]:
    """A record's first keys, and for a tool call its block's and its input's: the layout a
    reader's fast path meets."""
    keys = tuple(record)[:4]
    content = record.get("message", {}).get("content")
    first = content[0] if isinstance(content, list) and content else None
    if isinstance(first, dict) and first.get("type") == "tool_use":
        keys += (first.get("name"), *tuple(first)[:4], *tuple(first.get("input") or {})[:2])
    return keys


def test_the_benchmarks_write_records_laid_out_as_the_client_does(tmp_path: Path) -> None:
    """bench/synth_transcript.py measures the sweep and the hooks on transcripts it writes;
    a layout the client rarely writes measures a path users seldom take (its Edits once
    put the path first, as 13 of the corpus's 952 do). Each kind of record it writes opens
    as the corpus's Claude Code sessions most often open that kind."""
    import importlib.util
    from collections import Counter

    if not CORPUS_FILES:
        pytest.skip("no shared corpus")
    real: dict[tuple[Any, ...], Counter[tuple[str, ...]]] = {}
    for path in CORPUS_FILES:
        if path.parent.name != "claude":
            continue
        for record in _records(path):
            if record.get("type") in ("user", "assistant", "progress", "system"):
                kind = (record["type"], _opening(record)[4:5])  # its type, and a call's tool
                real.setdefault(kind, Counter())[_opening(record)] += 1
    repo = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("synth", repo / "bench" / "synth_transcript.py")
    assert spec is not None and spec.loader is not None
    synth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synth)
    checked = 0
    for write in (synth.write_synthetic, synth.write_conversation, synth.write_edit_heavy):
        out = tmp_path / f"{write.__name__}.jsonl"
        write(out, 2 << 20)
        for record in _records(out):
            kind = (record.get("type"), _opening(record)[4:5])
            if kind not in real or kind[1] == ("TodoWrite",):  # no TodoWrite in the corpus
                continue
            most, _ = real[kind].most_common(1)[0]
            # A tool's block may end on "caller" (2.1.8x) or not (2.1.328): the first four.
            assert _opening(record)[:9] == most[:9], (write.__name__, kind)
            checked += 1
    assert checked > 1000

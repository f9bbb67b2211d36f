from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from session_skill.transcripts import claude, codex
from session_skill.transcripts.reader import (
    CLAUDE,
    CODEX,
    AssistantText,
    ClearSplit,
    CommandPrompt,
    CompactBoundary,
    Event,
    Interrupted,
    ReadStats,
    SessionMeta,
    ToolCall,
    ToolResult,
    UserText,
    detect_format,
    iter_events,
)
from session_skill.transcripts.scan import analyze
from tests.lines import write as write_lines

FIXTURES = Path(__file__).parent.parent / "fixtures" / "transcripts"
SID = "9ba084a4-3d12-4cf7-a14a-886e4505a15f"


def envelope(kind: str, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/tmp/proj1",
        "sessionId": SID,
        "version": "2.1.328",
        "gitBranch": "main",
        "type": kind,
    }
    record.update(extra)
    record.setdefault("timestamp", "2026-11-29T14:02:00.000Z")
    return record


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return envelope("user", message={"role": "user", "content": content}, **extra)


def assistant(msg_id: str, *blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    message = {"id": msg_id, "type": "message", "role": "assistant", "content": list(blocks)}
    return envelope("assistant", message=message, **extra)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, **inputs: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": inputs}


write_jsonl = write_lines


def events(path: Path, **kwargs: Any) -> tuple[list[Event], ReadStats]:
    stats = ReadStats()
    return list(iter_events(path, stats, **kwargs)), stats


def of(kind: type, found: list[Event]) -> list[Any]:
    return [e for e in found if isinstance(e, kind)]


# ---------------------------------------------------------------- Claude Code


def test_split_assistant_records_are_merged_and_deduplicated() -> None:
    found, _ = events(FIXTURES / "claude_split_sidechain_progress.jsonl")
    writes = [c for c in of(ToolCall, found) if c.id == "toolu_06WRITE"]
    assert len(writes) == 1  # the third line repeated it
    first = of(AssistantText, found)[0]
    assert first.msg_id == "msg_01SPLIT00000000000001"
    assert first.text.startswith("I'll move the parser")
    calls = [c.name for c in of(ToolCall, found)]
    assert calls == ["Write", "Task", "MultiEdit", "NotebookEdit", "Edit"]


def test_interleaved_parts_of_one_response_keep_both_blocks(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            assistant("msg_1", tool_use("toolu_a", "Bash", command="ls")),
            user([{"type": "tool_result", "tool_use_id": "toolu_a", "content": "x"}]),
            assistant("msg_1", tool_use("toolu_a", "Bash", command="ls")),
            assistant("msg_1", tool_use("toolu_b", "Read", file_path="/a")),
            assistant("msg_1", text("done")),
            assistant("msg_1", text("done")),
        ],
    )
    found, _ = events(path)
    assert [c.id for c in of(ToolCall, found)] == ["toolu_a", "toolu_b"]
    assert [t.text for t in of(AssistantText, found)] == ["done"]


def test_sidechain_and_progress_nested_calls_are_not_main_thread() -> None:
    found, stats = events(FIXTURES / "claude_split_sidechain_progress.jsonl")
    paths = [c.input.get("file_path") for c in of(ToolCall, found)]
    assert "/home/dev/app/notes/callers.md" not in paths  # sidechain Write
    assert "/home/dev/app/src/legacy.py" not in paths  # progress-nested Edit
    assert stats.sidechain == 3
    assert stats.skipped["progress"] == 1
    assert "Find every caller" not in " ".join(u.text for u in of(UserText, found))


def test_sidechain_is_detected_after_parsing_too(tmp_path: Path) -> None:
    # Spaced JSON escapes the byte prefilter; the parsed flag still decides.
    record = user("sub-agent prompt", isSidechain=True)
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    found, stats = events(path)
    assert of(UserText, found) == []
    assert stats.sidechain == 1


def test_malformed_lines_are_counted_never_fatal() -> None:
    found, stats = events(FIXTURES / "claude_split_sidechain_progress.jsonl")
    assert stats.malformed == 4  # truncated record, invalid bytes, JSON array, cut-off tail
    assert stats.format == CLAUDE
    assert stats.skipped["future-record-kind"] == 1
    assert stats.skipped["summary"] == 1
    # The line holding a stray Latin-1 byte still parses, with a replacement character.
    assert any(u.text.startswith("Continue (caf\ufffd)") for u in of(UserText, found))


def test_compact_boundary_and_summary(tmp_path: Path) -> None:
    found, _ = events(FIXTURES / "claude_split_sidechain_progress.jsonl")
    assert len(of(CompactBoundary, found)) == 1
    texts = [u.text for u in of(UserText, found)]
    assert not any("continued from a previous conversation" in t for t in texts)
    assert texts == [
        "Refactor the CSV parser into its own module",
        "Continue (caf\ufffd): also update src/cli.py",
    ]


def test_typed_slash_command_and_meta_expansion() -> None:
    found, stats = events(FIXTURES / "claude_session_command.jsonl")
    commands = [u for u in of(UserText, found) if u.is_command]
    assert len(commands) == 1
    assert commands[0].command_name == "/session"
    assert commands[0].command_args == 'park try -- the "jitter" idea $HOME'
    assert not any("Base directory for this skill" in u.text for u in of(UserText, found))
    # The expansion right after the command is the command's prompt, not something typed.
    prompts = of(CommandPrompt, found)
    assert len(prompts) == 1 and prompts[0].text.startswith("Base directory for this skill")
    assert found.index(prompts[0]) == found.index(commands[0]) + 1
    assert "user:meta" not in stats.skipped


def test_clear_command_becomes_a_split() -> None:
    found, _ = events(FIXTURES / "claude_clear_after.jsonl")
    kinds = [type(e).__name__ for e in found if not isinstance(e, SessionMeta)]
    assert kinds[:2] == ["ClearSplit", "UserText"]
    assert of(UserText, found)[0].text.startswith("Now make the settings loader")


def test_local_command_system_records(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            envelope(
                "system",
                subtype="local_command",
                content="<command-name>/model</command-name>\n<command-args></command-args>",
            ),
            envelope(
                "system",
                subtype="local_command",
                content="<local-command-stdout>Kept model</local-command-stdout>",
            ),
            envelope(
                "system",
                subtype="local_command",
                content="<command-name>/clear</command-name>\n<command-args></command-args>",
            ),
            envelope("system", subtype="turn_duration", durationMs=5),
        ],
    )
    found, stats = events(path)
    assert [(u.command_name, u.command_args) for u in of(UserText, found)] == [("/model", "")]
    assert len(of(ClearSplit, found)) == 1
    assert stats.skipped == {"system:local_command": 1, "system:turn_duration": 1}


@pytest.mark.parametrize(
    "content",
    [
        "<local-command-stdout>Compacted</local-command-stdout>",
        "<local-command-caveat>Caveat: The messages below were generated</local-command-caveat>",
        "[Request interrupted by user]",
        "[Request interrupted by user for tool use]",
        "<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>",
        "<task-notification><task-id>b1</task-id></task-notification>",
        '<teammate-message teammate_id="ui-dev" color="yellow">\nTask #17 done.\n'
        "</teammate-message>",
        "<system-reminder>Only a reminder</system-reminder>",
        "   ",
    ],
)
def test_claude_written_user_text_is_not_a_request(tmp_path: Path, content: str) -> None:
    found, _ = events(write_jsonl(tmp_path / "t.jsonl", [user(content)]))
    assert of(UserText, found) == []


def test_user_text_details(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("<bash-input>git status</bash-input>"),
            user([text("Fix the parser<system-reminder>\nignore me\n</system-reminder>")]),
            user(
                "<command-message>init is analyzing…</command-message>\n"
                "<command-name>/init</command-name>"
            ),
            user("Paste: <command-name>/clear</command-name> is how you clear"),
            user("expanded skill", isMeta=True),
            user("summary", isCompactSummary=True),
        ],
    )
    found, _ = events(path)
    got = [(u.text, u.is_command, u.command_name, u.command_args) for u in of(UserText, found)]
    assert got[0][1:] == (True, "!", "git status")
    assert got[1] == ("Fix the parser", False, None, None)
    assert got[2][1:] == (True, "/init", "")
    assert got[3][1] is False  # a command tag quoted mid-message is not a command
    assert len(got) == 4
    assert of(ClearSplit, found) == []


def test_tool_results_carry_meta_and_errors() -> None:
    found, _ = events(FIXTURES / "claude_tasks_toolsearch.jsonl")
    results = {r.tool_use_id: r for r in of(ToolResult, found)}
    created = results["toolu_01CREATE2"]
    assert created.meta == {
        "task": {"id": "2", "subject": "Cap retries at 5 and surface the last error"}
    }
    assert created.text.startswith("Task #2 created successfully")
    assert results["toolu_01UPD4"].is_error
    search = results["toolu_01SEARCH"]
    assert search.text == ""  # tool_reference blocks hold no text
    assert [c.name for c in of(ToolCall, found)][:2] == ["ToolSearch", "TaskCreate"]


def test_session_meta_follows_session_and_cwd(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [user("a"), user("b"), user("c", cwd="/tmp/proj1/sub"), user("d", sessionId="other")],
    )
    metas = of(SessionMeta, events(path)[0])
    assert [(m.session_id, m.cwd) for m in metas] == [
        (SID, "/tmp/proj1"),
        (SID, "/tmp/proj1/sub"),
        ("other", "/tmp/proj1"),
    ]
    assert metas[0].agent == CLAUDE


def test_api_error_messages_are_skipped(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl", [assistant("msg_e", text("API Error: 529"), isApiErrorMessage=True)]
    )
    found, stats = events(path)
    assert of(AssistantText, found) == []
    assert stats.skipped["assistant:api-error"] == 1


def test_wanted_results_skips_other_results_unparsed(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("read the file"),  # the first record is always parsed: it sets the format
            user(
                [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "big output"}],
                toolUseResult={"type": "text", "file": {"content": "big"}},
            ),
            user(
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_keep",
                        "content": "Task #7 created",
                    }
                ],
                toolUseResult={"task": {"id": "7"}},
            ),
            user(
                [
                    {"type": "tool_result", "tool_use_id": "toolu_y", "content": "out"},
                    text("and please also check the logs"),
                ]
            ),
        ],
    )
    found, stats = events(path, wanted_results={"toolu_keep"})
    assert [r.tool_use_id for r in of(ToolResult, found)] == ["toolu_keep", "toolu_y"]
    assert [u.text for u in of(UserText, found)][1:] == ["and please also check the logs"]
    assert stats.skipped == {"user:tool_result": 1}
    assert stats.records == 4
    everything, _ = events(path)
    assert len(of(ToolResult, everything)) == 3


def test_empty_and_blank_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert events(empty)[0] == []
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n\n  \n")
    found, stats = events(blank)
    assert found == [] and stats.malformed == 0 and stats.lines == 3
    assert detect_format(blank) is None


# ---------------------------------------------------------------- Codex


def test_codex_rollout_events() -> None:
    found, stats = events(FIXTURES / "codex_rollout.jsonl")
    assert stats.format == CODEX
    meta = of(SessionMeta, found)[0]
    assert (meta.session_id, meta.cwd, meta.agent) == (
        "019b0c1d-2e3f-7a4b-8c5d-6e7f8a9b0c08",
        "/home/dev/svc",
        CODEX,
    )
    # The environment context is Codex's own; the event_msg copy is not counted twice.
    assert [u.text for u in of(UserText, found)] == [
        "Add a /healthz endpoint and rename server.py to app.py"
    ]
    calls = of(ToolCall, found)
    assert [c.name for c in calls] == [
        "update_plan",
        "exec_command",
        "apply_patch",
        "shell",
        "update_plan",
    ]
    assert calls[0].input["plan"][0] == {"step": "Add the /healthz route", "status": "in_progress"}
    assert calls[2].input["input"].startswith("*** Begin Patch")
    assert calls[3].input["command"][0] == "bash"
    assert of(AssistantText, found)[0].text.endswith("database connection too?")
    assert stats.skipped["event_msg"] == 3
    assert stats.skipped["future_kind"] == 1
    assert len(of(ToolResult, found)) == 5


def test_codex_oddities(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout.jsonl",
        [
            {"timestamp": "t0", "type": "session_meta", "payload": {"id": "s1", "cwd": "/a"}},
            {"timestamp": "t1", "type": "turn_context", "payload": {"cwd": "/a"}},
            {"timestamp": "t2", "type": "turn_context", "payload": {"cwd": "/b"}},
            {
                "timestamp": "t3",
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": "not json",
                    "call_id": "c1",
                },
            },
            {
                "timestamp": "t4",
                "type": "response_item",
                "payload": {
                    "type": "local_shell_call",
                    "call_id": "c2",
                    "action": {"command": ["ls"], "working_directory": "/b"},
                },
            },
            {"timestamp": "t5", "type": "compacted", "payload": {"message": "summary"}},
            {
                "timestamp": "t6",
                "type": "response_item",
                "payload": {"type": "message", "role": "developer", "content": [text("rules")]},
            },
        ],
    )
    found, _ = events(path)
    assert [m.cwd for m in of(SessionMeta, found)] == ["/a", "/b"]
    calls = of(ToolCall, found)
    assert calls[0].input == {"raw": "not json"}
    assert calls[1].input == {"command": ["ls"], "workdir": "/b"}
    assert len(of(CompactBoundary, found)) == 1
    assert of(UserText, found) == [] and of(AssistantText, found) == []


def test_codex_legacy_rollout_without_envelope(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-2025-05-01.jsonl",
        [
            {"id": "legacy-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": None},
            {"record_type": "state"},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "hello there codex"}],
            },
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": json.dumps({"command": ["ls"]}),
            },
        ],
    )
    found, stats = events(path)
    assert stats.format == CODEX
    assert of(SessionMeta, found)[0].session_id == "legacy-1"
    assert [u.text for u in of(UserText, found)] == ["hello there codex"]
    assert of(ToolCall, found)[0].input == {"command": ["ls"]}


def test_detect_format() -> None:
    assert detect_format(FIXTURES / "codex_rollout.jsonl") == CODEX
    assert detect_format(FIXTURES / "claude_loose_ends.jsonl") == CLAUDE


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=6,
)
_record_keys = st.sampled_from(
    ["type", "message", "content", "isSidechain", "isMeta", "payload", "subtype", "toolUseResult"]
)
_records = st.dictionaries(_record_keys, _json_values, max_size=6)
_types = st.sampled_from(
    ["user", "assistant", "system", "progress", "summary", "session_meta", "response_item"]
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40),
            st.builds(lambda r, t: json.dumps({**r, "type": t}), _records, _types).map(str.encode),
            st.builds(
                lambda t, c: json.dumps({"type": t, "message": {"content": c}}),
                _types,
                _json_values,
            ).map(str.encode),
        ),
        max_size=8,
    )
)
def test_arbitrary_lines_never_crash_the_reader(tmp_path: Path, lines: list[bytes]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(b"".join(line.replace(b"\n", b" ") + b"\n" for line in lines))
    found, stats = events(path, wanted_results=set())
    assert stats.lines == len(lines)
    assert stats.malformed + stats.records <= stats.lines
    analyze(path)  # and the sweep over them neither


# ---------------------------------------------------------------- interrupts, skips, fast path


def test_an_interrupt_is_an_event_not_a_request(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("Rename the config loader"),
            user([text("[Request interrupted by user for tool use]")]),
            user("[Request interrupted by user]"),
            user("<user-memory-input>Always use conventional commits</user-memory-input>"),
            user("(no content)"),
        ],
    )
    found, _ = events(path)
    assert [u.text for u in of(UserText, found)] == ["Rename the config loader"]
    assert len(of(Interrupted, found)) == 2


def test_thinking_only_and_unread_system_records_are_skipped_unparsed(tmp_path: Path) -> None:
    thinking = {"type": "thinking", "thinking": "Let me think about later work.", "signature": "x"}
    mixed = assistant("msg_2", thinking, text("Here it is."))
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("Why does the build fail?"),
            assistant("msg_1", thinking),
            mixed,
            envelope("system", subtype="stop_hook_summary", hookCount=1),
            envelope("system", subtype="compact_boundary", content="Conversation compacted"),
        ],
    )
    found, stats = events(path)
    assert [t.text for t in of(AssistantText, found)] == ["Here it is."]
    assert stats.skipped == {"assistant:thinking": 1, "system:stop_hook_summary": 1}
    assert len(of(CompactBoundary, found)) == 1


def _both_paths(path: Path) -> tuple[tuple[list[Event], ReadStats], tuple[list[Event], ReadStats]]:
    fast = events(path, wanted_results=set())
    claude.FAST_PATH = False
    try:
        full = events(path, wanted_results=set())
    finally:
        claude.FAST_PATH = True
    return fast, full


def _all_fixture_files() -> list[Path]:
    shared = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
    found = sorted(FIXTURES.glob("*.jsonl"))
    return found + (sorted(shared.rglob("*.jsonl")) if shared.is_dir() else [])


@pytest.mark.parametrize("path", _all_fixture_files(), ids=lambda p: p.name)
def test_the_fast_path_reads_every_fixture_as_the_full_parse_does(path: Path) -> None:
    fast, full = _both_paths(path)
    assert fast == full


@pytest.mark.parametrize("path", _all_fixture_files(), ids=lambda p: p.name)
def test_the_sweep_finds_the_same_with_no_line_skipped_unparsed(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the reader skips unparsed — tool results nobody waits for, thinking blocks,
    records the sweep never reads, Codex's repeated event lines — changes nothing the sweep
    finds: its loose ends, Goal and files are those of a read that parses every line. (A
    successful Edit's result, skipped, once left the pass counting no file written.)"""

    def found() -> tuple[object, ...]:
        facts = analyze(path)
        items = [(c.type, c.rule, c.line, c.text) for c in facts.candidates]
        return items, facts.goal, facts.written_files, facts.pending_tasks

    quick = found()
    monkeypatch.setattr(claude.ClaudeParser, "quick", lambda self, raw, wanted: None)
    monkeypatch.setattr(codex.CodexParser, "cheap_skip", lambda self, raw, wanted: None)
    assert quick == found()


def test_the_fast_path_takes_plain_text_records_and_leaves_the_rest(tmp_path: Path) -> None:
    records = [
        user("plain request"),
        user("typed <system-reminder>x</system-reminder> text"),
        user([text("a text block")]),
        user("meta", isMeta=True),
        assistant("msg_1", text('quotes " and \\ backslashes and \u00e9')),
        assistant("msg_1", text("repeated")),
        assistant("msg_1", text("repeated")),
        assistant("msg_2", text("err"), isApiErrorMessage=True),
        assistant("msg_3", text("side"), isSidechain=True),
        envelope("user", cwd="C:\\Users\\me\\proj", message={"role": "user", "content": "win"}),
        envelope("user", sessionId="other", message={"role": "user", "content": "next"}),
        user("back to the first session"),
    ]
    # Both envelope orders: Claude Code writes an assistant's message before its type.
    reordered = [
        {k: v for k, v in r.items() if k != "type"} | {"type": r["type"]}
        if r["type"] == "assistant"
        else r
        for r in records
    ]
    for n, batch in enumerate((records, reordered)):
        path = write_jsonl(tmp_path / f"t{n}.jsonl", batch)
        fast, full = _both_paths(path)
        assert fast == full
        texts = [e.text for e in fast[0] if isinstance(e, (UserText, AssistantText))]
        assert texts[:4] == ["plain request", "typed  text", "a text block", texts[3]]
        assert "repeated" in texts and texts.count("repeated") == 1
        metas = [(m.session_id, m.cwd) for m in of(SessionMeta, fast[0])]
        assert metas == [
            (SID, "/tmp/proj1"),
            (SID, "C:\\Users\\me\\proj"),
            ("other", "/tmp/proj1"),
            (SID, "/tmp/proj1"),
        ]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.booleans(), st.text(max_size=30)), min_size=1, max_size=6))
def test_the_fast_path_agrees_on_arbitrary_text(
    tmp_path: Path, texts: list[tuple[bool, str]]
) -> None:
    records = [
        assistant(f"msg_{n}", text(value)) if mine else user(value)
        for n, (mine, value) in enumerate(texts)
    ]
    fast, full = _both_paths(write_jsonl(tmp_path / "t.jsonl", records))
    assert fast == full


def test_a_text_of_whitespace_alone_is_no_text_on_either_path(tmp_path: Path) -> None:
    # The fast path tells a blank text by `isspace`, the full parse by `strip`: the same
    # characters, and a character that only looks blank (a zero-width space) is text.
    blanks = [" ", "\n\t ", "\u2003\u00a0", "\x1c\x1d\x1e\x1f\x85", "\u3000", "\u200b", ""]
    records = [assistant(f"msg_{n}", text(value)) for n, value in enumerate(blanks)]
    fast, full = _both_paths(write_jsonl(tmp_path / "t.jsonl", records))
    assert fast == full
    assert [e.text for e in of(AssistantText, fast[0])] == ["\u200b"]


def test_a_written_path_reads_the_same_from_its_first_quote_as_from_the_window() -> None:
    """`_write_call` decodes a path up to its first quote, not the 8 KB after it: the same
    string as the whole window gives, or the window is read (an escaped quote), or None."""
    window = 64
    cases = [
        rb'/a/b.py","old_string":"x"}',
        rb'/a/q\"uo.py","content":"x"}',  # an escaped quote first: the window is read
        rb'/a/q\\"uo.py","content":"x"}',  # an escaped backslash, then the closing quote
        rb'/a/q\\\"uo.py","content":"x"}',
        rb'/a/\u00e9\u0022.py","x":1}',
        '/a/é ü 😀.py","x":""}'.encode(),
        b'/a/\xe2\x82".py"',  # a sequence cut short by the quote
        b'/a/\xff\xfe.py"',
        b'/a/tab\there.py"',  # a control character: no JSON string
        rb'/a/bad\escape.py"',
        b"/a/" + b"x" * 80 + b'"',  # no quote within the window
        b"/a/no-quote-at-all",
        b'"',
        rb"\"",
    ]

    def window_read(raw: bytes, at: int) -> str | None:
        try:
            return claude._scanstring(raw[at : at + window].decode("utf-8", "replace"), 0)[0]
        except ValueError:
            return None

    for case in cases:
        raw = b'{"file_path":"' + case + b"\n"
        at = raw.index(b'"file_path":"') + len(b'"file_path":"')
        assert claude._json_string(raw, at, window) == window_read(raw, at), case


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), st.sampled_from([b'"', rb"\"", rb'\\"', b"\xc3", rb"\u00", b""]))
def test_a_written_path_reads_the_same_whatever_its_bytes(body: bytes, tail: bytes) -> None:
    raw = b'"file_path":"' + body + tail + b'","content":"' + body + b'"}'
    at = len(b'"file_path":"')
    for window in (8, 32, 8192):
        try:
            expected = claude._scanstring(raw[at : at + window].decode("utf-8", "replace"), 0)[0]
        except ValueError:
            expected = None
        assert claude._json_string(raw, at, window) == expected


def test_a_lone_surrogate_is_cleaned_whichever_path_reads_its_line(tmp_path: Path) -> None:
    # JSON.stringify writes one as `\\ud800`; the fast paths decline such a line (the check
    # is on the text they decode, not a scan of every line) and the full parse cleans it.
    records = [
        user("fix the \ud800 parser"),
        assistant("msg_1", text("Done; the \udc00 case is next.")),
        assistant("msg_2", tool_use("toolu_1", "Write", file_path="/tmp/proj1/a\udbffb.py")),
        envelope("user", cwd="/tmp/pr\ud834oj", message={"role": "user", "content": "moved"}),
        user("plain \U0001f600 and ascii"),
    ]
    path = write_jsonl(tmp_path / "t.jsonl", records)
    assert "\\ud800" in path.read_text()
    fast, full = _both_paths(path)
    assert fast == full

    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        fields = getattr(value, "__dataclass_fields__", None) or getattr(value, "__slots__", ())
        return [s for f in fields for s in strings(getattr(value, f, None))]

    found = [s for event in fast[0] for s in strings(event)]
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for s in found for ch in s)
    assert "fix the \ufffd parser" in found and "/tmp/proj1/a\ufffdb.py" in found
    assert "/tmp/pr\ufffdoj" in found and "plain \U0001f600 and ascii" in found


def test_the_fast_path_reads_the_session_from_an_envelope_after_the_message(
    tmp_path: Path,
) -> None:
    # Claude Code 2.1.16x writes `cwd`/`sessionId` after `message`: the fast path must still
    # announce the session before the first text, as the full parse does.
    def late(record: dict[str, Any]) -> dict[str, Any]:
        envelope_keys = ("cwd", "sessionId", "version", "gitBranch")
        head = {k: v for k, v in record.items() if k not in envelope_keys}
        return head | {k: record[k] for k in envelope_keys if k in record}

    records = [late(user("first request")), late(assistant("msg_1", text("on it")))]
    records.append(
        late(envelope("user", sessionId="other", message={"role": "user", "content": "x"}))
    )
    fast, full = _both_paths(write_jsonl(tmp_path / "t.jsonl", records))
    assert fast == full
    kinds = [type(e).__name__ for e in fast[0]]
    assert kinds == ["SessionMeta", "UserText", "AssistantText", "SessionMeta", "UserText"]


def test_a_write_call_is_read_as_its_path_on_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record whose one block writes a file is read off its line (the content written is
    never parsed) and gives what the full parse gives: the call with its path alone, an
    escaped one too. Any other shape — a second block, a flag (or what looks like one in
    the content), a path after the content, a session not seen yet — is parsed, and agrees."""
    big = "x = 1\n" * 2000
    records = [
        # No session seen yet: parsed.
        tool_use("toolu_0", "Write", file_path="/tmp/proj1/early.py", content=big),
        user("write the files"),
        assistant("msg_1", tool_use("toolu_1", "Write", file_path="/tmp/proj1/a.py", content=big)),
        assistant("msg_1", tool_use("toolu_1", "Write", file_path="/tmp/proj1/a.py", content=big)),
        assistant(
            "msg_2",
            tool_use(
                "toolu_2",
                "Edit",
                file_path='/tmp/proj1/q"uo\\te é.py',
                old_string="a",
                new_string="b",
            ),
        ),
        assistant(
            "msg_11",
            tool_use(
                "toolu_11",
                "Edit",
                file_path="/tmp/proj1/h.py",
                old_string="a",
                new_string='{"k":true}',
            ),
        ),
        assistant(
            "msg_3",
            tool_use(
                "toolu_3",
                "Edit",
                file_path="/tmp/proj1/b.py",
                old_string="a",
                new_string="b",
                replace_all=True,
            ),
        ),
        assistant(
            "msg_4",
            tool_use(
                "toolu_4",
                "MultiEdit",
                file_path="/tmp/proj1/c.py",
                edits=[{"old_string": "a", "new_string": "b"}],
            ),
        ),
        assistant(
            "msg_5",
            tool_use(
                "toolu_5", "NotebookEdit", notebook_path="/tmp/proj1/n.ipynb", new_source="print(1)"
            ),
        ),
        assistant(
            "msg_6",
            tool_use("toolu_6", "Edit", file_path="/tmp/proj1/d.py"),
            tool_use("toolu_7", "Write", file_path="/tmp/proj1/e.py", content=""),
        ),
        assistant("msg_8", tool_use("toolu_8", "Bash", command="make test")),
        assistant(
            "msg_9", tool_use("toolu_9", "Edit", file_path="/tmp/proj1/f.py"), isSidechain=True
        ),
        assistant(
            "msg_10",
            tool_use(
                "toolu_10", "Write", content="path after content", file_path="/tmp/proj1/g.py"
            ),
        ),
        # How Claude Code writes most Edits: `replace_all` (false) before the path.
        assistant(
            "msg_12",
            tool_use(
                "toolu_12",
                "Edit",
                replace_all=False,
                file_path="/tmp/proj1/r.py",
                old_string="a",
                new_string="b",
            ),
        ),
    ]
    records[0] = assistant("msg_0", records[0])
    taken: list[str] = []
    real = claude.ClaudeParser._write_call

    def counting(self: claude.ClaudeParser, raw: bytes, at: int) -> list[Event] | None:
        found = real(self, raw, at)
        taken.extend(e.id for e in found or [] if isinstance(e, ToolCall) and e.id)
        return found

    monkeypatch.setattr(claude.ClaudeParser, "_write_call", counting)
    path = write_jsonl(tmp_path / "t.jsonl", records)
    fast, full = _both_paths(path)
    assert fast == full
    # Read off the line: the plain write calls with the session known (a.py once: its
    # repeat is the same call, split across records), the escaped path too; not a flag
    # (`replace_all`), nor what looks like one in the content written (`{"k":true}`).
    assert taken == ["toolu_1", "toolu_2", "toolu_4", "toolu_5", "toolu_12"]
    calls = {c.id: c for c in of(ToolCall, fast[0])}
    assert calls["toolu_1"].input == {"file_path": "/tmp/proj1/a.py"}
    assert calls["toolu_2"].input == {"file_path": '/tmp/proj1/q"uo\\te é.py'}
    assert calls["toolu_3"].input == {"file_path": "/tmp/proj1/b.py"}
    assert calls["toolu_4"].input == {"file_path": "/tmp/proj1/c.py"}
    assert calls["toolu_5"].input == {"notebook_path": "/tmp/proj1/n.ipynb"}
    assert calls["toolu_8"].input == {"command": "make test"}
    assert calls["toolu_10"].input == {"file_path": "/tmp/proj1/g.py"}
    assert calls["toolu_11"].input == {"file_path": "/tmp/proj1/h.py"}
    assert calls["toolu_12"].input == {"file_path": "/tmp/proj1/r.py"}
    assert {"toolu_0", "toolu_6", "toolu_7"} <= set(calls) and "toolu_9" not in calls
    assert [c.id for c in of(ToolCall, fast[0])].count("toolu_1") == 1

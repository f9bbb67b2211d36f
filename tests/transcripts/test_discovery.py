from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from session_skill.transcripts.discovery import find_transcript, project_key, rollout_cwd

SID = "9ba084a4-3d12-4cf7-a14a-886e4505a15f"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "my_app.v2"
    path.mkdir(parents=True)
    return path


def put(path: Path, text: str = '{"type":"user"}\n', mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def claude_folder(home: Path, project: Path) -> Path:
    return home / ".claude" / "projects" / project_key(project)


def rollout(sessions: Path, name: str, cwd: str, mtime: float) -> Path:
    meta = {
        "timestamp": "t",
        "type": "session_meta",
        "payload": {"id": name, "cwd": cwd, "instructions": "x" * 5000},
    }
    return put(
        sessions / "2026" / "11" / "29" / f"rollout-{name}.jsonl", json.dumps(meta) + "\n", mtime
    )


def test_project_key() -> None:
    assert project_key("/tmp/proj1") == "-tmp-proj1"
    assert project_key(Path("/home/me/my_app.v2")) == "-home-me-my-app-v2"
    assert project_key("C:\\Users\\me\\app") == "C--Users-me-app"
    assert project_key("/srv/café") == "-srv-caf-"


def test_explicit_path_wins_even_when_missing(home: Path, project: Path) -> None:
    put(claude_folder(home, project) / f"{SID}.jsonl")
    found = find_transcript(
        project, transcript="~/nowhere.jsonl", session_id=SID, env={"HOME": str(home)}, home=home
    )
    assert found == home / "nowhere.jsonl"


def test_session_id_flag_then_env(home: Path, project: Path) -> None:
    folder = claude_folder(home, project)
    mine = put(folder / f"{SID}.jsonl", mtime=1_000)
    other = put(folder / "other-session.jsonl", mtime=2_000)
    assert find_transcript(project, transcript=None, session_id=SID, env={}, home=home) == mine
    env = {"CLAUDE_CODE_SESSION_ID": SID}
    assert find_transcript(project, transcript=None, session_id=None, env=env, home=home) == mine
    # The flag beats the environment.
    flag = find_transcript(project, transcript=None, session_id="other-session", env=env, home=home)
    assert flag == other


def test_session_started_in_a_subdirectory_is_found(home: Path, project: Path) -> None:
    elsewhere = put(claude_folder(home, project / "pkg") / f"{SID}.jsonl")
    found = find_transcript(project, transcript=None, session_id=SID, env={}, home=home)
    assert found == elsewhere


def test_unknown_or_unsafe_session_id_falls_back_to_newest(home: Path, project: Path) -> None:
    folder = claude_folder(home, project)
    put(folder / "old.jsonl", mtime=1_000)
    newest = put(folder / "new.jsonl", mtime=3_000)
    put(home / "escape.jsonl")
    for sid in ("no-such-session", "../../escape", "a/b"):
        got = find_transcript(project, transcript=None, session_id=sid, env={}, home=home)
        assert got == newest


def test_newest_is_top_level_and_non_empty(home: Path, project: Path) -> None:
    folder = claude_folder(home, project)
    top = put(folder / "a.jsonl", mtime=1_000)
    put(folder / SID / "subagents" / "agent-x.jsonl", mtime=9_000)
    put(folder / "empty.jsonl", text="", mtime=9_000)
    put(folder / "notes.txt", mtime=9_000)
    assert find_transcript(project, transcript=None, session_id=None, env={}, home=home) == top


def test_claude_config_dir_is_honoured(tmp_path: Path, home: Path, project: Path) -> None:
    config = tmp_path / "cfg"
    found = put(config / "projects" / project_key(project) / f"{SID}.jsonl")
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    assert find_transcript(project, transcript=None, session_id=SID, env=env, home=home) == found


def test_codex_rollout_by_cwd(home: Path, project: Path) -> None:
    sessions = home / ".codex" / "sessions"
    rollout(sessions, "elsewhere", "/some/other/project", mtime=9_000)
    older = rollout(sessions, "older", str(project), mtime=1_000)
    newer = rollout(sessions, "newer", str(project), mtime=2_000)
    found = find_transcript(project, transcript=None, session_id=None, env={}, home=home)
    assert found == newer
    os.utime(older, (5_000, 5_000))
    assert find_transcript(project, transcript=None, session_id=None, env={}, home=home) == older


def test_codex_home_env(tmp_path: Path, home: Path, project: Path) -> None:
    codex_home = tmp_path / "codex"
    found = rollout(codex_home / "sessions", "x", str(project), mtime=1_000)
    env = {"CODEX_HOME": str(codex_home)}
    assert find_transcript(project, transcript=None, session_id=None, env=env, home=home) == found


def test_claude_transcript_is_preferred_over_codex(home: Path, project: Path) -> None:
    rollout(home / ".codex" / "sessions", "codex", str(project), mtime=9_000)
    claude = put(claude_folder(home, project) / "c.jsonl", mtime=1_000)
    assert find_transcript(project, transcript=None, session_id=None, env={}, home=home) == claude


def test_a_codex_tool_call_reads_its_own_thread(home: Path, project: Path) -> None:
    """Codex sets CODEX_THREAD_ID in a tool call: its rollout wins over a Claude Code
    transcript of the same project and over a newer rollout of another thread."""
    thread = "01a230c8-522c-7dc2-84fc-e67b8092957d"
    sessions = home / ".codex" / "sessions"
    ours = rollout(sessions, f"2026-12-01T08-46-04-{thread}", str(project), mtime=1_000)
    rollout(sessions, "2026-12-01T09-00-00-other", str(project), mtime=9_000)
    put(claude_folder(home, project) / "c.jsonl", mtime=9_000)
    env = {"CODEX_THREAD_ID": thread}
    assert find_transcript(project, transcript=None, session_id=None, env=env, home=home) == ours
    # the same thread id given as --session-id (the dump brief prints it)
    found = find_transcript(project, transcript=None, session_id=thread, env={}, home=home)
    assert found == ours
    # an unknown thread falls back to the usual order
    env = {"CODEX_THREAD_ID": "01a230c8-0000-7000-8000-000000000000"}
    found = find_transcript(project, transcript=None, session_id=None, env=env, home=home)
    assert found == claude_folder(home, project) / "c.jsonl"
    assert (
        find_transcript(
            project, transcript=None, session_id=None, env={"CODEX_THREAD_ID": "../x"}, home=home
        )
        == claude_folder(home, project) / "c.jsonl"
    )


def test_nothing_found(home: Path, project: Path) -> None:
    assert find_transcript(project, transcript=None, session_id=SID, env={}, home=home) is None
    rollout(home / ".codex" / "sessions", "other", "/elsewhere", mtime=1_000)
    assert find_transcript(project, transcript=None, session_id=None, env={}, home=home) is None


def test_rollout_cwd_reads_only_the_head(tmp_path: Path) -> None:
    path = tmp_path / "rollout-x.jsonl"
    path.write_text(
        "not json\n"
        + json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"cwd": "/p"}})
        + "\n",
        encoding="utf-8",
    )
    assert rollout_cwd(path) == "/p"
    late = tmp_path / "rollout-late.jsonl"
    lines = ['{"type":"event_msg","payload":{}}'] * 6
    lines.append(json.dumps({"type": "session_meta", "payload": {"cwd": "/p"}}))
    late.write_text("\n".join(lines), encoding="utf-8")
    assert rollout_cwd(late) is None
    assert rollout_cwd(tmp_path / "missing.jsonl") is None


def test_shared_codex_fixture_cwd() -> None:
    shared = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts" / "codex"
    fixture = next(shared.glob("rollout-2025-*.jsonl"), None) if shared.is_dir() else None
    if fixture is None:
        pytest.skip("shared fixtures not present")
    assert rollout_cwd(fixture) == "/home/user/projects/temp/chatbot-ui"

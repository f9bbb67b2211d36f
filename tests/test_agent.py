"""`agent.py`: telling Codex from Claude Code by the environment (issue 13).

The environments below are what codex-cli 0.171.0 really gave a shell tool call and a
hook (tests/e2e/test_codex.py checks the tool-call one against the real binary).
"""

from __future__ import annotations

from session_skill import agent

THREAD = "01a230c8-522c-7dc2-84fc-e67b8092957d"
# `env` inside an exec_command tool call (exec and TUI alike), trimmed to the CODEX_* part.
CODEX_TOOL_CALL = {
    "CODEX_CI": "1",
    "CODEX_HOME": "/home/dev/.codex",
    "CODEX_PERMISSION_PROFILE": ":workspace",
    "CODEX_SANDBOX_NETWORK_DISABLED": "1",
    "CODEX_SESSION_ID": THREAD,
    "CODEX_THREAD_ID": THREAD,
    "CODEX_TOOL_CALL_ID": "call_1",
    "CODEX_VERSION": "0.171.0",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}
# A hook's environment: what Codex was started with, nothing of its own.
CODEX_HOOK = {"CODEX_HOME": "/home/dev/.codex", "HOME": "/home/dev", "PATH": "/usr/bin:/bin"}
CLAUDE_BASH = {"CLAUDE_CODE_SESSION_ID": THREAD, "CLAUDECODE": "1", "PATH": "/usr/bin:/bin"}


def test_a_codex_tool_call_is_codex() -> None:
    assert agent.agent(CODEX_TOOL_CALL) == agent.CODEX
    assert agent.skill(CODEX_TOOL_CALL) == "$session"
    assert agent.hint("recall", CODEX_TOOL_CALL) == "$session recall"


def test_either_thread_variable_is_enough() -> None:
    for key in ("CODEX_THREAD_ID", "CODEX_SESSION_ID"):
        assert agent.agent({key: THREAD}) == agent.CODEX
    assert agent.agent({"CODEX_SANDBOX": "seatbelt"}) == agent.CODEX  # the macOS sandbox


def test_codex_home_alone_proves_nothing() -> None:
    # a user's setting, inherited by a Claude Code started from the same shell
    assert agent.agent(CODEX_HOOK) == agent.CLAUDE
    assert agent.agent(CLAUDE_BASH | {"CODEX_HOME": "/home/dev/.codex"}) == agent.CLAUDE


def test_the_installed_codex_hook_says_so() -> None:
    # the hook gets no Codex variable: the command install writes sets this one
    assert agent.agent(CODEX_HOOK | {"SESSION_SKILL_AGENT": "codex"}) == agent.CODEX
    assert agent.hint("recall x", CODEX_HOOK | {"SESSION_SKILL_AGENT": "codex"}) == (
        "$session recall x"
    )


def test_a_stated_agent_wins_and_empty_values_do_not_count() -> None:
    assert agent.agent(CODEX_TOOL_CALL | {"SESSION_SKILL_AGENT": "claude-code"}) == agent.CLAUDE
    assert agent.agent({"CODEX_THREAD_ID": "", "CODEX_SESSION_ID": ""}) == agent.CLAUDE
    assert agent.agent({"SESSION_SKILL_AGENT": "vim"}) == agent.CLAUDE

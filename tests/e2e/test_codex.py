"""End-to-end: the real Codex CLI (pinned codex-cli 0.171.0), session-skill installed for
Codex in a scratch project, and a scripted model (tests/e2e/codex_mock.py). Issue 13.

Assertions are on files in the store, on the rollouts Codex wrote, and on the request
bodies Codex sent the mock (also in ``<tmp_path>/requests.jsonl``). The scripted model
does what the skill tells a model to do: it runs the skill's own dispatch block with the
user's words after ``$session`` in the quoted heredoc, through Codex's shell tool.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from codex_fixture import DONE_STEP, FIXTURE, OPEN_STEP, SWEEP_PROMPT, sweep_script
from codex_harness import (
    CodexWorld,
    hook_context,
    last_stdout,
    make_world,
    relay,
    rollout_records,
    run_from_output,
    run_skill,
    skill_message,
    tool_exit,
    tool_stdout,
)
from codex_mock import LoggedRequest, exec_command
from e2e_harness import find_tmux, find_venv_bin

from session_skill import agent

pytestmark = pytest.mark.e2e

PARK_IDEA = 'try a bloom filter -- maybe "later", `uname` and $HOME stay as typed'
DUMP_NAME = "auth-work"
GOAL = "Make login() reject expired tokens without changing the session API."
NEXT = "Write the failing test for an expired token in tests/test_auth.py."
DOC = f"""## Goal
{GOAL}

## Decisions
- Check expiry inside login() — why: every caller goes through it.

## Next step
{NEXT}
"""


# --- fixtures ----------------------------------------------------------------------------


@pytest.fixture
def world(tmp_path: Path, codex_bin: Path) -> Iterator[CodexWorld]:
    """Scratch HOME/CODEX_HOME + git project + mock; ``install --agent codex`` run in it
    and committed, as a user would."""
    w = make_world(tmp_path, codex_bin, find_venv_bin())
    try:
        w.install_report = w.session_skill("install", "--agent", "codex", "--project", str(w.proj))
        w.git("add", "-A")
        w.git("commit", "-q", "-m", "install session-skill for Codex")
        yield w
    finally:
        w.close()


@pytest.fixture
def tui_world(world: CodexWorld) -> CodexWorld:
    world.tmux = find_tmux()
    return world


# --- helpers -------------------------------------------------------------------------------


def frontmatter(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines and lines[0] == "---", f"{path} has no frontmatter"
    out: dict[str, str] = {}
    for line in lines[1:]:
        if line == "---":
            return out
        k, sep, v = line.partition(":")
        if sep:
            out[k.strip()] = v.strip().strip("'\"")
    raise AssertionError(f"{path}: unterminated frontmatter")


def dump_as_claude_code(w: CodexWorld) -> Path:
    """A handover written the way Claude Code's skill writes it (a Claude Code session id
    in the environment, no Codex): the shared store is where both clients meet."""
    env = w.env(CLAUDE_CODE_SESSION_ID="9ba084a4-3d12-4cf7-a14a-886e4505a15f")
    w.session_skill("dump", DUMP_NAME, "--file", "-", input=DOC, env=env)
    doc = w.store / f"{DUMP_NAME}.md"
    assert w.latest() == DUMP_NAME
    assert frontmatter(doc)["agent"] == "claude-code"
    return doc


SLASH_FORM = re.compile(r"(?<![\w./-])/session\b(?!/)")  # `/session …`, not `state/session/`


def says_dollar_session(text: str, mode: str) -> bool:
    """The text names the skill as a Codex user types it, and never the slash form."""
    return f"$session {mode}" in text and SLASH_FORM.search(text) is None


def outputs(reqs: list[LoggedRequest]) -> list[str]:
    return [o for r in reqs if (o := r.last_output()) is not None]


def exec_commands(rollout: Path) -> list[str]:
    """The ``cmd`` of every ``exec_command`` call the rollout records."""
    cmds = []
    for rec in rollout_records(rollout):
        p = rec.get("payload") or {}
        if rec.get("type") == "response_item" and p.get("type") == "function_call":
            if p.get("name") == "exec_command":
                cmds.append(json.loads(p["arguments"])["cmd"])
    return cmds


def wait_until(pred: Callable[[], object], timeout: float = 20, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


# --- install: what the user is told, what Codex gets ------------------------------------


def test_install_tells_how_codex_trusts_the_hook(world: CodexWorld) -> None:
    assert world.install_report is not None
    out = world.install_report.stdout
    assert "Hooks need review" in out and "Trust all and continue" in out, out
    assert "/hooks" in out and "`codex exec` never asks" in out, out
    assert "Trust this folder?" in out, out  # .codex/ loads only in a trusted project
    assert "codex_hooks" not in out, out  # no feature flag in 0.171.0
    assert says_dollar_session(out, "dump`"), out
    hooks = json.loads((world.proj / ".codex" / "hooks.json").read_text())
    (entry,) = hooks["hooks"]["SessionStart"]
    assert entry["hooks"][0]["command"].startswith("SESSION_SKILL_AGENT=codex "), entry


# --- 1. $session park, verbatim through the real shell tool --------------------------------


def test_park_verbatim_through_exec_command(world: CodexWorld) -> None:
    w = world
    commands: list[str] = []
    w.mock.script([run_skill(commands), relay()])
    w.check(w.exec(f"$session park {PARK_IDEA}"))

    first, second = w.mock.main_requests()
    skill = skill_message(first)  # `$session` in the prompt brought the whole SKILL.md
    installed = (w.proj / ".agents/skills/session/SKILL.md").read_text(encoding="utf-8")
    assert installed.strip() in skill
    assert "AskUserQuestion" not in skill and "plain text" in skill
    assert "$ARGUMENTS" not in skill and "CLAUDE_SESSION_ID" not in skill
    assert "Use for $session" in skill

    out = second.last_output() or ""
    assert tool_exit(out) == 0, out
    assert tool_stdout(out).startswith("Parked: "), out
    (rollout,) = w.rollouts()
    assert exec_commands(rollout) == commands  # Codex's own shell tool ran it
    assert PARK_IDEA in commands[0] and "<<'SESSION_ARGS'" in commands[0]

    parked = (w.store / "PARKED.md").read_text(encoding="utf-8")
    items = [x for x in parked.splitlines() if x.startswith("- ")]
    assert len(items) == 1 and PARK_IDEA in items[0], parked  # quotes, --, ` and $ intact


# --- 2. $session dump through the skill ---------------------------------------------------------


def test_dump_through_the_skill(world: CodexWorld) -> None:
    w = world
    commands: list[str] = []
    w.mock.script(
        [
            run_skill(commands),
            run_from_output("session-skill dump", DOC, commands),
            relay("Handover written.\n\n"),
        ]
    )
    r = w.check(w.exec(f"$session dump {DUMP_NAME}"))

    reqs = w.mock.main_requests()
    assert len(reqs) == 3
    brief, written = outputs(reqs)
    assert tool_exit(brief) == 0 and "## Goal" in brief and "## Next step" in brief, brief
    assert tool_exit(written) == 0, written
    assert tool_stdout(written).rstrip().splitlines()[-1] == "/clear", written
    assert r.stdout.rstrip().splitlines()[-1] == "/clear", r.stdout  # what the user reads

    assert w.latest() == DUMP_NAME
    doc = w.store / f"{DUMP_NAME}.md"
    fm = frontmatter(doc)
    assert fm["agent"] == "codex", fm  # the client that wrote it
    (rollout,) = w.rollouts()
    assert fm["session_id"] in rollout.name, fm  # the brief found the rollout Codex writes
    assert f"--session-id {fm['session_id']}" in commands[1]
    assert fm["consumed"] == "false" and fm["branch"] == "main"
    body = doc.read_text(encoding="utf-8")
    assert GOAL in body and NEXT in body


# --- 3. a new session with a pending handover: the notice ------------------------------------


def test_new_session_gets_the_notice(world: CodexWorld) -> None:
    w = world
    doc = dump_as_claude_code(w)
    w.mock.script(["Hello."])
    w.check(w.exec("hello"))  # SessionStart, source startup
    (req,) = w.mock.main_requests()
    (notice,) = hook_context(req, DUMP_NAME)
    assert "pending" in notice and len(notice.strip().splitlines()) == 1, notice
    assert GOAL not in req.text()  # a notice, not the doc
    assert says_dollar_session(notice, "recall"), notice
    assert frontmatter(doc)["consumed"] == "false"
    assert w.latest() == DUMP_NAME


def test_exec_skips_an_untrusted_hook_silently(world: CodexWorld) -> None:
    """What install warns about: without trust, `codex exec` runs no hook and says nothing."""
    w = world
    dump_as_claude_code(w)
    w.mock.script(["Hello."])
    r = w.check(w.exec("hello", bypass_hook_trust=False))
    (req,) = w.mock.main_requests()
    assert hook_context(req, DUMP_NAME) == []
    assert "hook" not in r.stdout.lower(), r.stdout
    assert w.hook_trust() == {}


# --- 4. the TUI: trust the hook, /clear, the handover reaches the model once ------------------


def test_tui_clear_restores_once(tui_world: CodexWorld) -> None:
    w = tui_world
    doc = dump_as_claude_code(w)
    w.mock.script(["Noted.", "Picking up the handover.", "Fresh start."])
    t = w.tui()  # no bypass flag: the user trusts the hook as install told them
    t.wait_screen("Hooks need review", what="the hook review prompt")
    t.choose("2. Trust all and continue")
    t.wait_ready()
    assert sorted(w.hook_trust()) == [
        f"{w.proj}/.codex/hooks.json:pre_compact:0:0",
        f"{w.proj}/.codex/hooks.json:session_start:0:0",
    ], w.hook_trust()

    # the first prompt starts the thread: SessionStart(startup) → the notice only
    mark = w.mock.mark()
    t.type("hello")
    req = w.mock.wait_main(since=mark)
    (notice,) = hook_context(req, DUMP_NAME)
    assert GOAL not in req.text() and frontmatter(doc)["consumed"] == "false", notice
    t.wait_screen("Noted.")

    # /clear, then a prompt: SessionStart(clear) injects the handover into that request
    t.type("/clear")
    t.wait_ready()
    mark = w.mock.mark()
    t.type("what were we doing?")
    req = w.mock.wait_main(since=mark)
    injected = hook_context(req, GOAL)
    assert len(injected) == 1, req.messages("developer")
    assert injected[0].count(GOAL) == 1 and NEXT in injected[0], injected[0]
    assert "hello" not in req.messages("user")  # the old thread is gone
    assert says_dollar_session(injected[0], "recall"), injected[0]
    wait_until(lambda: frontmatter(doc)["consumed"] == "true", what="the doc to be consumed")
    assert frontmatter(doc)["consumed_by"] == "hook"
    assert w.latest() is None
    t.wait_screen("Picking up the handover.")

    # a second /clear: nothing left to inject
    t.type("/clear")
    t.wait_ready()
    mark = w.mock.mark()
    t.type("anything pending?")
    req = w.mock.wait_main(since=mark)
    assert "what were we doing?" not in req.messages("user")
    assert GOAL not in req.text() and DUMP_NAME not in req.text()
    t.wait_screen("Fresh start.")
    assert len(w.rollouts()) == 3  # one thread per /clear


# --- 5. sweep finds the rollout Codex is writing, and its pending plan step ------------------


def test_sweep_finds_the_rollout_and_its_pending_step(world: CodexWorld) -> None:
    w = world
    assert "CODEX_HOME" in w.env()
    # a user of both clients: a Claude Code transcript of this project, newer than anything
    key = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(w.proj))
    decoy = w.home / ".claude" / "projects" / key / "9ba084a4-3d12-4cf7-a14a-886e4505a15f.jsonl"
    decoy.parent.mkdir(parents=True)
    decoy.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "x"}}))
    w.mock.script(sweep_script())
    w.check(w.exec(SWEEP_PROMPT))

    *_, last = w.mock.main_requests()
    swept = last_stdout(last)  # `session-skill dispatch` with `sweep`: no --transcript
    assert "session-skill dispatch" in exec_commands(w.rollouts()[0])[0]
    assert OPEN_STEP in swept and "Unfinished task" in swept, swept
    assert DONE_STEP not in swept, swept

    # and from the user's terminal, after the session: the same rollout, found by its cwd
    decoy.unlink()
    by_cwd = w.session_skill("sweep", "--json")
    data = json.loads(by_cwd.stdout)
    assert data["transcript"] == str(w.rollouts()[0]), data
    assert [c["text"] for c in data["candidates"] if c["type"] == "Unfinished task"] == [
        OPEN_STEP
    ], data


def test_fixture_has_every_record_type_codex_writes(world: CodexWorld) -> None:
    """The kept fixture (generated by ``python tests/e2e/codex_fixture.py``) still covers
    what the pinned Codex writes for the sweep scenario."""
    w = world
    w.mock.script(sweep_script())
    w.check(w.exec(SWEEP_PROMPT))
    (rollout,) = w.rollouts()
    real = rollout_records(rollout)
    kept = [json.loads(x) for x in FIXTURE.read_text(encoding="utf-8").splitlines()]

    def kinds(records: list[dict[str, object]]) -> set[tuple[str, str]]:
        out = set()
        for r in records:
            p = r.get("payload")
            sub = p.get("type") if isinstance(p, dict) else None
            out.add((str(r.get("type")), str(sub) if r.get("type") != "event_msg" else ""))
        return out

    assert kinds(real) <= kinds(kept), kinds(real) - kinds(kept)
    assert all("ordinal" in r for r in real) and all("ordinal" in r for r in kept)
    assert {"world_state", "token_usage_record"} <= {str(r["type"]) for r in kept}


# --- 6. a Claude Code handover, recalled in Codex --------------------------------------------


def test_claude_code_handover_recalled_with_session_recall(world: CodexWorld) -> None:
    w = world
    doc = dump_as_claude_code(w)
    w.mock.script([run_skill(), relay()])
    w.check(w.exec("$session recall"))
    (out,) = outputs(w.mock.main_requests())
    assert tool_exit(out) == 0, out
    recalled = tool_stdout(out)
    assert DUMP_NAME in recalled and GOAL in recalled and NEXT in recalled, recalled
    fm = frontmatter(doc)
    assert fm["consumed"] == "true" and fm["consumed_by"] == "recall", fm
    assert w.latest() is None

    # nothing pending now: the hint names the skill as a Codex user types it
    w.mock.script([run_skill(), relay()])
    mark = w.mock.mark()
    w.check(w.exec("$session recall"))
    (out,) = outputs(w.mock.main_requests(since=mark))
    again = tool_stdout(out)
    assert "No pending handover" in again and says_dollar_session(again, "list"), again


def test_tool_calls_are_detected_as_codex(world: CodexWorld) -> None:
    """The variables agent.py relies on are the ones Codex really sets in a tool call."""
    w = world
    probe = "python3 -c 'import json, os; print(json.dumps(dict(os.environ)))'"
    w.mock.script([exec_command(probe), "ok"])
    w.check(w.exec("probe"))
    (out,) = outputs(w.mock.main_requests())
    env = json.loads(tool_stdout(out))
    assert agent.agent(env) == "codex"
    (rollout,) = w.rollouts()
    assert env["CODEX_THREAD_ID"] in rollout.name  # the thread's id, as in its rollout
    assert "SESSION_SKILL_AGENT" not in env
    unmarked = {k: v for k, v in env.items() if k not in ("CODEX_THREAD_ID", "CODEX_SESSION_ID")}
    assert agent.agent(unmarked) == "claude-code"  # CODEX_HOME and the rest prove nothing

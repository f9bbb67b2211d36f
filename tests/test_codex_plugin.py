"""The repository root as a Codex plugin (issue 13): `.codex-plugin/plugin.json`, the
generated `codex/skills/session/SKILL.md`, `codex/hooks.json`, and what `bin/session-skill`
does differently inside Codex.

Codex (codex-cli 0.171.0, seen) prefers `.codex-plugin/plugin.json` to `.claude-plugin/`,
names the skill `$session-skill:session`, gives hooks `PLUGIN_ROOT`/`PLUGIN_DATA` (and the
`CLAUDE_` forms) but the model's shell calls neither, puts no plugin `bin/` on PATH, and runs
those calls in a sandbox that cannot write the plugin's data folder. The real client runs
it all in tests/e2e/test_codex_plugin.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import yaml

import session_skill
from session_skill import agent
from session_skill.install import skills as inst_skills
from tests.test_plugin import BASE_PYTHON, base_env, make_root, pycache_of, shim, wheelhouse

__all__ = ["wheelhouse"]  # a fixture, used by name

REPO = Path(__file__).resolve().parents[1]
SKILL = REPO / "codex" / "skills" / "session" / "SKILL.md"
HOOK_COMMAND = 'SESSION_SKILL_AGENT=codex "${PLUGIN_ROOT}/bin/session-skill" hook session-start'
REGENERATE = (
    "python -c 'from session_skill.install.skills import codex_plugin_skill_text as t; "
    'open("codex/skills/session/SKILL.md", "w").write(t())\''
)


def load(rel: str) -> dict[str, object]:
    data = json.loads((REPO / rel).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


# -- the manifest and the hooks ----------------------------------------------------------------


def test_manifest_points_at_the_codex_skill_and_hooks() -> None:
    manifest = load(".codex-plugin/plugin.json")
    claude = load(".claude-plugin/plugin.json")
    for key in ("name", "version", "author", "license", "keywords"):
        assert manifest[key] == claude[key], key  # one plugin, two clients
    assert manifest["version"] == session_skill.__version__
    description = manifest["description"]
    assert isinstance(description, str) and agent.CODEX_PLUGIN_SKILL in description
    assert manifest["skills"] == "./codex/skills/" and manifest["hooks"] == "./codex/hooks.json"
    found = sorted(p.relative_to(REPO / "codex" / "skills") for p in SKILL.parents[1].rglob("*"))
    assert found == [Path("session"), Path("session/SKILL.md")]
    # Codex reads only plugin.json in .codex-plugin/
    assert [p.name for p in (REPO / ".codex-plugin").iterdir()] == ["plugin.json"]


def test_hooks_run_the_shim_at_session_start_and_pre_compact() -> None:
    hooks = load("codex/hooks.json")["hooks"]
    # Codex's /clear fires no SessionEnd (seen, 0.171.0): SessionStart(clear) captures the
    # thread it left; PreCompact saves the state before a compaction.
    assert isinstance(hooks, dict) and list(hooks) == ["SessionStart", "PreCompact"]
    (entry,) = hooks["SessionStart"]
    assert entry == {
        "matcher": "startup|clear|compact",
        "hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": 10}],
    }
    (compact,) = hooks["PreCompact"]
    pre = HOOK_COMMAND.replace("hook session-start", "hook pre-compact")
    assert compact == {
        "matcher": "manual|auto",
        "hooks": [{"type": "command", "command": pre, "timeout": 10}],
    }


# -- the generated skill ------------------------------------------------------------------


def test_committed_skill_is_what_the_generator_makes() -> None:
    committed = SKILL.read_text(encoding="utf-8")
    assert committed == inst_skills.codex_plugin_skill_text(), f"regenerate it: {REGENERATE}"


def test_skill_runs_the_plugins_own_cli() -> None:
    text = inst_skills.codex_plugin_skill_text()
    head, body = text.removeprefix("---\n").split("\n---\n", 1)
    meta = yaml.safe_load(head)
    assert meta["name"] == "session" and set(meta) == {"name", "description"}
    assert "Use for $session-skill:session," in meta["description"]
    assert "/session" not in head
    assert "<what the user wrote after $session-skill:session, verbatim>" in body
    assert "AskUserQuestion" not in text and "$ARGUMENTS" not in text
    assert "CLAUDE_SESSION_ID" not in text
    # every command runs the plugin's bin/session-skill by the path the skill says how to find
    commands = re.findall(r"^ *(\S+) (?:dispatch|dump|park) ", body, re.M)
    commands += re.findall(r"`(\S+) sweep --park", body)
    assert len(commands) == 4 and set(commands) == {inst_skills.PLUGIN_CLI}, commands
    assert "`<plugin>` is this SKILL.md's path without `/codex/skills/session/SKILL.md`" in body
    assert SKILL.relative_to(REPO).as_posix() == "codex/skills/session/SKILL.md"
    heredocs = re.findall(r"<<-?\s*(\S+)", body)
    assert heredocs and all(re.fullmatch(r"'[A-Z_]+'", h) for h in heredocs), heredocs


def test_skill_reruns_the_first_command_outside_the_sandbox_on_the_shims_line() -> None:
    text = inst_skills.codex_plugin_skill_text()
    shim_text = (REPO / "bin" / "session-skill").read_text(encoding="utf-8")
    assert 'die "setup needed: ' in shim_text  # `die` prints `session-skill: <message>`
    assert "after a line `session-skill: setup needed: …`" in text
    assert 'sandbox_permissions: "require_escalated"' in text


# -- which skill the messages name ----------------------------------------------------------


def test_codex_plugin_hints_name_the_namespaced_skill() -> None:
    plugin = {"SESSION_SKILL_VIA": "plugin"}
    assert agent.skill({**plugin, "SESSION_SKILL_AGENT": "codex"}) == "$session-skill:session"
    assert agent.skill({**plugin, "CODEX_THREAD_ID": "t"}) == agent.CODEX_PLUGIN_SKILL
    assert agent.hint("recall x", {**plugin, "CODEX_THREAD_ID": "t"}) == (
        "$session-skill:session recall x"
    )
    assert agent.skill({"CODEX_THREAD_ID": "t"}) == "$session"  # a project install
    assert agent.skill(plugin) == "/session-skill:session"  # the Claude Code plugin


def test_hook_command_gives_the_codex_plugin_notice(tmp_path: Path) -> None:
    """The hook as Codex runs it: `sh -c` with PLUGIN_ROOT and PLUGIN_DATA, no venv yet."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    store = project / ".claude" / "state" / "session"
    store.mkdir(parents=True)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    (store / "plan-x.md").write_text(
        f"---\nslug: plan-x\ncreated: {created}\nconsumed: false\nbranch: main\n---\n"
        "## Goal\nShip the Codex plugin.\n\n## Next step\nRun it in Codex.\n"
    )
    (store / "LATEST").write_text("plan-x\n")
    data = tmp_path / "codex" / "plugins" / "data" / "session-skill-session-skill"
    data.mkdir(parents=True)
    env = {
        "PATH": f"{BASE_PYTHON.parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "PLUGIN_ROOT": str(REPO),
        "PLUGIN_DATA": str(data),
        "CLAUDE_PLUGIN_ROOT": str(REPO),
        "CLAUDE_PLUGIN_DATA": str(data),
    }
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    r = subprocess.run(
        ["sh", "-c", HOOK_COMMAND],
        input=json.dumps({**payload, "source": "startup", "model": "m"}),
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    notice = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "`plan-x`" in notice and "`$session-skill:session recall` loads it" in notice, notice
    assert "Ship the Codex plugin" not in notice  # startup: a notice, not the doc
    assert "/session" not in notice and "$session " not in notice
    assert not (data / "venv").exists()  # a hook builds nothing


# -- bin/session-skill inside Codex ------------------------------------------------------------


def test_shell_calls_in_codex_find_codexs_data_folder(tmp_path: Path, wheelhouse: Path) -> None:
    """Codex gives the model's shell calls no PLUGIN_DATA: the shim looks in CODEX_HOME."""
    (tmp_path / "home").mkdir()
    root = make_root(tmp_path / "plugin", [])
    env = base_env(tmp_path, wheelhouse)
    claude = tmp_path / "home" / ".claude" / "plugins" / "data" / "session-skill-m"
    claude.mkdir(parents=True)
    codex_home = tmp_path / "codex-home"
    codex = codex_home / "plugins" / "data" / "session-skill-session-skill"
    codex.mkdir(parents=True)
    in_codex = {**env, "CODEX_THREAD_ID": "t", "CODEX_HOME": str(codex_home)}
    assert pycache_of(shim(root, "hook", "x", env=in_codex)) == codex
    assert pycache_of(shim(root, "hook", "x", env=env)) == claude  # not in Codex
    default = tmp_path / "home" / ".codex" / "plugins" / "data" / "session-skill-s"
    default.mkdir(parents=True)
    assert pycache_of(shim(root, "hook", "x", env={**env, "CODEX_THREAD_ID": "t"})) == default
    given = {**in_codex, "CLAUDE_PLUGIN_DATA": str(tmp_path / "given")}  # a hook: it is set
    assert pycache_of(shim(root, "hook", "x", env=given)) == tmp_path / "given"


SETUP_NEEDED = (
    "session-skill: setup needed: the first run installs the plugin's Python dependencies"
)


def test_setup_where_it_may_not_write_is_one_line_at_once(tmp_path: Path, wheelhouse: Path) -> None:
    """What Codex's sandbox gets on a first run: one line naming the way out, and no wait
    on a lock that cannot be taken. Here the folder cannot be made; an existing read-only
    one (`[ -w ]`: what Codex's sandbox really gives, and root can write anything here) is
    met in tests/e2e/test_codex_plugin.py."""
    (tmp_path / "home").mkdir()
    root = make_root(tmp_path / "plugin", ["ssk-probe-dep==1.0"])
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    env = base_env(tmp_path, wheelhouse, SESSION_SKILL_PLUGIN_DATA=str(blocker / "data"))
    r = subprocess.run(
        [str(root / "bin" / "session-skill"), "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 1 and r.stdout == "", r
    (line,) = r.stderr.splitlines()
    assert line.startswith(SETUP_NEEDED) and "sandbox_permissions require_escalated" in line, line
    assert str(blocker / "data" / "venv") in line

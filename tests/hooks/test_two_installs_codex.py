"""The Codex plugin and a `.codex/hooks.json` install (`session-skill install --agent codex`,
`--user`) both in place: Codex (0.171.0, seen: tests/e2e/test_codex_plugin.py) runs both
SessionStart hooks, and a notice that moves nothing in the store was said by each. The
plugin's hook leaves it to the install's when Codex would run that one: the project trusted
(for a project's `.codex/`), the hook trusted, its interpreter there. Otherwise it says it."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from session_skill.hooks import ours
from session_skill.hooks import session_start as hook
from session_skill.install.hooks import MATCHER, hook_command
from tests.hooks.test_session_start import (
    NOW,
    SLUG,
    context,
    make_project,
    payload,
    stamp,
    store_dir,
    write_doc,
)
from tests.hooks.test_two_installs import pending_project, run_both, snapshot
from tests.hooks.test_two_installs import settings as hooks_json

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="Codex's trust is read with tomllib (3.11+)"
)

REPO = Path(hook.__file__).resolve().parents[2]
PLUGIN_HOOK = 'SESSION_SKILL_AGENT=codex "${PLUGIN_ROOT}/bin/session-skill" hook session-start'
PLUGIN_SAYS = "`$session-skill:session recall` loads it"
INSTALL_SAYS = "`$session recall` loads it"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / ".codex").mkdir(parents=True)
    return tmp_path / "home"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return pending_project(tmp_path)


@pytest.fixture
def command() -> str:
    """What `session-skill install --agent codex` writes for this interpreter."""
    return hook_command(agent="codex")


def config(home: Path, *, trusted: tuple[Path, ...] = (), hooks: tuple[Path, ...] = (),
           more: str = "") -> Path:  # fmt: skip
    """`$CODEX_HOME/config.toml` as Codex writes it: the projects trusted, the hooks trusted
    (each file's first SessionStart hook), written after the hook files."""
    lines = [f'[projects.{json.dumps(str(p))}]\ntrust_level = "trusted"\n' for p in trusted]
    lines += ["[hooks.state]\n"]
    lines += [
        f'[hooks.state.{json.dumps(f"{h}:session_start:0:0")}]\ntrusted_hash = "sha256:00"\n'
        for h in hooks
    ]
    path = home / ".codex" / "config.toml"
    path.write_text("\n".join(lines) + more, encoding="utf-8")
    later = time.time() + 1
    os.utime(path, (later, later))  # Codex writes its trust after the file it trusts
    return path


def env_of(home: Path, *, plugin: bool) -> dict[str, str]:
    env = {
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "PATH": os.environ.get("PATH", ""),
        "SESSION_SKILL_AGENT": "codex",  # what both hook commands set
    }
    if plugin:  # what Codex and the plugin's bin/session-skill set
        env.update(PLUGIN_ROOT=str(home / "plugin"), CLAUDE_PLUGIN_ROOT=str(home / "plugin"),
                   SESSION_SKILL_VIA="plugin")  # fmt: skip
    return env


def start(cwd: Path, home: Path, *, plugin: bool, source: str = "startup") -> str:
    return hook.run(payload(cwd, source), env=env_of(home, plugin=plugin), now=NOW)


def test_plugin_and_a_trusted_project_install_say_a_startup_notice_once(
    root: Path, home: Path, command: str
) -> None:
    installed = hooks_json(root / ".codex" / "hooks.json", command)
    config(home, trusted=(root,), hooks=(installed,))
    before = snapshot(root)
    said = context(start(root, home, plugin=False))  # the project install's hook
    assert "12 min ago" in said and INSTALL_SAYS in said and SLUG in said
    assert start(root, home, plugin=True) == ""  # the plugin's, beside it: silent
    assert snapshot(root) == before  # read-only, both


def test_a_user_install_counts_without_a_trusted_project(
    root: Path, home: Path, command: str
) -> None:
    # `install --agent codex --user`
    installed = hooks_json(home / ".codex" / "hooks.json", command)
    config(home, hooks=(installed,))
    assert start(root, home, plugin=True) == ""


def test_another_branchs_dump_is_named_once(tmp_path: Path, home: Path, command: str) -> None:
    root = make_project(tmp_path, branch="feat/x")
    doc = write_doc(root)  # dumped on main
    installed = hooks_json(root / ".codex" / "hooks.json", command)
    config(home, trusted=(root,), hooks=(installed,))
    assert start(root, home, plugin=True, source="clear") == ""
    assert "`feat/x` is checked out" in context(start(root, home, plugin=False, source="clear"))
    assert "consumed: false" in doc.read_text()


def test_started_in_a_subfolder_the_projects_install_counts(
    root: Path, home: Path, command: str
) -> None:
    """Codex loads `.codex/` from the folder it runs in up to the project's root."""
    sub = root / "pkg" / "sub"
    sub.mkdir(parents=True)
    installed = hooks_json(root / ".codex" / "hooks.json", command)
    config(home, trusted=(root,), hooks=(installed,))
    assert start(sub, home, plugin=True) == ""


@pytest.mark.parametrize(
    "case",
    [
        "project-untrusted",
        "project-marked-untrusted",
        "hook-untrusted",
        "hook-disabled",
        "hook-changed-since",
        "another-hooks-position",
        "no-config",
        "config-invalid",
        "no-interpreter",
        "clear-only-matcher",
        "wrapped",
        "claude-settings-only",
    ],
)
def test_when_codex_would_not_run_the_other_hook_the_plugin_says_it(
    root: Path, home: Path, command: str, tmp_path: Path, case: str
) -> None:
    path = root / ".codex" / "hooks.json"
    installed = hooks_json(path, command)
    if case == "project-untrusted":  # Codex does not load an untrusted project's .codex/
        config(home, hooks=(installed,))
    elif case == "project-marked-untrusted":
        cfg = config(home, hooks=(installed,))
        cfg.write_text(f'[projects.{json.dumps(str(root))}]\ntrust_level = "untrusted"\n'
                       + cfg.read_text())  # fmt: skip
        os.utime(cfg, (time.time() + 1, time.time() + 1))
    elif case == "hook-untrusted":  # "Hooks need review" not answered yet
        config(home, trusted=(root,))
    elif case == "hook-disabled":
        cfg = config(home, trusted=(root,), hooks=(installed,))
        cfg.write_text(cfg.read_text() + "enabled = false\n")
        os.utime(cfg, (time.time() + 1, time.time() + 1))
    elif case == "hook-changed-since":  # a new install changed the command: to trust again
        config(home, trusted=(root,), hooks=(installed,))
        later = time.time() + 5
        os.utime(installed, (later, later))
    elif case == "another-hooks-position":  # the trusted hook is the user's, ours came after
        mine = {"hooks": [{"type": "command", "command": "./notify.sh"}]}
        ourentry = {"matcher": MATCHER, "hooks": [{"type": "command", "command": command}]}
        path.write_text(json.dumps({"hooks": {"SessionStart": [mine, ourentry]}}))
        config(home, trusted=(root,), hooks=(installed,))
    elif case == "no-config":
        pass
    elif case == "config-invalid":
        cfg = config(home, trusted=(root,), hooks=(installed,))
        cfg.write_text(cfg.read_text() + "[[[\n")
        os.utime(cfg, (time.time() + 1, time.time() + 1))
    elif case == "no-interpreter":
        hooks_json(path, f"SESSION_SKILL_AGENT=codex {tmp_path / 'moved' / 'python3'} "
                         "-m session_skill hook session-start")  # fmt: skip
        config(home, trusted=(root,), hooks=(installed,))
    elif case == "clear-only-matcher":
        hooks_json(path, command, matcher="clear")
        config(home, trusted=(root,), hooks=(installed,))
    elif case == "wrapped":
        hooks_json(path, f"nice -n 10 {command}")
        config(home, trusted=(root,), hooks=(installed,))
    elif case == "claude-settings-only":  # Claude Code's file: Codex does not read it
        path.unlink()
        settings = root / ".claude" / "settings.json"
        settings.write_text(json.dumps(
            {"hooks": {"SessionStart": [{"matcher": MATCHER, "hooks": [
                {"type": "command", "command": hook_command()}]}]}}))  # fmt: skip
        config(home, trusted=(root,), hooks=(settings,))
    said = context(start(root, home, plugin=True))
    assert PLUGIN_SAYS in said, said


def test_only_the_plugin_says_it_as_before(root: Path, home: Path) -> None:
    config(home, trusted=(root,))
    assert PLUGIN_SAYS in context(start(root, home, plugin=True))


def test_nothing_to_say_reads_no_hook_files(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path)
    store_dir(root).mkdir(parents=True)
    monkeypatch.setattr(ours, "codex_speaks_beside", lambda *a: pytest.fail("read the files"))
    assert start(root, home, plugin=True) == ""


def test_both_hooks_as_codex_runs_them(root: Path, home: Path, command: str,
                                       tmp_path: Path) -> None:  # fmt: skip
    """The plugin's entry through its shim (`sh -c`, PLUGIN_ROOT), and install's command, run
    as processes: one notice between them, the project install's."""
    hooks = json.loads((REPO / "codex" / "hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == PLUGIN_HOOK
    installed = hooks_json(root / ".codex" / "hooks.json", command)
    config(home, trusted=(root,), hooks=(installed,))
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "SESSION_SKILL", "CODEX", "CLAUDE"))}  # fmt: skip
    base.update(HOME=str(home), CODEX_HOME=str(home / ".codex"), SESSION_SKILL_NOW=stamp(NOW))
    data = tmp_path / "plugin-data"
    plugin = {**base, "PLUGIN_ROOT": str(REPO), "PLUGIN_DATA": str(data),
              "CLAUDE_PLUGIN_ROOT": str(REPO), "CLAUDE_PLUGIN_DATA": str(data)}  # fmt: skip
    outs = run_both(root, (PLUGIN_HOOK, plugin), (command, base))
    assert outs[0] == b""  # the plugin's
    assert INSTALL_SAYS in context(outs[1].decode())

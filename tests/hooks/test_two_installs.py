"""The plugin and a settings-file install (`session-skill install`, `--user`) both in place:
Claude Code runs both SessionStart hooks. A notice that moves nothing in the store — a
handover pending at startup, one written on another branch — was said by each. The plugin's
hook leaves it to the settings-file install's when that one answers the start and looks able
to; with either alone, or the other's hook off or broken, the notice is said as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
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

PLUGIN_HOOK = '"${CLAUDE_PLUGIN_ROOT}/bin/session-skill" hook session-start'


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def pending_project(tmp_path: Path) -> Path:
    """A project whose handover, written 12 minutes ago, waits to be loaded."""
    root = make_project(tmp_path)
    write_doc(root, created=stamp(NOW - timedelta(minutes=12)))
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return pending_project(tmp_path)


@pytest.fixture
def command() -> str:
    """What `session-skill install` writes for this interpreter (it finds this checkout)."""
    return hook_command()


def settings(path: Path, command: str, matcher: str = MATCHER, **more: object) -> Path:
    """A settings file (or Codex's hooks.json: the same layout) with one SessionStart hook."""
    entry = {"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": 10}]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": {"SessionStart": [entry]}, **more}), encoding="utf-8")
    return path


def run_both(root: Path, *hooks: tuple[str, dict[str, str]]) -> list[bytes]:
    """Each hook command run as the client runs it (`sh -c`, the payload of a startup on
    stdin), in its own environment; what each printed. Each must exit 0, silent on stderr."""
    outs = [
        subprocess.run(
            ["sh", "-c", cmd],
            input=payload(root, "startup"),
            capture_output=True,
            env=env,
            cwd=root,
            timeout=60,
        )  # fmt: skip
        for cmd, env in hooks
    ]
    assert [(r.returncode, r.stderr) for r in outs] == [(0, b"")] * len(outs)
    return [r.stdout for r in outs]


def env_of(root: Path, home: Path, *, plugin: bool) -> dict[str, str]:
    env = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CLAUDE_PROJECT_DIR": str(root),
        "PATH": os.environ.get("PATH", ""),
    }
    if plugin:  # what Claude Code and the plugin's bin/session-skill set
        env.update(CLAUDE_PLUGIN_ROOT=str(home / "plugin"), SESSION_SKILL_VIA="plugin")
    return env


def start(root: Path, home: Path, *, plugin: bool, source: str = "startup") -> str:
    return hook.run(payload(root, source), env=env_of(root, home, plugin=plugin), now=NOW)


def snapshot(root: Path) -> dict[str, bytes]:
    sd = store_dir(root)
    return {str(p.relative_to(sd)): p.read_bytes() for p in sorted(sd.rglob("*")) if p.is_file()}


def test_plugin_and_a_project_install_say_a_startup_notice_once(
    root: Path, home: Path, command: str
) -> None:
    settings(root / ".claude" / "settings.json", command)
    before = snapshot(root)
    said = context(start(root, home, plugin=False))  # the settings-file install's hook
    assert "12 min ago" in said and "`/session recall` loads it" in said and SLUG in said
    assert start(root, home, plugin=True) == ""  # the plugin's, beside it: silent
    assert snapshot(root) == before  # read-only, both


@pytest.mark.parametrize(
    "where",
    [
        lambda root, home: root / ".claude" / "settings.local.json",
        lambda root, home: home / ".claude" / "settings.json",  # `install --user`
    ],
    ids=["settings.local.json", "user"],
)
def test_the_install_may_be_in_any_settings_file_claude_code_reads(
    root: Path, home: Path, command: str, where: Callable[[Path, Path], Path]
) -> None:
    settings(where(root, home), command)
    assert start(root, home, plugin=True) == ""


def test_only_the_plugin_or_only_an_install_says_it_as_before(
    root: Path, home: Path, command: str
) -> None:
    plugin_only = context(start(root, home, plugin=True))
    assert "`/session-skill:session recall` loads it" in plugin_only
    settings(root / ".claude" / "settings.json", command)
    assert "`/session recall` loads it" in context(start(root, home, plugin=False))


def test_another_branchs_dump_is_named_once_at_clear_too(
    tmp_path: Path, home: Path, command: str
) -> None:
    root = make_project(tmp_path, branch="feat/x")
    doc = write_doc(root)  # dumped on main
    settings(root / ".claude" / "settings.json", command)
    assert start(root, home, plugin=True, source="clear") == ""
    assert "`feat/x` is checked out" in context(start(root, home, plugin=False, source="clear"))
    assert "consumed: false" in doc.read_text()


def test_a_restore_is_not_left_to_the_other_hook(root: Path, home: Path, command: str) -> None:
    """What consumes is given once already — by whichever hook gets there first."""
    settings(root / ".claude" / "settings.json", command)
    assert "Add token expiry" in context(start(root, home, plugin=True, source="clear"))
    assert start(root, home, plugin=False, source="clear") == ""


def _broken_venv(tmp_path: Path) -> str:
    """A venv whose session-skill was uninstalled: its python runs, the package is gone."""
    venv = tmp_path / "gone-venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    return f"{venv / 'bin' / 'python'} -P -m session_skill hook session-start"


@pytest.mark.parametrize(
    "case",
    [
        "disableAllHooks",
        "managed-only",
        "no-interpreter",
        "package-gone",
        "pythonpath-gone",
        "clear-only-matcher",
        "pattern-matcher",
        "wrapped",
        "invalid-json",
    ],
)
def test_when_the_other_hook_would_not_say_it_the_plugin_does(
    root: Path, home: Path, command: str, tmp_path: Path, case: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    path = root / ".claude" / "settings.json"
    if case == "disableAllHooks":  # in any file read: the plugin runs, so it can't be all
        settings(path, command)
        (root / ".claude" / "settings.local.json").write_text('{"disableAllHooks": true}')
    elif case == "managed-only":  # an administrator allows only managed and plugin hooks
        settings(path, command)
        managed = tmp_path / "managed-settings.json"
        managed.write_text('{"allowManagedHooksOnly": true}')
        monkeypatch.setattr(ours, "MANAGED", (str(managed),))
    elif case == "no-interpreter":
        settings(path, f"{tmp_path / 'moved' / 'python3'} -m session_skill hook session-start")
    elif case == "package-gone":
        settings(path, _broken_venv(tmp_path))
    elif case == "pythonpath-gone":
        settings(path, f"PYTHONPATH={tmp_path / 'old-checkout'} {sys.executable} "
                       "-m session_skill hook session-start")  # fmt: skip
    elif case == "clear-only-matcher":  # an old install's
        settings(path, command, matcher="clear")
    elif case == "pattern-matcher":
        settings(path, command, matcher="^(start|clear)")
    elif case == "wrapped":  # the user's own form: no telling whether it runs
        settings(path, f"nice -n 10 {command}")
    elif case == "invalid-json":  # Claude Code skips the file, and its hooks
        settings(path, command)
        path.write_text(path.read_text()[:-2])
    said = context(start(root, home, plugin=True))
    assert "`/session-skill:session recall` loads it" in said


def test_a_checkout_installed_with_pythonpath_counts(root: Path, home: Path) -> None:
    checkout = Path(hook.__file__).resolve().parents[2]
    settings(
        root / ".claude" / "settings.json",
        f"PYTHONPATH={checkout} {sys.executable} -m session_skill hook session-start",
    )
    assert start(root, home, plugin=True) == ""


def test_nothing_to_say_reads_no_settings(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The common start (nothing pending) costs the plugin's hook nothing more."""
    root = make_project(tmp_path)
    store_dir(root).mkdir(parents=True)
    monkeypatch.setattr(ours, "speaks_beside", lambda *a: pytest.fail("read the settings"))
    assert start(root, home, plugin=True) == ""


def test_both_hooks_as_claude_code_runs_them(root: Path, home: Path, command: str,
                                             tmp_path: Path) -> None:  # fmt: skip
    """The plugin's entry through its shim, and install's command, run as processes: one
    notice between them."""
    repo = Path(hook.__file__).resolve().parents[2]
    hooks = json.loads((repo / "hooks" / "hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == PLUGIN_HOOK
    settings(root / ".claude" / "settings.json", command)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "SESSION_SKILL"))}
    base.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                CLAUDE_PROJECT_DIR=str(root), SESSION_SKILL_NOW=stamp(NOW))  # fmt: skip
    plugin = {**base, "CLAUDE_PLUGIN_ROOT": str(repo),
              "CLAUDE_PLUGIN_DATA": str(tmp_path / "plugin-data")}  # fmt: skip
    outs = run_both(root, (PLUGIN_HOOK, plugin), (command, base))
    assert outs[0] == b""  # the plugin's
    assert "`/session recall` loads it" in context(outs[1].decode())

"""The repository root as a Claude Code plugin (SPEC §10, issue 3)."""

from __future__ import annotations

import json
import os
import pwd
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

import session_skill

REPO = Path(__file__).resolve().parents[1]
CLAUDE_VERSION = os.environ.get("SESSION_SKILL_E2E_CLAUDE_VERSION", "2.1.328")


def load(rel: str) -> dict[str, object]:
    data = json.loads((REPO / rel).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def hook_entry() -> dict[str, object]:
    hooks = load("hooks/hooks.json")["hooks"]
    assert isinstance(hooks, dict) and list(hooks) == ["SessionStart"]
    (entry,) = hooks["SessionStart"]
    assert isinstance(entry, dict)
    return entry


def test_plugin_manifest() -> None:
    manifest = load(".claude-plugin/plugin.json")
    assert manifest["name"] == "session-skill"
    pyproject = (REPO / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    assert version and manifest["version"] == version.group(1) == session_skill.__version__
    assert manifest["version"] == "0.1.0"
    assert isinstance(manifest["description"], str) and "/clear" in manifest["description"]
    author = manifest["author"]
    assert isinstance(author, dict) and author["name"]
    assert manifest["license"] == "MIT"
    keywords = manifest["keywords"]
    assert isinstance(keywords, list) and keywords and all(isinstance(k, str) for k in keywords)
    assert (REPO / "skills" / "session" / "SKILL.md").is_file()


def test_hooks_json_shape() -> None:
    entry = hook_entry()
    assert entry["matcher"] == "startup|clear"
    hooks = entry["hooks"]
    assert isinstance(hooks, list) and len(hooks) == 1
    hook = hooks[0]
    assert hook["type"] == "command" and hook["timeout"] == 10
    assert hook["command"] == (
        'PYTHONPATH="${CLAUDE_PLUGIN_ROOT}" python3 -m session_skill hook session-start'
    )


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `python3` that does not have session_skill installed: a fresh venv."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    bindir = venv / "bin"
    assert (bindir / "python3").exists()
    return bindir


def test_plugin_hook_runs_without_the_package_installed(tmp_path: Path, bare_python: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    store = project / ".claude" / "state" / "session"
    store.mkdir(parents=True)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    (store / "plan-x.md").write_text(
        f"---\nslug: plan-x\ncreated: {created}\nconsumed: false\nbranch: main\n---\n"
        "## Goal\nShip the plugin.\n\n## Next step\nValidate it.\n"
    )
    (store / "LATEST").write_text("plan-x\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "PYTHON"))}
    env["PATH"] = f"{bare_python}{os.pathsep}{env.get('PATH', '')}"
    probe = subprocess.run(
        ["bash", "-c", "python3 -c 'import session_skill'"],
        env=env,
        cwd=project,
        capture_output=True,
    )
    assert probe.returncode != 0, "the bare python must not have session_skill"

    env["CLAUDE_PLUGIN_ROOT"] = str(REPO)
    env["CLAUDE_PROJECT_DIR"] = str(project)
    command = hook_entry()["hooks"][0]["command"]  # type: ignore[index]
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    r = subprocess.run(
        ["bash", "-c", command],
        input=json.dumps({**payload, "source": "clear"}).encode(),
        env=env,
        cwd=tmp_path,  # outside the repository
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "plan-x" in context and "## Goal\nShip the plugin." in context
    assert "consumed: true" in (store / "plan-x.md").read_text()


# -- claude plugin validate -----------------------------------------------------------------


def claude_binary() -> Path | None:
    # The real home: conftest points HOME at a scratch folder for every test.
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    default = home / ".cache" / "session-skill-e2e"
    cache = Path(os.environ.get("SESSION_SKILL_E2E_CACHE") or default).expanduser()
    prefixes = [cache / f"claude-code-{CLAUDE_VERSION}", cache]
    for prefix in prefixes:
        modules = prefix / "node_modules"
        for candidate in [
            *sorted(modules.glob("@anthropic-ai/claude-code-*/claude")),
            modules / ".bin" / "claude",
        ]:
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    return None


@pytest.fixture
def claude() -> Iterator[Path]:
    binary = claude_binary()
    if binary is None:
        message = "claude binary not installed (run .ci/e2e-setup.sh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    yield binary


def test_claude_plugin_validate(claude: Path, tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),  # it writes ~/.claude.json: keep it out of the real home
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    r = subprocess.run(
        [str(claude), "plugin", "validate", str(REPO)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(
        [str(claude), "plugin", "validate", "--json", str(REPO)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["success"] is True
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []
    provides = report["provides"]
    assert provides["skills"] == ["session-skill:session"]
    assert [(h["event"], h["matcher"]) for h in provides["hooks"]] == [
        ("SessionStart", "startup|clear")
    ]

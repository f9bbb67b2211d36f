"""Shared fixtures: an isolated home, scratch git projects, and two ways to run the CLI."""

from __future__ import annotations

import io
import os
import pwd
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

NOW = "2026-11-29T18:30:00Z"
STORE_REL = Path(".claude") / "state" / "session"


_REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)
# What a stray write to the real home would change: the home itself (an entry created or
# removed) and every file and folder session-skill or the clients keep there.
_WATCHED = (
    "",
    ".claude",
    ".claude.json",
    ".claude/settings.json",
    ".claude/skills",
    ".claude/projects",
    ".codex",
    ".codex/hooks.json",
    ".codex/sessions",
    ".agents",
    ".agents/skills",
)


def _home_state(home: Path | None = None) -> dict[str, tuple[int, int] | None]:
    home = _REAL_HOME if home is None else home
    state: dict[str, tuple[int, int] | None] = {}
    for rel in _WATCHED:
        try:
            st = (home / rel).lstat()
            state[rel] = (st.st_mtime_ns, st.st_size)
        except OSError:
            state[rel] = None
    return state


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """No test reads or writes the real home, Claude or Codex config: a test that does fails."""
    real = _REAL_HOME
    before = _home_state(real)
    home = tmp_path_factory.mktemp("home")
    # Not the checkout: a command run without a project must never find this repo's store.
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    for var in (
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_PLUGIN_ROOT",
        "CLAUDE_PLUGIN_DATA",
        "SESSION_SKILL_NOW",
        "SESSION_SKILL_AGENT",
        "SESSION_SKILL_VIA",
        "CODEX_THREAD_ID",
        "CODEX_SANDBOX",
    ):
        monkeypatch.delenv(var, raising=False)
    # git: no system or user config leaks in, and commits work without one.
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)
    yield home
    after = _home_state(real)
    touched = sorted(rel or "~" for rel in _WATCHED if before[rel] != after[rel])
    assert not touched, f"the test touched the real home directory {real}: {touched}"


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True, timeout=30
    )
    return proc.stdout


def make_repo(path: Path, *, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "commit.gpgsign", "false")
    if commit:
        (path / "README.md").write_text("# scratch\n")
        git(path, "add", "README.md")
        git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch git repo (branch `main`, one commit) that is also the working directory."""
    root = make_repo(tmp_path / "proj")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def store_dir(project: Path) -> Path:
    return project / STORE_REL


@pytest.fixture
def pinned_now(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SESSION_SKILL_NOW", NOW)
    return NOW


@dataclass
class Result:
    code: int
    out: str
    err: str

    def __str__(self) -> str:  # what pytest shows when an assert fails
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


class _Stdin:
    """A stand-in for sys.stdin: piped bytes, or a terminal when there is no input."""

    def __init__(self, data: bytes | None) -> None:
        self._tty = data is None
        self.buffer = io.BytesIO(data or b"")

    def isatty(self) -> bool:
        return self._tty

    def read(self) -> str:
        return self.buffer.read().decode("utf-8")


RunCli = Callable[..., Result]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> RunCli:
    """Run `session_skill.cli.app.main(argv)` in this process; `input` is piped stdin."""
    from contextlib import redirect_stderr, redirect_stdout

    from session_skill.cli import app as cli_module

    def run(*argv: str, input: str | bytes | None = None) -> Result:
        data = input.encode("utf-8") if isinstance(input, str) else input
        out, err = io.StringIO(), io.StringIO()
        with monkeypatch.context() as m:
            m.setattr(sys, "stdin", _Stdin(data))
            with redirect_stdout(out), redirect_stderr(err):
                code = cli_module.main(list(argv))
        return Result(code, out.getvalue(), err.getvalue())

    return run


@pytest.fixture
def sub() -> RunCli:
    """Run `python -m session_skill …` as a new process, as a user's shell would."""

    def run(
        *argv: str,
        input: str | bytes | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        python_args: tuple[str, ...] = (),
    ) -> Result:
        full_env = dict(os.environ)
        full_env.update(env or {})
        data = input.encode("utf-8") if isinstance(input, str) else input
        proc = subprocess.run(
            [sys.executable, *python_args, "-m", "session_skill", *argv],
            input=data if data is not None else b"",
            capture_output=True,
            cwd=cwd,
            env=full_env,
            timeout=60,
        )
        return Result(
            proc.returncode,
            proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"),
        )

    return run


def write_doc(
    store: Path,
    slug: str,
    *,
    created: str | None = NOW,
    consumed: bool = False,
    branch: str | None = "main",
    body: str = "## Goal\nShip it.\n\n## Next step\nRun the tests.\n",
    extra: str = "",
) -> Path:
    """A handover doc written by hand (the way another tool or a person would)."""
    store.mkdir(parents=True, exist_ok=True)
    head = [f"slug: {slug}"]
    if created is not None:
        head.append(f"created: {created}")
    head.append(f"consumed: {'true' if consumed else 'false'}")
    if branch is not None:
        head.append(f"branch: {branch}")
    text = "---\n" + "\n".join(head) + "\n" + extra + "---\n" + body
    path = store / f"{slug}.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def no_traceback() -> Iterator[Callable[[Result], None]]:
    def check(r: Result) -> None:
        assert "Traceback" not in r.err, r
        assert "Traceback" not in r.out, r

    yield check

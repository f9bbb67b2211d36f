"""Machinery for the end-to-end tests: the real Claude Code CLI against a scripted mock API.

What the fixtures (conftest.py) set up, per test:

- the pinned ``@anthropic-ai/claude-code`` native binary (installed with npm into a cache
  folder on first use; ``.ci/e2e-setup.sh`` does the same ahead of time in CI);
- a scratch ``HOME`` with a pre-seeded ``~/.claude.json`` (onboarding done, project trusted,
  the test API key approved), and a scratch git project where ``session-skill install``
  has been run with this venv's ``session-skill``;
- a :class:`~mock_api.MockAnthropic` server on a free loopback port;
- helpers to run ``claude -p`` headless and the interactive UI under tmux.

Every process started here (mock server, tmux server and what runs in it, headless
``claude`` and its children) is stopped in a finalizer, also when the test fails.

Skip vs fail: locally the tests skip with a reason when the binary cannot be had (npm
missing or unreachable), tmux is missing, or the package is not installed. With ``CI`` set
(``CI=true``) or ``SESSION_SKILL_E2E=1`` those are failures.

Environment knobs:
  SESSION_SKILL_E2E_CACHE           cache folder (default ~/.cache/session-skill-e2e)
  SESSION_SKILL_E2E_CLAUDE_VERSION  pinned CLI version (default below)
  SESSION_SKILL_E2E_CLAUDE          path to a claude binary to use instead
  SESSION_SKILL_E2E_INSTALL=0       never run npm from the tests (skip instead)

Each test's scratch folder (pytest's ``tmp_path``, kept for the last runs) holds
``requests.jsonl``: every request the client sent to the mock.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mock_api import MockAnthropic

CLAUDE_VERSION = os.environ.get("SESSION_SKILL_E2E_CLAUDE_VERSION", "2.1.328")
CACHE = Path(os.environ.get("SESSION_SKILL_E2E_CACHE") or "~/.cache/session-skill-e2e").expanduser()
API_KEY = "sk-test"


def _strict() -> bool:
    ci = os.environ.get("CI", "").strip().lower()
    return (ci not in ("", "0", "false", "no")) or os.environ.get("SESSION_SKILL_E2E") == "1"


STRICT = _strict()


def unavailable(reason: str) -> None:
    """Skip locally; fail in CI (or with SESSION_SKILL_E2E=1)."""
    if STRICT:
        pytest.fail(
            f"e2e prerequisite missing (CI/SESSION_SKILL_E2E=1 set): {reason}", pytrace=False
        )
    pytest.skip(f"e2e: {reason}")


# --- the claude binary -----------------------------------------------------------------


def _prefix() -> Path:
    return CACHE / f"claude-code-{CLAUDE_VERSION}"


def version_of(binary: Path) -> str:
    try:
        p = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(CACHE)},
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"<failed: {e}>"
    return (p.stdout or p.stderr).strip()


def _find_binary(prefix: Path) -> Path | None:
    """The native binary from the per-platform optional dependency that reports our
    version (a glibc and a musl build may both be present; only one runs)."""
    for c in sorted((prefix / "node_modules" / "@anthropic-ai").glob("claude-code-*/claude")):
        if c.is_file() and os.access(c, os.X_OK) and version_of(c).startswith(CLAUDE_VERSION):
            return c
    return None


def npm_install(prefix: Path, package: str) -> str | None:
    """Install the pinned ``package`` (``name@version``); return an error string or None."""
    npm = shutil.which("npm")
    if not npm:
        return "npm not found (install Node.js and npm, or run .ci/e2e-setup.sh)"
    prefix.mkdir(parents=True, exist_ok=True)
    pkg = prefix / "package.json"
    if not pkg.exists():
        pkg.write_text('{"name": "session-skill-e2e-cache", "private": true}\n')
    # --ignore-scripts: the binary ships in the per-platform optional dependency; the
    # postinstall only links it into bin/ (and wants a recent Node.js).
    cmd = [
        npm,
        "install",
        "--prefix",
        str(prefix),
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--loglevel=error",
        "--fetch-timeout=30000",
        "--fetch-retries=1",
        package,
    ]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "npm install timed out (registry unreachable?)"
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        return f"npm install failed (registry unreachable?): {' | '.join(tail)}"
    return None


def find_pinned(
    label: str, package: str, env_var: str, prefix: Path, find: Callable[[Path], Path | None]
) -> Path:
    """A pinned client's native binary: ``env_var`` when set, else the one ``find`` sees
    in ``prefix``, installed there with npm when missing (``label``: "Codex 0.171.0")."""
    explicit = os.environ.get(env_var)
    if explicit:
        given = Path(explicit)
        if not (given.is_file() and os.access(given, os.X_OK)):
            unavailable(f"{env_var}={explicit} is not an executable file")
        return given
    b = find(prefix)
    if b is None and os.environ.get("SESSION_SKILL_E2E_INSTALL") == "0":
        unavailable(
            f"{label} not in {prefix} and SESSION_SKILL_E2E_INSTALL=0 (run .ci/e2e-setup.sh)"
        )
    if b is None:
        err = npm_install(prefix, package)
        if err:
            unavailable(f"{label} not in {prefix}: {err}")
        b = find(prefix)
        if b is None:
            scope = prefix / "node_modules" / package.rsplit("/", 1)[0]
            unavailable(
                f"npm installed {package} but no native binary reporting that version under {scope}"
            )
    assert b is not None
    return b


def find_claude() -> Path:
    """The pinned claude binary; installs it with npm into the cache when missing."""
    return find_pinned(
        f"Claude Code {CLAUDE_VERSION}",
        f"@anthropic-ai/claude-code@{CLAUDE_VERSION}",
        "SESSION_SKILL_E2E_CLAUDE",
        _prefix(),
        _find_binary,
    )


def find_tmux() -> str:
    t = shutil.which("tmux")
    if not t:
        unavailable("tmux not found (CI installs it with .ci/e2e-setup.sh)")
    assert t is not None
    return t


def find_venv_bin() -> Path:
    """The directory holding the ``session-skill`` console script to test: the one next to
    this interpreter (a venv's bin), else the one on PATH."""
    here = Path(sys.executable).parent
    found = shutil.which("session-skill")
    d = here if (here / "session-skill").exists() else Path(found).parent if found else None
    if d is None:
        unavailable(
            f"no session-skill console script next to {sys.executable} or on PATH "
            "(pip install -e . first)"
        )
    assert d is not None
    p = subprocess.run(
        [str(d / "session-skill"), "--help"], capture_output=True, text=True, timeout=60
    )
    if p.returncode != 0:
        unavailable(f"session-skill --help failed: {(p.stderr or p.stdout).strip()[-300:]}")
    return d


# --- processes ---------------------------------------------------------------------------


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(d.name))
    return kids


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (Linux /proc walk)."""
    if not Path("/proc").is_dir():
        return [pid]
    kids = _children_map()
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is as good as dead
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def reap(pids: list[int], grace: float = 3.0) -> None:
    """SIGTERM then SIGKILL whatever of ``pids`` is still alive."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        live = [p for p in pids if alive(p)]
        if not live:
            return
        for p in live:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(alive(p) for p in live):
            time.sleep(0.05)


# --- the scratch world ---------------------------------------------------------------------


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def _git(proj: Path, *args: str) -> str:
    # a clean environment: no GIT_DIR or global config leaking in from the caller
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(proj.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        ["git", "-C", str(proj), *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    ).stdout


@dataclass
class World:
    """One test's scratch HOME, project, mock server and process helpers."""

    root: Path
    home: Path
    proj: Path
    mock: MockAnthropic
    claude: Path
    venv_bin: Path
    tmux: str | None = None
    _tuis: list[Tui] = field(default_factory=list)

    # -- environment -------------------------------------------------------------------
    @property
    def store(self) -> Path:
        return self.proj / ".claude" / "state" / "session"

    @property
    def projects_dir(self) -> Path:
        """Where the client writes this project's transcripts."""
        enc = "".join(c if c.isalnum() and c.isascii() else "-" for c in str(self.proj))
        return self.home / ".claude" / "projects" / enc

    def env(self, **extra: str) -> dict[str, str]:
        """A clean environment: nothing leaks in from a Claude Code session running pytest."""
        path = f"{self.venv_bin}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
        e = {
            "PATH": path,
            "HOME": str(self.home),
            "USER": os.environ.get("USER", "tester"),
            "LOGNAME": os.environ.get("LOGNAME", os.environ.get("USER", "tester")),
            "SHELL": "/bin/bash" if Path("/bin/bash").exists() else "/bin/sh",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": str(self.root / "tmp"),
            "ANTHROPIC_BASE_URL": self.mock.base_url,
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            # v2.1.328 offers TaskCreate/TaskUpdate (through ToolSearch) only to some
            # models, or with this opt-in; scenario 6 needs them.
            "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        e.update(extra)
        return e

    def git(self, *args: str) -> str:
        return _git(self.proj, *args)

    # -- session-skill ------------------------------------------------------------------
    def session_skill(
        self,
        *args: str,
        input: str | None = None,  # noqa: A002
        check: bool = True,
        timeout: float = 60,
    ) -> Result:
        p = subprocess.run(
            [str(self.venv_bin / "session-skill"), *args],
            cwd=self.proj,
            env=self.env(),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        r = Result(p.returncode, p.stdout, p.stderr)
        if check and p.returncode != 0:
            raise AssertionError(
                f"session-skill {' '.join(args)} -> {p.returncode}\n"
                f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}"
            )
        return r

    def latest(self) -> str | None:
        f = self.store / "LATEST"
        if not f.exists():
            return None
        return f.read_text(encoding="utf-8").strip() or None

    def transcripts(self) -> list[Path]:
        d = self.projects_dir
        return sorted(d.glob("*.jsonl"), key=lambda p: p.stat().st_mtime) if d.is_dir() else []

    # -- headless -----------------------------------------------------------------------
    def run_p(self, prompt: str, *args: str, timeout: float = 120) -> Result:
        """``claude -p PROMPT ARGS…`` in the project; children are killed afterwards."""
        cmd = [str(self.claude), "-p", prompt, *args]
        p = subprocess.Popen(
            cmd,
            cwd=self.proj,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _killpg(p.pid)
            out, err = p.communicate()
            raise AssertionError(
                f"claude -p timed out after {timeout}s\nstdout:\n{out}\nstderr:\n{err}\n"
                f"mock errors: {self.mock.errors}"
            ) from None
        finally:
            _killpg(p.pid)  # whatever it left behind in its process group (none expected)
        return Result(p.returncode, out, err)

    def check(self, r: Result) -> Result:
        """Assert a headless run succeeded and the scripted model was used up cleanly."""
        assert r.returncode == 0 and not self.mock.errors, (
            f"claude -p exit {r.returncode}; mock errors: {self.mock.errors}\n"
            f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
        )
        assert self.mock.pending_steps == 0, f"{self.mock.pending_steps} script steps unused"
        return r

    # -- interactive --------------------------------------------------------------------
    def tui(self, *args: str, env: dict[str, str] | None = None) -> Tui:
        """Start the interactive UI under a fresh tmux server; wait until it takes input.
        ``env`` adds to (or overrides) :meth:`env` for this client and its hooks, e.g.
        ``{"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"}``."""
        if not self.tmux:
            raise RuntimeError("the tmux fixture was not requested")
        t = Tui(self, self.tmux, args, env)
        self._tuis.append(t)
        t.start()
        return t

    def close(self) -> None:
        try:
            for t in self._tuis:
                t.close()
        finally:
            self.mock.stop()


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


RULE = "─" * 20


class TmuxPane:
    """A client's interactive UI in a tmux session on a private server (``-L``).

    Subclasses set ``client`` (the wrapper prints ``[<client> exited: N]`` when it ends),
    ``term`` and ``wait`` (``wait_screen``'s default timeout), and start it with
    ``launch(argv)``. The pane outlives the client (so a crash stays readable on screen)
    until ``close()`` kills the server and reaps what survived.
    """

    client = "client"
    term = "screen"
    wait = 60.0

    def __init__(
        self,
        world: Any,
        tmux: str,
        args: Iterable[str],
        name: str,
        env: dict[str, str] | None = None,
    ) -> None:
        self.world = world
        self.extra_env = dict(env or {})
        self.socket = f"ss-e2e-{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.name = name
        self.base = [tmux, "-L", self.socket]
        self.args = tuple(args)
        self.pane_pid: int | None = None
        self.server_pid: int | None = None
        self.closed = False

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        # without TMUX/TMUX_PANE: pytest may itself run inside a tmux session
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        return subprocess.run(
            [*self.base, *args], capture_output=True, text=True, timeout=30, check=check, env=env
        )

    def launch(self, argv: Iterable[str]) -> None:
        """Run ``argv`` in the project, with the world's environment only (plus the
        pane's ``extra_env``), in a new pane."""
        w = self.world
        wrapper = w.root / f"{self.client}-tui-{self.socket}.sh"
        assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in w.env(**self.extra_env).items())
        command = " ".join(shlex.quote(a) for a in argv)
        env_bin = shutil.which("env") or "/usr/bin/env"
        sleep_bin = shutil.which("sleep") or "/bin/sleep"
        wrapper.write_text(
            "#!/bin/sh\n"
            f"{env_bin} -i TERM={self.term} {assigns} {command}\n"
            f'echo "[{self.client} exited: $?]"\n'
            f"exec {sleep_bin} 3600\n"
        )
        wrapper.chmod(0o755)
        self._tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", self.name,
            "-x", "150", "-y", "45", "-c", str(w.proj), str(wrapper),
        )  # fmt: skip
        pids = self._tmux(
            "display-message", "-p", "-t", self.name, "#{pid} #{pane_pid}"
        ).stdout.split()
        self.server_pid, self.pane_pid = int(pids[0]), int(pids[1])

    # -- screen -------------------------------------------------------------------------
    def screen(self) -> str:
        if self.closed:
            return ""
        p = self._tmux("capture-pane", "-p", "-J", "-t", self.name, check=False)
        if p.returncode != 0:
            raise AssertionError(f"tmux session is gone: {p.stderr.strip()}")
        return p.stdout

    def wait_screen(
        self, pred: Callable[[str], bool] | str, timeout: float | None = None, what: str = ""
    ) -> str:
        timeout = self.wait if timeout is None else timeout
        check = (lambda s: pred in s) if isinstance(pred, str) else pred
        deadline = time.monotonic() + timeout
        s = ""
        while time.monotonic() < deadline:
            s = self.screen()
            if check(s):
                return s
            if f"[{self.client} exited:" in s:
                break
            time.sleep(0.15)
        raise AssertionError(
            f"screen never showed {what or pred!r} within {timeout}s; screen:\n{s}\n"
            f"mock errors: {self.world.mock.errors}"
        )

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def settle(self, quiet: float = 0.3, timeout: float = 3.0) -> str:
        """Wait until the screen stayed the same for ``quiet`` seconds (at most ``timeout``)
        and return it: a key sent while a dialog is still drawing can be lost."""
        deadline = time.monotonic() + timeout
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.screen()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                break
        return last

    # -- cleanup ------------------------------------------------------------------------
    def close(self) -> None:
        if self.closed:
            return
        pids = descendants(self.pane_pid) if self.pane_pid is not None else []
        if self.server_pid is not None:
            pids.append(self.server_pid)
        self.closed = True
        try:
            self._tmux("kill-server", check=False)
        finally:
            reap(pids)  # whatever survived kill-server's SIGHUP


class Tui(TmuxPane):
    """The interactive ``claude``."""

    client = "claude"
    term = '"${TERM:-screen}"'

    def __init__(
        self, world: World, tmux: str, args: tuple[str, ...], env: dict[str, str] | None = None
    ) -> None:
        super().__init__(world, tmux, args, "cc", env)

    def start(self, timeout: float = 60) -> None:
        self.launch((str(self.world.claude), *self.args))
        self.wait_ready(timeout)

    @staticmethod
    def input_text(screen: str) -> str | None:
        """The text in the prompt box (between the last two rules), or None if no box."""
        lines = screen.splitlines()
        rules = [i for i, line in enumerate(lines) if line.startswith(RULE)]
        if len(rules) < 2:
            return None
        box = lines[rules[-2] + 1 : rules[-1]]
        if not box or not box[0].startswith("❯"):
            return None
        return " ".join(x.strip() for x in box).lstrip("❯").strip()

    def wait_ready(self, timeout: float = 60) -> None:
        self.wait_screen(lambda s: self.input_text(s) == "", timeout, what="an empty prompt box")

    def type(self, text: str, timeout: float = 30) -> None:
        """Type ``text`` into the prompt box, check it landed, press Enter."""
        self.wait_ready(timeout)
        self.keys("-l", text)
        norm = " ".join(text.split())
        self.wait_screen(
            lambda s: " ".join((self.input_text(s) or "").split()) == norm,
            timeout,
            what=f"prompt box holding {text!r}",
        )
        self.keys("Enter")

    def clear(self, timeout: float = 30) -> None:
        """Run ``/clear`` and wait until the prompt box is empty again."""
        self.type("/clear", timeout)
        self.wait_screen(
            lambda s: self.input_text(s) == "" and "❯ /clear" in s, timeout, what="/clear done"
        )

    @staticmethod
    def after_last(screen: str, line_start: str) -> list[str] | None:
        """The screen's lines after the last one starting with ``line_start`` (None when
        there is none)."""
        lines = screen.splitlines()
        hits = [i for i, x in enumerate(lines) if x.startswith(line_start)]
        return lines[hits[-1] + 1 :] if hits else None

    def compact(self, instructions: str = "", timeout: float = 45) -> None:
        """Run ``/compact [instructions]`` and wait until 2.1.328 reports
        ``Compacted (ctrl+o to see full summary)`` under it and the prompt box is empty.
        The mock answers the summary request by itself (``MockAnthropic.summary``)."""
        cmd = f"/compact {instructions}".rstrip()
        self.type(cmd, timeout)

        def done(s: str) -> bool:
            after = self.after_last(s, f"❯ {cmd}")
            return (
                after is not None
                and any("Compacted" in x for x in after)
                and (self.input_text(s) == "")
            )

        self.wait_screen(done, timeout, what=f"{cmd} done")

    # -- menus ----------------------------------------------------------------------------
    MENU_LINE = re.compile(r"^\s*(❯)?\s*(\d+)\.\s+(.*?)\s*$")

    @classmethod
    def menu(cls, screen: str) -> list[tuple[int, str, bool]]:
        """The numbered options of the menu on screen: ``(number, label, highlighted)``,
        from the last block of consecutive numbered lines (the prompt box's ``❯ text``
        lines have no number)."""
        blocks: list[list[tuple[int, str, bool]]] = []
        last = -2
        for i, line in enumerate(screen.splitlines()):
            m = cls.MENU_LINE.match(line)
            if not m:
                continue
            if i != last + 1:
                blocks.append([])
            blocks[-1].append((int(m.group(2)), m.group(3), m.group(1) is not None))
            last = i
        return blocks[-1] if blocks else []

    def choose(self, label: str, timeout: float = 30) -> None:
        """Move a numbered menu's highlight (``❯ N. …``) to the option starting with
        ``label``, press Enter, and wait until that option is gone from the screen. Every
        key is checked on screen and sent again when it had no effect (a key sent while
        the menu was still drawing can be lost)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.settle()
            options = self.menu(s)
            want = [n for n, text, _ in options if text.startswith(label)]
            here = [n for n, _, hl in options if hl]
            if not want or not here:
                time.sleep(0.15)
                continue
            if want[0] == here[0]:
                self.keys("Enter")
                gone = time.monotonic() + 5
                while time.monotonic() < min(gone, deadline):
                    if not any(t.startswith(label) for _, t, _ in self.menu(self.screen())):
                        return
                    time.sleep(0.15)
                continue  # still there: the Enter was lost, look again
            self.keys("Down" if here[0] < want[0] else "Up")
            moved = time.monotonic() + 2
            while time.monotonic() < min(moved, deadline) and self.screen() == s:
                time.sleep(0.1)
        raise AssertionError(f"could not choose {label!r} in the menu; screen:\n{self.screen()}")

    PLAN_MENU = "Would you like to proceed?"
    CLEAR_OPTION = "Yes, clear context"

    def wait_plan_menu(self, timeout: float = 30) -> str:
        """Wait for the plan-approval menu (``Ready to code?`` … ``Would you like to
        proceed?`` with numbered options); return the screen."""
        return self.wait_screen(
            lambda s: self.PLAN_MENU in s and bool(self.menu(s)),
            timeout,
            what="the plan approval menu",
        )

    def approve_plan_clearing_context(self, timeout: float = 30) -> str:
        """At the plan-approval menu choose ``Yes, clear context (N% used) and use auto
        mode`` (offered only with the setting ``showClearContextOnPlanAccept: true``);
        return the menu's screen. Claude Code then ends the session as ``/clear`` does and
        sends ``Implement the following plan: …`` as the new session's first prompt."""
        s = self.wait_plan_menu(timeout)
        if not any(t.startswith(self.CLEAR_OPTION) for _, t, _ in self.menu(s)):
            raise AssertionError(
                f"the plan menu offers no {self.CLEAR_OPTION!r} (is "
                f"showClearContextOnPlanAccept set?); screen:\n{s}"
            )
        self.choose(self.CLEAR_OPTION, timeout)
        return s


# --- scratch HOME and project ---------------------------------------------------------


def seed_claude_json(home: Path, proj: Path) -> None:
    cfg = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        # the "Detected a custom API key" dialog remembers the key's last 20 chars
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {
            str(proj): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True},
        },
    }
    (home / ".claude.json").write_text(json.dumps(cfg, indent=2) + "\n")


def make_project(proj: Path) -> None:
    proj.mkdir()
    _git(proj, "init", "-q", "-b", "main")
    _git(proj, "config", "user.name", "E2E Tester")
    _git(proj, "config", "user.email", "e2e@example.invalid")
    _git(proj, "config", "commit.gpgsign", "false")
    (proj / "README.md").write_text("# scratch project for session-skill e2e\n")
    (proj / "app.py").write_text("def login(user):\n    return True\n")
    _git(proj, "add", "-A")
    _git(proj, "commit", "-q", "-m", "initial")

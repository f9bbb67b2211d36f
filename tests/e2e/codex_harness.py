"""Machinery for the Codex end-to-end tests: the real Codex CLI against a scripted mock.

What a :class:`CodexWorld` sets up, per test:

- the pinned ``@openai/codex`` native binary (installed with npm into the same cache folder
  as Claude Code on first use; ``.ci/e2e-setup.sh`` does that ahead of time in CI);
- a scratch ``HOME`` with ``CODEX_HOME=<home>/.codex`` whose ``config.toml`` points the
  model provider at a :class:`~codex_mock.MockResponses` on a free loopback port and marks
  the scratch project trusted (Codex ignores a project's ``.codex/`` otherwise);
- ``<home>/.bash_profile`` putting this venv's ``session-skill`` on PATH: Codex runs every
  shell tool call as ``/bin/bash -lc``, and ``/etc/profile`` resets PATH in a login shell;
- helpers to run ``codex exec`` and the interactive TUI under tmux (``--no-daemon``: the
  TUI otherwise leaves an app-server daemon running after it exits).

Every process started here is stopped in ``close()``, also when the test fails.

Environment knobs (besides those of ``e2e_harness``: ``SESSION_SKILL_E2E_CACHE``,
``SESSION_SKILL_E2E_INSTALL=0``, ``CI`` / ``SESSION_SKILL_E2E=1`` turning skips into failures):
  SESSION_SKILL_E2E_CODEX_VERSION   pinned CLI version (default below; keep in sync with
                                    .ci/e2e-setup.sh)
  SESSION_SKILL_E2E_CODEX           path to a codex binary to use instead
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_mock import Item, LoggedRequest, MockResponses, exec_command, message
from e2e_harness import (
    CACHE,
    Result,
    TmuxPane,
    _git,
    _killpg,
    find_pinned,
    make_project,
    version_of,
)
from e2e_scripted import ScriptError, block_with, fill_heredoc
from hook_log import HookLog

CODEX_VERSION = os.environ.get("SESSION_SKILL_E2E_CODEX_VERSION", "0.171.0")
API_KEY = "sk-test"
# codex exec flags every headless run uses: update_plan is off by default in 0.171.0.
EXEC_FLAGS = ("--skip-git-repo-check", "-c", "tools.update_plan.enabled=true")


# --- the codex binary ------------------------------------------------------------------


def codex_prefix() -> Path:
    return CACHE / f"codex-{CODEX_VERSION}"


def find_codex_binary(prefix: Path) -> Path | None:
    """The native binary of the per-platform optional dependency reporting our version."""
    pattern = "node_modules/@openai/codex-*/vendor/*/bin/codex"
    for c in sorted(prefix.glob(pattern)):
        if c.is_file() and os.access(c, os.X_OK) and version_of(c) == f"codex-cli {CODEX_VERSION}":
            return c
    return None


def find_codex() -> Path:
    """The pinned codex binary; installs it with npm into the cache when missing."""
    return find_pinned(
        f"Codex {CODEX_VERSION}",
        f"@openai/codex@{CODEX_VERSION}",
        "SESSION_SKILL_E2E_CODEX",
        codex_prefix(),
        find_codex_binary,
    )


# --- the scratch world -------------------------------------------------------------------


def toml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid TOML basic string


@dataclass
class CodexWorld:
    """One test's scratch HOME, CODEX_HOME, project, mock server and process helpers."""

    root: Path
    home: Path
    proj: Path
    mock: MockResponses
    codex: Path
    venv_bin: Path
    tmux: str | None = None
    install_report: Result | None = None
    _tuis: list[CodexTui] = field(default_factory=list)

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def config_toml(self) -> Path:
        return self.codex_home / "config.toml"

    @property
    def store(self) -> Path:
        return self.proj / ".claude" / "state" / "session"

    def setup(self) -> None:
        self.codex_home.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        self.config_toml.write_text(
            'model = "mock-model"\n'
            'model_provider = "mock"\n'
            "\n"
            "[model_providers.mock]\n"
            'name = "mock"\n'
            f"base_url = {toml_str(self.mock.base_url)}\n"
            'env_key = "MOCK_KEY"\n'
            'wire_api = "responses"\n'
            "supports_websockets = false\n"
            "\n"
            f"[projects.{toml_str(str(self.proj))}]\n"
            'trust_level = "trusted"\n'
        )
        # `bash -lc`: /etc/profile resets PATH; a user's profile puts their tools back.
        (self.home / ".bash_profile").write_text(
            f"export PATH={shlex.quote(str(self.venv_bin))}:$PATH\n"
        )

    # -- environment -------------------------------------------------------------------
    def env(self, **extra: str) -> dict[str, str]:
        """A clean environment: nothing of a Codex or Claude Code session running pytest."""
        e = {
            "PATH": f"{self.venv_bin}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.home),
            "CODEX_HOME": str(self.codex_home),
            "MOCK_KEY": API_KEY,
            "USER": os.environ.get("USER", "tester"),
            "LOGNAME": os.environ.get("LOGNAME", os.environ.get("USER", "tester")),
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": str(self.root / "tmp"),
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        e.update(extra)
        return e

    def git(self, *args: str) -> str:
        return _git(self.proj, *args)

    def session_skill(
        self,
        *args: str,
        input: str | None = None,  # noqa: A002
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> Result:
        """``session-skill ARGS`` in the project, as the user runs it in their terminal."""
        p = subprocess.run(
            [str(self.venv_bin / "session-skill"), *args],
            cwd=self.proj,
            env=env or self.env(),
            input=input,
            capture_output=True,
            text=True,
            timeout=60,
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

    def rollouts(self) -> list[Path]:
        d = self.codex_home / "sessions"
        found = d.rglob("rollout-*.jsonl") if d.is_dir() else iter(())
        return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))

    def hook_trust(self) -> dict[str, str]:
        """``[hooks.state."<key>"] trusted_hash`` entries of config.toml, by key."""
        text = self.config_toml.read_text(encoding="utf-8")
        pairs = re.findall(
            r'^\[hooks\.state\."([^"]+)"\]\s*\ntrusted_hash\s*=\s*"([^"]+)"', text, re.M
        )
        return dict(pairs)

    # -- headless -----------------------------------------------------------------------
    def exec(
        self, prompt: str, *args: str, bypass_hook_trust: bool = True, timeout: float = 120
    ) -> Result:
        """``codex exec PROMPT`` in the project; children are killed afterwards.

        ``bypass_hook_trust`` passes ``--dangerously-bypass-hook-trust``: exec never asks
        to trust a hook and skips an untrusted one silently."""
        flags = [*EXEC_FLAGS, *(["--dangerously-bypass-hook-trust"] if bypass_hook_trust else [])]
        cmd = [str(self.codex), "exec", *flags, *args, prompt]
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
                f"codex exec timed out after {timeout}s\nstdout:\n{out}\nstderr:\n{err}\n"
                f"mock errors: {self.mock.errors}"
            ) from None
        finally:
            _killpg(p.pid)
        return Result(p.returncode, out, err)

    def check(self, r: Result) -> Result:
        """Assert a headless run succeeded and the scripted model was used up cleanly."""
        assert r.returncode == 0 and not self.mock.errors, (
            f"codex exec exit {r.returncode}; mock errors: {self.mock.errors}\n"
            f"stdout:\n{r.stdout}\nstderr:\n{r.stderr[-4000:]}"
        )
        assert self.mock.pending_steps == 0, f"{self.mock.pending_steps} script steps unused"
        return r

    # -- interactive --------------------------------------------------------------------
    def tui(self, *args: str) -> CodexTui:
        """Start the TUI under a fresh private tmux server; wait for its first screen."""
        if not self.tmux:
            raise RuntimeError("no tmux in this world")
        t = CodexTui(self, self.tmux, args)
        self._tuis.append(t)
        t.start()
        return t

    def close(self) -> None:
        try:
            for t in self._tuis:
                t.close()
        finally:
            self.mock.stop()


def make_world(root: Path, codex: Path, venv_bin: Path, tmux: str | None = None) -> CodexWorld:
    """A started world (mock running, config written); the caller must ``close()`` it."""
    home = root / "home"
    home.mkdir()
    proj = root / "proj"
    make_project(proj)
    mock = MockResponses(log_path=root / "requests.jsonl")
    w = CodexWorld(root=root, home=home, proj=proj, mock=mock, codex=codex, venv_bin=venv_bin)
    w.tmux = tmux
    mock.start()
    try:
        w.setup()
    except BaseException:
        mock.stop()
        raise
    return w


# --- the TUI ---------------------------------------------------------------------------------

PROMPT_MARK = "› "  # the composer's first line
STATUS = "mock-model"  # the status line under the composer names the model
IDLE_FOOTER = "for shortcuts"  # shown under an empty composer only


class CodexTui(TmuxPane):
    """The interactive ``codex --no-daemon``."""

    client = "codex"
    term = "xterm-256color"
    wait = 30.0

    def __init__(self, world: CodexWorld, tmux: str, args: Iterable[str]) -> None:
        super().__init__(world, tmux, args, "cx")

    def start(self) -> None:
        self.launch((str(self.world.codex), "--no-daemon", *self.args))

    def answer(self, key: str, prompt: str, timeout: float = 30) -> None:
        """Press ``key`` to answer the question on screen (``prompt``); press it again if
        the question is still there a few seconds later (a key sent while it was drawing
        can be lost)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.keys(key)
            settle = time.monotonic() + 5
            while time.monotonic() < min(settle, deadline):
                if prompt not in self.screen():
                    return
                time.sleep(0.15)
        raise AssertionError(f"{prompt!r} stayed on screen; screen:\n{self.screen()}")

    def choose(self, option: str, timeout: float = 30) -> None:
        """Move a numbered menu's highlight (``› N. …``) to ``option`` ("2. Trust all…"),
        then press Enter. A key sent while the menu is still drawing can be lost (seen in
        CI): each Up/Down is checked on screen, and sent again when the highlight stayed."""
        want = int(option.split(".", 1)[0])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.screen()
            if f"{PROMPT_MARK}{option}" in s:
                self.keys("Enter")
                return
            m = re.search(r"^\s*›\s*(\d+)\.", s, re.MULTILINE)
            if m is not None and int(m.group(1)) != want:
                self.keys("Down" if int(m.group(1)) < want else "Up")
                moved = time.monotonic() + 2
                while time.monotonic() < min(moved, deadline) and self.screen() == s:
                    time.sleep(0.1)
            else:
                time.sleep(0.15)
        raise AssertionError(f"the menu never highlighted {option!r}; screen:\n{self.screen()}")

    @staticmethod
    def composer(screen: str) -> str | None:
        """The text on the composer's line (``› …`` right above the status line), or None."""
        lines = [x.rstrip() for x in screen.splitlines()]
        status = [i for i, x in enumerate(lines) if x.strip().startswith(STATUS)]
        if not status:
            return None
        above = [x for x in lines[: status[-1]] if x.strip()]
        if not above or not above[-1].startswith(PROMPT_MARK):
            return None
        return above[-1][len(PROMPT_MARK) :].strip()

    def wait_ready(self, timeout: float = 30) -> str:
        """Wait for an empty composer (its placeholder shown, the idle footer under it)."""
        return self.wait_screen(
            lambda s: self.composer(s) is not None and IDLE_FOOTER in s, timeout, "the composer"
        )

    def type(self, text: str, timeout: float = 30) -> None:
        """Type ``text`` into the composer, check it landed, press Enter."""
        self.wait_ready(timeout)
        self.keys("-l", text)
        self.wait_screen(
            lambda s: (self.composer(s) or "").startswith(text),
            timeout,
            what=f"the composer holding {text!r}",
        )
        time.sleep(0.2)  # the slash-command popup settles on its first match
        self.keys("Enter")

    # -- session boundaries ----------------------------------------------------------------
    HOOK_REVIEW = "Hooks need review"
    TRUST_ALL = "2. Trust all and continue"

    def trust_hooks(self, timeout: float = 30) -> None:
        """Answer the startup "Hooks need review" prompt with "Trust all and continue"
        (every new or changed hook, user-level and project-level, is trusted and stored as
        ``[hooks.state."…"] trusted_hash``), then wait for the composer."""
        self.wait_screen(self.HOOK_REVIEW, timeout, what="the hook review prompt")
        self.choose(self.TRUST_ALL, timeout)
        self.wait_ready(timeout)

    def clear(self, timeout: float = 30) -> None:
        """``/clear``: a new thread (a new rollout once its first prompt is sent). No hook
        fires here in 0.171.0 — SessionStart(clear) comes with the next prompt."""
        self.type("/clear", timeout)
        self.wait_ready(timeout)

    def compact(self, timeout: float = 30) -> LoggedRequest:
        """``/compact``; wait for Codex's summary request to the mock (answered by
        ``MockResponses.summary``), for ``Context compacted`` and the composer; return the
        summary request."""
        mark = self.world.mock.mark()
        self.type("/compact", timeout)
        req = self.world.mock.wait_for(lambda r: r["kind"] == "compact", mark, timeout)
        self.wait_screen(
            lambda s: (
                "Context compacted" in s and self.composer(s) is not None and IDLE_FOOTER in s
            ),
            timeout,
            what="/compact done",
        )
        return req

    def quit(self, timeout: float = 30) -> None:
        """``/quit``, and wait for the client to exit (SessionEnd fires for every thread
        the TUI opened)."""
        self.type("/quit", timeout)
        self.wait_screen(f"[{self.client} exited:", timeout, what="codex to exit")


# --- reading what Codex sent and wrote ---------------------------------------------------------


def rollout_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def session_meta(path: Path) -> dict[str, Any]:
    """The ``session_meta`` payload of a rollout (``id``, ``cwd``, ``originator``, …): its
    first line in 0.171.0."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "session_meta":
                return dict(rec.get("payload") or {})
    return {}


def rollouts_for_cwd(codex_home: Path, cwd: Path) -> list[Path]:
    """The rollouts under ``$CODEX_HOME/sessions`` whose ``session_meta.cwd`` is ``cwd``,
    oldest first: how a hook finds the thread ``/clear`` left (SessionStart(clear) names
    only the new one)."""
    d = codex_home / "sessions"
    found = [p for p in d.rglob("rollout-*.jsonl") if session_meta(p).get("cwd") == str(cwd)]
    return sorted(found, key=lambda p: p.name)  # rollout-<time>-<id>: the name sorts by time


# --- the scripted model: steps that act on what Codex sent ---------------------------------

SKILL_OPEN = "<skill>\n<name>session</name>"
SKILL_FORM = "$session"


def skill_message(req: LoggedRequest) -> str:
    """The ``<skill>`` user message Codex adds when the user's text mentions ``$session``:
    the installed SKILL.md, frontmatter included."""
    for m in req.messages("user"):
        if m.startswith(SKILL_OPEN):
            return m
    raise ScriptError("no <skill> message for `session` in the request")


def skill_args(req: LoggedRequest) -> str:
    """What the user wrote after ``$session``, verbatim (what the model passes on)."""
    for m in reversed(req.messages("user")):
        if SKILL_FORM in m and not m.startswith(SKILL_OPEN):
            return m.split(SKILL_FORM, 1)[1].removeprefix(" ")
    raise ScriptError("no user message holding $session in the request")


def tool_exit(output: str) -> int | None:
    """The exit code in an ``exec_command`` output (``Process exited with code N``)."""
    m = re.search(r"^Process exited with code (-?\d+)$", output, re.M)
    return int(m.group(1)) if m else None


def tool_stdout(output: str) -> str:
    """What the command printed: everything after the ``Output:`` line."""
    head, sep, rest = output.partition("\nOutput:\n")
    return rest if sep else output


def last_stdout(req: LoggedRequest) -> str:
    out = req.last_output()
    if out is None:
        raise ScriptError("no function_call_output in the request")
    return tool_stdout(out)


def run_skill(log: list[str] | None = None) -> Callable[[dict[str, Any]], Item]:
    """Step: run, with ``exec_command``, the skill's dispatch block with the user's words
    after ``$session`` in its heredoc — what a model following the skill does."""

    def step(body: dict[str, Any]) -> Item:
        req = LoggedRequest(body=body, kind="main")
        block = block_with(skill_message(req), "session-skill dispatch")
        cmd = fill_heredoc(block, skill_args(req))
        if log is not None:
            log.append(cmd)
        return exec_command(cmd)

    return step


def run_from_output(
    needle: str, payload: str, log: list[str] | None = None
) -> Callable[[dict[str, Any]], Item]:
    """Step: run the fenced command holding ``needle`` that the last tool printed, with
    ``payload`` as its heredoc body."""

    def step(body: dict[str, Any]) -> Item:
        out = last_stdout(LoggedRequest(body=body, kind="main"))
        cmd = fill_heredoc(block_with(out, needle), payload)
        if log is not None:
            log.append(cmd)
        return exec_command(cmd)

    return step


def relay(prefix: str = "") -> Callable[[dict[str, Any]], Item]:
    """Step: answer with what the last command printed, verbatim."""

    def step(body: dict[str, Any]) -> Item:
        return message(prefix + last_stdout(LoggedRequest(body=body, kind="main")).rstrip())

    return step


def hook_context(req: LoggedRequest, needle: str) -> list[str]:
    """Developer messages holding ``needle``: where a SessionStart hook's
    ``additionalContext`` lands (its own developer message, before the user's prompt)."""
    return [m for m in req.messages("developer") if needle in m]


def logged_turn(w: CodexWorld, t: Any, log: HookLog, prompt: str, answer: Any) -> LoggedRequest:
    """``prompt`` → the scripted ``answer``; the turn's main request, once its Stop hook ran."""
    req: LoggedRequest = log.turn(w.mock, t, prompt, answer, w.mock.add)
    return req

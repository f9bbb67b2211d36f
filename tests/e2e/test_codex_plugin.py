"""End-to-end: session-skill installed as a Codex plugin, and nothing else (issue 13).

A clone of this checkout's HEAD is a local marketplace; `codex plugin marketplace add` +
`codex plugin add session-skill@session-skill` install it into a scratch CODEX_HOME whose
PATH has no `session-skill`. Then, through the plugin alone, in the real codex-cli 0.171.0
with its own sandbox (the scratch HOME is kept out of the sandbox's writable roots, as a
user's home is):

1. the TUI: the plugin's hook is trusted at "Hooks need review"; `$session-skill:session park
   <idea>` runs the plugin's `bin/session-skill` by the path the skill's `<path>` gives; the
   sandboxed first run says `setup needed`, the model re-runs it with `require_escalated`, the
   user approves, the shim builds its venv and the idea is parked verbatim;
2. headless, in the sandbox (the venv is ready): a dump, whose `session-skill dump` command
   the model runs through the plugin's path, as the skill says;
3. a new session: the trusted hook's startup notice names `$session-skill:session`.

pip installs the dependencies from the package index, as for a user (its cache is kept in
the e2e cache folder). The figures are printed with `-s`.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from codex_harness import (
    CodexWorld,
    hook_context,
    last_stdout,
    logged_turn,
    tool_exit,
    tool_stdout,
)
from codex_mock import Item, LoggedRequest, MockResponses, exec_command, function_call, message
from e2e_harness import CACHE, Result, find_tmux, make_project
from e2e_scripted import ScriptError, block_with, fill_heredoc
from hook_log import install as hook_log
from plugin_harness import checkout_cli, path_without_session_skill

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
MARKET = "session-skill"  # .claude-plugin/marketplace.json, which Codex reads too
PLUGIN = f"session-skill@{MARKET}"
SKILL = "$session-skill:session"
SKILL_FILE = "codex/skills/session/SKILL.md"
CLI = '"<plugin>/bin/session-skill"'  # how the plugin's skill writes its commands
SETUP_NEEDED = "session-skill: setup needed: "
JUSTIFICATION = "session-skill installs its Python dependencies (once)"
IDEA = 'try a bloom filter -- maybe "later", `uname` and $HOME stay as typed'
GOAL = "Ship session-skill as a Codex plugin."
NEXT = "Run the Codex plugin e2e test in CI."
DOC = f"""## Goal
{GOAL}

## Decisions
- Run the plugin's bin/session-skill by its path — why: Codex puts no plugin bin/ on PATH.

## Next step
{NEXT}
"""


@dataclass
class CodexPluginWorld(CodexWorld):
    """A CodexWorld whose PATH has no `session-skill`, with pip's cache kept."""

    path: str = ""

    def env(self, **extra: str) -> dict[str, str]:
        e = super().env()
        e["PATH"] = self.path
        e["PIP_CACHE_DIR"] = str(CACHE / "pip")
        e.update(extra)
        return e

    def codex_cli(self, *args: str) -> Result:
        p = subprocess.run(
            [str(self.codex), *args],
            cwd=self.proj,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        return Result(p.returncode, p.stdout, p.stderr)

    @property
    def data(self) -> Path:
        """The plugin data folder Codex gives this plugin (`PLUGIN_DATA` in its hooks)."""
        return self.codex_home / "plugins" / "data" / f"session-skill-{MARKET}"

    def keep_home_out_of_the_sandbox(self) -> None:
        """The scratch HOME is under /tmp, which the sandbox lets the model write; a user's
        home is not. Take /tmp and $TMPDIR out of the writable roots, as for a user."""
        with open(self.config_toml, "a", encoding="utf-8") as f:
            f.write(
                "\n[sandbox_workspace_write]\nexclude_slash_tmp = true\n"
                "exclude_tmpdir_env_var = true\n"
            )


@pytest.fixture
def plugin_world(tmp_path: Path, codex_bin: Path) -> Iterator[CodexPluginWorld]:
    home = tmp_path / "home"
    home.mkdir()
    proj = tmp_path / "proj"
    make_project(proj)
    market = tmp_path / "market"  # the checkout's HEAD, as `marketplace add owner/repo` clones it
    subprocess.run(
        ["git", "clone", "-q", "--no-hardlinks", str(REPO), str(market)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    mock = MockResponses(log_path=tmp_path / "requests.jsonl")
    w = CodexPluginWorld(
        root=tmp_path,
        home=home,
        proj=proj,
        mock=mock,
        codex=codex_bin,
        venv_bin=tmp_path / "no-venv",
        tmux=find_tmux(),
        path=path_without_session_skill(),
    )
    mock.start()
    try:
        w.setup()
        w.keep_home_out_of_the_sandbox()
        started = time.monotonic()
        for args in (("marketplace", "add", str(market)), ("add", PLUGIN)):
            r = w.codex_cli("plugin", *args)
            assert r.returncode == 0, r.stdout + r.stderr
        print(f"\n[codex plugin] marketplace add + add: {time.monotonic() - started:.1f} s")
        yield w
    finally:
        w.close()


# --- the scripted model: what a model following the plugin's skill does ------------------------

SKILL_OPEN = "<skill>\n<name>session-skill:session</name>\n<path>"


def plugin_skill(req: LoggedRequest) -> tuple[str, Path]:
    """The skill message `$session-skill:session` brought, and the SKILL.md path it gives."""
    for m in req.messages("user"):
        if m.startswith(SKILL_OPEN):
            return m, Path(m[len(SKILL_OPEN) :].split("</path>", 1)[0])
    raise ScriptError("no <skill> message for session-skill:session in the request")


def plugin_root(req: LoggedRequest) -> str:
    """`<plugin>` as the skill defines it: its path without /codex/skills/session/SKILL.md."""
    _, path = plugin_skill(req)
    if not path.as_posix().endswith("/" + SKILL_FILE):
        raise ScriptError(f"the skill's path {path} does not end in {SKILL_FILE}")
    return path.as_posix().removesuffix("/" + SKILL_FILE)


def words_after_skill(req: LoggedRequest) -> str:
    for m in reversed(req.messages("user")):
        if SKILL in m and not m.startswith("<skill>"):
            return m.split(SKILL, 1)[1].removeprefix(" ")
    raise ScriptError(f"no user message holding {SKILL} in the request")


def run_plugin_skill(log: list[str]) -> Callable[[dict[str, Any]], Item]:
    """Step: the skill's dispatch block, `<plugin>` written out, the user's words after
    `$session-skill:session` in its heredoc."""

    def step(body: dict[str, Any]) -> Item:
        req = LoggedRequest(body=body, kind="main")
        text, _ = plugin_skill(req)
        block = block_with(text, f"{CLI} dispatch")
        cmd = fill_heredoc(block, words_after_skill(req)).replace("<plugin>", plugin_root(req))
        log.append(cmd)
        return exec_command(cmd)

    return step


def rerun_outside_the_sandbox(log: list[str]) -> Callable[[dict[str, Any]], Item]:
    """Step: on the shim's `setup needed` line, the same command with `require_escalated`
    (what the skill says to do). Codex yields after 10 s; the setup takes longer."""

    def step(body: dict[str, Any]) -> Item:
        req = LoggedRequest(body=body, kind="main")
        text, _ = plugin_skill(req)
        if 'sandbox_permissions: "require_escalated"' not in text:
            raise ScriptError("the skill does not say how to run the setup outside the sandbox")
        if not last_stdout(req).startswith(SETUP_NEEDED):
            raise ScriptError(f"no setup-needed line: {last_stdout(req)!r}")
        return exec_command(
            log[-1],
            sandbox_permissions="require_escalated",
            justification=JUSTIFICATION,
        )

    return step


def relay_when_done(mock: MockResponses, prefix: str = "") -> Callable[[dict[str, Any]], Item]:
    """Step: poll a command still running (`write_stdin`, nothing written) until it exits,
    then relay its output."""

    def step(body: dict[str, Any]) -> Item:
        out = LoggedRequest(body=body, kind="main").last_output() or ""
        running = re.search(r"^Process running with session ID (\d+)$", out, re.M)
        if tool_exit(out) is None and running:
            mock.script([step])
            poll = {"session_id": int(running.group(1)), "chars": "", "yield_time_ms": 120000}
            return function_call("write_stdin", poll)
        return message(prefix + tool_stdout(out).rstrip())

    return step


def run_printed_dump(log: list[str]) -> Callable[[dict[str, Any]], Item]:
    """Step: the `session-skill dump …` command the brief printed, through the plugin's path
    ("here and in every command its output prints"), with the doc in its heredoc."""

    def step(body: dict[str, Any]) -> Item:
        req = LoggedRequest(body=body, kind="main")
        printed = block_with(last_stdout(req), "session-skill dump")
        if not printed.startswith("session-skill dump "):
            raise ScriptError(f"unexpected dump command: {printed!r}")
        cli = CLI.replace("<plugin>", plugin_root(req))
        cmd = fill_heredoc(cli + printed.removeprefix("session-skill"), DOC)
        log.append(cmd)
        return exec_command(cmd)

    return step


def frontmatter(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    end = lines.index("---", 1)
    return {
        k.strip(): v.strip().strip("'\"")
        for k, sep, v in (line.partition(":") for line in lines[1:end])
        if sep
    }


def test_codex_plugin_alone_parks_dumps_and_gives_the_notice(
    plugin_world: CodexPluginWorld,
) -> None:
    w = plugin_world
    started = time.monotonic()
    assert shutil.which("session-skill", path=w.env()["PATH"]) is None
    assert shutil.which("session-skill", path="/usr/local/bin:/usr/bin:/bin") is None  # bash -l
    config = w.config_toml.read_text(encoding="utf-8")
    assert f'[plugins."{PLUGIN}"]\nenabled = true' in config, config
    (root,) = (w.codex_home / "plugins" / "cache" / MARKET / "session-skill").iterdir()
    assert (root / ".codex-plugin" / "plugin.json").is_file()
    assert not (w.proj / ".agents").exists() and not (w.proj / ".codex").exists()

    # 1. the TUI: trust the plugin's hook, then the first command of the plugin
    t = w.tui()
    t.wait_screen("Hooks need review", what="the hook review prompt")
    t.choose("2. Trust all and continue")
    t.wait_ready()
    assert sorted(w.hook_trust()) == [
        f"{PLUGIN}:codex/hooks.json:pre_compact:0:0",
        f"{PLUGIN}:codex/hooks.json:session_start:0:0",
    ]

    commands: list[str] = []
    w.mock.script(
        [
            run_plugin_skill(commands),
            rerun_outside_the_sandbox(commands),
            relay_when_done(w.mock, "Relayed:\n"),
        ]
    )
    t.type(f"{SKILL} park {IDEA}")
    t.wait_screen("Would you like to run the following command?", timeout=60)
    screen = t.wait_screen(f"Reason: {JUSTIFICATION}")
    assert "bin/session-skill" in screen, screen
    setup_started = time.monotonic()
    t.answer("y", "Would you like to run the following command?")  # 1. Yes, proceed
    t.wait_screen("Relayed:", timeout=150, what="the model's reply")
    setup_s = time.monotonic() - setup_started

    first, refused, *escalated = w.mock.main_requests()
    skill, path = plugin_skill(first)
    assert path == root / SKILL_FILE  # the installed copy Codex runs
    committed = (REPO / SKILL_FILE).read_text(encoding="utf-8")
    assert committed.strip() in skill and "AskUserQuestion" not in skill
    assert commands[0].startswith(f'"{root}/bin/session-skill" dispatch <<')
    assert IDEA in commands[0]
    out = refused.last_output() or ""
    assert tool_exit(out) == 1 and tool_stdout(out).startswith(SETUP_NEEDED), out
    assert str(w.data / "venv") in out  # Codex's data folder, found from the shell call
    # the approved run, polled until it ended: the setup's one line, then the park
    outs = [r.last_output() or "" for r in escalated]
    assert outs and tool_exit(outs[-1]) == 0, outs
    setup, *_, parked_line = "".join(tool_stdout(o) for o in outs).strip().splitlines()
    assert setup.startswith("session-skill: first run: installing"), outs
    assert parked_line.startswith("Parked: "), outs
    assert (w.data / "venv" / "ready").read_text().strip() == str(root)
    parked = (w.store / "PARKED.md").read_text(encoding="utf-8")
    items = [x for x in parked.splitlines() if x.startswith("- ")]
    assert len(items) == 1 and IDEA in items[0], parked  # quotes, --, ` and $ intact
    t.close()

    # 2. headless and sandboxed, the venv ready: a dump through the plugin's path
    commands = []
    w.mock.script([run_plugin_skill(commands), run_printed_dump(commands), relay_when_done(w.mock)])
    mark = w.mock.mark()
    w.check(w.exec(f"{SKILL} dump codex-plugin", bypass_hook_trust=False))
    brief, written = (r.last_output() or "" for r in w.mock.main_requests(since=mark)[1:3])
    assert tool_exit(brief) == 0 and "first run" not in brief, brief
    assert tool_exit(written) == 0, written
    assert tool_stdout(written).rstrip().splitlines()[-1] == "/clear", written
    assert commands[1].startswith(f'"{root}/bin/session-skill" dump codex-plugin ')
    doc = w.store / "codex-plugin.md"
    fm = frontmatter(doc)
    assert fm["agent"] == "codex" and fm["consumed"] == "false", fm
    assert w.latest() == "codex-plugin"

    # 3. a new session: the trusted hook's startup notice names the plugin's skill
    w.mock.script(["Hello."])
    mark = w.mock.mark()
    w.check(w.exec("hello", bypass_hook_trust=False))
    (req,) = w.mock.main_requests(since=mark)
    (notice,) = hook_context(req, "codex-plugin")
    assert f"`{SKILL} recall` loads it" in notice, notice
    assert "/session" not in notice and "$session " not in notice, notice
    assert GOAL not in req.text() and frontmatter(doc)["consumed"] == "false"
    total = time.monotonic() - started
    print(f"[codex plugin] first command (approval + venv build + park): {setup_s:.1f} s")
    print(f"[codex plugin] whole test after install: {total:.1f} s")
    print(f"[codex plugin] notice: {json.dumps(notice)}")


# --- the plugin beside a project install ------------------------------------------------------

DUMP_NAME = "retry-work"
PENDING = "is pending in this project"
PARKED_IDEA = "try a jittered backoff later"


def codex_project_install(w: CodexPluginWorld) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`session-skill install --agent codex` into the plugin world's (trusted) project, by
    this checkout (not the plugin): its hooks in `.codex/hooks.json`, beside the plugin's.
    Returns a runner of this checkout's CLI in the project."""

    cli = checkout_cli(w.proj, w.env())
    done = cli("install", "--agent", "codex")
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = (w.proj / ".codex" / "hooks.json").read_text(encoding="utf-8")
    assert "-m session_skill hook session-start" in hooks, hooks
    assert f"[projects.{json.dumps(str(w.proj))}]" in w.config_toml.read_text(encoding="utf-8")
    return cli


def both_trusted(w: CodexPluginWorld) -> None:
    """The TUI's "Trust all and continue" trusted the plugin's hooks and the project's."""
    project = w.proj / ".codex" / "hooks.json"
    assert sorted(w.hook_trust()) == sorted(
        [
            f"{PLUGIN}:codex/hooks.json:pre_compact:0:0",
            f"{PLUGIN}:codex/hooks.json:session_start:0:0",
            f"{project}:pre_compact:0:0",
            f"{project}:session_start:0:0",
            *(f"{w.codex_home / 'hooks.json'}:{e}:0:0" for e in LOGGED),
        ]
    ), w.hook_trust()


LOGGED = ("session_start", "pre_compact", "post_compact", "stop")


def test_codex_plugin_and_a_project_install_say_a_startup_notice_once(
    plugin_world: CodexPluginWorld,
) -> None:
    """The Codex plugin and a project install (`install --agent codex`) both in place, a
    handover pending, the project trusted: Codex 0.171.0 runs both SessionStart hooks at the
    thread's first prompt, and each said the handover is pending — two developer messages, in
    every request of the thread. The plugin's hook leaves it to the project's: said once, in
    the project install's words (`$session`), and nothing in the store moves."""
    w = plugin_world
    cli = codex_project_install(w)
    dumped = cli("dump", DUMP_NAME, "--file", "-", input=DOC)
    assert dumped.returncode == 0, dumped.stdout + dumped.stderr
    slug = w.latest()
    assert slug is not None
    before = {p.name: p.read_bytes() for p in w.store.glob("*.md")}
    log = hook_log(w, events=("SessionStart", "PreCompact", "PostCompact", "Stop"))
    t = w.tui()
    t.trust_hooks()
    both_trusted(w)
    req = logged_turn(w, t, log, "hello, where were we?", "Let me look.")
    assert [p["source"] for p in log.payloads("SessionStart")] == ["startup"]
    said = hook_context(req, PENDING)
    print(f"\n[codex plugin + project install] startup notices: {json.dumps(said)}")
    assert len(said) == 1, said
    assert req.text().count(PENDING) == 1, req.text()[-4000:]
    assert f"(`{slug}`); `$session recall` loads it." in said[0], said  # the project's skill
    assert {p.name: p.read_bytes() for p in w.store.glob("*.md")} == before
    assert w.latest() == slug
    assert w.mock.errors == [] and log.errors() == ""


def test_codex_plugin_and_a_project_install_give_a_compactions_context_once(
    plugin_world: CodexPluginWorld,
) -> None:
    """Both in place: Codex runs both PreCompact hooks at `/compact` and both SessionStart
    (compact) hooks at the next prompt. The state is saved once and what the compaction
    dropped (the parked item) is given back once."""
    w = plugin_world
    cli = codex_project_install(w)
    parked = cli("park", PARKED_IDEA)
    assert parked.stdout.startswith("Parked: "), parked.stdout + parked.stderr
    item = parked.stdout.split()[1]
    log = hook_log(w, events=("SessionStart", "PreCompact", "PostCompact", "Stop"))
    t = w.tui()
    t.trust_hooks()
    both_trusted(w)
    logged_turn(w, t, log, "hello, we work on retries", "Hi, retries it is.")
    before = log.mark()
    t.compact()
    log.wait("PostCompact", since=before)
    req = logged_turn(w, t, log, "what next?", "Next: the backoff test.")
    assert [p["source"] for p in log.payloads("SessionStart", since=before)] == ["compact"]
    given = hook_context(req, "Context was compacted.")
    print(f"\n[codex plugin + project install] after /compact: {json.dumps(given)}")
    assert len(given) == 1, given
    assert req.text().count("Context was compacted.") == 1, req.text()[-4000:]
    assert f"Parked items: 1 open — **{item}**" in given[0], given
    assert (w.store / ".given").exists()  # the first hook to answer recorded it
    saved = [p for p in w.store.glob("*.md") if p.name != "PARKED.md"]
    assert len(saved) == 1 and frontmatter(saved[0])["trigger"] == "compact", saved
    assert w.mock.errors == [] and log.errors() == ""


def test_codex_plugin_and_a_project_install_save_and_notice_a_clear_once(
    plugin_world: CodexPluginWorld,
) -> None:
    """Both in place: Codex's `/clear` fires no SessionEnd, and at the next prompt both
    SessionStart(clear) hooks look for the thread it left. It is saved once, and its notice
    given once."""
    w = plugin_world
    codex_project_install(w)
    log = hook_log(w, events=("SessionStart", "PreCompact", "PostCompact", "Stop"))
    t = w.tui()
    t.trust_hooks()
    both_trusted(w)
    work = "Add an expiry check to the token helper in token.py"
    logged_turn(w, t, log, work, "Added expired() to token.py; the test is still to write.")
    old = log.payloads("SessionStart")[0]["session_id"]
    t.clear()
    req = logged_turn(w, t, log, "Now write the test for expired()", "Fresh start.")
    assert [p["source"] for p in log.payloads("SessionStart")] == ["startup", "clear"]
    saved = [p for p in w.store.glob("*.md") if p.name != "PARKED.md"]
    assert len(saved) == 1, saved
    fm = frontmatter(saved[0])
    assert fm["session_id"] == old and fm["trigger"] == "session-end", fm
    said = hook_context(req, saved[0].stem)
    print(f"\n[codex plugin + project install] after /clear: {json.dumps(said)}")
    assert len(said) == 1, said
    assert "still being written" not in req.text()
    assert w.mock.errors == [] and log.errors() == ""

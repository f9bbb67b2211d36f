"""End-to-end: session-skill installed as a Claude Code plugin, and nothing else (issue 14).

A clone of this checkout's HEAD is a local marketplace; `claude plugin marketplace add` +
`claude plugin install session-skill@session-skill` install it into a scratch HOME whose PATH
has no `session-skill`. Then, through the plugin alone: `/session-skill:session park`
headless (the first command builds the plugin's venv: one line of progress, inside the Bash
tool's default timeout), a second park (ready: no setup), and dump → `/clear` → restore in
the interactive UI under tmux (the ``plugin_world`` fixture: plugin_harness.py).

pip installs the dependencies from the package index, as for a user (its cache is kept in
the e2e cache folder). The figures (install, first and warm command) are printed with `-s`.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from e2e_scripted import (
    injected_context,
    last_tool_is_error,
    last_tool_result,
    relay_result,
    run_command_from_result,
    run_skill_command,
    skill_text,
)
from plugin_harness import PLUGIN, PluginWorld

pytestmark = pytest.mark.e2e

SKILL = "/session-skill:session"
BASH_TIMEOUT = 120  # the Bash tool's default
IDEA = 'cache the parsed transcript -- keyed by "mtime"'
GOAL = "Ship the plugin as the whole install."
NEXT = "Run the plugin e2e test in CI."
DOC = f"""## Goal
{GOAL}

## Decisions
- The shim builds a venv in the plugin data folder — why: the plugin must work alone.

## Next step
{NEXT}
"""


def frontmatter(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "---", path
    end = lines.index("---", 1)
    return {
        k.strip(): v.strip().strip("'\"")
        for k, sep, v in (line.partition(":") for line in lines[1:end])
        if sep
    }


def skill_run(w: PluginWorld, args: str) -> str:
    """`/session-skill:session <args>` headless: the model runs the skill's command and
    relays it; the command's output, which must have exited 0."""
    w.mock.script([run_skill_command(), relay_result()])
    mark = w.mock.mark()
    w.check(w.run_p(f"{SKILL} {args}"))
    req = w.mock.main_requests(since=mark)[1]
    out = last_tool_result(req.body)
    assert not last_tool_is_error(req.body), f"{SKILL} {args}: {out}"
    return out


def test_plugin_alone_parks_dumps_and_restores(plugin_world: PluginWorld) -> None:
    w = plugin_world
    env = w.env()
    assert shutil.which("session-skill", path=env["PATH"]) is None
    settings = json.loads((w.home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {PLUGIN: True}
    assert not (w.proj / ".claude" / "skills").exists()  # nothing installed in the project

    # 1. the first command, headless: the shim sets the plugin up, then parks
    commands: list[str] = []
    w.mock.script([run_skill_command(log=commands), relay_result()])
    started = time.monotonic()
    w.check(w.run_p(f"{SKILL} park {IDEA}", timeout=BASH_TIMEOUT + 60))
    first_s = time.monotonic() - started
    reqs = w.mock.main_requests()
    assert f"<command-name>{SKILL}</command-name>" in reqs[0].text()
    assert f"park {IDEA}" in skill_text(reqs[0].body)
    assert "session-skill dispatch" in commands[0]
    out = last_tool_result(reqs[1].body)
    assert not last_tool_is_error(reqs[1].body), out
    setup, *rest = out.strip().splitlines()
    assert setup.startswith("session-skill: first run: installing"), out
    assert str(w.data / "venv") in setup  # the client's data folder, exported by the hook
    assert "Traceback" not in out
    assert any(line.startswith("Parked: ") for line in rest), out
    parked = (w.store / "PARKED.md").read_text(encoding="utf-8")
    assert IDEA in parked
    assert first_s < BASH_TIMEOUT, f"the first command took {first_s:.0f} s"
    venv = w.data / "venv"
    assert (venv / "ready").read_text().strip() == str(w.root / "market")

    # 2. the venv is ready: no setup line; the hint names the plugin's command
    started = time.monotonic()
    listed = skill_run(w, "list")
    warm_s = time.monotonic() - started
    assert "first run" not in listed and "session-skill:" not in listed.split("\n")[0], listed
    assert f"{SKILL} drop" in listed, listed
    print(f"[plugin] first command (venv build + park): {first_s:.1f} s; warm list: {warm_s:.1f} s")
    swept = skill_run(w, "sweep")
    assert "error:" not in swept, swept

    # 3. dump → /clear → restore, interactive
    t = w.tui()
    commands = []
    w.mock.script(
        [
            run_skill_command(log=commands),
            run_command_from_result("session-skill dump", DOC, log=commands),
            relay_result("Handover written.\n\n"),
        ]
    )
    mark = w.mock.mark()
    t.type(f"{SKILL} dump plugin-work")
    t.wait_screen("Handover written", timeout=90)
    reqs = w.mock.main_requests(since=mark)
    assert len(reqs) == 3 and w.mock.errors == []
    written = last_tool_result(reqs[2].body)
    assert not last_tool_is_error(reqs[2].body), written
    assert written.rstrip().splitlines()[-1] == "/clear", written
    assert w.latest() == "plugin-work"
    doc = w.store / "plugin-work.md"
    assert frontmatter(doc)["consumed"] == "false"
    t.wait_ready()

    w.mock.script(["Picking up the handover."])
    mark = w.mock.mark()
    t.clear()
    deadline = time.monotonic() + 20
    while frontmatter(doc)["consumed"] != "true" and time.monotonic() < deadline:
        time.sleep(0.1)
    t.type("what were we doing?")
    req = w.mock.wait_main(since=mark)
    injected = injected_context(req.body)
    assert injected is not None, req.text()[:3000]
    assert GOAL in injected and NEXT in injected, injected
    assert f"{SKILL} recall plugin-work" in injected, injected  # the plugin's command
    assert frontmatter(doc)["consumed"] == "true"
    assert w.latest() is None
    t.wait_screen("Picking up the handover.")

    # 4. the other modes, headless, through the plugin alone
    recalled = skill_run(w, "recall plugin-work")
    assert GOAL in recalled and NEXT in recalled, recalled
    dropped = skill_run(w, "drop cache the parsed transcript")
    assert "Dropped: " in dropped, dropped
    assert IDEA not in skill_run(w, "list")
    print(f"[plugin] injected after /clear:\n{injected}\n", file=sys.stderr)

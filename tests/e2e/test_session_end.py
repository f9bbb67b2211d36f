"""End-to-end, issue 12: `/clear` without a dump, in the real Claude Code under tmux.

The SessionEnd hook (installed by `session-skill install`) saves the cleared conversation as
an automatic handover; the SessionStart hook of the next session gives the model a notice
about it once (`auto notice`, the default) or injects it (`auto inject`); an explicit dump of
the session wins. Assertions are on the store and on the requests the client sent the mock.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from e2e_harness import World
from e2e_scripted import (
    injected_context,
    last_tool_result,
    relay_result,
    run_command_from_result,
    run_skill_command,
)
from mock_api import Block, Step, text, tool_use

pytestmark = pytest.mark.e2e

REQUEST = "Add an expiry check to the token helper in token.py"
OPEN_TASK = "Write the failing test for an expired token"
WRITTEN = "token.py"
DUMP_NAME = "auth-work"
DUMP_GOAL = "Make login() reject expired tokens without changing the session API."
DOC = f"## Goal\n{DUMP_GOAL}\n\n## Next step\nRun the auth tests.\n"


def wait_until(pred: Callable[[], object], timeout: float = 20, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def frontmatter(path: Path) -> dict[str, str]:
    head = path.read_text(encoding="utf-8").split("\n---\n", 1)[0].splitlines()[1:]
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in head)}


def docs(w: World) -> list[Path]:
    return sorted(p for p in w.store.glob("*.md") if p.name != "PARKED.md")


def work_script(w: World) -> list[Step]:
    """The model's turns for REQUEST: open a task (through ToolSearch, as 2.1.328 offers the
    Task tools), write token.py, answer — the task left open."""

    def select(body: dict[str, Any]) -> Block:
        assert "TaskCreate" in json.dumps(body), "TaskCreate is not offered"
        return tool_use("ToolSearch", {"query": "select:TaskCreate,TaskUpdate", "max_results": 2})

    def write(body: dict[str, Any]) -> Block:
        assert "created" in last_tool_result(body).lower(), last_tool_result(body)
        content = "def expired(token, now):\n    return token.expires_at <= now\n"
        return tool_use("Write", {"file_path": str(w.proj / WRITTEN), "content": content})

    return [
        select,
        tool_use(
            "TaskCreate",
            {"subject": OPEN_TASK, "description": "tests/test_auth.py", "activeForm": "Writing"},
        ),
        write,
        text("Added expired() to token.py; the failing test is still to write."),
    ]


def list_script() -> list[Step]:
    """`/session list`: run the skill's dispatch command, relay what it printed."""
    return [run_skill_command(), relay_result("Listed.\n\n")]


def dump_script() -> list[Step]:
    return [
        run_skill_command("session-skill dispatch"),
        run_command_from_result("session-skill dump", DOC),
        relay_result("Handover written.\n\n"),
    ]


def do_dump(w: World, t: Any) -> None:
    """`/session dump DUMP_NAME` typed in `t`: the doc written and LATEST on it."""
    w.mock.script(dump_script())
    t.type(f"/session dump {DUMP_NAME}")
    t.wait_screen("Handover written", timeout=60)
    assert w.mock.errors == [] and w.latest() == DUMP_NAME, w.mock.errors


def do_work(w: World, t: Any) -> None:
    w.mock.script(work_script(w))
    t.type(REQUEST)
    t.wait_screen("the failing test is still to write", timeout=60)
    assert w.mock.errors == [] and w.mock.pending_steps == 0, w.mock.errors
    assert (w.proj / WRITTEN).is_file()
    t.wait_ready()


def test_clear_without_dump_notices_once_and_a_dump_wins(tmux_world: World) -> None:
    w = tmux_world
    t = w.tui("--permission-mode", "acceptEdits")  # the Write runs without a dialog
    do_work(w, t)

    # /clear with no dump: the SessionEnd hook saves the conversation
    w.mock.script(list_script())
    mark = w.mock.mark()
    t.clear()
    wait_until(w.latest, what="LATEST to name the automatic handover")
    slug = w.latest()
    assert slug is not None
    (doc,) = docs(w)
    assert doc.stem == slug
    fm = frontmatter(doc)
    assert fm["trigger"] == "session-end" and fm["capture"] == "extractive", fm
    assert fm["consumed"] == "false" and fm["branch"] == "main"
    body = doc.read_text(encoding="utf-8")
    assert f"## Goal\n{REQUEST}" in body
    assert f"| `{WRITTEN}` |" in body, body  # the file the session wrote
    assert OPEN_TASK in body.split("## Outstanding", 1)[1], body  # the task left open
    # the user is told, on screen, what happened
    # (a short phrase: the pane wraps the line, and a side panel shares its rows)
    t.wait_screen("clear says: session-skill: no /session dump", what="the systemMessage")

    # the first request after /clear carries the notice naming it (a slash command: the
    # session has no user request of its own, so the next /clear saves nothing)
    t.type("/session list")
    req = w.mock.wait_main(since=mark)
    notice = injected_context(req.body)
    assert notice is not None, req.text()[:4000]
    assert f"`{slug}`" in notice and "no /session dump ran" in notice, notice
    assert notice.startswith(f"`/session recall {slug}` loads the automatic handover"), notice
    assert REQUEST in notice, notice  # the recall hint first (issue 21), then the Goal
    assert len(notice) <= 600 and OPEN_TASK not in notice, notice
    t.wait_screen("Listed.", what="the scripted model's last turn")
    assert w.mock.pending_steps == 0 and w.mock.errors == [], w.mock.errors
    assert slug in last_tool_result(w.mock.main_requests(since=mark)[-1].body)  # list names it
    assert frontmatter(doc)["consumed"] == "false" and "noticed_at" in frontmatter(doc)
    t.wait_ready()
    print(f"\n[notice] {notice}\n")

    # a second /clear: nothing about it, and nothing new written
    w.mock.script(["Fresh start."])
    mark = w.mock.mark()
    t.clear()
    t.type("anything pending?")
    req = w.mock.wait_main(since=mark)
    assert "anything pending?" in req.last_user_text()
    assert injected_context(req.body) is None, injected_context(req.body)
    assert slug not in req.text()
    assert docs(w) == [doc] and w.latest() == slug
    t.wait_screen("Fresh start.")
    t.wait_ready()

    # a session that dumps gets its own doc restored, and no automatic one
    do_dump(w, t)
    t.wait_ready()
    w.mock.script(["Picking up."])
    mark = w.mock.mark()
    t.clear()
    t.wait_screen("clear says: session-skill: restored handover", what="the restore line")
    t.type("where were we?")
    req = w.mock.wait_main(since=mark)
    injected = injected_context(req.body)
    assert injected is not None and DUMP_GOAL in injected, req.text()[:4000]
    assert injected.startswith(f"Session handover `{DUMP_NAME}`"), injected
    names = {p.stem for p in docs(w)}
    assert names == {slug, DUMP_NAME}, names  # no automatic doc for the dumping session
    assert frontmatter(w.store / f"{DUMP_NAME}.md")["consumed"] == "true"


def test_auto_inject_restores_the_automatic_handover(tmux_world: World) -> None:
    w = tmux_world
    w.session_skill("config", "set", "auto", "inject")
    t = w.tui("--permission-mode", "acceptEdits")
    do_work(w, t)
    w.mock.script(["Continuing."])
    mark = w.mock.mark()
    t.clear()
    t.wait_screen("clear says: session-skill: restored the automatic", what="the restore line")
    t.type("go on")
    req = w.mock.wait_main(since=mark)
    injected = injected_context(req.body)
    assert injected is not None, req.text()[:4000]
    slug = injected.split("`")[1]
    assert injected.startswith(f"Automatic session handover `{slug}`"), injected
    assert f"## Goal\n{REQUEST}" in injected and OPEN_TASK in injected, injected
    fm = frontmatter(w.store / f"{slug}.md")
    assert fm["consumed"] == "true" and fm["trigger"] == "session-end"
    assert w.latest() is None

    # The session that carried it on ("go on": no work named) is cleared in turn: its own
    # automatic handover names the same work and keeps the task nobody did (issue 19).
    t.wait_screen("Continuing.", what="the reply to go on")
    t.wait_ready()
    w.mock.script(["Back again."])
    t.clear()
    wait_until(lambda: len(docs(w)) == 2, what="the second automatic handover")
    second = [p for p in docs(w) if p.stem != slug]
    assert len(second) == 1, second
    text = second[0].read_text(encoding="utf-8")
    assert f"## Goal\n{REQUEST} (carried over from `{slug}`)\n" in text, text
    assert f"- {OPEN_TASK} (Unfinished task, left open in `{slug}`)" in text, text


def test_a_notice_passed_over_is_named_again_at_the_next_clear(tmux_world: World) -> None:
    """`auto notice`: the user passes over the notice, asks for other work, and clears again.
    The second automatic handover does not hold the first one's open task, so the notice of
    the second names the first, with its open items and the command that loads it."""
    w = tmux_world
    t = w.tui("--permission-mode", "acceptEdits")
    do_work(w, t)
    t.clear()
    wait_until(w.latest, what="the first automatic handover")
    first = w.latest()
    t.wait_screen("clear says: session-skill: no /session dump", what="the first notice line")
    w.mock.script(["Added --json to the report command. Should it include the totals row?"])
    t.type("add a --json flag to the report command")
    t.wait_screen("Should it include the totals row?", timeout=60)
    t.wait_ready()
    w.mock.script(["Hello again."])
    mark = w.mock.mark()
    t.clear()
    wait_until(lambda: len(docs(w)) == 2, what="the second automatic handover")
    second = w.latest()
    assert second not in (None, first), (first, second)
    assert frontmatter(w.store / f"{second}.md")["follows"] == first
    assert OPEN_TASK not in (w.store / f"{second}.md").read_text(encoding="utf-8")
    t.wait_screen("never loaded", what="the line naming the handover passed over")
    t.type("hi")
    req = w.mock.wait_main(since=mark)
    notice = injected_context(req.body)
    assert notice is not None, req.text()[:4000]
    assert notice.startswith(f"`/session recall {second}` loads the automatic handover"), notice
    assert f"The automatic handover before it, `{first}`, holding" in notice, notice
    assert f"`/session recall {first}` loads it." in notice, notice
    assert frontmatter(w.store / f"{first}.md")["consumed"] == "false"


def test_work_after_a_dump_is_saved_beside_it_and_named(tmux_world: World) -> None:
    """The user dumps, then asks for more work, then clears: the dump is still the handover
    restored, and the work after it — which the dump does not hold — is saved as an
    automatic handover and named beside it, not lost. The client's own records after the
    dump (its tool result, the reply, the /clear) are no new work: the test above shows that
    a dump followed by nothing gets no automatic doc."""
    w = tmux_world
    t = w.tui("--permission-mode", "acceptEdits")
    do_dump(w, t)
    assert frontmatter(w.store / f"{DUMP_NAME}.md")["transcript_bytes"].isdigit()
    t.wait_ready()
    do_work(w, t)  # REQUEST, asked after the dump: token.py written, a task left open

    w.mock.script(["Picking up."])
    mark = w.mock.mark()
    t.clear()
    t.wait_screen("the work after it was saved as", what="the restore line naming the later save")
    (later,) = [p for p in docs(w) if p.stem != DUMP_NAME]
    fm = frontmatter(later)
    assert fm["trigger"] == "session-end" and fm["consumed"] == "false", fm
    assert REQUEST in later.read_text(encoding="utf-8")
    t.type("where were we?")
    req = w.mock.wait_main(since=mark)
    injected = injected_context(req.body)
    assert injected is not None and DUMP_GOAL in injected, req.text()[:4000]
    assert injected.startswith(f"Session handover `{DUMP_NAME}`"), injected
    assert f"saved as `{later.stem}`" in injected, injected
    assert f"`/session recall {later.stem}` loads it." in injected, injected
    assert frontmatter(w.store / f"{DUMP_NAME}.md")["consumed"] == "true"
    assert frontmatter(later)["consumed"] == "false"  # waits to be recalled


def test_another_terminals_clear_does_not_take_the_dump(tmux_world: World) -> None:
    """Two Claude Code terminals in one project: A dumps, then B — which asked nothing —
    clears. B's fresh session is told a handover is pending and does not load it (before,
    it got A's handover and consumed it, and A's own /clear restored nothing); A's /clear
    restores it."""
    w = tmux_world
    a = w.tui("--permission-mode", "acceptEdits")
    b = w.tui("--permission-mode", "acceptEdits")
    do_dump(w, a)
    a.wait_ready()

    w.mock.script(["Hello from B."])
    mark = w.mock.mark()
    b.clear()
    b.wait_screen("is another session's", what="B's line naming A's handover")
    b.type("hello")
    req = w.mock.wait_main(since=mark)
    notice = injected_context(req.body)
    assert notice is not None and "dumped by another session" in notice, req.text()[:4000]
    assert DUMP_GOAL not in notice and f"`/session recall {DUMP_NAME}`" in notice, notice
    b.wait_screen("Hello from B.")
    assert frontmatter(w.store / f"{DUMP_NAME}.md")["consumed"] == "false"

    w.mock.script(["Picking up."])
    mark = w.mock.mark()
    a.clear()
    a.wait_screen("clear says: session-skill: restored handover", what="A's restore line")
    a.type("where were we?")
    req = w.mock.wait_main(since=mark)
    injected = injected_context(req.body)
    assert injected is not None and DUMP_GOAL in injected, req.text()[:4000]
    assert frontmatter(w.store / f"{DUMP_NAME}.md")["consumed"] == "true"

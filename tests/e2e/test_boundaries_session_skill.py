"""End-to-end, issue 20 (phase 2): session-skill's hooks at the session boundaries of the real
Claude Code 2.1.328 — plan approval that clears context, ``/compact`` after a restore,
automatic compaction — and the plugin's SessionEnd inside the ~1.5 s a plugin hook gets.

``session-skill install`` put SessionStart ``startup|clear|compact``, SessionEnd ``clear`` and
PreCompact ``manual|auto`` into the project's ``.claude/settings.json`` (the ``tmux_world``
fixture); the logging hook (``hook_log.py``, user-level, answering nothing) runs next to them,
for the order and the timestamps. Assertions are on the store
(``<project>/.claude/state/session/``) and on what the model is sent (the mock's log).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from e2e_harness import World
from e2e_scripted import (
    exit_plan_mode,
    hook_contexts,
    message_texts,
    relay_result,
    run_command_from_result,
    run_skill_command,
    write_plan,
)
from e2e_store import body, docs, docs_with, frontmatter, section, wait_until
from hook_log import HookLog, install
from mock_api import reply
from plugin_harness import PluginWorld, checkout_cli

from session_skill.hooks.pre_compact import INSTRUCTIONS

pytestmark = pytest.mark.e2e

PLAN_TITLE = "Add retry backoff"
STEPS = ("1. Wrap the HTTP call in a retry loop.", "2. Back off 1s, 2s, 4s.")
PLAN = f"# {PLAN_TITLE}\n\n" + "\n".join(STEPS) + "\n"
REQUEST = "Plan retry backoff for the HTTP client"
DUMP_NAME = "retry-work"
DUMP_GOAL = "Make the HTTP client retry with backoff without changing its API."
DUMP_NEXT = "Write the test for the 4 s backoff."
DOC = f"## Goal\n{DUMP_GOAL}\n\n## Next step\n{DUMP_NEXT}\n"
IDEA = "try a jittered backoff later"
AUTO_ENV = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}
TIMING = ("Notification",)  # comes after some idle seconds at a dialog


def park(w: World, idea: str) -> str:
    """``session-skill park IDEA`` from the user's terminal; the item's slug."""
    out = w.session_skill("park", idea).stdout
    assert out.startswith("Parked: "), out
    return out.split()[1]


def the_context(req: Any) -> str:
    """The one SessionStart context in a request (the logger answers nothing)."""
    found = hook_contexts(req.body)
    assert len(found) == 1, found or req.text()[-3000:]
    return found[0]


def turn(w: World, t: Any, log: HookLog, prompt: str, answer: Any) -> Any:
    """``prompt`` → the scripted ``answer``; returns the main request, once the turn's Stop
    hook ran."""
    return log.turn(w.mock, t, prompt, answer, lambda a: w.mock.script([a]))


# --- 1. plan approval that clears context ------------------------------------------------------


@pytest.mark.parametrize("auto", ["notice", "inject"])
def test_plan_approval_is_saved_as_the_plan_and_only_pointed_at(
    tmux_world: World, auto: str
) -> None:
    w = tmux_world
    if auto != "notice":
        w.session_skill("config", "set", "auto", auto)
    log = install(w, settings={"showClearContextOnPlanAccept": True})
    plan_paths: list[str] = []
    w.mock.script([write_plan(PLAN, plan_paths), exit_plan_mode(), "Implementing the plan."])
    t = w.tui("--permission-mode", "plan")
    t.type(REQUEST)
    t.approve_plan_clearing_context()
    mark = w.mock.mark()
    req = w.mock.wait_main(since=mark)  # the auto-continuation: nobody typed it
    t.wait_screen("Implementing the plan.")
    log.wait("Stop", where=lambda p: p["last_assistant_message"] == "Implementing the plan.")
    assert log.sequence(ignore=TIMING)[-3:] == ["SessionEnd:clear", "SessionStart:clear", "Stop"]
    end, start = log.entry("SessionEnd"), log.entry("SessionStart", source="clear")
    old_id = end["payload"]["session_id"]
    (plan_path,) = plan_paths

    # the store: one doc, the plan's
    (doc,) = docs(w.store)
    fm = frontmatter(doc)
    slug = doc.stem
    assert fm["trigger"] == "plan-approval" and fm["capture"] == "extractive", fm
    assert fm["plan_file"] == plan_path and fm["session_id"] == old_id, fm
    text = body(doc)
    assert section(text, "Goal") == f"Carry out the approved plan “{PLAN_TITLE}” (`{plan_path}`)."
    assert all(s in section(text, "Plan") for s in STEPS), text
    assert section(text, "Next step") == f"Implement the approved plan “{PLAN_TITLE}”, step by step"
    assert w.latest() == slug

    # the auto-continuation request: the plan once (Claude Code's), and the pointer
    implement = [x for x in message_texts(req.body) if x.startswith("Implement the following plan")]
    assert len(implement) == 1 and PLAN in implement[0], implement
    notice = the_context(req)
    assert notice.startswith(
        f"`/session recall {slug}` loads the automatic handover `{slug}` that session-skill saved"
    ), notice
    assert "plan approval" in notice and "no /session dump ran" not in notice, notice
    assert not any(s in notice for s in STEPS), notice
    assert all(req.text().count(s) == 1 for s in STEPS), req.text()
    t.wait_screen(lambda s: "plan approval cleared the context" in " ".join(s.split()))

    # told, not consumed — with `auto inject` too (the plan is in front of the model already)
    fm = frontmatter(doc)
    assert fm["consumed"] == "false" and fm.get("noticed_at"), fm
    assert w.latest() == slug
    print(
        f"\n[plan, auto {auto}] SessionEnd -> SessionStart(clear): "
        f"{start['ts'] - end['ts']:.2f} s\n[notice] {notice}"
    )
    assert w.mock.errors == [] and log.errors() == ""


# --- 2. /compact after a restore ---------------------------------------------------------------


def dump_through_the_skill(w: World, t: Any) -> None:
    w.mock.script(
        [
            run_skill_command("session-skill dispatch"),
            run_command_from_result("session-skill dump", DOC),
            relay_result("Handover written.\n\n"),
        ]
    )
    t.type(f"/session dump {DUMP_NAME}")
    t.wait_screen("Handover written", timeout=60)
    assert w.mock.errors == [] and w.latest() == DUMP_NAME, w.mock.errors
    t.wait_ready()


def compact_checks(
    w: World, log: HookLog, before: int, mark: int, trigger: str
) -> tuple[str, Path]:
    """The compaction's PreCompact doc and its summary request's instructions; returns the
    session id and the doc."""
    pre = log.entry("PreCompact", since=before)["payload"]
    sid = pre["session_id"]
    assert pre["trigger"] == trigger
    (summary_req,) = w.mock.compactions(since=mark)
    ask = summary_req.last_user_text()
    assert f"\n\nAdditional Instructions:\n{INSTRUCTIONS}" in ask, ask[-1500:]
    (saved,) = wait_until(
        lambda: docs_with(w.store, trigger="compact", session_id=sid),
        what="the PreCompact doc",
    )
    fm = frontmatter(saved)
    assert fm["compaction"] == trigger and fm["capture"] == "extractive", fm
    assert fm["consumed"] == "false", fm
    return sid, saved


def test_compact_after_a_restore_gives_back_the_handover_and_the_parked_item(
    tmux_world: World,
) -> None:
    w = tmux_world
    log = install(w)
    t = w.tui()
    turn(w, t, log, "hello, we work on retries", "Hi, retries it is.")
    dump_through_the_skill(w, t)
    dumped = w.store / f"{DUMP_NAME}.md"

    # /clear: the dump is restored into the new session
    before = log.mark()
    t.clear()
    new = log.wait("SessionStart", since=before, where=lambda p: p["source"] == "clear")
    req = turn(w, t, log, "where were we?", "Picking up.")
    restored = the_context(req)
    assert restored.startswith(f"Session handover `{DUMP_NAME}`") and DUMP_GOAL in restored
    fm = frontmatter(dumped)
    assert fm["consumed"] == "true" and fm["consumed_by"] == "hook", fm
    assert fm["restored_in"] == new["session_id"], fm
    assert w.latest() is None
    assert docs(w.store) == [dumped]  # the session that dumped got no automatic doc

    item = park(w, IDEA)
    turn(w, t, log, "remember the backoff: 1s 2s 4s", "Noted: 1s, 2s, 4s.")
    before, mark = log.mark(), w.mock.mark()
    t.compact()
    log.wait("PostCompact", since=before)
    sid, saved = compact_checks(w, log, before, mark, "manual")
    assert sid == new["session_id"]
    assert w.latest() is None  # the session goes on: nothing pending for a /clear

    req = turn(w, t, log, "what next?", "Next: the backoff test.")
    given = the_context(req)
    assert given.startswith("Context was compacted."), given
    assert f"The handover `{DUMP_NAME}` restored earlier in this session" in given, given
    assert f"## Goal\n{DUMP_GOAL}" in given, given
    assert f"Parked items: 1 open — **{item}**" in given, given
    assert f"The state before this compaction is saved as `{saved.stem}`" in given, given
    assert len(given) <= 2000, len(given)
    print(f"\n[after /compact] {given}")
    assert w.mock.errors == [] and log.errors() == ""


# --- 3. automatic compaction ---------------------------------------------------------------------


def test_auto_compact_saves_the_state_and_gives_back_the_parked_item(tmux_world: World) -> None:
    w = tmux_world
    log = install(w)
    item = park(w, IDEA)
    t = w.tui(env=AUTO_ENV)
    turn(w, t, log, "hello, we work on retries", "Hi, retries it is.")
    full = reply("Noted: 1s, 2s, 4s.", input_tokens=60_000)  # over the threshold
    turn(w, t, log, "remember the backoff: 1s 2s 4s", full)
    assert w.mock.compactions() == [] and docs(w.store) == []
    before, mark = log.mark(), w.mock.mark()
    req = turn(w, t, log, "what next?", "Next: the backoff test.")  # compacts first
    assert "PreCompact:auto" in log.sequence(since=before), log.sequence(since=before)
    sid, saved = compact_checks(w, log, before, mark, "auto")
    assert sid == log.payloads("SessionStart")[0]["session_id"]
    assert w.latest() is None
    (summary_req,) = w.mock.compactions(since=mark)
    assert summary_req["seq"] < req["seq"]
    given = the_context(req)
    assert given.startswith("Context was compacted."), given
    assert f"Parked items: 1 open — **{item}**" in given, given
    assert f"The state before this compaction is saved as `{saved.stem}`" in given, given
    assert "restored earlier" not in given, given  # nothing was restored in this session
    print(f"\n[after automatic compaction] {given}")
    assert w.mock.errors == [] and log.errors() == ""


# --- 4. the plugin's SessionEnd on a long session ---------------------------------------------

REPO = Path(__file__).resolve().parents[2]
BIG = 150_000_000  # bytes appended to the live transcript before /clear
WORK = "Add an expiry check to the token helper in token.py"


def synth_module() -> Any:
    """bench/synth_transcript.py, loaded from its file (standard library only)."""
    spec = importlib.util.spec_from_file_location(
        "synth_transcript_e2e", REPO / "bench" / "synth_transcript.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def grow_transcript(transcript: Path, session_id: str, cwd: Path, scratch: Path) -> int:
    """Append about ``BIG`` bytes of well-formed Claude Code records (bench's synthetic
    sessions: progress records, split assistant turns, long tool results, tasks…) to the
    live ``transcript``, keyed to its session id and cwd; returns its size after."""
    synth = synth_module()
    synth.SESSION_ID, synth.CWD = session_id, str(cwd)  # what _envelope and _turn read
    tmp = scratch / "synthetic.jsonl"
    synth.write_synthetic(tmp, BIG)
    with tmp.open("rb") as src, transcript.open("ab") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    tmp.unlink()
    return transcript.stat().st_size


PLUGIN_END = re.compile(
    r'^(\S+) \[DEBUG\] SessionEnd:clear \["\$\{CLAUDE_PLUGIN_ROOT\}/bin/session-skill" '
    r"hook session-end\] (.+)$",
    re.M,
)


def plugin_session_end(debug_log: Path) -> tuple[float, str, bool]:
    """From Claude Code's ``--debug-file`` log: when the plugin's SessionEnd hook ended (epoch
    seconds), how (``completed with status 0``), and whether it printed its systemMessage
    (the capture came back inside the hook's budget). 2.1.328 logs a SessionEnd hook only
    when it ends; the logger's entry says when they started."""
    text = debug_log.read_text(encoding="utf-8", errors="replace")
    found = PLUGIN_END.findall(text)
    assert len(found) == 1, f"no single plugin SessionEnd line in {debug_log}: {found}"
    (stamp, how) = found[0]
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    before = text[: text.index(f"{stamp} [DEBUG] SessionEnd:clear [")]
    said = '"systemMessage":"session-skill: no /session dump before /clear' in before
    return when, how, said


def test_plugin_session_end_captures_a_150_mb_session(plugin_world: PluginWorld) -> None:
    w = plugin_world
    assert shutil.which("session-skill", path=w.env()["PATH"]) is None
    # the logger's SessionEnd entry has no timeout (one would lift the plugin's budget) and
    # copies no transcript (150 MB would load the machine); it lists the store at every
    # run: what the plugin's SessionStart found there
    log = install(w, untimed=("SessionEnd",), watch=w.store, snapshot=())
    debug = w.root / "debug.log"
    t = w.tui("--debug", "--debug-file", str(debug))
    turn(w, t, log, WORK, "Added the expiry check; the test is still to write.")
    start = log.payloads("SessionStart")[0]
    old_id, transcript = start["session_id"], Path(start["transcript_path"])
    began = time.monotonic()
    size = grow_transcript(transcript, old_id, w.proj, w.root / "tmp")
    grown_s = time.monotonic() - began
    assert size >= BIG

    before = log.mark()
    pressed = time.time()
    t.clear()
    log.wait("SessionStart", since=before, where=lambda p: p["source"] == "clear")
    shown = " ".join(t.screen().split())
    end = log.entry("SessionEnd", since=before)
    started = log.entry("SessionStart", since=before, source="clear")
    assert end["payload"]["session_id"] == old_id and end["payload"]["reason"] == "clear"
    new_id = started["payload"]["session_id"]

    # /clear completed: the new session's first request arrives
    req = turn(w, t, log, "anything pending?", "Fresh start.")
    assert new_id != old_id
    (doc,) = wait_until(
        lambda: docs_with(w.store, session_id=old_id, trigger="session-end"),
        timeout=60,
        what="the automatic doc of the 150 MB session",
    )
    wait_until(lambda: not any(n.startswith(".capture-") for n in os.listdir(w.store)))
    fm = frontmatter(doc)
    assert fm["capture"] == "extractive" and fm["agent"] == "claude-code", fm
    assert section(body(doc), "Goal") == WORK, body(doc)  # the head of the transcript
    assert w.latest() == doc.stem

    # how long the user waited, and which way the capture went
    ended, how, in_time = plugin_session_end(debug)
    # "cancelled": Claude Code killed it at the budget (the capture ran on, detached)
    assert how in ("completed with status 0", "cancelled"), how
    assert how != "cancelled" or not in_time
    hook_s = ended - end["ts"]  # from the logger's start: a little short of the hook's run
    clear_s = started["ts"] - pressed
    listing = started["listing"] or []
    marker = f".capture-{old_id}"
    told = the_context(req)
    if in_time:  # came back inside the hook's wait: the usual notice
        assert f"{doc.stem}.md" in listing and marker not in listing, listing
        way = "inside the hook's budget"
    else:  # ran on detached: the marker stood while the new session started
        assert marker in listing or f"{doc.stem}.md" in listing, listing
        way = "detached, past the hook's budget"
    if told.startswith("session-skill is still writing the automatic handover"):
        assert marker in listing and not in_time, listing
        assert "noticed_at" not in frontmatter(doc)
    else:  # done by the time SessionStart looked (it waits briefly for a marker)
        assert told.startswith(f"`/session-skill:session recall {doc.stem}` loads"), told
        assert "no /session-skill:session dump ran before /clear" in told, told
        assert frontmatter(doc).get("noticed_at"), frontmatter(doc)
    print(
        f"\n[plugin SessionEnd] transcript {size / 1e6:.0f} MB (grown in {grown_s:.1f} s); "
        f"the plugin's SessionEnd hook ran {hook_s:.2f} s ({how}; /clear Enter -> its end "
        f"{ended - pressed:.2f} s), capture {way}; /clear Enter -> SessionStart "
        f"{clear_s:.2f} s; store at SessionStart: {listing}"
        f"\n[told] {told}\n[screen after /clear] {shown[-600:]}"
    )
    assert frontmatter(doc)["consumed"] == "false"
    assert w.mock.errors == [] and log.errors() == ""


def project_install(w: PluginWorld) -> Any:
    """`session-skill install` into the plugin world's project, by this checkout (not the
    plugin): its hooks in `.claude/settings.json`, beside the plugin's. Returns a runner of
    this checkout's CLI in the project."""

    cli = checkout_cli(w.proj, w.env())
    done = cli("install")
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = (w.proj / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert "-m session_skill hook session-start" in hooks, hooks
    return cli


def test_plugin_and_a_project_install_give_a_compactions_context_once(
    plugin_world: PluginWorld,
) -> None:
    """The plugin and a project install (`session-skill install`) both in place: Claude Code
    runs both SessionStart hooks at a compaction. Each gave the parked item back — two
    contexts, paid on every request after it. One is given."""
    w = plugin_world
    cli = project_install(w)
    parked = cli("park", IDEA)
    assert parked.stdout.startswith("Parked: "), parked.stdout + parked.stderr
    item = parked.stdout.split()[1]
    log = install(w)
    t = w.tui()
    turn(w, t, log, "hello, we work on retries", "Hi, retries it is.")
    before = log.mark()
    t.compact()
    log.wait("PostCompact", since=before)
    req = turn(w, t, log, "what next?", "Next: the backoff test.")
    given = the_context(req)
    assert given.startswith("Context was compacted."), given
    # 2.1.328 joins the hooks' contexts in one block: the answer is there once, not twice
    assert req.text().count("Context was compacted.") == 1, req.text()[-4000:]
    assert f"Parked items: 1 open — **{item}**" in given, given
    assert (w.store / ".given").exists()
    # both installs' PreCompact hooks ran: the state is saved once
    assert len(docs_with(w.store, trigger="compact")) == 1, docs(w.store)
    assert w.mock.errors == [] and log.errors() == ""


def test_plugin_and_a_project_install_say_a_startup_notice_once(
    plugin_world: PluginWorld,
) -> None:
    """The plugin and a project install both in place, a handover pending: Claude Code runs
    both SessionStart hooks at startup, and each said it is pending — twice to the user, twice
    in the model's context, on every request. The plugin's hook leaves it to the project's:
    said once, in the project install's words, and nothing in the store moves."""
    w = plugin_world
    cli = project_install(w)
    dumped = cli("dump", DUMP_NAME, "--file", "-", input=DOC)
    assert dumped.returncode == 0, dumped.stdout + dumped.stderr
    slug = w.latest()
    before = {p.name: p.read_bytes() for p in w.store.glob("*.md")}
    log = install(w)
    t = w.tui()
    said = "is pending in this project"
    t.wait_screen(f"handover `{slug}`", what="the startup notice")
    req = turn(w, t, log, "hello, where were we?", "Let me look.")
    shown = t.screen()
    assert log.payloads("SessionStart")[0]["source"] == "startup"
    assert req.text().count(said) == 1, req.text()[-4000:]
    (given,) = [c for c in hook_contexts(req.body) if said in c]
    assert f"(`{slug}`); `/session recall` loads it." in given, given  # the project's skill
    assert " ".join(shown.split()).count(f"handover `{slug}`") == 1, shown
    assert {p.name: p.read_bytes() for p in w.store.glob("*.md")} == before
    assert w.latest() == slug
    assert w.mock.errors == [] and log.errors() == ""

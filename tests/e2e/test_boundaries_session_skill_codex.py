"""End-to-end, issue 20 (phase 2): session-skill's hooks at the session boundaries of the real
Codex 0.171.0 TUI — ``/clear`` without a dump (captured at the next SessionStart, since
``/clear`` fires no SessionEnd), ``/compact`` and automatic compaction.

``session-skill install --agent codex`` put SessionStart ``startup|clear|compact`` and
PreCompact into the project's ``.codex/hooks.json``; the TUI's "Hooks need review" prompt
trusts them (and the user-level logging hook, ``hook_log.py``, which answers nothing).
Assertions are on the store (``<project>/.claude/state/session/``), the rollouts and what the
model is sent (the mock's log).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from codex_harness import CodexWorld, make_world, relay, rollouts_for_cwd, run_skill, session_meta
from codex_harness import logged_turn as turn
from codex_mock import LoggedRequest, reply
from e2e_harness import find_tmux, find_venv_bin
from e2e_store import body, docs, docs_with, frontmatter, section, wait_until
from hook_log import HookLog, install

from session_skill.hooks.pre_compact import INSTRUCTIONS

pytestmark = pytest.mark.e2e

REQUEST = "Add an expiry check to the token helper in token.py"
# What the thread after the first /clear asks: a request of its own, worth a handover (a
# two-word "what now?" answered in two words is not: it would push a waiting dump out).
NEXT_REQUEST = "Now write the test for expired() in tests/test_token.py"
IDEA = "try a jittered backoff later"


@pytest.fixture
def world(tmp_path: Path, codex_bin: Path) -> Iterator[CodexWorld]:
    """Scratch HOME/CODEX_HOME + git project + mock + tmux; ``install --agent codex`` run in
    it and committed, as a user would."""
    w = make_world(tmp_path, codex_bin, find_venv_bin(), find_tmux())
    try:
        w.session_skill("install", "--agent", "codex", "--project", str(w.proj))
        w.git("add", "-A")
        w.git("commit", "-q", "-m", "install session-skill for Codex")
        yield w
    finally:
        w.close()


def contexts(req: LoggedRequest) -> list[str]:
    """The hook contexts in a request: Codex puts each SessionStart additionalContext in a
    developer message of its own (the others: the base instructions, ``<skills_instructions>``,
    ``<permissions instructions>``…)."""
    return [m for m in req.messages("developer") if not m.startswith(("You are a coding", "<"))]


def park(w: CodexWorld, idea: str) -> str:
    out = w.session_skill("park", idea).stdout
    assert out.startswith("Parked: "), out
    return out.split()[1]


# --- 5. /clear without a dump --------------------------------------------------------------------


def test_clear_without_a_dump_saves_the_old_thread_and_notices_once(world: CodexWorld) -> None:
    w = world
    log = install(w)
    t = w.tui()
    t.trust_hooks()
    turn(w, t, log, REQUEST, "Added expired() to token.py; the test is still to write.")
    (first,) = log.payloads("SessionStart")
    old_id = first["session_id"]
    assert docs(w.store) == [] and w.latest() is None

    t.clear()
    req = turn(w, t, log, NEXT_REQUEST, "Fresh start.")
    new = log.entry("SessionStart", source="clear")["payload"]
    assert new["session_id"] != old_id
    (doc,) = docs(w.store)
    fm = frontmatter(doc)
    slug = doc.stem
    assert fm["trigger"] == "session-end" and fm["session_id"] == old_id, fm
    assert fm["agent"] == "codex" and fm["capture"] == "extractive", fm
    (old_rollout,) = [p for p in rollouts_for_cwd(w.codex_home, w.proj) if old_id in p.name]
    assert session_meta(old_rollout)["id"] == old_id  # the thread /clear left, found by cwd
    assert section(body(doc), "Goal") == REQUEST, body(doc)
    assert w.latest() == slug

    (notice,) = contexts(req)
    assert notice.startswith(
        f"`$session recall {slug}` loads the automatic handover `{slug}`: "
        "no $session dump ran before /clear"
    ), notice
    assert req.text().count(f"`{slug}`") == 1 and REQUEST in notice, notice
    fm = frontmatter(doc)
    assert fm["consumed"] == "false" and fm.get("noticed_at"), fm

    # a second /clear: the first notice is not given again; the thread it left held a
    # request of its own, saved and noticed in its turn
    t.clear()
    req = turn(w, t, log, "anything pending?", "Nothing new.")
    assert slug not in req.text(), contexts(req)
    (later,) = [p for p in docs(w.store) if p != doc]
    assert frontmatter(later)["session_id"] == new["session_id"], frontmatter(later)
    assert section(body(later), "Goal") == NEXT_REQUEST
    (again,) = contexts(req)
    assert again.startswith(f"`$session recall {later.stem}` loads the automatic handover"), again
    assert w.latest() == later.stem and frontmatter(doc)["consumed"] == "false"

    # a third: the thread it left only asked "anything pending?" — no handover, none said
    t.clear()
    req = turn(w, t, log, "and now?", "Still nothing.")
    assert [p for p in docs(w.store) if p not in (doc, later)] == [], docs(w.store)
    assert contexts(req) == [] and w.latest() == later.stem
    print(f"\n[codex notice] {notice}")
    assert w.mock.errors == [] and log.errors() == ""


LEFT = "I haven't added the test for expired tokens."


def _left_open_and_cleared(w: CodexWorld) -> tuple[HookLog, Any]:
    """A thread that did REQUEST, left LEFT open, and was cleared."""
    log = install(w)
    t = w.tui()
    t.trust_hooks()
    turn(w, t, log, REQUEST, f"Added expired() to token.py. {LEFT}")
    t.clear()
    return log, t


def _cleared_again_carries(w: CodexWorld, t: Any, log: HookLog, doc: Path) -> None:
    """The thread that carried on `doc`, cleared: its handover names the same work, carried
    over, and keeps LEFT, saying where it was first left open."""
    t.clear()
    turn(w, t, log, "and now?", "Still here.")
    (later,) = [p for p in docs(w.store) if p != doc]
    assert section(body(later), "Goal") == f"{REQUEST} (carried over from `{doc.stem}`)"
    assert f"- {LEFT} (Deferred exploration, left open in `{doc.stem}`)" in body(later), body(later)
    assert w.mock.errors == [] and log.errors() == ""


def test_a_thread_that_carried_on_an_injected_handover_hands_over_its_goal_and_loose_end(
    world: CodexWorld,
) -> None:
    """``auto inject``: the thread after /clear is given the automatic handover and goes on
    ("go on": no work named); cleared in turn, its own handover names the same work, carried
    over, and keeps what the first left open and nobody did (issue 19)."""
    w = world
    w.session_skill("config", "set", "auto", "inject")
    log, t = _left_open_and_cleared(w)
    turn(w, t, log, "go on", "Continuing.")
    (doc,) = docs(w.store)
    assert frontmatter(doc)["restored_in"] == log.entry("SessionStart", source="clear")[
        "payload"]["session_id"], frontmatter(doc)  # fmt: skip
    assert LEFT in section(body(doc), "Outstanding"), body(doc)
    _cleared_again_carries(w, t, log, doc)


def test_a_thread_that_recalled_a_handover_hands_over_what_it_left_open(
    world: CodexWorld,
) -> None:
    """``auto notice``: the thread after /clear runs ``$session recall`` (recall records the
    thread it restores into, from ``CODEX_THREAD_ID``) and goes on ("go on": no work named);
    cleared in turn, its own handover carries the first one's Goal and the loose end nobody
    took up (issue 19) — as with a handover the hook injected."""
    w = world
    log, t = _left_open_and_cleared(w)
    w.mock.script([run_skill(), relay("Recalled.\n\n")])
    before = log.mark()
    t.type("$session recall")
    log.wait("Stop", since=before,
             where=lambda p: str(p["last_assistant_message"]).startswith("Recalled."))  # fmt: skip
    t.wait_ready()
    (doc,) = docs(w.store)
    thread = log.entry("SessionStart", source="clear")["payload"]["session_id"]
    assert frontmatter(doc)["restored_in"] == thread, frontmatter(doc)
    assert frontmatter(doc)["consumed"] == "true" and LEFT in section(body(doc), "Outstanding")
    turn(w, t, log, "go on", "Continuing.")
    _cleared_again_carries(w, t, log, doc)


# --- 6. /compact and automatic compaction --------------------------------------------------------


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_compaction_saves_the_state_and_gives_back_the_parked_item(
    world: CodexWorld, trigger: str
) -> None:
    w = world
    log = install(w)
    item = park(w, IDEA)
    args = ("-c", "model_auto_compact_token_limit=2000") if trigger == "auto" else ()
    t = w.tui(*args)
    t.trust_hooks()
    turn(w, t, log, "hello, we work on retries", "Hi, retries it is.")
    second = reply("Noted: 1s, 2s, 4s.", total_tokens=6000) if trigger == "auto" else "Noted."
    turn(w, t, log, "remember the backoff: 1s 2s 4s", second)
    sid = log.payloads("SessionStart")[0]["session_id"]
    before = log.mark()
    if trigger == "manual":
        t.compact()
        log.wait("PostCompact", since=before)
    req = turn(w, t, log, "what next?", "Next: the backoff test.")
    assert log.payloads("PreCompact", since=before)[0]["trigger"] == trigger
    (saved,) = wait_until(
        lambda: docs_with(w.store, trigger="compact", session_id=sid), what="the PreCompact doc"
    )
    fm = frontmatter(saved)
    assert fm["compaction"] == trigger and fm["agent"] == "codex", fm
    assert w.latest() is None  # the thread goes on

    (given,) = contexts(req)
    assert given.startswith("Context was compacted."), given
    assert f"Parked items: 1 open — **{item}**" in given, given
    assert f"The state before this compaction is saved as `{saved.stem}`" in given, given
    assert "$session list" in given and "/session" not in given.replace("$session", ""), given
    # Codex reads nothing of PreCompact's stdout: the hook prints nothing there
    assert all(INSTRUCTIONS not in r.text() for r in w.mock.requests if r.body)
    print(f"\n[codex after {trigger} compaction] {given}")
    assert w.mock.errors == [] and log.errors() == ""

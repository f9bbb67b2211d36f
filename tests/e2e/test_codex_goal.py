"""End-to-end: a thread goal (`/goal <objective>`) in the real Codex 0.171.0 TUI, against the
scripted mock, and what session-skill reads of the rollout it leaves.

Codex records the goal as a user-role ``<codex_internal_context source="user_goal">``
message ("User set the goal: …") and a ``thread_goal_updated`` event; while the goal is
active it keeps prompting the model itself ("Continue working toward the active thread
goal"). Esc pauses it. Before session-skill read those, the Goal of such a session was the
raw tag, and the harness's prompts were the user's requests.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from codex_harness import CodexWorld, rollout_records, rollouts_for_cwd

pytestmark = pytest.mark.e2e

OBJECTIVE = "make the upload retries jittered"


@pytest.fixture
def world(bare_codex_world: CodexWorld) -> CodexWorld:
    return bare_codex_world


def _goal_statuses(rollout: Path) -> list[str]:
    return [
        r["payload"]["goal"]["status"]
        for r in rollout_records(rollout)
        if r.get("type") == "event_msg" and r["payload"].get("type") == "thread_goal_updated"
    ]


def test_a_paused_thread_goal_is_the_goal_and_left_open(world: CodexWorld) -> None:
    w = world
    w.mock.script(["Hello, ready."])
    t = w.tui()
    t.wait_ready(60)
    t.type("hi, look at app.py")
    t.wait_screen("Hello, ready.")
    t.wait_ready()

    # The goal set, Codex works toward it on its own; a turn of it takes the mock a while,
    # and Esc, pressed during one, pauses the goal.
    def slow(body: dict[str, Any]) -> str:
        time.sleep(2)
        return "Working on it: jitter added to the backoff."

    w.mock.add(*[slow] * 30)
    mark = w.mock.mark()
    t.type(f"/goal {OBJECTIVE}")
    w.mock.wait_for(lambda r: "Continue working toward the active thread goal" in r.text(), mark)
    (rollout,) = rollouts_for_cwd(w.codex_home, w.proj)
    deadline = time.monotonic() + 60
    while "paused" not in _goal_statuses(rollout):
        assert time.monotonic() < deadline, f"Esc never paused the goal: {t.screen()}"
        t.keys("Escape")
        time.sleep(1.5)
    t.wait_ready()
    t.quit()
    assert _goal_statuses(rollout)[0] == "active" and _goal_statuses(rollout)[-1] == "paused"

    out = json.loads(w.session_skill("sweep", "--transcript", str(rollout), "--json").stdout)
    rows = [(c["text"], c["type"]) for c in out["candidates"]]
    assert (OBJECTIVE, "Unfinished task") in rows, out
    assert not any("codex_internal_context" in text for text, _ in rows), out
    dumped = w.session_skill("dump", "--extractive", "--transcript", str(rollout), "--json")
    doc = (w.store / f"{json.loads(dumped.stdout)['slug']}.md").read_text(encoding="utf-8")
    goal = doc.split("## Goal\n", 1)[1].split("\n", 1)[0]
    assert goal == f"{OBJECTIVE} (/goal)", doc
    assert "Continue working toward" not in doc and "<codex_internal_context" not in doc, doc

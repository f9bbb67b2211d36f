"""End-to-end: Claude Code's ``/goal <condition>`` in the real 2.1.328 (headless), against
the scripted mock, and what session-skill reads of the transcript it leaves.

``/goal`` sets a session-scoped Stop hook: after each turn a side call judges the condition
(here the mock's side reply, ``{"ok": false, "reason": …}``) and the hook keeps the model
working until it holds; Claude Code records each judgement as a ``goal_status`` attachment.
A goal the session ended without meeting is its work in hand; cleared, it is not.
"""

from __future__ import annotations

import json

import pytest
from e2e_harness import World

pytestmark = pytest.mark.e2e

CONDITION = "make the upload retries jittered"
REASON = "the retries have no jitter yet"


def _sweep(w: World, transcript: str) -> list[dict[str, str]]:
    out = w.session_skill("sweep", "--transcript", transcript, "--json").stdout
    return [c for c in json.loads(out)["candidates"] if CONDITION in c["text"]]


def test_a_goal_not_met_is_left_open_and_cleared_is_not(world: World) -> None:
    w = world
    w.mock.side_reply = json.dumps({"ok": False, "reason": REASON})
    w.mock.script(["I'll add jitter to the retries.", "Added jitter to the backoff."])
    r = w.run_p(f"/goal {CONDITION}", timeout=120)
    assert r.returncode == 0, r
    (transcript,) = sorted(w.projects_dir.glob("*.jsonl"))
    statuses = [
        json.loads(line)["attachment"]
        for line in transcript.read_text(encoding="utf-8").splitlines()
        if '"goal_status"' in line
    ]
    assert statuses[0] == {"type": "goal_status", "met": False, "sentinel": True,
                           "condition": CONDITION}  # fmt: skip
    assert statuses[-1]["met"] is False and statuses[-1]["reason"] == REASON, statuses

    (row,) = _sweep(w, str(transcript))
    assert row["text"] == CONDITION and row["type"] == "Unfinished task", row
    assert row["why"] == f"its /goal, not met yet: {REASON}", row
    dumped = w.session_skill("dump", "--extractive", "--transcript", str(transcript), "--json")
    doc = (w.store / f"{json.loads(dumped.stdout)['slug']}.md").read_text(encoding="utf-8")
    assert doc.split("## Goal\n", 1)[1].split("\n", 1)[0] == f"{CONDITION} (/goal)", doc

    # The user clears it: the session no longer owes it.
    w.mock.script(["ok"])
    r = w.run_p("/goal clear", "--continue", timeout=120)
    assert r.returncode == 0 and f"Goal cleared: {CONDITION}" in r.stdout, r
    assert _sweep(w, str(transcript)) == []

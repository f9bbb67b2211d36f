"""The extractive doc's Goal and Next step (issue 16), and the brief's same candidates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from session_skill.handover import doc as handover
from tests.conftest import RunCli

pytestmark = pytest.mark.usefixtures("pinned_now")
FIXTURES = Path(__file__).parent.parent / "fixtures" / "transcripts"


def _extractive(cli: RunCli, store_dir: Path, transcript: Path) -> str:
    r = cli("dump", "--extractive", "--transcript", str(transcript), "--json")
    assert r.code == 0, r
    doc = handover.parse_doc((store_dir / f"{json.loads(r.out)['slug']}.md").read_text())
    assert doc is not None
    return doc.body


def _section(body: str, title: str) -> str:
    return handover.section_content(body, title).strip()


def test_goal_from_the_command_and_next_step_the_unfinished_request(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    body = _extractive(cli, store_dir, FIXTURES / "claude_command_goal.jsonl")
    assert _section(body, "Goal") == "the retry branch, focus on the backoff (/review-pr)"
    assert _section(body, "Next step") == (
        "Finish the last request: “cap it and run the tests” (the transcript ends in the "
        "middle of the work on it)"
    )


def test_a_lone_mention_is_not_the_goal(project: Path, store_dir: Path, cli: RunCli) -> None:
    body = _extractive(cli, store_dir, FIXTURES / "claude_mention_goal.jsonl")
    assert _section(body, "Goal").startswith("@docs/billing-migration.md ultrathink this — I'll ")
    assert _section(body, "Next step").startswith("Finish the last request: “start with the")


def test_review_the_outstanding_items_only_when_there_are_some(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    body = _extractive(cli, store_dir, FIXTURES / "claude_loose_ends.jsonl")
    assert _section(body, "Next step") == "Review the outstanding items"
    assert "Should I also add jitter to the retry backoff" in _section(body, "Outstanding")
    done = _extractive(cli, store_dir, FIXTURES / "claude_init_goal.jsonl")
    assert "## Outstanding" not in done
    assert _section(done, "Next step") == (  # the sweep cannot know that nothing is open
        "No open item was found: read Where it stopped, confirm the goal is met, then take the "
        "next request"
    )


def test_the_brief_and_the_extractive_doc_list_the_same_candidates(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "claude_compact_landed.jsonl", transcript)
    brief = json.loads(cli("dump", "--brief", "--transcript", str(transcript), "--json").out)
    body = _extractive(cli, store_dir, transcript)
    listed = [c["text"] for c in brief["candidates"]]
    assert listed == ["The CSV export of failed invoices can go in a follow-up PR."]
    assert _section(body, "Outstanding") == f"- {listed[0]} (Deferred exploration)"


def test_the_extractive_doc_fits_the_cap_whatever_the_session_left(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    from tests.transcripts.test_scan import call, say, user

    words = " ".join(f"word{i}" for i in range(900))  # one paragraph, no line break
    areas = (
        "invoices refunds coupons ledgers payouts disputes taxes receipts webhooks plans "
        "seats trials dunning credits exports imports audits quotas alerts reports"
    ).split()
    tasks = [
        call(f"t{i}", "TaskCreate", subject=f"Move the {area} handler to the new retry policy, "
             f"then compare the {area} error rates before and after", description="d")
        for i, area in enumerate(areas)
    ]  # fmt: skip
    records = [
        user("Plan the billing migration " + "in detail " * 80),
        *tasks,
        say("Here is the plan. " + "It covers every handler and its metrics. " * 30),
        call("p1", "ExitPlanMode", plan=f"# Billing migration\n\n{words}"),
    ]
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    r = cli("dump", "--extractive", "--transcript", str(transcript), "--json")
    assert r.code == 0, r  # no "compress the prose" for a doc nobody wrote
    out = json.loads(r.out)
    assert out["tokens"] <= 1500 and not out["over_cap"]
    doc = handover.parse_doc((store_dir / f"{out['slug']}.md").read_text())
    assert doc is not None
    body = doc.body
    outstanding = _section(body, "Outstanding").splitlines()
    assert outstanding[-1].startswith("- … and ") and "`session-skill sweep`" in outstanding[-1]
    # The plan of one long paragraph keeps its words, cut between two of them.
    plan = _section(body, "Plan").splitlines()
    assert plan[0] == "# Billing migration" and plan[2].startswith("word0 word1 ")
    assert plan[2].split()[-1] in words.split() and plan[-1].startswith("… (the rest")
    for line in _section(body, "Where it stopped").splitlines():
        assert line.endswith("…”") and not line.endswith(" …”")


def test_with_nothing_found_the_next_step_claims_nothing_is_open() -> None:
    """The sweep reads what its rules read: with no item found, the Next step points at
    where the session stopped, when there is such a section, and never says nothing is
    open."""
    from session_skill.commands.dump import _extractive_body
    from session_skill.commands.observe import Observed
    from session_skill.git.info import GitState

    def next_step(**seen: str) -> str:
        body = _extractive_body(Observed(GitState(), first_request="Fix it", **seen), 15, 3000, 400)
        return _section(body, "Next step")

    stopped = next_step(last_request="fix the login", last_reply="Fixed the login.")
    assert stopped.startswith("No open item was found: read Where it stopped,")
    assert next_step() == (
        "No open item was found: confirm the goal is met, then take the next request"
    )


def test_claude_codes_recap_after_the_last_request_is_where_it_stopped(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    """The user stepped away after the last request: Claude Code's recap on coming back
    (the goal, the state, the one next action) is the freshest account, and the doc's
    Goal is its lead. A recap before the last request is not where it stopped."""
    from tests.transcripts.test_scan import recap, say, user

    told = ("We're making uploads survive rate limits with jittered retries; the backoff is "
            "written. Next: run the upload tests.")  # fmt: skip
    records = [
        user("the uploads fail under load, can you look"),
        say("They hit the rate limit; I added a jittered backoff."),
        recap(f"{told} (turn off recaps in /config)"),
    ]
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    body = _extractive(cli, store_dir, transcript)
    assert _section(body, "Goal") == (
        "We're making uploads survive rate limits with jittered retries; the backoff is "
        "written. (Claude Code's recap)"
    )
    assert (
        _section(body, "Where it stopped").splitlines()[-1]
        == f"- Claude Code's recap since: “{told}”"
    )
    records.append(user("ok now run them"))
    transcript.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    assert "recap since" not in _section(
        _extractive(cli, store_dir, transcript), "Where it stopped"
    )

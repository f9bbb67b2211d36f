"""The extractive doc's Goal and Next step (issue 16), and the brief's same candidates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from session_skill.handover import doc as handover
from tests.conftest import RunCli
from tests.lines import write as write_lines

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


def test_the_brief_shows_every_open_task_once(project: Path, cli: RunCli, tmp_path: Path) -> None:
    """The task list's items and the unfinished request are the brief's Open tasks; a step
    the closing text left unticked is an Outstanding candidate. It was hidden from the model
    as if listed under Open tasks, which it was not."""
    from tests.transcripts.test_scan import call, result, say, user

    records = [
        user("add the csv export to the reports page"),
        call("t1", "TaskCreate", subject="Wire the export button", description="d"),
        result("t1"),
        call("e1", "Edit", file_path="/app/reports.py", old_string="a", new_string="b"),
        result("e1"),
        say("Added the CSV export.\n\n- [x] Add the endpoint\n- [ ] Run the e2e tests\n"),
        user("now add the same export to the invoices page"),  # and the session ends
    ]
    transcript = tmp_path / "t.jsonl"
    write_lines(transcript, records)
    brief = cli("dump", "--brief", "--transcript", str(transcript)).out
    tasks = brief.split("### Open tasks")[1].split("\n\n")[0]
    outstanding = brief.split("### Outstanding candidates")[1].split("\n\n")[0]
    assert "Wire the export button" in tasks and "same export to the invoices" in tasks
    assert "- Run the e2e tests (Unfinished task)" in outstanding.splitlines()
    assert "Wire the export" not in outstanding and "invoices" not in outstanding


def test_a_task_the_user_dropped_is_no_open_task(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    """`sweep --drop` promises "not listed or handed over again": the doc's Next step and
    the brief's Open tasks named the dropped task, and the dropped last request, still."""
    from tests.transcripts.test_scan import call, result, say, user

    records = [
        user("add the csv export to the reports page"),
        call("t1", "TaskCreate", subject="Wire the export button", description="d"),
        result("t1"),
        call("t2", "TaskCreate", subject="Write the export docs", description="d"),
        result("t2"),
        say("Added the CSV export."),
        user("also make the invoices page export to xlsx"),  # and the session ends
    ]
    transcript = tmp_path / "t.jsonl"
    write_lines(transcript, records)
    shown = json.loads(cli("sweep", "--transcript", str(transcript), "--json").out)["candidates"]
    number = {c["text"]: c["n"] for c in shown}
    request = next(t for t in number if "xlsx" in t)
    drop = f"{number['Wire the export button']},{number[request]}"
    assert cli("sweep", "--transcript", str(transcript), "--drop", drop).code == 0
    body = _extractive(cli, store_dir, transcript)
    assert _section(body, "Next step") == "Write the export docs"
    assert "Wire the export" not in body and "xlsx" not in _section(body, "Outstanding")
    brief = cli("dump", "--brief", "--transcript", str(transcript)).out
    tasks = brief.split("### Open tasks")[1].split("\n\n")[0]
    assert tasks.splitlines()[1:] == ["- Write the export docs"]


@pytest.mark.parametrize(
    "first",
    [
        "## Describe the bug\nLogin fails with a 500 when the email has a plus sign.",
        "~~~\nerror: linker failed\n~~~\nwhy?",
        "```\n" + "E   AssertionError: expected 200 got 500 " * 20 + "\n```\nwhat is wrong?",
    ],
)
def test_a_request_pasted_as_markdown_is_the_goal_not_a_section(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path, first: str
) -> None:
    """A first request pasted from an issue ("## Describe the bug") made the Goal a heading
    of its own, and one opening on a fence hid the sections after it: the doc had no Goal or
    no Next step, and was refused — the automatic handover too, so /clear saved nothing."""
    from tests.transcripts.test_scan import call, result, say, user

    records = [
        user(first),
        call("e1", "Edit", file_path="/app/app.py", old_string="a", new_string="b"),
        result("e1"),
        say("Fixed: the login now accepts plus signs."),
    ]
    transcript = tmp_path / "t.jsonl"
    write_lines(transcript, records)
    body = _extractive(cli, store_dir, transcript)
    titles = [s.title for s in handover.split_sections(body) if s.title]
    assert titles == ["Goal", "Files touched", "Where it stopped", "Next step"]
    assert " ".join(first.split())[:30] in _section(body, "Goal").lstrip("\\")


def test_a_plan_stays_inside_its_section(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    """The approved plan's own headings ("## Files touched") were sections of the doc, the
    tool's table merged into the plan's list; and a plan clipped inside its code block left
    the fence open, hiding Next step: no handover at all after the plan approval."""
    from tests.transcripts.test_scan import call, result, user

    code = "\n".join(f"    value_{i} = compute(input_{i}, option={i})" for i in range(120))
    plan = (
        "# Add email validation\n\n## Goal\nReject malformed emails.\n\n## Files touched\n"
        f"- src/forms.py\n\n## Changes\n```python\ndef pipeline(inputs):\n{code}\n```\n\n"
        "## Next step\nStart with the validator.\n"
    )
    records = [
        user("Plan the change"),
        call("e1", "Edit", file_path="/app/src/forms.py", old_string="a", new_string="b"),
        result("e1"),
        call("p1", "ExitPlanMode", plan=plan),
        result("p1", "The user doesn't want to proceed with this tool use.", error=True),
        user("[Request interrupted by user for tool use]"),
    ]
    transcript = tmp_path / "t.jsonl"
    write_lines(transcript, records)
    body = _extractive(cli, store_dir, transcript)
    titles = [s.title for s in handover.split_sections(body) if s.title]
    assert titles[:3] == ["Goal", "Plan", "Files touched"] and titles[-1] == "Next step"
    assert len(titles) == len(set(titles))
    shown = _section(body, "Plan").splitlines()
    assert shown[:5] == [
        "### Add email validation",
        "",
        "#### Goal",
        "Reject malformed emails.",
        "",
    ]
    assert shown[-2:] == ["```", "… (the rest of the plan is in its file)"]
    assert _section(body, "Next step").startswith("Implement the approved plan")


def test_every_open_item_that_fits_the_cap_is_handed_over(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    """21 open tasks in a doc of ~300 tokens: the doc kept 15 and pointed at a `sweep` that,
    run in the next session, reads that session's transcript, not this one."""
    from tests.transcripts.test_scan import call, result, say, user

    records = [user("import the legacy data")]
    for i in range(21):
        records += [call(f"t{i}", "TaskCreate", subject=f"Importer step {i}", description="d"),
                    result(f"t{i}")]  # fmt: skip
    records.append(say("Set up the tasks."))
    transcript = tmp_path / "t.jsonl"
    write_lines(transcript, records)
    r = cli("dump", "--extractive", "--transcript", str(transcript), "--json")
    out = json.loads(r.out)
    body = _extractive(cli, store_dir, transcript)
    rows = _section(body, "Outstanding").splitlines()
    assert [row for row in rows if row.startswith("- Importer step")] == [
        f"- Importer step {i} (Unfinished task)" for i in range(21)
    ]
    assert out["outstanding"] == 21 and out["tokens"] <= 1500


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
    write_lines(transcript, records)
    r = cli("dump", "--extractive", "--transcript", str(transcript), "--json")
    assert r.code == 0, r  # no "compress the prose" for a doc nobody wrote
    out = json.loads(r.out)
    assert out["tokens"] <= 1500 and not out["over_cap"]
    doc = handover.parse_doc((store_dir / f"{out['slug']}.md").read_text())
    assert doc is not None
    body = doc.body
    outstanding = _section(body, "Outstanding").splitlines()
    # The rest named by a command the next session can run: its own sweep reads its own
    # transcript; and counted as what they are, not as one more item.
    more = int(outstanding[-1].split()[3])
    assert outstanding[-1] == (
        f"- … and {more} more: `session-skill sweep --transcript {transcript}` lists them all"
    )
    assert out["outstanding"] == len(outstanding) - 1 + more == len(areas) + 1
    # The plan of one long paragraph keeps its words, cut between two of them.
    plan = _section(body, "Plan").splitlines()
    assert plan[0] == "### Billing migration" and plan[2].startswith("word0 word1 ")
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
        body = _extractive_body(Observed(GitState(), **seen), "Fix it", 15, 3000, 400)
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
    write_lines(transcript, records)
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
    write_lines(transcript, records)
    assert "recap since" not in _section(
        _extractive(cli, store_dir, transcript), "Where it stopped"
    )


def _carried_on(tmp_path: Path, first: str, session: str = "s2") -> Path:
    def rec(i: int, role: str, content: object) -> dict[str, object]:
        return {"type": role, "uuid": f"u{i}", "sessionId": session, "cwd": str(tmp_path),
                "timestamp": f"2026-11-29T18:{i:02d}:00Z",
                "message": {"role": role, "content": content}}  # fmt: skip

    def edit(i: int, name: str) -> list[dict[str, object]]:
        use = {"type": "tool_use", "id": f"e{i}", "name": "Edit",
               "input": {"file_path": f"{tmp_path}/billing/{name}", "old_string": "a",
                         "new_string": "b"}}  # fmt: skip
        done = {"type": "tool_result", "tool_use_id": f"e{i}", "content": "ok"}
        return [rec(i, "assistant", [use]), rec(i + 1, "user", [done])]

    records = [
        rec(0, "user", first),
        *edit(1, "refund.py"),
        rec(3, "assistant", [{"type": "text", "text": "The /refund endpoint is migrated."}]),
        rec(4, "user", "good, now payout"),
        *edit(5, "payout.py"),
        rec(7, "assistant", [{"type": "text", "text": "The /payout endpoint is migrated."}]),
    ]
    path = tmp_path / f"{session}.jsonl"
    write_lines(path, records)
    return path


def _restored(
    store_dir: Path, restored_in: str, body: str = "", goal: str = "migrate the billing service"
) -> None:
    """The handover `main-2026-11-29T17-00-00Z`, restored into the session `restored_in`."""
    store_dir.mkdir(parents=True, exist_ok=True)
    (store_dir / "main-2026-11-29T17-00-00Z.md").write_text(
        "---\nslug: main-2026-11-29T17-00-00Z\ncreated: 2026-11-29T17:00:00Z\nconsumed: true\n"
        f"restored_in: {restored_in}\n---\n## Goal\n{goal}\n\n{body}## Next step\nrefund\n",
        encoding="utf-8",
    )


@pytest.mark.parametrize(
    ("first", "restored_in", "goal"),
    [
        # nothing the session said named its work: it carried on the handover restored in it
        ("continue where we left off", "s2",
         "migrate the billing service to the new payments client (carried over from "
         "`main-2026-11-29T17-00-00Z`)"),
        ("continue where we left off", "another-session", "continue where we left off"),
        # a request naming work is the session's own goal, restored handover or not
        ("now add the pdf export to the reports page", "s2",
         "now add the pdf export to the reports page"),
    ],
)  # fmt: skip
def test_a_session_that_carried_on_a_restored_handover_carries_its_goal(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path, first: str, restored_in: str,
    goal: str,
) -> None:  # fmt: skip
    """ "continue where we left off" names no work: the Goal is the handover's the session
    was restored from (`restored_in`), without what that session committed."""
    said = "migrate the billing service to the new payments client"
    _restored(store_dir, restored_in, goal=f"{said} — committed: billing: the /charge endpoint")
    body = _extractive(cli, store_dir, _carried_on(tmp_path, first))
    assert _section(body, "Goal") == goal


_SESSION = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"  # a transcript is named by its session
_OUTSTANDING = (
    "## Outstanding\n- Add rate limits to the coupons export (Unfinished task)\n"
    "- Should the retry count be configurable per merchant? (Unanswered question, left open "
    "in `main-2026-11-28T09-00-00Z`)\n"
    "- … and 3 more: `session-skill sweep` lists them all\n\n"
)


@pytest.mark.parametrize("restored_in", [_SESSION, "another-session"])
def test_what_the_restored_handover_left_open_stays_open(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path, restored_in: str
) -> None:
    """A session that carried on a handover begins with its Outstanding items: those the
    session never shows landing are still outstanding at its own handover — they were lost
    at the next /clear. Another session's handover carries nothing here."""
    _restored(store_dir, restored_in, _OUTSTANDING)
    body = _extractive(cli, store_dir, _carried_on(tmp_path, "continue", _SESSION))
    carried = [  # where each was first left open, an older handover's kept
        "- Add rate limits to the coupons export (Unfinished task, left open in "
        "`main-2026-11-29T17-00-00Z`)",
        "- Should the retry count be configurable per merchant? (Unanswered question, left "
        "open in `main-2026-11-28T09-00-00Z`)",
    ]
    outstanding = _section(body, "Outstanding").splitlines()
    assert outstanding == (carried if restored_in == _SESSION else [])
    r = cli("sweep", "--transcript", str(tmp_path / f"{_SESSION}.jsonl"))
    assert ("left open in `main-2026-11-29T17-00-00Z`; not seen landing since" in r.out
            ) == (restored_in == _SESSION)  # fmt: skip


def test_a_carried_item_landed_parked_or_dropped_is_not_outstanding_again(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    _restored(store_dir, _SESSION, _OUTSTANDING)
    path = _carried_on(tmp_path, "continue", _SESSION)
    with path.open("a", encoding="utf-8") as fh:  # the work reported done
        said = "Done: the coupons export has its rate limits now."
        fh.write(json.dumps({"type": "assistant", "uuid": "u9", "sessionId": _SESSION,
                             "timestamp": "2026-11-29T18:09:00Z",
                             "message": {"role": "assistant", "content": [
                                 {"type": "text", "text": said}]}}) + "\n")  # fmt: skip
    assert cli("park", "the retry count configurable per merchant?").code == 0
    r = cli("sweep", "--transcript", str(path), "--json")
    assert json.loads(r.out)["candidates"] == []


def test_a_carried_item_closed_with_sweep_drop_is_not_handed_over_again(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    """Work a handover left outstanding that the user did without the session saying so:
    `sweep --drop N` closes it, never parked, and the next handover does not carry it."""
    _restored(store_dir, _SESSION, _OUTSTANDING)
    path = _carried_on(tmp_path, "continue", _SESSION)
    shown = json.loads(cli("sweep", "--transcript", str(path), "--json").out)["candidates"]
    [coupons] = [c["n"] for c in shown if "coupons export" in c["text"]]
    r = cli("sweep", "--transcript", str(path), "--drop", str(coupons))
    assert r.code == 0, r
    assert f"(#{coupons}, never parked; not listed or handed over again)" in r.out
    outstanding = _section(_extractive(cli, store_dir, path), "Outstanding")
    assert "coupons export" not in outstanding
    assert "retry count be configurable per merchant" in outstanding


@pytest.mark.parametrize(
    ("transcript", "client", "env"),
    [
        ("codex_0171_rollout.jsonl", "codex", "CLAUDE_CODE_SESSION_ID"),
        ("claude_loose_ends.jsonl", "claude-code", "CODEX_THREAD_ID"),
    ],
)
def test_the_doc_names_the_client_whose_transcript_it_read(
    project: Path,
    store_dir: Path,
    cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
    transcript: str,
    client: str,
    env: str,
) -> None:
    """Run from the other client (or a plain shell), the doc still says whose session it is."""
    monkeypatch.setenv(env, "from-the-other-client")
    r = cli("dump", "--extractive", "--transcript", str(FIXTURES / transcript), "--json")
    assert r.code == 0, r
    doc = handover.parse_doc((store_dir / f"{json.loads(r.out)['slug']}.md").read_text())
    assert doc is not None and doc.meta["agent"] == client

"""The approved plan's verification steps the session never ran (`plancheck`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_skill.transcripts.candidates import UNFINISHED
from session_skill.transcripts.plancheck import checks, runs
from tests.transcripts.test_scan import call, kinds, result, run, say, user

PLAN = """# Plan: Retry backoff

## Context
Uploads fail under load.

## Changes
1. `src/upload.py` — add jitter

## Verification
1. `cargo test` — all new tests pass
2. `docker build -f agent/Dockerfile .` builds the image
3. Open the dashboard and check the retry graph looks right
4. See `src/upload.py` for the constants

## Notes
- `npm run dev` is not a check, it is in another section
"""


def test_only_the_verification_steps_that_name_a_command() -> None:
    found = checks(PLAN, 7, "2026-11-29T10:00:00Z")
    assert [c.step for c in found] == [
        "`cargo test` — all new tests pass",
        "`docker build -f agent/Dockerfile .` builds the image",
    ]
    assert found[0].commands == ("cargo test",) and found[0].line == 7
    assert checks("# Plan\n\n1. Do it\n2. `cargo test`\n") == []  # no verification section


@pytest.mark.parametrize(
    ("command", "shell", "ran"),
    [
        ("cargo test", "cd core && cargo test -q 2>&1 | tail", True),
        ("cargo test", "cargo check", False),
        ("docker build -f agent/Dockerfile .", "docker build -f agent/Dockerfile .", True),
        ("docker build -f agent/Dockerfile .", "docker build -f control/Dockerfile .", False),
        ("npm run dev", "npm run build", False),
        ("npm test", "cd web && npm run test -- --watch=false", True),  # npm's own alias
        ("pnpm run test", "pnpm test", True),
        ("npm test", "npm run build", False),
        ("go test ./...", "go test ./api", False),
        ("entire collab join <key>", "entire collab join k-123", True),
    ],
)
def test_a_step_is_run_by_its_program_its_words_and_its_paths(
    command: str, shell: str, ran: bool
) -> None:
    assert runs(command, shell) is ran


def _approve(plan: str, *, rejected: bool = False) -> list[dict[str, object]]:
    return [
        call("p1", "ExitPlanMode", plan=plan),
        result("p1", "User rejected the plan" if rejected else "approved", error=rejected),
    ]


def test_a_step_never_run_is_left_open(tmp_path: Path) -> None:
    records = [
        user("Add retry backoff"),
        *_approve(PLAN),
        call("b1", "Bash", command="cargo test 2>&1 | tail -5"),
        result("b1", "ok"),
        say("Done: jitter added and the tests pass."),
    ]
    facts = run(tmp_path, records)
    step = "`docker build -f agent/Dockerfile .` builds the image"
    assert (UNFINISHED, step) in kinds(facts)
    assert "`cargo test` — all new tests pass" not in [c.text for c in facts.candidates]
    found = next(c for c in facts.candidates if c.text == step)
    assert found.why.startswith("a check of the plan followed") and found.why.endswith("never run")
    # Run later, it is no longer open.
    ran = [*records, call("b2", "Bash", command="docker build -f agent/Dockerfile ."),
           result("b2", "ok"), say("The image builds.")]  # fmt: skip
    assert step not in [c.text for c in run(tmp_path, ran).candidates]


def test_a_rejected_or_replaced_plan_leaves_no_checks(tmp_path: Path) -> None:
    rejected = run(tmp_path, [user("Add retry backoff"), *_approve(PLAN, rejected=True)])
    assert [c for c in rejected.candidates if "docker" in c.text] == []
    newer = PLAN.replace("docker build", "podman build")
    replaced = run(tmp_path, [user("Add retry backoff"), *_approve(PLAN), *_approve(newer)])
    texts = [c.text for c in replaced.candidates]
    assert any("podman build" in t for t in texts) and not any("docker build" in t for t in texts)


def test_the_plan_a_cleared_session_starts_with(tmp_path: Path) -> None:
    facts = run(tmp_path, [user(f"Implement the following plan:\n\n{PLAN}"), say("Starting.")])
    assert (UNFINISHED, "`cargo test` — all new tests pass") in kinds(facts)


def test_a_chained_step_is_run_only_when_every_command_of_it_is(tmp_path: Path) -> None:
    plan = (
        "# Plan: Bring the libraries in\n\n## Verification\n"
        "1. `swift build --package-path libs/scim && swift test --package-path libs/scim`"
        " — the library builds and tests\n"
        "2. `swift build --package-path agent; swift test --package-path agent`\n"
    )
    records = [
        user("Bring the libraries into the monorepo"),
        *_approve(plan),
        call("b1", "Bash", command="swift build --package-path libs/scim 2>&1 | tail -5"),
        result("b1", "ok"),
        call("b2", "Bash", command="swift build --package-path agent"),
        result("b2", "ok"),
        call("b3", "Bash", command="swift test --package-path agent"),  # the rest, later
        result("b3", "ok"),
        say("Done: everything builds."),
    ]
    steps = [c.text for c in run(tmp_path, records).candidates if c.rule == "plan-check"]
    assert steps == [
        "`swift build --package-path libs/scim && swift test --package-path libs/scim`"
        " — the library builds and tests"
    ]

"""The approved plan's verification steps that the session never ran.

A plan (Claude Code's ExitPlanMode, or the "Implement the following plan:" it starts a
cleared session with; Codex's `<proposed_plan>` the user has it implement) often ends on
how to check the work: "## Verification — 1. `cargo test` — all new tests pass; 2. `docker
build -f agent/Dockerfile .`". A step that names a command nobody ran afterwards is work the
session left undone, said in the plan's own words. Only steps with a command are read —
"check the page looks right" leaves no trace to look for — and a step counts as run when any
of its commands was: its program and the words naming what to run (`cargo test`, `npm run
dev`), with every path it names, in one shell command of the session's (`cd x && cargo test
-q` runs `cargo test`; `npm run build` does not run `npm run dev`; `npm run test` runs `npm
test`, as npm has it); commands the plan chains with `&&` or `;` must all have run, in one
call or several. A later plan replaces the earlier one's steps; a plan the user rejected has
none.
"""

from __future__ import annotations

import re

from session_skill.records import record
from session_skill.transcripts.lazyre import Lazy

# The heading of a plan's verification section.
_SECTION = Lazy(
    r"^\s{0,3}#{1,6}\s*(?:\d+[.)]\s*)?(?:verification|verify|verifying|testing|test\s+plan"
    r"|how\s+to\s+(?:verify|test)|validation)\b[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
_HEADING = Lazy(r"^\s{0,3}#{1,6}\s", re.MULTILINE)
_CODE = Lazy(r"`([^`\n]+)`")
# A command: a program's name and its arguments ("cargo test", "swift build --package-path a").
_COMMAND = Lazy(r"^[a-z][\w.+-]*(?:\s+\S+)+$")
_ITEM = Lazy(r"^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_STEPS_MAX = 12  # a plan's checks; more is a test list, not steps
_STEP_CHARS = 300


@record(frozen=True)
class Check:
    step: str  # the plan's line, as written (list marker off, clipped)
    commands: tuple[str, ...]
    line: int | None  # the transcript line of the plan
    ts: str | None


def checks(plan: str, line: int | None = None, ts: str | None = None) -> list[Check]:
    """The steps of `plan`'s verification section that name a command to run."""
    found = _SECTION.search(plan)
    if found is None:
        return []
    body = plan[found.end() :]
    end = _HEADING.search(body)
    if end is not None:
        body = body[: end.start()]
    steps: list[Check] = []
    for raw in body.splitlines():
        text = _ITEM.sub("", raw).strip()
        if not text:
            continue
        spans = (m.group(1).strip() for m in _CODE.finditer(text))
        commands = tuple(c for c in spans if _COMMAND.match(c))
        if commands:
            steps.append(Check(text[:_STEP_CHARS], commands, line, ts))
    return steps[:_STEPS_MAX]


def runs(command: str, shell: str) -> bool:
    """Does the shell command `shell` (its whitespace folded) run the plan's `command`: its
    program and the words naming what to run (up to three, before the first option or path:
    `npm run dev`, `cargo test`), with every path it names (`go test ./...` is not `go test
    ./api`)?"""
    words = _RUN.sub(r"\1 ", command).split()
    shell = _RUN.sub(r"\1 ", shell) if " run " in shell else shell
    head = [words[0]]
    for word in words[1:3]:
        if word.startswith("-") or "/" in word or "." in word or "<" in word:
            break
        head.append(word)
    if " ".join(head) not in shell:
        return False
    return all(w in shell for w in words[1:] if "/" in w and "<" not in w)


_SHELL_CHARS = 16_000  # a command's head; a heredoc writing a file can be megabytes
# `npm run test` is `npm test` (and `yarn run`, `pnpm run`, `bun run`): read both the short way.
_RUN = Lazy(r"\b(npm|yarn|pnpm|bun)\s+run\s+(?=[a-z])")


# Commands chained in one span of the plan: `swift build --package-path a && swift test
# --package-path a` is run when both are, in one shell call or several.
_CHAIN = Lazy(r"\s*(?:&&|;)\s*")


def unrun(pending: list[Check], shell: str) -> list[Check]:
    """The checks still pending once `shell` has run; a chained command of theirs keeps the
    parts still to run."""
    flat = " ".join(shell[:_SHELL_CHARS].split())
    left: list[Check] = []
    for check in pending:
        commands: list[str] = []
        for command in check.commands:
            parts = _CHAIN.split(command) if ("&&" in command or ";" in command) else [command]
            rest = [part for part in parts if part and not runs(part, flat)]
            if not rest:
                break  # one of its commands has run whole: the step was checked
            commands.append(" && ".join(rest))
        else:
            left.append(Check(check.step, tuple(commands), check.line, check.ts))
    return left

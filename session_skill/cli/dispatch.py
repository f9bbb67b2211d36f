"""The `/session` entry point (SPEC §7.1): one raw argument string → one mode."""

from __future__ import annotations

import shlex

from session_skill.cli.call import Call
from session_skill.cli.table import ALIASES, MODES, PROJECT, lookup
from session_skill.errors import ChoiceNeeded
from session_skill.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from session_skill.commands.output import Output

CHOOSE_MODE = """Which session mode did you want?
(a) dump [name] — write a handover before /clear
(b) park <idea> — keep an idea for later
(c) sweep — find what never landed
(d) list — stored handovers and parked items"""


class Request(Record):
    __slots__ = ("mode", "payload", "args", "flags")
    mode: str
    payload: str  # park/drop: verbatim text after the mode word
    args: list[str]  # other modes: positional words
    flags: dict[str, str | bool]

    def __init__(
        self,
        mode: str,
        payload: str = "",
        args: list[str] | None = None,
        flags: dict[str, str | bool] | None = None,
    ) -> None:
        self.mode = mode
        self.payload = payload
        self.args = [] if args is None else args
        self.flags = {} if flags is None else flags


def parse(raw: str, *, ignore_unknown_flags: bool = False) -> Request:
    text = raw.strip()
    if not text:
        raise ChoiceNeeded("no session mode given", stdout=CHOOSE_MODE)
    # Any whitespace (a newline from a heredoc, a tab) ends the mode word.
    parts = text.split(None, 1)
    first = parts[0]
    rest = text[len(first) :]
    mode = ALIASES.get(first.lower(), first.lower())
    command = lookup(mode)
    if command is None or not command.mode:
        raise ChoiceNeeded(f"unknown session mode {first[:40]!r}", stdout=CHOOSE_MODE)
    if command.verbatim:
        return Request(mode, payload=rest.strip())
    try:
        words = shlex.split(rest)
    except ValueError:
        words = rest.split()
    # The mode's own options, less --project: `dispatch --project` names the project.
    known = command.options - {PROJECT}
    req = Request(mode)
    unknown: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":  # the end of the flags, as on a command line: no word itself
            req.args += words[i:]
            break
        if w.startswith("--") and len(w) > 2:
            flag, eq, value = w.partition("=")
            if flag not in known:
                unknown.append(w)
                continue
            if command.takes_value(flag):
                if not eq:
                    value = words[i] if i < len(words) else ""
                    i += 1
                req.flags[flag] = value
            else:
                req.flags[flag] = True
        else:
            req.args.append(w)
    if unknown and not ignore_unknown_flags:
        flags = ", ".join(f"`{u}`" for u in unknown)
        raise ChoiceNeeded(
            f"unknown flag(s) for {mode}: {flags}",
            stdout=(
                f"! Unknown flag(s): {flags}. Supported modes: {', '.join(MODES)}.\n"
                "(a) Abort\n(b) Continue ignoring — re-run with --ignore-unknown-flags"
            ),
        )
    return req


def run(
    raw: str,
    *,
    ignore_unknown_flags: bool,
    session_id: str | None,
    project: str | None,
    invoke: Callable[[Call], Output],
) -> Output:
    """Run the mode exactly as its command would (`invoke` runs it): same output, same
    exit code."""
    req = parse(raw, ignore_unknown_flags=ignore_unknown_flags)
    if req.mode == "park" and not req.payload.strip():
        req = Request("sweep")  # `/session park` alone: what is there to park?
    if req.mode == "drop" and not req.payload.strip():
        from session_skill import agent

        listing = invoke(to_call(Request("list"), session_id, project)).text
        raise ChoiceNeeded(
            "which parked item should be dropped?",
            stdout=listing + f"\n→ {agent.hint('drop <slug or #N>')}",
        )
    return invoke(to_call(req, session_id, project))


def to_call(req: Request, session_id: str | None, project: str | None) -> Call:
    """The call `session-skill <mode> …` would make; dispatch's --session-id is the default."""
    words = [req.payload] if req.payload else [" ".join(req.args)] if req.args else []
    flags = {f for f, v in req.flags.items() if v is True}
    values = {f: v for f, v in req.flags.items() if isinstance(v, str)}
    command = lookup(req.mode)
    if session_id and command is not None and "--session-id" in command.values:
        values.setdefault("--session-id", session_id)
    return Call(req.mode, words, flags, values, root_project=project)

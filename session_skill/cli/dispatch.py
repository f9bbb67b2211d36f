"""The `/session` entry point (SPEC §7.1): one raw argument string → one mode."""

from __future__ import annotations

import shlex
from datetime import datetime

from session_skill.commands.core import Output
from session_skill.errors import ChoiceNeeded
from session_skill.records import Record
from session_skill.store.store import Store

MODES = ("dump", "recall", "list", "park", "sweep", "drop")
ALIASES = {"save": "dump", "restore": "recall", "load": "recall", "archive": "drop"}
# Flags each mode knows when reached through /session; anything else starting with -- is
# an unknown flag. park and drop take their payload verbatim and have none.
FLAGS: dict[str, dict[str, bool]] = {  # flag -> takes a value
    "dump": {
        "--brief": False,
        "--extractive": False,
        "--file": True,
        "--force": False,
        "--replace": False,
        "--json": False,
        "--transcript": True,
        "--session-id": True,
    },
    "recall": {"--peek": False, "--json": False},
    "list": {"--json": False},
    "sweep": {"--park": True, "--json": False, "--transcript": True, "--session-id": True},
}
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
    if mode not in MODES:
        raise ChoiceNeeded(f"unknown session mode {first[:40]!r}", stdout=CHOOSE_MODE)
    if mode in ("park", "drop"):
        return Request(mode, payload=rest.strip())
    try:
        words = shlex.split(rest)
    except ValueError:
        words = rest.split()
    known = FLAGS[mode]
    req = Request(mode)
    unknown: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.startswith("--") and len(w) > 2:
            flag, eq, value = w.partition("=")
            if flag not in known:
                unknown.append(w)
                continue
            if known[flag]:
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
    store: Store,
    raw: str,
    *,
    ignore_unknown_flags: bool,
    session_id: str | None,
    now: datetime,
) -> Output:
    """Run the mode exactly as its command would: same output, same exit code."""
    from session_skill.commands import core as commands
    from session_skill.commands import dump as dumping

    req = parse(raw, ignore_unknown_flags=ignore_unknown_flags)
    as_json = bool(req.flags.get("--json"))
    name = " ".join(req.args) or None
    transcript = req.flags.get("--transcript")
    transcript = transcript if isinstance(transcript, str) and transcript else None
    sid = req.flags.get("--session-id")
    session_id = sid if isinstance(sid, str) and sid else session_id
    if req.mode == "park":
        if not req.payload.strip():
            req = Request("sweep")
        else:
            return commands.park(store, req.payload, as_json=False, now=now)
    if req.mode == "drop":
        if not req.payload.strip():
            listing = commands.list_store(store, as_json=False, now=now).text
            raise ChoiceNeeded(
                "which parked item should be dropped?",
                stdout=listing + "\n→ /session drop <slug or #N>",
            )
        return commands.drop(store, req.payload, as_json=False, now=now)
    if req.mode == "list":
        return commands.list_store(store, as_json=as_json, now=now)
    if req.mode == "recall":
        return commands.recall(
            store, name, peek=bool(req.flags.get("--peek")), as_json=as_json, now=now
        )
    if req.mode == "sweep":
        from session_skill.commands.sweep import sweep_command

        park = req.flags.get("--park")
        return sweep_command(
            store,
            transcript=transcript,
            session_id=session_id,
            park=park if isinstance(park, str) else None,
            as_json=as_json,
            now=now,
        )
    # dump: the brief, unless it can be written without a model (or from a file).
    doc_file = req.flags.get("--file")
    if isinstance(doc_file, str) and doc_file and doc_file != "-" and not req.flags.get("--brief"):
        return dumping.write(
            store,
            name,
            _read_doc(doc_file),
            force=bool(req.flags.get("--force")),
            replace=bool(req.flags.get("--replace")),
            transcript=transcript,
            session_id=session_id,
            as_json=as_json,
            now=now,
        )
    if req.flags.get("--extractive"):
        return dumping.extractive(
            store,
            name,
            force=bool(req.flags.get("--force")),
            replace=bool(req.flags.get("--replace")),
            transcript=transcript,
            session_id=session_id,
            as_json=as_json,
            now=now,
        )
    return dumping.brief(
        store, name, transcript=transcript, session_id=session_id, as_json=as_json, now=now
    )


def _read_doc(path: str) -> str:
    from pathlib import Path

    from session_skill.errors import SessionError
    from session_skill.store.fileio import read_text

    try:
        return read_text(Path(path).expanduser())
    except FileNotFoundError:
        raise SessionError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise SessionError(f"{path} is a directory") from None

"""Sessions written for the check by helpers who never saw the rules, labelled as they wrote.

    python -m bench.fidelity.written            # each set's totals
    python -m bench.fidelity.written --detail   # …and every hit and miss of the dev set

The corpus (`tests/fidelity/keys/`) holds how 39 real sessions put things, and whoever
changes extraction has read 26 of them; `forms.py` holds ordinary phrasings that same person
wrote. Neither says how the rules do on phrasings their author did not think of. Here each
set of `written/*.json` was written by a helper given the labelling guide
(tests/fidelity/README.md) and told to read nothing else — not the rules, not the corpus,
not the forms: short sessions in the voices of Claude Code and Codex, some leaving nothing
open, some leaving things open in as many ordinary ways as it could think of, with its
labels. The helpers are language models like the one that writes the rules, so the sets
are independent of the rules' text, not of every habit of phrasing.

`HELD_OUT` sets are scored in totals only and never read by whoever changes extraction: the
check of a change is the held-out set's numbers, read once after the change is judged on
the dev set. The sessions are laid out as Claude Code records whatever their voice (the
voice is the prose's: Codex's typographic apostrophes, its sections), and each again as a
codex-cli rollout: the two readers must find the same things, so the report says where the
Codex layout's hits and misses differ. The scoring is the corpus's (`score.score`), each
quote's line the record of the turn that says it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fidelity import forms  # noqa: E402
from bench.fidelity.keys import ITEM_LISTS, Item, Key  # noqa: E402
from bench.fidelity.score import SessionScore, Totals, score  # noqa: E402

SETS = Path(__file__).resolve().parent / "written"
# Read in totals only: chosen before any set was written or scored ("n", and its dev twin
# "m", written by two helpers from one prompt for the fourth round: long sessions whose
# loose ends are raised mid-session — n marked held out before either was scored; "v" and
# its dev twin "u" the same way for the fifth round: how sessions end, and whether the last
# request was finished; "w" and "x", both held out, written after the fifth round from one
# prompt of ordinary sessions of every length: the check of all the rounds together; "z"
# and its dev twin "y", on 2026-12-06, from one prompt: how the closing reply reports the
# state of the work — z marked held out before either was written; "q" and its dev twin
# "p", on 2026-12-06 (night), from one prompt: sessions typed as people really type them,
# replies laid out as the clients lay them out — q marked held out before either was
# written).
HELD_OUT = frozenset({"b", "h", "k", "n", "q", "r", "s", "v", "w", "x", "z"})
_ROOT = forms._APP  # the project the sessions work in


def _path(name: str) -> str:
    """Where a session's edit of `name` wrote: in the project, unless the name is absolute
    ("/etc/nginx/sites-available/app.conf")."""
    return name if name.startswith("/") else f"{_ROOT}/{name}"


def build(case: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The session's records, and the 1-based line of each turn's text."""
    records: list[dict[str, Any]] = []
    lines: dict[int, int] = {}
    for n, turn in enumerate(case["turns"]):
        if "user" in turn:
            records += forms._user(turn["user"])
        else:
            for name in turn.get("edits") or []:
                records += forms._call(
                    "Edit", file_path=_path(name), old_string="a", new_string="b"
                )
            for command in turn.get("commands") or []:
                records += forms._call("Bash", command=command)
            if not turn.get("assistant"):
                continue
            records += forms._say(turn["assistant"])
        lines[n] = len(records)
    return records, lines


def build_codex(case: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The same session as a codex-cli 0.171.0 rollout (the shapes of the corpus's Codex
    sessions): each user turn a `response_item` message beside its `user_message` event;
    each edit an `apply_patch` call, its `patch_apply_end` and its output; each command an
    `exec_command` call and its output; each reply the turn's `final_answer` (a step the
    turn's work goes on after, `commentary`)."""
    clock = count()

    def rec(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        n = next(clock)
        stamp = f"2026-12-03T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        return {"timestamp": stamp, "type": kind, "payload": payload}

    records = [rec("session_meta", {"id": "written", "cwd": _ROOT, "cli_version": "0.171.0"})]
    lines: dict[int, int] = {}
    for n, turn in enumerate(case["turns"]):
        if "user" in turn:
            text = turn["user"]
            records += [
                rec("event_msg", {"type": "task_started", "turn_id": f"turn{n}"}),
                rec("turn_context", {"turn_id": f"turn{n}", "cwd": _ROOT}),
                rec("response_item", {"type": "message", "role": "user",
                                      "content": [{"type": "input_text", "text": text}]}),
            ]  # fmt: skip
            lines[n] = len(records)
            records.append(rec("event_msg", {"type": "user_message", "message": text}))
            continue
        for name in turn.get("edits") or []:
            path, call = _path(name), f"call_p{next(clock)}"
            patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"
            done = f"Success. Updated the following files:\nM {path}\n"
            records += [
                rec("response_item", {"type": "custom_tool_call", "status": "completed",
                                      "call_id": call, "name": "apply_patch", "input": patch}),
                rec("event_msg", {"type": "patch_apply_end", "call_id": call, "stdout": done,
                                  "stderr": "", "success": True,
                                  "changes": {path: {"type": "update"}}}),
                rec("response_item", {"type": "custom_tool_call_output", "call_id": call,
                                      "output": json.dumps({"output": done,
                                                            "metadata": {"exit_code": 0}})}),
            ]  # fmt: skip
        for command in turn.get("commands") or []:
            call = f"call_c{next(clock)}"
            args = json.dumps({"cmd": command, "workdir": _ROOT})
            output = (
                f"Command: /bin/bash -lc {command!r}\nChunk ID: c{n}\nWall time: 0.1 "
                "seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nok"
            )
            records += [
                rec("response_item", {"type": "function_call", "name": "exec_command",
                                      "arguments": args, "call_id": call}),
                rec("response_item", {"type": "function_call_output", "call_id": call,
                                      "output": output}),
            ]  # fmt: skip
        if not turn.get("assistant"):
            continue
        text = turn["assistant"]
        # A step the turn goes on after (narration between its tool calls) is commentary.
        last = n + 1 == len(case["turns"]) or "user" in case["turns"][n + 1]
        phase = "final_answer" if last else "commentary"
        records += [
            rec("event_msg", {"type": "agent_message", "message": text, "phase": phase}),
            rec("response_item", {"type": "message", "role": "assistant", "phase": phase,
                                  "content": [{"type": "output_text", "text": text}]}),
        ]  # fmt: skip
        lines[n] = len(records)
        records.append(rec("event_msg", {"type": "task_complete", "last_agent_message": text}))
    return records, lines


LAYOUTS = {"claude": build, "codex": build_codex}


def key_of(case: dict[str, Any], path: Path, lines: dict[int, int], set_name: str) -> Key:
    said = {n: t.get("user") or t.get("assistant") or "" for n, t in enumerate(case["turns"])}
    items: dict[str, list[Item]] = {}
    for name in ITEM_LISTS:
        items[name] = []
        for it in case.get(name) or []:
            quote = str(it.get("quote", ""))
            where = [lines[n] for n, text in said.items() if quote and quote in text and n in lines]
            items[name].append(Item(quote, where, str(it.get("kind", ""))))
    written = sorted({f for t in case["turns"] for f in t.get("edits") or []})
    return Key(path, case["id"], f"written/{set_name}", _ROOT, "", [],
               case.get("goal_keywords") or [], written, items)  # fmt: skip


def sessions(path: Path, layout: str = "claude") -> Iterator[tuple[Path, Key]]:
    """Each session of the set as a transcript (in a temporary folder, gone once the
    iteration ends) and its key."""
    cases = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            transcript = Path(tmp) / f"{case['id']}.jsonl"
            records, lines = LAYOUTS[layout](case)
            forms.write(transcript, records)
            yield transcript, key_of(case, transcript, lines, path.stem)


def run_set(path: Path, layout: str = "claude") -> list[SessionScore]:
    from bench.fidelity.__main__ import observe

    return [score(key, observe(t, _ROOT), path.stem) for t, key in sessions(path, layout)]


def codex_differs(path: Path, scores: list[SessionScore]) -> list[str]:
    """The sessions whose hits and misses change when laid out as Codex rollouts."""
    codex = run_set(path, "codex")
    return [a.file for a, b in zip(scores, codex, strict=True) if a.detail != b.detail]


def main(argv: list[str] | None = None) -> int:
    from bench.fidelity.__main__ import render_totals

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detail", action="store_true", help="every hit and miss of the dev sets")
    ap.add_argument("--json", type=Path, help="write the numbers as JSON to this file")
    args = ap.parse_args(argv)
    out: list[str] = []
    result: dict[str, Any] = {}
    detail: list[str] = []
    for path in sorted(SETS.glob("*.json")):
        scores = run_set(path)
        totals = Totals()
        for s in scores:
            totals.add(s)
        result[path.stem] = totals.as_dict()
        held = path.stem in HELD_OUT
        what = "held out: totals only" if held else "dev"
        out += render_totals(f"written set {path.stem} ({what})", result[path.stem], False)
        differ = codex_differs(path, scores)
        out.append(
            "  as Codex rollouts       "
            + (
                f"{len(differ)} sessions score otherwise: {', '.join(differ)}"
                if differ
                else "the same hits and misses in every session"
            )  # fmt: skip
        )
        out.append("")
        if args.detail and not held:
            for s in scores:
                detail += ["", f"## {path.stem}/{s.file}", *s.detail]
    print("\n".join(out + detail))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

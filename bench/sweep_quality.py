"""How well the sweep reads sessions no one here wrote: every candidate it finds, per file.

Runs the sweep (the same `facts_for` the brief and the extractive doc use) over every
transcript in the shared fixture folder (`../shared/fixtures/transcripts/`, or
`$SESSION_SKILL_SHARED/fixtures/transcripts`), and lists for each file its goal, its next
step and its candidates, so that a person can judge them. Judgements made so far live in
JUDGED below (right or wrong, and why) together with the loose ends a file holds that the
sweep should find (MISSED when it does not); the summary counts them. Loose ends settled
as landed later are listed too: a wrong settle is a lost item.

    python bench/sweep_quality.py            # the report
    python bench/sweep_quality.py --json     # the same, as JSON
    python bench/sweep_quality.py FILE...    # other transcripts
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# file name -> [(start of the candidate's text, "right" | "wrong" | "open", why)].
# "open" marks a loose end the file holds: the sweep should list it (MISSED when not).
JUDGED: dict[str, list[tuple[str, str, str]]] = {
    "spotter_ae4a77f8_compact_TRUNCATED_prefix.jsonl": [
        ("spotter-4te.4:", "right", "listed as remaining; the file ends as the next task starts"),
        ("spotter-4te.5:", "right", "still to do at the end"),
        ("spotter-4te.6:", "right", "still to do at the end"),
    ],
    "spotter_short_v2.1.38.jsonl": [
        ("mix phx.server doesnt seem to start", "right", "interrupted, then only /model"),
    ],
    "spotter_tool_heavy_v2.1.x.jsonl": [
        ("scrolling back in xterm.js", "right", "interrupted mid-research, never resumed"),
    ],
    "cctrace_phase0_main.jsonl": [
        ("can we do a full export first", "right", "the export was running when the file ends"),
        ("Sprint 2: Implement import", "right", "never done: the user put it after the export"),
        ("Sprint 3: Implement backup/restore", "right", "never started"),
    ],
    "claudestatus_example2_TRUNCATED_652.jsonl": [
        ("Test the configurable update functionality", "right", "the todo in progress"),
        ('Please change the "update" flag', "right", "the user rejected the test run"),
    ],
    "graphmonitor_test2_TRUNCATED_410.jsonl": [
        ("Update all import paths in the code", "right", "in progress when the file is cut"),
        ("Update package.json scripts", "right", "pending"),
        ("Update configuration files", "right", "pending"),
        ("Test the restructured application", "right", "pending"),
        ("Since we no longer have 2 separate apps", "right", "cut mid-turn"),
    ],
    "ccviewer_1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": [
        (
            "The file includes placeholders",
            "open",
            "borderline: CLAUDE.md placeholders 'will need to be filled in' (no marker)",
        ),
    ],
    "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl": [
        ("Implement necessary code updates", "right", "the plan step in progress"),
        ("Run targeted checks", "right", "the plan step pending"),
        ("finish up the users work", "right", "the rollout ends after two patches, no reply"),
    ],
}


def shared_dir() -> Path:
    configured = os.environ.get("SESSION_SKILL_SHARED")
    base = Path(configured) if configured else REPO.parent / "shared"
    return base / "fixtures" / "transcripts"


def next_step(pending: list[str], candidates: list[dict[str, Any]]) -> str:
    """What the extractive doc writes under `## Next step` (commands/dump.py)."""
    if pending:
        return pending[0]
    if candidates:
        return "Review the outstanding items"
    return "Nothing was left open: confirm the goal is met, then take the next request"


def examine(path: Path, root: Path | None) -> dict[str, Any]:
    from session_skill.commands.sweep import facts_for
    from session_skill.store.store import Store
    from session_skill.transcripts.scan import analyze

    with tempfile.TemporaryDirectory() as scratch:
        facts = facts_for(
            Store(Path(scratch)), transcript=str(path), session_id=None, filtered=False
        )
    assert facts is not None
    settled = analyze(path).settled
    name = (
        str(path.relative_to(root)) if root is not None and path.is_relative_to(root) else str(path)
    )
    judged = JUDGED.get(path.name, [])
    rows = []
    for cand in facts.candidates:
        verdict = next((j for j in judged if cand["text"].startswith(j[0])), None)
        rows.append(
            {
                "type": cand["type"],
                "text": cand["text"],
                "why": cand["why"],
                "verdict": None
                if verdict is None
                else "wrong"
                if verdict[1] == "wrong"
                else "right",
                "reason": verdict[2] if verdict else "",
            }
        )
    found = [c["text"] for c in facts.candidates]
    missed = [
        {"text": start, "reason": why}
        for start, kind, why in judged
        if kind == "open" and not any(t.startswith(start) for t in found)
    ]
    return {
        "file": name,
        "goal": facts.first_request,
        "next_step": next_step(facts.pending_tasks, facts.candidates),
        "candidates": rows,
        "settled": [{"type": c.type, "text": c.text, "why": c.why} for c in settled],
        "missed": missed,
    }


def render(reports: list[dict[str, Any]], root: Path | None) -> str:
    out = [f"# Sweep quality over {len(reports)} transcripts" + (f" ({root})" if root else ""), ""]
    totals = {"right": 0, "wrong": 0, None: 0, "missed": 0}
    for rep in reports:
        counts = {"right": 0, "wrong": 0, None: 0}
        for row in rep["candidates"]:
            counts[row["verdict"]] += 1
        for key, n in counts.items():
            totals[key] += n
        totals["missed"] += len(rep["missed"])
        n = len(rep["candidates"])
        out.append(
            f"## {rep['file']} — {n} candidate{'s' if n != 1 else ''} "
            f"({counts['right']} right, {counts['wrong']} wrong, {counts[None]} unjudged, "
            f"{len(rep['missed'])} missed)"
        )
        out.append(f"Goal: {rep['goal'] or '(none)'}")
        out.append(f"Next step: {rep['next_step']}")
        for number, row in enumerate(rep["candidates"], 1):
            mark = {"right": "✓", "wrong": "✗", None: "?"}[row["verdict"]]
            line = f"  {number}. {mark} [{row['type']}] {row['text']} — {row['why']}"
            out.append(line + (f"  ({row['reason']})" if row["reason"] else ""))
        for row in rep["settled"]:
            out.append(f"  settled: [{row['type']}] {row['text']} — {row['why']}")
        for row in rep["missed"]:
            out.append(f"  MISSED: {row['text']} ({row['reason']})")
        out.append("")
    judged = totals["right"] + totals["wrong"]
    precision = f"{totals['right'] / judged:.0%}" if judged else "n/a"
    out.append(
        f"Total: {totals['right']} right, {totals['wrong']} wrong ({precision} precision on the "
        f"judged), {totals[None]} unjudged, {totals['missed']} missed."
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "files", nargs="*", type=Path, help="transcripts (default: the shared ones)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    root = None if args.files else shared_dir()
    if root is not None and not root.is_dir():
        print(f"error: no shared transcripts at {root} (set SESSION_SKILL_SHARED)", file=sys.stderr)
        return 1
    files = args.files or sorted(root.rglob("*.jsonl"))  # type: ignore[union-attr]
    reports = [examine(path, root) for path in files]
    print(json.dumps(reports, ensure_ascii=False, indent=2) if args.json else render(reports, root))
    return 0


if __name__ == "__main__":
    sys.exit(main())

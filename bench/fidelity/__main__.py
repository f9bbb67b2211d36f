"""How faithfully extraction reads real sessions: recall and precision against labelled keys.

    python -m bench.fidelity                 # both splits and the older fixtures
    python -m bench.fidelity --detail        # …and, per train session, every hit and miss
    python -m bench.fidelity --json FILE     # the numbers as JSON too
    python -m bench.fidelity --list FILE...  # the candidates, Goal and files of transcripts

It runs what a dump runs — the sweep's candidates, the extractive Goal, the Files touched
rows — over every session of `../shared/fixtures/transcripts/corpus/` and scores them
against `tests/fidelity/keys/` (how: tests/fidelity/README.md). The test split
(`bench/fidelity/split.py`) is reported in totals only: its sessions are never read to tune
extraction, and no option here shows one of them in detail. The older fixtures are scored
against the hand judgements of `bench/fidelity/older.py`, and everyday phrasings of loose
ends against `bench/fidelity/forms.py`. Nothing is gated: CI prints it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fidelity import keys as keymod  # noqa: E402
from bench.fidelity.score import (  # noqa: E402
    Candidate,
    Found,
    SessionScore,
    Totals,
    intervals,
    score,
)
from bench.fidelity.split import split_of  # noqa: E402


def observe(path: Path, root: str) -> Found:
    """What a dump would take from this transcript for a project at `root`."""
    from session_skill.commands.sweep import facts_for
    from session_skill.handover import filestable
    from session_skill.store.store import Store
    from session_skill.transcripts.reader import ReadStats, UserText, iter_events

    facts = facts_for(Store(Path("/nonexistent-store-root")), transcript=str(path),
                      session_id=None, filtered=False)  # fmt: skip
    assert facts is not None
    cands = [Candidate(c.full or c.text, c.type, c.line, c.rule) for c in facts.items]
    rows = filestable.merge([], {}, facts.written, Path(root))
    grouped, _ = filestable.group(rows, weights=filestable.weights_of(facts.weights, Path(root)))
    from session_skill.commands.dump import GOAL_CHARS

    stats = ReadStats()
    user_lines = [
        stats.line
        for event in iter_events(path, stats)
        if isinstance(event, UserText) and not event.is_command
    ]

    return Found(
        candidates=cands,
        goal=facts.first_request[:GOAL_CHARS],
        files=[r.file for r in rows],
        table_rows=[r.file for r in grouped],
        stopped=[t for t in (facts.last_request, facts.last_reply, facts.recap) if t],
        user_lines=user_lines,
    )


def _pct(pair: object) -> str:
    if not isinstance(pair, list) or not pair[1]:
        return "n/a"
    return f"{pair[0]}/{pair[1]} {pair[0] / pair[1]:.0%}"


def _span(pair: object) -> str:
    if not isinstance(pair, (list, tuple)):
        return "n/a"
    return f"{pair[0]:.0%}–{pair[1]:.0%}"


def _rate(value: object) -> str:
    return "n/a" if value is None else f"{float(value):.0%}"  # type: ignore[arg-type]


def table_cells(t: dict[str, Any]) -> str:
    """One split's numbers as the cells of the docs' tables (README.md, docs/fidelity.md):
    tasks, questions, precision, answered per 10, Goal, files recall / precision."""
    cells = [
        _pct(t["open_tasks"]),
        _pct(t["open_questions"]),
        _pct(t["candidates"]),
        f"{float(t['answered_reported_open_per_10']):.1f}",
        _rate(t["goal_right"]),
        f"{_rate(t['files_recall'])} / {_rate(t['files_precision'])}",
    ]
    return "| " + " | ".join(cells) + " |"


def render_totals(name: str, t: dict[str, Any], rules: bool) -> list[str]:
    by = t["precision_by_type"]
    kinds = {k: v for k, v in by.items() if not k.startswith("rule ")}
    lines = [
        f"{name} ({t['sessions']} sessions)",
        f"  open tasks recall       {_pct(t['open_tasks'])}",
        f"  open questions recall   {_pct(t['open_questions'])}",
        f"  candidate precision     {_pct(t['candidates'])}",
        f"  answered reported open  {t['answered_reported_open_per_10']} per 10 sessions",
        f"  open items shown        {_pct(t['open_shown'])}   (listed, or in Where it stopped)",
        f"  Goal right              {_rate(t['goal_right'])}",
        f"  files recall/precision  {_rate(t['files_recall'])} / {_rate(t['files_precision'])}"
        f"   (tables with a root row: {t['root_rows']})",
        "  precision by type       " + ", ".join(f"{k} {_rate(v)}" for k, v in kinds.items()),
        "  as the docs' tables     " + table_cells(t),
    ]
    w = t["worded"]
    lines.append(
        f"  with a word in common   tasks {_pct(w['open_tasks'])}, questions "
        f"{_pct(w['open_questions'])}, precision {_pct(w['candidates'])}   (a match by "
        "transcript line alone — another sentence of the same message — not counted)"
    )
    if "intervals_95" in t:
        spans = t["intervals_95"]
        lines.append(
            "  95% interval            "
            + ", ".join(f"{key} {_span(spans[key])}" for key in spans)
            + "   (its sessions resampled: how far these rates could move on another "
            "draw of as many sessions)"
        )
    if rules:  # the tool's own rules: for tuning, so shown for the train split only
        if "reach" in t:
            r = t["reach"]
            lines.append(
                f"  reach, nothing let go   tasks {_pct(r['open_tasks'])}, questions "
                f"{_pct(r['open_questions'])}, precision {_pct(r['candidates'])}   (every "
                "turn's caveats, lists and deferrals kept: what the rules can see at all)"
            )
        ages = t["open_by_age"]
        lines.append(
            "  open items found, by when said (user messages after it): "
            + ", ".join(f"{a} {r}/{n}" for a, (r, n) in ages.items())
        )
        counts = t["counts_by_type"]
        lines.append(
            "  precision by rule       "
            + ", ".join(
                f"{k[5:]} {counts[k][0]}/{counts[k][1]}"
                for k in sorted(by)
                if k.startswith("rule ")
            )
        )
        worded = t["counts_by_rule_worded"]
        lines.append(
            "  …with a word in common " + ", ".join(f"{k} {r}/{n}" for k, (r, n) in worded.items())
        )
    return lines


def reach(keys: list[keymod.Key]) -> dict[str, Any]:
    """These sessions scored with nothing let go: the caveats of every closing text and the
    lists and deferrals of every turn kept (`loose.CAVEAT_TURNS`, `loose.LIST_TURNS`,
    `loose.OPEN_LIST_TURNS`), not only the last ones. What the rules find at all — the
    recall no choice of what to let go can pass. For the train split only: it is a tuning
    measure."""
    from session_skill.transcripts import loose

    kept = loose.CAVEAT_TURNS, loose.LIST_TURNS, loose.OPEN_LIST_TURNS
    loose.CAVEAT_TURNS = loose.LIST_TURNS = loose.OPEN_LIST_TURNS = None
    try:
        totals = Totals()
        for k in keys:
            totals.add(score(k, observe(keymod.corpus_dir() / k.file, k.project_root), "train"))
    finally:
        loose.CAVEAT_TURNS, loose.LIST_TURNS, loose.OPEN_LIST_TURNS = kept
    numbers = totals.as_dict()
    return {n: numbers[n] for n in ("open_tasks", "open_questions", "candidates")}


def older_report() -> tuple[list[str], dict[str, int]]:
    """The older fixtures against their hand judgements."""
    from bench.fidelity.older import JUDGED

    base = keymod.corpus_dir().parent
    counts = {"right": 0, "wrong": 0, "unjudged": 0, "open": 0, "missed": 0, "files": 0}
    lines: list[str] = []
    for folder in ("claude", "claude-public", "codex"):
        for path in sorted((base / folder).glob("*.jsonl")):
            found = observe(path, "/")
            counts["files"] += 1
            judged = JUDGED.get(path.name, [])
            for c in found.candidates:
                verdict = next((j[1] for j in judged if c.text.startswith(j[0])), None)
                key = verdict if verdict in ("right", "wrong") else "unjudged"
                counts[key] += 1
            for start, kind, _why in judged:
                if kind == "open":
                    counts["open"] += 1
                    if not any(c.text.startswith(start) for c in found.candidates):
                        counts["missed"] += 1
                        lines.append(f"  MISSED in {path.name}: {start}")
                elif kind == "right" and not any(
                    c.text.startswith(start) for c in found.candidates
                ):
                    counts["missed"] += 1
                    lines.append(f"  no longer found in {path.name}: {start}")
    return lines, counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detail", action="store_true", help="per train session: hits and misses")
    ap.add_argument("--json", type=Path, help="write the numbers as JSON to this file")
    ap.add_argument("--list", nargs="+", type=Path, metavar="FILE", help="show what is extracted")
    ap.add_argument("--only", choices=("train", "test"), help="report one split (and no fixtures)")
    args = ap.parse_args(argv)
    corpus = keymod.corpus_dir()
    if not corpus.is_dir():
        print(f"no corpus at {corpus} (set SESSION_SKILL_SHARED): nothing to score")
        return 0
    all_keys = keymod.all_keys()
    splits = split_of(all_keys)
    if args.list:
        return _list(args.list, all_keys, splits)
    started = time.monotonic()
    scores: list[SessionScore] = []
    for k in all_keys:
        scores.append(score(k, observe(corpus / k.file, k.project_root), splits[k.repo]))
    out = [
        f"fidelity: {len(scores)} labelled sessions from {len(splits)} repositories "
        f"(keys: tests/fidelity/keys/, split by repository: bench/fidelity/split.py)",
        "",
    ]
    result: dict[str, Any] = {}
    for name in (args.only,) if args.only else ("train", "test"):
        totals = Totals()
        for s in scores:
            if s.split == name:
                totals.add(s)
        result[name] = totals.as_dict()
        result[name]["intervals_95"] = intervals([s for s in scores if s.split == name])
        if name == "train":
            result[name]["reach"] = reach([k for k in all_keys if splits[k.repo] == name])
        out += render_totals(f"{name} split", result[name], name == "train") + [""]
    missed, counts = older_report() if not args.only else ([], {"files": 0, "right": 0,
                                                                 "wrong": 0, "unjudged": 0,
                                                                 "missed": 0})  # fmt: skip
    judged = counts["right"] + counts["wrong"]
    result["older"] = counts
    out.append(
        f"older fixtures ({counts['files']} files, hand judgements in bench/fidelity/older.py): "
        f"{counts['right']} right, {counts['wrong']} wrong"
        + (f" ({counts['right'] / judged:.0%} of the judged)" if judged else "")
        + f", {counts['unjudged']} unjudged, {counts['missed']} expected but not found"
    )
    out += missed
    if not args.only:
        from bench.fidelity import forms

        result["forms"] = forms.run()
        out += ["", *forms.report(result["forms"])]
    if args.detail:
        for s in scores:
            if s.split != "train":
                continue
            out += ["", f"## {s.file} (train)", *s.detail]
    out.append(f"\n({time.monotonic() - started:.1f} s)")
    print("\n".join(out))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


def _list(files: list[Path], all_keys: list[keymod.Key], splits: dict[str, str]) -> int:
    held_out = {
        (keymod.corpus_dir() / k.file).resolve() for k in all_keys if splits[k.repo] == "test"
    }
    for path in files:
        if path.resolve() in held_out:
            print(f"{path}: in the test split — not shown (it is never read to tune extraction)")
            continue
        key = next((k for k in all_keys if (keymod.corpus_dir() / k.file).resolve()
                    == path.resolve()), None)  # fmt: skip
        found = observe(path, key.project_root if key else "/")
        print(f"## {path}\nGoal: {found.goal}")
        for n, c in enumerate(found.candidates, 1):
            where = f" (L{c.line})" if c.line else ""
            print(f"  {n}. [{c.type}] {c.text[:200]}{where}")
        print(f"  files: {', '.join(found.files) or '(none)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

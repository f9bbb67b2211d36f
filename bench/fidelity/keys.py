"""The fidelity keys: load them, and check one against its transcript.

    python -m bench.fidelity.keys KEY.json...     # check keys: exit 1 on a problem

A check catches what makes a key unscorable: a missing field, a line past the file's end, a
`quote` that is not in the text of any of its `lines` (the words are matched against what
the sweep shows, so they must be the session's own).
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
KEYS = REPO / "tests" / "fidelity" / "keys"
ITEM_LISTS = ("open_tasks", "open_questions", "answered_questions", "lookalikes", "borderline")
TASK_KINDS = {"unfinished-request", "task-list", "next-step", "deferred", "idea"}


def corpus_dir() -> Path:
    configured = os.environ.get("SESSION_SKILL_SHARED")
    base = Path(configured) if configured else REPO.parent / "shared"
    return base / "fixtures" / "transcripts" / "corpus"


def corpus_files() -> list[str]:
    """The corpus's transcripts, sorted; none when `../shared` is absent."""
    folder = corpus_dir()
    return sorted(str(p) for p in folder.rglob("*.jsonl")) if folder.is_dir() else []


@dataclass
class Item:
    quote: str
    lines: list[int]
    kind: str = ""
    note: str = ""


@dataclass
class Key:
    path: Path
    file: str
    repo: str
    project_root: str
    goal_text: str
    goal_lines: list[int]
    goal_keywords: list[list[str]]
    files_written: list[str]
    items: dict[str, list[Item]] = field(default_factory=dict)
    conversation_starts: int = 1


def load(path: Path) -> Key:
    data = json.loads(path.read_text(encoding="utf-8"))
    goal = data.get("goal") or {}
    items = {
        name: [
            Item(
                str(it.get("quote", "")),
                [int(n) for n in it.get("lines", [])],
                str(it.get("kind") or it.get("how") or it.get("asked_by") or ""),
                str(it.get("note") or it.get("why") or ""),
            )
            for it in data.get(name, [])
        ]
        for name in ITEM_LISTS
    }
    return Key(
        path=path,
        file=data["file"],
        repo=data["repo"],
        project_root=data["project_root"],
        goal_text=str(goal.get("text", "")),
        goal_lines=[int(n) for n in goal.get("lines", [])],
        goal_keywords=[[str(w).lower() for w in g] for g in goal.get("keywords", [])],
        files_written=[str(f) for f in data.get("files_written", [])],
        items=items,
        conversation_starts=int(data.get("conversation_starts", 1)),
    )


def all_keys() -> list[Key]:
    return [load(p) for p in sorted(KEYS.glob("*/*.json"))]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def norm(text: str) -> str:
    return " ".join(re.sub(r"[*`_]", "", text).split()).lower()


def check(path: Path) -> list[str]:
    problems: list[str] = []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{path}: not JSON: {exc}"]
    for name in ("file", "repo", "project_root", "goal", "files_written", "ends"):
        if name not in data:
            problems.append(f"{path.name}: no `{name}`")
    if problems:
        return problems
    transcript = corpus_dir() / data["file"]
    try:
        lines = transcript.read_bytes().splitlines()
    except OSError as exc:
        return [f"{path.name}: cannot read {transcript}: {exc}"]
    goal = data["goal"]
    if not goal.get("keywords") or not all(isinstance(g, list) and g for g in goal["keywords"]):
        problems.append(f"{path.name}: goal.keywords must be a list of non-empty word lists")
    texts: dict[int, str] = {}

    def text_of(n: int) -> str:
        if n not in texts:
            try:
                texts[n] = norm(" ".join(_strings(json.loads(lines[n - 1]))))
            except (ValueError, IndexError):
                texts[n] = ""
        return texts[n]

    for name in ITEM_LISTS:
        for i, it in enumerate(data.get(name, [])):
            where = f"{path.name}: {name}[{i}]"
            ns = it.get("lines") or []
            if not ns:
                problems.append(f"{where}: no lines")
                continue
            bad = [n for n in ns if not 1 <= int(n) <= len(lines)]
            if bad:
                problems.append(f"{where}: lines {bad} outside the file (1..{len(lines)})")
                continue
            quote = norm(str(it.get("quote", "")))
            if not quote:
                problems.append(f"{where}: no quote")
            elif not any(quote in text_of(int(n)) for n in ns):
                problems.append(f"{where}: quote not found on lines {ns}: {quote[:80]!r}")
            if name == "open_tasks" and it.get("kind") not in TASK_KINDS:
                problems.append(f"{where}: kind {it.get('kind')!r} not one of {sorted(TASK_KINDS)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    paths = [Path(a) for a in (argv if argv is not None else sys.argv[1:])]
    if not paths:
        paths = sorted(KEYS.glob("*/*.json"))
    problems = [p for path in paths for p in check(path)]
    for p in problems:
        print(p)
    print(f"{len(paths)} keys checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())

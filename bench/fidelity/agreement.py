"""How far two careful labellers agree, and how the sweep scores against each of them.

    python -m bench.fidelity.agreement

`tests/fidelity/second/` holds keys written a second time, independently — by a labeller
who saw neither the first key nor anything session-skill made of the session — for every
session, train and test. A second key is scored against the first exactly as
the sweep is: its open tasks and questions are the candidates (the same item when they cite
a line in common or say the same thing, `score.text_matches`), its Goal text is the Goal,
its files the files; and the other way round, since neither key is the truth. The sweep is
then scored against both keys of the same sessions: a rule that holds against one labeller
only was fitted to that labeller's choices.

Per split, totals only: the test split's second keys were written by labellers who do not
work on extraction, and whoever does reads only these sums, as with the first keys.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fidelity import keys as keymod  # noqa: E402
from bench.fidelity.keys import Item, Key  # noqa: E402
from bench.fidelity.score import Found, SessionScore, _path_key, score, text_matches  # noqa: E402
from bench.fidelity.split import split_of  # noqa: E402

SECOND = REPO / "tests" / "fidelity" / "second"


def second_keys(folder: Path = SECOND) -> list[Key]:
    return [keymod.load(p) for p in sorted(folder.glob("*/*.json"))]


def same_item(a: Item, b: Item) -> bool:
    """Two labelled items name the same loose end: they cite a line in common, or say the
    same thing — what a candidate is held to (`score.matches`)."""
    return bool(set(a.lines) & set(b.lines)) or text_matches(b.quote, a.quote)


@dataclass
class Row:
    """One reading scored against one key, summed over sessions: the report's columns."""

    tasks: int = 0  # the key's open tasks
    tasks_found: int = 0  # …that the reading lists
    questions: int = 0
    questions_found: int = 0
    listed: int = 0  # what the reading lists (an item the key calls borderline aside)
    listed_right: int = 0  # …that the key calls open
    answered_open: int = 0  # …that the key lists as answered
    sessions: int = 0
    goals_right: int = 0
    files_key: int = 0
    files_read: int = 0
    files_right: int = 0

    def cells(self) -> list[str]:
        per10 = 10 * self.answered_open / self.sessions if self.sessions else 0.0
        return [
            _pct(self.tasks_found, self.tasks),
            _pct(self.questions_found, self.questions),
            _pct(self.listed_right, self.listed),
            f"{per10:.1f}",
            _pct(self.goals_right, self.sessions),
            f"{_pct(self.files_right, self.files_key)} / {_pct(self.files_right, self.files_read)}",
        ]


def compare(a: Key, b: Key, row: Row | None = None) -> Row:
    """Add key `b`, read as what a tool found, scored against key `a`, to `row`."""
    s = SessionScore(a.file, "train")
    a_open = a.items["open_tasks"] + a.items["open_questions"]
    b_open = b.items["open_tasks"] + b.items["open_questions"]
    for what in ("tasks", "questions"):
        items = a.items[f"open_{what}"]
        setattr(s, what, len(items))
        setattr(s, f"{what}_found", sum(any(same_item(i, j) for j in b_open) for i in items))
    for j in b_open:
        right = any(same_item(i, j) for i in a_open)
        if not right and any(same_item(i, j) for i in a.items["borderline"]):
            continue
        s.candidates += 1
        s.candidates_right += right
        s.answered_reported_open += not right and any(
            same_item(i, j) for i in a.items["answered_questions"]
        )
    goal = b.goal_text.lower()
    s.goal_right = any(all(w in goal for w in group) for group in a.goal_keywords)
    want = {_path_key(f) for f in a.files_written}
    have = {_path_key(f) for f in b.files_written}
    s.files_key, s.files_found, s.files_right = len(want), len(have), len(want & have)
    return _add(row if row is not None else Row(), s)


def scored(key: Key, found: Found, row: Row) -> Row:
    """Add the sweep's reading of a session (`found`), scored against `key`, to `row`."""
    return _add(row, score(key, found, "train"))


def _add(row: Row, s: SessionScore) -> Row:
    row.sessions += 1
    row.tasks += s.tasks
    row.tasks_found += s.tasks_found
    row.questions += s.questions
    row.questions_found += s.questions_found
    row.listed += s.candidates
    row.listed_right += s.candidates_right
    row.answered_open += s.answered_reported_open
    row.goals_right += s.goal_right
    row.files_key += s.files_key
    row.files_read += s.files_found
    row.files_right += s.files_right
    return row


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} {n / d:.0%}" if d else "n/a"


HEADER = ("open tasks", "open questions", "candidates right", "answered open /10", "Goal",
          "files R / P")  # fmt: skip


def table(rows: list[tuple[str, Row]]) -> list[str]:
    lines = ["| reading, scored against | " + " | ".join(HEADER) + " |",
             "| --- |" + " --- |" * len(HEADER)]  # fmt: skip
    lines += [f"| {name} | " + " | ".join(row.cells()) + " |" for name, row in rows]
    return lines


def pairs(folder: Path = SECOND) -> list[tuple[Key, Key, str]]:
    """(first key, second key, split) of every twice-labelled session; ValueError for a
    second key with no first."""
    firsts = {k.file: k for k in keymod.all_keys()}
    splits = split_of(firsts.values())
    found = []
    for b in second_keys(folder):
        a = firsts.get(b.file)
        if a is None:
            raise ValueError(f"{b.path.name}: no first key for {b.file}")
        found.append((a, b, splits[a.repo]))
    return found


SPLITS = ("train", "test")


def report(folder: Path = SECOND) -> list[str]:
    from bench.fidelity.__main__ import observe

    twice = pairs(folder)
    if not twice:
        return [f"no second keys in {folder}: nothing to compare"]
    corpus = keymod.corpus_dir()
    counts = {split: sum(s == split for *_, s in twice) for split in SPLITS}
    lines = [
        "agreement: " + " and ".join(f"{n} {split} sessions" for split, n in counts.items() if n)
        + " labelled twice, independently (tests/fidelity/keys/ first, tests/fidelity/second/"
        " second)"
    ]  # fmt: skip
    for split in SPLITS:
        second_vs_first, first_vs_second, sweep_first, sweep_second = Row(), Row(), Row(), Row()
        for a, b, _ in (t for t in twice if t[2] == split):
            compare(a, b, second_vs_first)
            compare(b, a, first_vs_second)
            found = observe(corpus / a.file, a.project_root)
            scored(a, found, sweep_first)
            scored(b, found, sweep_second)
        if not second_vs_first.sessions:
            continue
        lines += [
            "",
            f"{split} split ({second_vs_first.sessions} sessions):",
            *table(
                [
                    (f"{split}: the second key, against the first", second_vs_first),
                    (f"{split}: the first key, against the second", first_vs_second),
                    (f"{split}: the sweep, against the first key", sweep_first),
                    (f"{split}: the sweep, against the second key", sweep_second),
                ]
            ),
        ]
    return lines


def main(argv: list[str] | None = None) -> int:
    del argv
    if not keymod.corpus_dir().is_dir():
        print(f"no corpus at {keymod.corpus_dir()} (set SESSION_SKILL_SHARED): nothing to compare")
        return 0
    try:
        lines = report()
    except ValueError as exc:
        print(exc)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

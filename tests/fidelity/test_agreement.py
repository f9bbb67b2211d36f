"""The second labelling (bench/fidelity/agreement.py): a key is scored against another as the
sweep is scored against a key, the second keys are well-formed train keys, and the report
docs/fidelity.md gives is the one the command prints."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.fidelity import agreement
from bench.fidelity import keys as keymod
from bench.fidelity.keys import Item, Key

REPO = Path(__file__).resolve().parents[2]
needs_corpus = pytest.mark.skipif(
    not keymod.corpus_dir().is_dir(),
    reason=f"the shared corpus is not at {keymod.corpus_dir()} (set SESSION_SKILL_SHARED)",
)


def _key(goal: str = "", **items: list[Item]) -> Key:
    return Key(
        path=Path("k.json"), file="claude/x.jsonl", repo="a/b", project_root="/p",
        goal_text=goal, goal_lines=[], goal_keywords=[["parser", "empty"]],
        files_written=["src/a.py", "src/b.py"],
        items={name: items.get(name, []) for name in keymod.ITEM_LISTS},
    )  # fmt: skip


def test_a_key_is_scored_against_another_as_the_sweep_is() -> None:
    first = _key(
        goal="Make the parser take empty input",
        open_tasks=[Item("Add a fuzz test for the empty input", [40], "next-step"),
                    Item("Bump the release notes", [90], "deferred")],
        answered_questions=[Item("Want me to commit these changes?", [20])],
        borderline=[Item("The stash is still there", [30])],
    )  # fmt: skip
    second = _key(
        goal="Teach the parser empty input",
        open_tasks=[Item("a fuzz test, still to write", [40], "next-step"),  # by line
                    Item("The stash is still there from the first try", [31], "deferred")],
        open_questions=[Item("Want me to commit these changes?", [20])],
    )  # fmt: skip
    second.files_written = ["src/a.py"]
    row = agreement.compare(first, second)
    assert row.cells() == ["1/2 50%", "n/a", "1/2 50%", "10.0", "1/1 100%",
                           "1/2 50% / 1/1 100%"]  # fmt: skip
    back = agreement.compare(second, first)  # the other way round
    assert (back.tasks_found, back.tasks, back.listed_right, back.listed) == (1, 2, 1, 2)
    assert agreement.compare(first, first).cells()[:3] == ["2/2 100%", "n/a", "2/2 100%"]


@needs_corpus
def test_every_second_key_checks_against_its_transcript_and_every_session_has_one() -> None:
    paths = sorted(agreement.SECOND.glob("*/*.json"))
    assert [p for path in paths for p in keymod.check(path)] == []
    twice = agreement.pairs()
    assert len(twice) == len(paths)
    firsts = keymod.all_keys()
    splits = agreement.split_of(firsts)
    # Every session is labelled twice, each in its own split.
    assert sorted((a.file, split) for a, _, split in twice) == sorted(
        (k.file, splits[k.repo]) for k in firsts
    )


@needs_corpus
def test_a_second_key_without_a_first_is_refused(tmp_path: Path) -> None:
    shutil.copytree(agreement.SECOND, tmp_path / "second")
    stray = json.loads((REPO / "tests/fidelity/keys/claude/strato-1.json").read_text())
    stray["file"] = "claude/no-such-session.jsonl"
    (tmp_path / "second" / "claude" / "no-such-session.json").write_text(json.dumps(stray))
    with pytest.raises(ValueError, match="no first key"):
        agreement.pairs(tmp_path / "second")


@needs_corpus
def test_the_report_runs_prints_totals_only_and_the_docs_give_its_tables() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "bench.fidelity.agreement"],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith(("| train: ", "| test: "))]
    assert len(rows) == 8
    docs = (REPO / "docs" / "fidelity.md").read_text(encoding="utf-8")
    for row in rows:
        assert row in docs.splitlines(), row
    # The README's words for the test split's agreement are that row's counts.
    agree = next(r for r in rows if r.startswith("| test: the second key, against the first"))
    tasks, questions = (cell.split()[0].split("/") for cell in agree.split(" | ")[1:3])
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    said = f"test: {tasks[0]} of {tasks[1]} open tasks, {questions[0]} of {questions[1]} questions"
    assert said in readme
    # Whoever tunes extraction reads these totals: never a held-out session's words.
    for a, b, split in agreement.pairs():
        if split != "test":
            continue
        for key in (a, b):
            said = [key.goal_text] + [i.quote for items in key.items.values() for i in items]
            leaked = sum(len(q) >= 12 and q in r.stdout for q in said)  # a count: no words
            assert leaked == 0, f"{key.path.name}: the report shows a held-out session's words"

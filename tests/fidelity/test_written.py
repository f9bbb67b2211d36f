"""The sessions written for the check by helpers (bench/fidelity/written.py): the sets are
well-formed, scoring them can fail, and the report shows the held-out sets in totals only."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bench.fidelity import written
from bench.fidelity.keys import TASK_KINDS

REPO = Path(__file__).resolve().parents[2]
SETS = sorted(written.SETS.glob("*.json"))


def test_there_are_sets_and_some_are_held_out() -> None:
    names = {p.stem for p in SETS}
    assert len(SETS) >= 3 and written.HELD_OUT < names and names - written.HELD_OUT


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_every_session_is_well_formed_and_quotes_its_own_words(path: Path) -> None:
    cases = json.loads(path.read_text(encoding="utf-8"))
    assert len({c["id"] for c in cases}) == len(cases) >= 30
    for case in cases:
        turns = case["turns"]
        assert "user" in turns[0], case["id"]
        for before, after in zip(turns, turns[1:], strict=False):
            # a user's message is answered before the next; a turn of work may narrate in
            # several steps between its tool calls
            assert "user" not in before or "user" not in after, case["id"]
        said = [t.get("user") or t.get("assistant") or "" for t in turns]
        for name in ("open_tasks", "open_questions", "answered_questions", "lookalikes"):
            for item in case.get(name) or []:
                assert any(item["quote"] in text for text in said), (case["id"], item["quote"])
        assert all(t["kind"] in TASK_KINDS for t in case.get("open_tasks") or [])
        assert case["goal_keywords"] and all(case["goal_keywords"])


def test_each_quote_is_scored_on_the_line_of_the_turn_that_says_it() -> None:
    case = {
        "id": "x-1",
        "turns": [
            {"user": "add retries to the uploader"},
            {"edits": ["up.py"], "commands": ["pytest"], "assistant": "Added. Want jitter too?"},
        ],
        "open_questions": [{"quote": "Want jitter too?"}],
        "goal_keywords": [["retries"]],
    }
    records, lines = written.build(case)
    assert len(records) == 1 + 2 + 2 + 1 and lines == {0: 1, 1: 6}
    key = written.key_of(case, Path("x.jsonl"), lines, "x")
    assert key.items["open_questions"][0].lines == [6] and key.files_written == ["up.py"]


def test_an_edit_outside_the_project_is_laid_out_at_its_own_path() -> None:
    case = {"id": "x-1", "turns": [
        {"user": "redirect www in nginx"},
        {"edits": ["/etc/nginx/sites-available/app.conf", "deploy/app.conf"], "assistant": "Done."},
    ]}  # fmt: skip
    records, _ = written.build(case)
    calls = [r["message"]["content"][0] for r in records if r["type"] == "assistant"]
    paths = [c["input"]["file_path"] for c in calls if c["type"] == "tool_use"]
    assert paths == ["/etc/nginx/sites-available/app.conf", f"{written._ROOT}/deploy/app.conf"]
    codex, _ = written.build_codex(case)
    changed = [p for r in codex if r["payload"].get("type") == "patch_apply_end"
               for p in r["payload"]["changes"]]  # fmt: skip
    assert changed == paths


def test_a_session_laid_out_as_a_codex_rollout_is_read_by_the_codex_reader() -> None:
    from session_skill.transcripts.reader import ReadStats, iter_events

    case = {"id": "x-1", "turns": [
        {"user": "add retries to the uploader"},
        {"edits": ["up.py"], "commands": ["git commit -m 'retry'"], "assistant": "Added."},
    ]}  # fmt: skip
    records, lines = written.build_codex(case)
    assert records[lines[0] - 1]["payload"]["role"] == "user"
    assert records[lines[1] - 1]["payload"]["phase"] == "final_answer"
    path = Path(tempfile.mkdtemp()) / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    events = list(iter_events(path, ReadStats()))
    assert {e.agent for e in events if type(e).__name__ == "SessionMeta"} == {"codex"}
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("UserText") == 1 and kinds.count("AssistantText") == 1
    assert "PatchApplied" in kinds


def test_a_codex_reader_that_misses_edits_shows_as_sessions_that_score_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def without_edits(case: dict) -> tuple[list, dict]:
        turns = [{k: v for k, v in t.items() if k != "edits"} for t in case["turns"]]
        return written.build_codex({**case, "turns": turns})

    path = SETS[0]
    scores = written.run_set(path)
    assert written.codex_differs(path, scores) == []
    monkeypatch.setitem(written.LAYOUTS, "codex", without_edits)
    assert len(written.codex_differs(path, scores)) > len(scores) // 2


def test_a_sweep_that_lists_nothing_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scores can fail: with no candidate and no Goal, nothing open is found."""
    from bench.fidelity import __main__ as report
    from bench.fidelity.score import Found

    real = report.observe

    def emptied(path: Path, root: str) -> Found:
        found = real(path, root)
        return Found([], "", found.files, found.table_rows, [], found.user_lines)

    monkeypatch.setattr(report, "observe", emptied)
    scores = written.run_set(SETS[0])
    assert sum(s.tasks for s in scores) > 0
    assert sum(s.tasks_found + s.questions_found + s.candidates + s.goal_right for s in scores) == 0


def test_the_report_shows_the_held_out_sets_in_totals_only_as_the_readme_gives_them(
    tmp_path: Path,
) -> None:
    out = tmp_path / "written.json"
    r = subprocess.run(
        [sys.executable, "-m", "bench.fidelity.written", "--detail", "--json", str(out)],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    numbers = json.loads(out.read_text())
    assert set(numbers) == {p.stem for p in SETS}
    for name in written.HELD_OUT:
        assert f"written set {name} (held out: totals only)" in r.stdout
        assert f"## {name}/" not in r.stdout  # no held-out session in detail
    # Laid out as Codex rollouts, every session scores as it does as Claude Code records.
    assert r.stdout.count("the same hits and misses in every session") == len(SETS)
    dev = sorted({p.stem for p in SETS} - written.HELD_OUT)
    assert all(f"## {name}/" in r.stdout for name in dev)
    # The README's numbers are the held-out sets' sums, as measured.
    held = [numbers[name] for name in sorted(written.HELD_OUT)]

    def total(what: str) -> tuple[int, int]:
        return sum(t[what][0] for t in held), sum(t[what][1] for t in held)

    (tasks, n_tasks), (questions, n_questions) = total("open_tasks"), total("open_questions")
    right, n = total("candidates")
    said = (
        f"it finds {tasks} of {n_tasks} open tasks ({tasks / n_tasks:.0%}) and {questions} of "
        f"{n_questions} questions, and {right} of {n} candidates are right ({right / n:.0%})"
    )
    assert said in " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    # …and so are those of the plainest pair, `w` and `x`.
    plain = [numbers[name] for name in ("w", "x")]
    (tasks, n_tasks), (right, n) = (
        (sum(t[what][0] for t in plain), sum(t[what][1] for t in plain))
        for what in ("open_tasks", "candidates")
    )
    said = (
        f"it finds {tasks} of {n_tasks} open tasks ({tasks / n_tasks:.0%}), and {right} of {n} "
        f"candidates are right ({right / n:.0%})"
    )
    assert said in " ".join((REPO / "README.md").read_text(encoding="utf-8").split())

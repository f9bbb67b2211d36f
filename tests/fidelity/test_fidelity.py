"""The fidelity evaluation (issue 19): the keys are well-formed, the split is the one fixed
before labelling, the scoring matches what it should, and the report runs end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.fidelity import keys as keymod
from bench.fidelity.keys import Item, Key
from bench.fidelity.score import (
    AGES,
    Candidate,
    Found,
    SessionScore,
    Totals,
    age,
    intervals,
    score,
    shows,
    text_matches,
)
from bench.fidelity.split import split

REPO = Path(__file__).resolve().parents[2]
CORPUS = keymod.corpus_dir()
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS} (set SESSION_SKILL_SHARED)"
)


def test_every_key_names_its_session_and_the_split_is_the_fixed_one() -> None:
    keys = keymod.all_keys()
    assert len(keys) == 39
    repos: dict[str, list[str]] = {}
    for k in keys:
        repos.setdefault(k.repo, []).append(k.file)
    splits = split(repos)
    test = sorted(k.file for k in keys if splits[k.repo] == "test")
    # Pinned: fixed by the rule in split.py before any session was labelled.
    assert test == sorted(
        [
            "claude/claude-mem-1.jsonl", "claude/eagerminds-1.jsonl", "claude/entire-bmad-1.jsonl",
            "claude/entire-bmad-2.jsonl", "claude/entire-bmad-3.jsonl",
            "claude/external-agents-1.jsonl", "claude/external-agents-2.jsonl",
            "claude/minisimclr-sl-1.jsonl", "claude/minisimclr-sl-2.jsonl",
            "claude/openwhisper-1.jsonl", "codex/agentv-1.jsonl", "codex/minisimclr-rs-1.jsonl",
            "codex/token-costs-1.jsonl",
        ]
    )  # fmt: skip
    # Split by repository: no repository on both sides.
    assert all(len({splits[k.repo] for k in keys if k.repo == r}) == 1 for r in repos)


@needs_corpus
def test_every_key_checks_against_its_transcript() -> None:
    problems = [p for path in sorted(keymod.KEYS.glob("*/*.json")) for p in keymod.check(path)]
    assert problems == []


def test_the_checker_finds_a_quote_that_is_not_on_its_line(tmp_path: Path) -> None:
    transcript = tmp_path / "corpus" / "claude" / "t.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(json.dumps({"type": "user", "message": {"content": "fix the parser"}}))
    key = tmp_path / "k.json"
    body = {
        "file": "claude/t.jsonl", "repo": "a/b", "project_root": "/p", "ends": "x",
        "goal": {"text": "g", "lines": [1], "keywords": [["parser"]]}, "files_written": [],
        "open_tasks": [{"quote": "fix the parser", "lines": [1], "kind": "unfinished-request"},
                       {"quote": "not there", "lines": [1], "kind": "deferred"},
                       {"quote": "fix the parser", "lines": [9], "kind": "nope"}],
    }  # fmt: skip
    key.write_text(json.dumps(body))
    old = keymod.corpus_dir
    keymod.corpus_dir = lambda: tmp_path / "corpus"  # type: ignore[assignment]
    try:
        problems = keymod.check(key)
    finally:
        keymod.corpus_dir = old  # type: ignore[assignment]
    assert len(problems) == 2
    assert "quote not found" in problems[0] and "outside the file" in problems[1]


def test_text_matching_takes_the_same_loose_end_and_leaves_another() -> None:
    assert text_matches("Want me to also update the tap's README?", "also update the tap's README")
    assert text_matches(
        "Local git remote still points at git@github.com:entirehq/git-sync.git (the original org)",
        "Local git remote still points at git@github.com:entirehq/git-sync.git",
    )
    assert not text_matches("Add jitter to the retry backoff", "Rename the CLI flags")
    assert text_matches("需要跑 linear probe 吗？我可以帮你运行", "需要跑 linear probe 吗？")


def _key(**items: list[Item]) -> Key:
    return Key(
        path=Path("k.json"), file="claude/x.jsonl", repo="a/b", project_root="/p",
        goal_text="", goal_lines=[], goal_keywords=[["parser", "empty"]],
        files_written=["src/a.py", "src/b.py"],
        items={name: items.get(name, []) for name in keymod.ITEM_LISTS},
    )  # fmt: skip


def test_score_counts_recall_precision_answered_and_borderline() -> None:
    key = _key(
        open_tasks=[Item("Add a fuzz test for the empty input", [40], "next-step")],
        open_questions=[Item("Want me to also update the docs?", [41])],
        answered_questions=[Item("Want me to commit these changes?", [20])],
        borderline=[Item("The stash is still there", [30])],
    )
    found = Found(
        candidates=[
            Candidate("Add a fuzz test for the empty input case", "Deferred exploration"),
            Candidate("something else entirely", "Unanswered question", line=41),  # by line
            Candidate("Want me to commit these changes?", "Unanswered question", line=20),
            Candidate("The stash is still there, from the first try", "Deferred exploration"),
        ],
        goal="Make the parser take empty input",
        files=["src/a.py", "src/c.py"],
        table_rows=["src/a.py", "./"],
    )
    s = score(key, found, "train")
    assert (s.tasks_found, s.tasks, s.questions_found, s.questions) == (1, 1, 1, 1)
    assert (s.candidates_right, s.candidates) == (2, 3)  # the borderline one counts neither way
    assert s.answered_reported_open == 1 and s.goal_right and s.root_row
    assert (s.files_right, s.files_key, s.files_found) == (1, 2, 2)
    totals = Totals()
    totals.add(s)
    numbers = totals.as_dict()
    assert (
        numbers["candidate_precision"] == 0.667 and numbers["answered_reported_open_per_10"] == 10
    )


def test_an_item_is_shown_when_where_it_stopped_carries_its_words() -> None:
    stopped = "Done. One leftover: the old `#db-briefing-start` CSS is dead. Want me to strip it?"
    assert shows(stopped, "Want me to strip it?")
    assert shows(stopped, "the old #db-briefing-start CSS is dead")  # markdown marks aside
    # Some shared words are not the item: a long excerpt shares a few with anything.
    assert not shows(stopped, "Strip the dead CSS from the old level briefing page")
    assert not shows(stopped, "")
    assert shows("需要跑 linear probe 吗？我可以帮你运行", "我可以帮你运行")


def test_an_item_is_aged_by_the_user_messages_after_it() -> None:
    users = [10, 20, 30, 40, 50]
    assert age(Item("x", [55]), users) == "last turn"
    assert age(Item("x", [45, 12]), users) == "4-9 back"  # from its first line
    assert age(Item("x", [35]), users) == "2-3 back"
    assert age(Item("x", []), users) == "last turn"
    assert [age(Item("x", [n]), list(range(0, 200, 10))) for n in (185, 5)] == [
        "1 back",
        "10+ back",
    ]


def test_score_counts_what_where_it_stopped_shows_and_when_items_were_said() -> None:
    key = _key(
        open_tasks=[
            Item("Add a fuzz test for the empty input", [40], "next-step"),
            Item("Rename the retry flag", [2], "deferred"),
        ],
        open_questions=[Item("Want me to also update the docs?", [61])],
    )
    found = Found(
        candidates=[Candidate("Add a fuzz test for the empty input case", "Deferred exploration")],
        goal="",
        files=[],
        stopped=["Tests pass. Want me to also update the docs?"],
        user_lines=[1, 3, 5, 7, 30, 50, 60],
    )
    s = score(key, found, "train")
    assert s.questions_found == 0 and s.open_shown == 2  # the fuzz test listed, the ask shown
    assert s.by_age == {"2-3 back": [1, 1], "4-9 back": [0, 1], "last turn": [0, 1]}
    assert "MISSED (in Where it stopped) question" in "\n".join(s.detail)
    totals = Totals()
    totals.add(s)
    totals.add(s)
    numbers = totals.as_dict()
    assert numbers["open_shown"] == [4, 6]
    assert list(numbers["open_by_age"]) == ["last turn", "2-3 back", "4-9 back"]  # AGES' order
    assert set(numbers["open_by_age"]) <= set(AGES)
    assert numbers["open_by_age"]["2-3 back"] == [2, 2]


@needs_corpus
def test_a_match_by_line_alone_is_counted_apart() -> None:
    """A candidate from an item's line matches it; with no word in common (another sentence
    of the same message) it is not counted "with a word in common"."""
    key = _key(
        open_tasks=[
            Item("Probe regions, deploy, run live feed soak tests", [115], "next-step"),
            Item("Add a fuzz test for the empty input", [115], "next-step"),
        ]
    )
    found = Found(
        candidates=[Candidate("Treat market making as post-MVP.", "Deferred exploration", 115),
                    Candidate("Add the fuzz test for empty input", "Deferred exploration", 7)],
        goal="", files=[],
    )  # fmt: skip
    s = score(key, found, "train")
    assert (s.tasks_found, s.tasks_worded, s.tasks) == (2, 1, 2)
    assert (s.candidates_right, s.candidates_right_worded, s.candidates) == (2, 1, 2)
    totals = Totals()
    totals.add(s)
    assert totals.as_dict()["worded"]["open_tasks"] == [1, 2]


def test_a_candidate_saying_a_look_alike_gets_no_credit_from_its_line() -> None:
    """A candidate from an open item's line matches it — unless its own text says what the
    key judged a look-alike or an answered question: then it is wrong, as that item."""
    key = _key(
        open_tasks=[Item("Probe regions, deploy, run live feed soak tests", [115], "next-step")],
        answered_questions=[Item("Want me to push the branch and open the PR?", [115])],
        lookalikes=[Item("Treat market making as a post-MVP strategy plugin", [115])],
    )
    found = Found(
        candidates=[
            Candidate("Treat market making as a post-MVP strategy plugin.", "Deferred", 115),
            Candidate("Push the branch and open the PR.", "Deferred", 115),
        ],
        goal="", files=[],
    )  # fmt: skip
    s = score(key, found, "train")
    assert (s.tasks_found, s.candidates_right, s.candidates) == (0, 0, 2)
    assert s.answered_reported_open == 1
    # Taken from the same line, a sentence the key did not judge still matches by it.
    found.candidates.append(Candidate("Something else said there.", "Deferred", 115))
    s = score(key, found, "train")
    assert (s.tasks_found, s.candidates_right, s.candidates) == (1, 1, 3)


def test_the_interval_resamples_sessions_not_items() -> None:
    def session(found: int, tasks: int, goal: bool) -> SessionScore:
        s = SessionScore("f", "test", tasks=tasks, tasks_found=found, goal_right=goal)
        s.candidates, s.candidates_right = 2, 1
        return s

    # Sessions all alike: every draw gives the same rates, so the interval is one point.
    same = intervals([session(1, 2, True)] * 5)
    assert same["tasks"] == (0.5, 0.5) and same["precision"] == (0.5, 0.5)
    assert same["goal"] == (1.0, 1.0) and same["questions"] is None  # nothing to count
    # One session holds every task: its ten move together (a draw without it counts no
    # rate), where ten independent items found would still leave room either way.
    lumpy = [session(10, 10, True), *(session(0, 0, i % 2 == 0) for i in range(9))]
    assert intervals(lumpy)["tasks"] == (1.0, 1.0)
    mixed = [session(4, 4, True), session(0, 4, False), session(2, 4, True)]
    low, high = intervals(mixed)["tasks"] or (0.0, 0.0)
    assert low < 0.5 < high and (low, high) == intervals(list(mixed))["tasks"]  # fixed seed
    assert intervals([]) == dict.fromkeys(("tasks", "questions", "precision", "goal"))


def test_the_report_runs_and_shows_no_test_session(tmp_path: Path) -> None:
    out = tmp_path / "f.json"
    r = subprocess.run(
        [sys.executable, "-m", "bench.fidelity", "--detail", "--json", str(out)],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    numbers = json.loads(out.read_text())
    assert numbers["train"]["sessions"] == 26 and numbers["test"]["sessions"] == 13
    assert "test split (13 sessions)" in r.stdout and "train split (26 sessions)" in r.stdout
    assert "(test)" not in r.stdout  # no test session is listed in detail
    # The everyday phrasings, each group with its count (bench/fidelity/forms.py).
    from bench.fidelity.forms import GROUPS

    assert [g["group"] for g in numbers["forms"]] == [name for name, *_ in GROUPS]
    assert "ordinary forms (bench/fidelity/forms.py" in r.stdout
    # What the rules see with nothing let go: at least what they keep; train split only.
    reach, train = numbers["train"]["reach"], numbers["train"]
    for what in ("open_tasks", "open_questions"):
        assert reach[what][1] == train[what][1] and reach[what][0] >= train[what][0]
    assert reach["candidates"][1] > train["candidates"][1]  # old caveats and lists kept
    assert "reach" not in numbers["test"] and r.stdout.count("reach, nothing let go") == 1
    # How far each split's rates could move on another draw of sessions, both splits.
    for name in ("train", "test"):
        low, high = numbers[name]["intervals_95"]["tasks"]
        assert low <= numbers[name]["open_tasks_recall"] <= high
    assert r.stdout.count("  95% interval  ") == 2
    # …and what is found with a word in common, no more than by line or words.
    for name in ("train", "test"):
        for what in ("open_tasks", "open_questions", "candidates"):
            worded, scored = numbers[name]["worded"][what], numbers[name][what]
            assert worded[1] == scored[1] and worded[0] <= scored[0]
    assert r.stdout.count("  with a word in common  ") == 2
    # The README and docs/fidelity.md give the numbers as measured, both splits.
    from bench.fidelity.__main__ import _pct, table_cells

    w = numbers["test"]["worded"]
    said = f"tasks {_pct(w['open_tasks'])} and candidates right {_pct(w['candidates'])}"
    assert said in " ".join((REPO / "README.md").read_text(encoding="utf-8").split())

    for page in (REPO / "README.md", REPO / "docs" / "fidelity.md"):
        text = page.read_text(encoding="utf-8")
        for name in ("test", "train"):
            row = f"| {name} split ({numbers[name]['sessions']} sessions"
            (line,) = [ln for ln in text.splitlines() if ln.startswith(row)]
            assert line.endswith(table_cells(numbers[name])), (page.name, line)
    # …and how many open items the next session is shown (listed, or in Where it stopped).
    shown = _pct(numbers["test"]["open_shown"])
    assert f"of the test split's open items, {shown} are listed" in " ".join(
        (REPO / "README.md").read_text(encoding="utf-8").split()
    )
    assert f"the test split {shown}" in " ".join(
        (REPO / "docs" / "fidelity.md").read_text(encoding="utf-8").split()
    )
    # …and the test split's intervals as measured.
    from bench.fidelity.__main__ import _span

    spans = {k: _span(v) for k, v in numbers["test"]["intervals_95"].items()}
    assert f"test open tasks {spans['tasks']}" in " ".join(
        (REPO / "README.md").read_text(encoding="utf-8").split()
    )
    said = (
        f"tasks {spans['tasks']}, questions {spans['questions']}, precision "
        f"{spans['precision']}, Goal {spans['goal']}"
    )
    assert said in " ".join((REPO / "docs" / "fidelity.md").read_text(encoding="utf-8").split())
    held_out = CORPUS / "claude" / "eagerminds-1.jsonl"
    listed = subprocess.run(
        [sys.executable, "-m", "bench.fidelity", "--list", str(held_out)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert "in the test split — not shown" in listed.stdout


def test_the_reach_lets_nothing_go_and_puts_the_settings_back() -> None:
    from bench.fidelity.__main__ import reach
    from session_skill.transcripts import loose

    kept = loose.CAVEAT_TURNS, loose.LIST_TURNS, loose.OPEN_LIST_TURNS
    assert reach([]) == {"open_tasks": [0, 0], "open_questions": [0, 0], "candidates": [0, 0]}
    assert (loose.CAVEAT_TURNS, loose.LIST_TURNS, loose.OPEN_LIST_TURNS) == kept


def test_the_ordinary_forms_count_what_the_sweep_misreads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep that lists nothing (and never takes the first message for the Goal) fails
    every case that should be listed, and no other."""
    from bench.fidelity import forms
    from session_skill.transcripts import scan

    real = scan.analyze
    monkeypatch.setattr(scan, "analyze", lambda path: _emptied(real(path)))
    for result, (_, _, _, cases) in zip(forms.run(), forms.GROUPS, strict=True):
        assert result["wrong"] == [text for text, listed in cases if listed]


def test_the_sweep_reads_every_ordinary_form_right() -> None:
    """The forms are a report, not a gate on how the rules carry over; but one the sweep read
    right and reads wrong now is a loss, and fails here (as the older fixtures' do)."""
    from bench.fidelity import forms

    wrong = {r["group"]: r["wrong"] for r in forms.run() if r["wrong"]}
    assert wrong == {}


def _emptied(facts: object) -> object:
    from bench.fidelity.forms import _WORK
    from session_skill.records import replace

    return replace(facts, candidates=[], pending_tasks=[], goal=_WORK)  # type: ignore[type-var]


@needs_corpus
def test_the_older_fixtures_lose_nothing_and_every_candidate_there_is_judged() -> None:
    """Issue 19: no loss on the older fixtures. A candidate they no longer show, a wrong one,
    or one nobody judged (a change's new candidate: judge it in bench/fidelity/older.py)
    fails here, not in a report nobody reads."""
    from bench.fidelity.__main__ import older_report

    lines, counts = older_report()
    assert not [line for line in lines if "no longer found" in line], lines
    assert counts["wrong"] == 0 and counts["unjudged"] == 0, counts
    assert counts["right"] >= 19 and counts["files"] >= 17, counts

"""The learned-scorer experiment (bench/fidelity/learned.py): its rows are labelled and
featured from what the transcript shows, training can tell open items apart, and the
report scores the rules, the learned picks and both."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any, cast

from bench.fidelity import learned, written
from tests.lines import write as write_lines


def _case() -> dict[str, Any]:
    return {
        "id": "x-1",
        "turns": [
            {"user": "add retries to the uploader"},
            {"edits": ["up.py"], "assistant": "Added retries with backoff. Want jitter too?"},
        ],
        "open_questions": [{"quote": "Want jitter too?"}],
        "goal_keywords": [["retries"]],
    }


def test_each_sentence_is_a_row_labelled_by_the_keys_open_items(tmp_path: Path) -> None:
    case = _case()
    records, lines = written.build(case)
    path = tmp_path / "x.jsonl"
    write_lines(path, records)
    rows = learned.rows_of(path, ["Want jitter too?"])
    by_text = {r.text: r for r in rows}
    assert set(by_text) == {"add retries to the uploader", "Added retries with backoff.",
                            "Want jitter too?"}  # fmt: skip
    asked = by_text["Want jitter too?"]
    assert asked.positive and not by_text["Added retries with backoff."].positive
    assert asked.line == lines[1]
    assert {"assistant|question", "last_reply", "pos=0", "w=jitter"} <= set(asked.features)
    request = by_text["add retries to the uploader"].features
    assert request["pos=0"] and request["role=user"] and request["later=most"]


def test_training_learns_what_tells_open_items_apart() -> None:
    def row(word: str, positive: bool) -> learned.Row:
        return learned.Row(word, 1, {f"w={word}": 1, "role=assistant": 1}, positive)

    sessions = [learned.Session(cast(Any, None), cast(Any, None),
                                [row("later", True), row("done", False), row("done", False)])
                for _ in range(20)]  # fmt: skip
    model = learned.train(sessions)
    assert learned.probability(model, row("later", True).features) > 0.7
    assert learned.probability(model, row("done", False).features) < 0.3


def test_the_report_scores_the_rules_the_learned_picks_and_both() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert learned.main(["--dev", "a", "--held-out", "b", "--no-corpus"]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("held-out written sets b (40 sessions), trained on a")
    rows = [line.split("|", 1)[0].strip() for line in lines[1:]]
    assert rows == ["the rules", "learned, at 0.5", "the rules + learned 0.5",
                    "learned, at 0.7", "the rules + learned 0.7"]  # fmt: skip
    rules = lines[1].split("|")[1].split()[0]  # "38/41": the rules' open tasks
    with_learned = lines[3].split("|")[1].split()[0]
    assert int(with_learned.split("/")[0]) >= int(rules.split("/")[0])  # picks only add

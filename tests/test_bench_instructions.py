"""`python -m bench.instructions`: the sweep's work counted in instructions, which do not
move with a busy machine as its time does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench import instructions
from bench.synth_transcript import write_conversation

pytestmark = pytest.mark.skipif(
    shutil.which("valgrind") is None or shutil.which("taskset") is None,
    reason="needs valgrind and taskset (CI installs valgrind)",
)


def test_a_count_repeats_and_grows_with_the_work(tmp_path: Path) -> None:
    conversation = tmp_path / "conversation.jsonl"
    write_conversation(conversation, 300_000)
    imports = instructions.count(instructions.REPO, [], tmp_path)
    first = instructions.count(instructions.REPO, [str(conversation)], tmp_path)
    again = instructions.count(instructions.REPO, [str(conversation)], tmp_path, core=1)
    assert abs(first - again) <= first * 0.005  # the same to within half a percent
    assert first > imports * 1.1  # …and the file's reading is in it


def test_a_revision_is_counted_as_it_was(tmp_path: Path) -> None:
    tree = instructions.checkout("HEAD", tmp_path)
    assert (tree / "session_skill" / "transcripts" / "scan.py").is_file()
    with pytest.raises(instructions.Unavailable, match="cannot read no-such-rev"):
        instructions.checkout("no-such-rev", tmp_path / "other")

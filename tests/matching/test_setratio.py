"""setratio: rapidfuzz's token_set_ratio and ratio in pure Python, held equal to rapidfuzz."""

from __future__ import annotations

import random
import string

import pytest
from rapidfuzz import fuzz, utils

from session_skill.matching import setratio

WORDS = "fix the bug in auth login logout add tests for api docs update readme a an x".split()


def _text(rng: random.Random) -> str:
    if rng.random() < 0.3:  # raw characters: punctuation, case, runs of separators
        return "".join(rng.choice(string.printable[:95]) for _ in range(rng.randint(0, 40)))
    words = [rng.choice(WORDS) for _ in range(rng.randint(0, 9))]
    text = rng.choice([" ", "  ", "-", ", "]).join(words)
    return text.upper() if rng.random() < 0.1 else text


def test_process_is_rapidfuzz_default_process_for_every_character_it_maps() -> None:
    mapped = 0
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        done = setratio.process(chr(code))
        if done is not None:
            assert done == utils.default_process(chr(code)), hex(code)
            mapped += 1
    assert mapped == 0x800 - 1 + 0x2C00 - 0x1E00
    rng = random.Random(5)
    for _ in range(3000):
        text = _text(rng) + rng.choice(["", " naïve — “ΣΑΣ” …", "İ", "漢字", "✅ ok"])
        done = setratio.process(text)
        assert done is None or done == utils.default_process(text), text
    assert setratio.process("a — “b”") == "a    b"
    assert setratio.process("İstanbul") is None and setratio.process("🎉 done") is None


def test_the_scores_are_rapidfuzzs() -> None:
    rng = random.Random(7)
    for _ in range(20000):
        a = setratio.process(_text(rng)) or ""
        b = setratio.process(_text(rng)) or ""
        if rng.random() < 0.3:  # near-duplicates: one edit apart
            b = a.replace("o", "0", 1) + rng.choice(["", " x", "s"])
        assert setratio.token_set_ratio(a, b) == pytest.approx(fuzz.token_set_ratio(a, b)), (a, b)
        assert setratio.ratio(a, b) == pytest.approx(fuzz.ratio(a, b)), (a, b)
        for threshold, plain in ((90, False), (88, True)):
            score = fuzz.token_set_ratio(a, b)
            if plain:
                score = max(score, fuzz.ratio(a, b))
            said = setratio.reaches(a, b, threshold, plain=plain)
            if said is None:
                assert abs(score - threshold) < 1e-3, (a, b)
            else:
                assert said == (score >= threshold), (a, b, threshold, score)


def test_a_threshold_met_exactly_is_left_to_rapidfuzz() -> None:
    score = fuzz.ratio("abcd", "abcde")  # 88.9: on the line, it is not decided here
    assert setratio.ratio("abcd", "abcde") == pytest.approx(score)
    assert setratio.reaches("abcd", "abcde", score, plain=True) is None
    assert setratio.reaches("abcd", "abcde", score + 0.1, plain=True) is False


CASE = """
import sys
from session_skill.transcripts.candidates import (
    UNANSWERED, UNFINISHED, Candidate, filter_known, merge_near_duplicates)
texts = sys.argv[1:]
cands = [Candidate(t, UNFINISHED if i % 2 else UNANSWERED, "why") for i, t in enumerate(texts)]
merged = merge_near_duplicates(cands)
known = ["- [ ] **auth** - Fix the login bug in auth module. Raised: 2026-11-02"]
kept = filter_known(merged, known)
print([c.text for c in kept], "rapidfuzz" in sys.modules)
"""


@pytest.mark.parametrize("dash", ["-", "\u2014", "\u30fc"])
def test_the_capture_folds_and_filters_without_rapidfuzz_when_it_can(dash: str) -> None:
    """Candidates in the text it maps: rapidfuzz is not imported; a character outside it
    (here a Katakana long vowel mark), and it is — the same answer."""
    import subprocess
    import sys

    texts = [
        "Fix the login bug in the auth module",  # the parked item: filtered
        f"Update the README {dash} install steps for Codex",
        "Update the README: install steps for Codex",  # a near-duplicate: folded
        "Add tests for the api docs parser",
    ]
    out = subprocess.run(
        [sys.executable, "-c", CASE, *texts], capture_output=True, text=True, check=True
    ).stdout
    kept = [texts[1], texts[3]]
    outside = dash == "\u30fc"
    assert out == f"{kept!r} {outside}\n"

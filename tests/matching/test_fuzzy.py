"""matching.fuzzy: rapidfuzz when installed, else stdlib scorers close to it."""

from __future__ import annotations

import pytest
from rapidfuzz import fuzz as real_fuzz
from rapidfuzz import utils as real_utils

from session_skill.matching import fuzzy

PAIRS = [
    ("wire up the metrics exporter", "wire up the metrics exporter later"),
    ("add retries to the uploader", "the uploader needs retries added"),
    ("fix the flaky login test", "rotate the signing keys"),
    ("cache eviction policy", "cache eviction policy"),
    ("", "something"),
]


def test_the_real_library_is_used_when_installed() -> None:
    assert fuzzy.fuzz is real_fuzz and fuzzy.utils is real_utils


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_the_fallback_scores_close_to_rapidfuzz(a: str, b: str) -> None:
    pa, pb = fuzzy._Utils.default_process(a), fuzzy._Utils.default_process(b)
    assert (pa, pb) == (real_utils.default_process(a), real_utils.default_process(b))
    ours = fuzzy._Fuzz.token_set_ratio(pa, pb)
    theirs = real_fuzz.token_set_ratio(pa, pb)
    assert abs(ours - theirs) <= 15, (ours, theirs)
    # and on the same side of the sweep's fold threshold
    assert (ours >= 90) == (theirs >= 90)


def test_the_fallback_loads_without_rapidfuzz(tmp_path: object) -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['rapidfuzz'] = None\n"
        "from session_skill.matching import fuzzy\n"
        "assert type(fuzzy.fuzz).__name__ == '_Fuzz'\n"
        "print(round(fuzzy.fuzz.token_set_ratio('fix the login test', 'fix the login test now')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "100"

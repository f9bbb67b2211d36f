"""rapidfuzz's `fuzz` and `utils`, or — where rapidfuzz is not installed — the few scorers
the sweep needs, from the standard library.

The automatic handover runs at `/clear` from a plugin whose dependencies may not be
installed yet (its first command builds them): it must still fold near-duplicate
candidates. The fallback scores with difflib, which differs from rapidfuzz by a point or two
on some pairs; it is used only when rapidfuzz cannot be imported.
"""

from __future__ import annotations

import re

try:  # the normal case: the package's dependencies are installed
    from rapidfuzz import fuzz, utils
except ImportError:  # pragma: no cover - exercised by tests/matching/test_fuzzy.py
    fuzz = None  # type: ignore[assignment]
    utils = None  # type: ignore[assignment]

_NON_ALNUM = re.compile(r"[^\w]+|_+")


class _Utils:
    @staticmethod
    def default_process(text: str) -> str:
        """rapidfuzz.utils.default_process: non-alphanumerics to spaces, lowercase, trimmed."""
        return _NON_ALNUM.sub(" ", text).lower().strip()


class _Fuzz:
    @staticmethod
    def ratio(a: str, b: str) -> float:
        if not a and not b:
            return 100.0
        from difflib import SequenceMatcher

        return 100.0 * SequenceMatcher(None, a, b, autojunk=False).ratio()

    @classmethod
    def token_set_ratio(cls, a: str, b: str) -> float:
        """rapidfuzz.fuzz.token_set_ratio: 100 when one side's words are a subset."""
        ta, tb = set(a.split()), set(b.split())
        if not ta or not tb:
            return 0.0
        common = sorted(ta & tb)
        if common and (ta <= tb or tb <= ta):
            return 100.0
        inter = " ".join(common)
        rest_a = " ".join(sorted(ta - tb))
        rest_b = " ".join(sorted(tb - ta))
        sa = f"{inter} {rest_a}".strip()
        sb = f"{inter} {rest_b}".strip()
        scores = [cls.ratio(sa, sb)]
        if inter:
            scores += [cls.ratio(inter, sa), cls.ratio(inter, sb)]
        return max(scores)


if fuzz is None:
    fuzz = _Fuzz()  # type: ignore[assignment]
    utils = _Utils()  # type: ignore[assignment]

__all__ = ["fuzz", "utils"]

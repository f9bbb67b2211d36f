"""rapidfuzz's `token_set_ratio` and `ratio`, exactly, in pure Python, for a few pairs.

The capture at a session boundary folds near-duplicate candidates and drops known ones by
these two scores; importing rapidfuzz (and the `typing` it pulls in) cost it ~15-20 ms, for
a handful of pairs, most of which a length bound already rules out. So for text in the
scripts and punctuation below U+0800 and in U+1E00-U+2BFF — where rapidfuzz's
`default_process` is a plain per-character map (letters and digits lowercased, anything
else a space; checked for every one of those characters) — the scores are computed here,
bounded first (never below the real score) and only then exactly (the LCS, bit-parallel
over Python's integers). Other text (CJK, most emoji), or more pairs than a pure-Python
LCS is quick for, and the caller uses rapidfuzz itself
(`matching.fuzzy`). `tests/matching/test_setratio.py` holds these equal to rapidfuzz's.
"""

from __future__ import annotations

# rapidfuzz.utils.default_process, character by character: letters lowercased, digits
# kept, every other character a space (each one: runs are not collapsed); then trimmed.
# Filled in as characters are met, beyond ASCII, where it is rapidfuzz's map (`_covered`).
_PROCESS = {i: chr(i).lower() if chr(i).isalnum() else " " for i in range(128)}


def _covered(code: int) -> bool:
    """Latin, Greek, Cyrillic, Hebrew, Arabic (below U+0800; not İ, which lowercases to two
    characters), Latin and Greek extended, and the punctuation, symbols and arrows up to
    U+2BFF. (Elsewhere rapidfuzz knows some letters Python does not, or the other way.)"""
    return (code < 0x800 and code != 0x130) or 0x1E00 <= code < 0x2C00


# Exact scores this close to a threshold are left to rapidfuzz: its float rounding decides.
_EDGE = 1e-6


def process(text: str) -> str | None:
    """`rapidfuzz.utils.default_process(text)`, or None for text this map does not cover."""
    if not text.isascii():
        for ch in set(text):
            code = ord(ch)
            if code not in _PROCESS:
                if not _covered(code):
                    return None
                _PROCESS[code] = ch.lower() if ch.isalnum() else " "
    return text.translate(_PROCESS).strip()


def _lcs(a: str, b: str) -> int:
    """Length of the longest common subsequence (Hyyrö's bit-parallel form)."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    bit = 1
    for ch in a:
        masks[ch] = masks.get(ch, 0) | bit
        bit <<= 1
    full = bit - 1
    v = full
    for ch in b:
        m = masks.get(ch)
        if m:
            u = v & m
            v = (v + u) | (v - u)
    return len(a) - (v & full).bit_count()


def _overlap(a: str, b: str) -> int:
    """The characters two strings share, with multiplicity: the LCS is never longer."""
    return sum(min(a.count(ch), b.count(ch)) for ch in set(a))


def ratio(a: str, b: str) -> float:
    """rapidfuzz.fuzz.ratio: the normalized Indel similarity, 0-100."""
    total = len(a) + len(b)
    if not total:
        return 100.0
    return 100.0 * 2 * _lcs(a, b) / total


def _ratio_bound(a: str, b: str) -> float:
    total = len(a) + len(b)
    return 100.0 if not total else 200.0 * min(len(a), len(b), _overlap(a, b)) / total


def _parts(a: str, b: str) -> tuple[float, str, str, int] | None:
    """token_set_ratio's pieces: (a score already final, or -1), the two differences
    joined, the intersection's joined length. None: a score of 0 (an empty side)."""
    ta, tb = set(a.split()), set(b.split())
    if not ta or not tb:
        return None
    inter = ta & tb
    only_a, only_b = ta - tb, tb - ta
    if inter and (not only_a or not only_b):
        return 100.0, "", "", 0
    sect = len(" ".join(inter))
    return -1.0, " ".join(sorted(only_a)), " ".join(sorted(only_b)), sect


def _set_score(ab: str, ba: str, sect: int, lcs: int) -> float:
    """token_set_ratio from its pieces, the differences' LCS given (or bounded)."""
    sep = 1 if sect else 0
    sect_ab, sect_ba = sect + sep + len(ab), sect + sep + len(ba)
    total = sect_ab + sect_ba
    dist = len(ab) + len(ba) - 2 * lcs
    result = 100 - 100 * dist / total if total else 100.0
    if not sect:
        return result
    return max(
        result,
        100 - 100 * (sep + len(ab)) / (sect + sect_ab),
        100 - 100 * (sep + len(ba)) / (sect + sect_ba),
    )


def token_set_ratio(a: str, b: str) -> float:
    """rapidfuzz.fuzz.token_set_ratio of two processed strings."""
    parts = _parts(a, b)
    if parts is None:
        return 0.0
    final, ab, ba, sect = parts
    return final if final >= 0 else _set_score(ab, ba, sect, _lcs(ab, ba))


def reaches(a: str, b: str, threshold: float, *, plain: bool = False) -> bool | None:
    """Is token_set_ratio(a, b) — or, `plain`, the larger of it and ratio — at least
    `threshold`? None when it is too close to call here (the caller asks rapidfuzz)."""
    verdict = _set_reaches(a, b, threshold)
    if verdict or not plain:
        return verdict
    if _ratio_bound(a, b) < threshold - _EDGE:
        return verdict  # False, or None
    score = ratio(a, b)
    if abs(score - threshold) < _EDGE:
        return None
    return True if score >= threshold else verdict


def _set_reaches(a: str, b: str, threshold: float) -> bool | None:
    parts = _parts(a, b)
    if parts is None:
        return threshold <= 0
    final, ab, ba, sect = parts
    if final >= 0:
        return final >= threshold
    if _set_score(ab, ba, sect, min(len(ab), len(ba), _overlap(ab, ba))) < threshold - _EDGE:
        return False  # not even with every shared character in common order
    score = _set_score(ab, ba, sect, _lcs(ab, ba))
    if abs(score - threshold) < _EDGE:
        return None
    return score >= threshold

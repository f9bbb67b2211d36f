"""What a query word matches in a handover's text (`fulltext` ranks the docs with it).

Both sides are folded alike: case folded the Unicode way (`str.casefold`: "ÉTÉ" is "été",
"ОБРАБОТКА" is "обработка", "STRASSE" is "straße"), then every byte that is not a letter
or a digit of any script made a space, so each word starts after a space. A doc is folded
as bytes, its lines kept where they are: the fold of a doc holds the doc's "\\n"s, so the
Nth line of the fold is the Nth line of the doc. Then:

- `query_words`: the query's words, folded, each once;
- `Term`: one of them, with the word starts it is looked for by (its probes) and how well
  a word found accounts for it;
- `highlight`: a line of a hit as markdown, the words a term matched in bold.
"""

from __future__ import annotations

import os
import re

SHOWN_CHARS = 200

# The second step of the fold, on bytes: ASCII letters lowercased, digits and non-ASCII
# bytes (whole UTF-8 sequences) kept, every other byte a space. Same length as its input.
_FLAT = bytes(
    b + 32 if 65 <= b <= 90 else b if 97 <= b <= 122 or 48 <= b <= 57 or b >= 128 else 32
    for b in range(256)
)
_ASCII = bytes(range(128))
# A byte of every character whose case fold holds an ASCII letter: the lead byte of "ß"
# ("ss"), "İ", "ŉ", "ſ", "ǰ", "ẖ"…"ẞ" and the ligatures "ﬀ"…"ﬆ", and the last of the
# Kelvin sign (tests/matching/test_terms.py checks them against every code point). One
# byte each: `in` runs memchr, the cheapest search there is.
TO_ASCII_BYTES = (b"\xc3", b"\xc4", b"\xc5", b"\xc7", b"\xe1", b"\xef", b"\xaa")
_TOKEN = re.compile(r"[A-Za-z0-9\u0080-\U0010ffff]+")
_CODE = re.compile(r"(`[^`\n]*`)")
_MARKER = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")


def flat(data: bytes) -> bytes:
    """Words as they are (ASCII lowercased), everything else spaces; the same length."""
    return data.translate(_FLAT)


def cased(data: bytes, start: int = 0, *, ascii_words: bool = False) -> bytes:
    """`data` with its case folded from `start` on (ASCII only before it), its lines kept:
    `bytes.lower` unless the fold differs from it (`differs`). Offsets before `start`
    stay those of `data`; after it a fold may be longer or shorter ("ẞ" is "ss")."""
    if not differs(data, ascii_words=ascii_words):
        return data.lower()
    text = data[start:].decode("utf-8", "surrogateescape").casefold()
    return data[:start].lower() + text.encode("utf-8", "surrogateescape")


def differs(data: bytes, *, ascii_words: bool = False) -> bool:
    """Whether a doc's case fold may differ from its `bytes.lower`.

    A doc is read as bytes and mostly ASCII, and decoding and folding it costs ten times
    `bytes.lower`: it is done only when one of its non-ASCII characters has a case to
    fold (a dash, an arrow or a lowercase "é" have none). With `ascii_words` (every word
    looked for is ASCII) only a character folding to ASCII letters can matter, and a few
    byte searches rule those out.
    """
    if data.isascii() or (ascii_words and not _may_fold_to_ascii(data)):
        return False
    others = data.translate(None, _ASCII).decode("utf-8", "surrogateescape")
    return others.casefold() != others


def _may_fold_to_ascii(data: bytes) -> bool:
    """Whether `data` holds a byte of `TO_ASCII_BYTES` (spelled out: a loop costs more
    than the searches)."""
    return (
        b"\xc3" in data
        or b"\xc4" in data
        or b"\xc5" in data
        or b"\xc7" in data
        or b"\xe1" in data
        or b"\xef" in data
        or b"\xaa" in data
    )


def fold(data: bytes, start: int = 0, *, ascii_words: bool = False) -> bytes:
    """The whole fold of a doc's bytes: `cased`, then `flat`."""
    return cased(data, start, ascii_words=ascii_words).translate(_FLAT)


def fold_text(text: str) -> bytes:
    """The fold of a typed word or query, as a doc's text is folded."""
    return flat(text.casefold().encode("utf-8", "replace"))


def query_words(text: str) -> list[str]:
    """The words searched for, folded as the docs are, each once; filler words (and the
    one-letter pieces of "it's") only when the query is nothing else."""
    from session_skill.matching.resolve import STOPWORDS

    found = fold_text(text).decode("utf-8", "replace").split()
    kept = [w for w in found if w not in STOPWORDS and len(w) > 1] or found
    return list(dict.fromkeys(kept))


class Term:
    """One query word: the word starts looked for (its probes), their weight, and a cache
    of how well each word found accounts for it."""

    __slots__ = ("word", "near", "probes", "patterns", "weight", "sims")

    def __init__(self, word: str, alternatives: tuple[str, ...] | None = None) -> None:
        from session_skill.matching.wordsim import stem

        self.word = word
        self.near = alternatives or ()  # the words a typo was taken for
        if alternatives is None:
            # What the word and its stem start with ("retr" for retries/retry): a stem's
            # forms, and the word's abbreviations, all hold it.
            root = os.path.commonprefix([word, stem(word)])
            alternatives = (root if len(root) >= 3 else word,)
        self.probes = tuple(b" " + a.encode("utf-8") for a in alternatives)
        self.patterns = tuple(re.compile(re.escape(p) + b"[^ ]*") for p in self.probes)
        self.weight = 0.0
        self.sims: dict[bytes, float] = {}

    def sim(self, word: bytes) -> float:
        """`word_similarity` of a found word (its leading space included)."""
        got = self.sims.get(word)
        if got is None:
            from session_skill.matching.wordsim import word_similarity

            text = word[1:].decode("utf-8", "replace")
            got = self.sims[word] = word_similarity(self.word, text)
        return got

    def best(self, text: bytes, start: int = 0, end: int | None = None) -> float:
        """How well the best word of text[start:end] starting with a probe accounts for it."""
        stop = len(text) if end is None else end
        best = 0.0
        for probe, pattern in zip(self.probes, self.patterns, strict=True):
            if text.find(probe, start, stop) >= 0:
                for w in set(pattern.findall(text, start, stop)):
                    s = self.sim(w)
                    if s > best:
                        best = s
        return best

    def holds(self, token: str) -> bool:
        """Whether a word of a doc, as written, is one this term matched."""
        word = b" " + fold_text(token)
        return any(word.startswith(p) for p in self.probes) and self.sim(word) > 0


def highlight(line: str, terms: list[Term]) -> str:
    """The line as markdown, clipped, the words that matched in bold (a code span whole)."""
    text = _MARKER.sub("", line.strip())
    if len(text) > SHOWN_CHARS:
        matched = (m.start() for m in _TOKEN.finditer(text) if _holds(m.group(), terms))
        start = max(0, min(next(matched, 0) - SHOWN_CHARS // 4, len(text) - SHOWN_CHARS))
        cut = text[start : start + SHOWN_CHARS]
        if cut.count("`") % 2:
            cut = cut.replace("`", "")
        tail = "…" if start + SHOWN_CHARS < len(text) else ""
        text = ("…" if start else "") + cut.strip() + tail
    out = []
    for part in _CODE.split(text):
        if len(part) > 1 and part[0] == part[-1] == "`":
            hit = any(_holds(m.group(), terms) for m in _TOKEN.finditer(part))
            out.append(f"**{part}**" if hit else part)
        else:
            part = part.replace("**", "").replace("__", "")
            out.append(_TOKEN.sub(lambda m: _bold(m.group(), terms), part))
    return "".join(out)


def _holds(token: str, terms: list[Term]) -> bool:
    return any(t.holds(token) for t in terms)


def _bold(token: str, terms: list[Term]) -> str:
    return f"**{token}**" if _holds(token, terms) else token

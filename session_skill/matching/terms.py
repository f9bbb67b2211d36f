"""What a query word matches in a handover's text (`fulltext` ranks the docs with it).

Both sides are folded alike: case folded the Unicode way (`str.casefold`: "ОБРАБОТКА" is
"обработка", "STRASSE" is "straße"), accents dropped ("ÉTÉ" is "ete", "naïve" is "naive":
`fold_str`), then every byte that is not a letter or a digit of any script made a space, so
each word starts after a space. A doc is folded
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
import unicodedata

SHOWN_CHARS = 200

# The second step of the fold, on bytes: ASCII letters lowercased, digits and non-ASCII
# bytes (whole UTF-8 sequences) kept, every other byte a space. Same length as its input.
_FLAT = bytes(
    b + 32 if 65 <= b <= 90 else b if 97 <= b <= 122 or 48 <= b <= 57 or b >= 128 else 32
    for b in range(256)
)
_ASCII = bytes(range(128))
# The UTF-8 of every character whose fold (`fold_char`) holds an ASCII letter or digit, or
# that is a combining mark of the blocks that follow Latin letters (dropped: "cafe\u0301" is
# "cafe"); tests/matching/test_terms.py checks them against every code point. A lead byte
# English text hardly holds is enough alone ("é", "ß", "ǰ", "ẞ", "ﬁ", "ａ"); "\xc2", "\xe2",
# "\xe3" and "\xf0" also start a no-break space, a dash, an arrow or an emoji, so for them
# the next byte or two say it ("²", "ℂ", "①", "㎏", "𝐀"). Searched in a doc's non-ASCII
# bytes alone (`differs`): a few dozen, where no pattern can span two characters.
_TO_ASCII = re.compile(
    rb"[\xc3-\xc8\xca-\xcd\xe1\xef]"
    rb"|\xc2[\xaa\xb2\xb3\xb9\xba\xbc-\xbe]"
    rb"|\xe2(?:[\x81\x84\x85\x91-\x93]|\x82[\x80-\x9c\xa8]|\x83[\x90-\xb0]|\x86\x89|\xb1[\xbc\xbd])"
    rb"|\xe3[\x88-\x8f]"
    rb"|\xea\x9f"
    rb"|\xf0(?:\x90\x9e|\x9d|\x9f(?:[\x84-\x87]|\xaf[\xb0-\xb9]))"
)
_TOKEN = re.compile(r"[A-Za-z0-9\u0080-\U0010ffff]+")
_CODE = re.compile(r"(`[^`\n]*`)")
_MARKER = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")


def flat(data: bytes) -> bytes:
    """Words as they are (ASCII lowercased), everything else spaces; the same length."""
    return data.translate(_FLAT)


def cased(data: bytes, start: int = 0, *, ascii_words: bool = False) -> bytes:
    """`data` with its case and accents folded from `start` on (`fold_str`; ASCII only
    lowered before it), its lines kept: `bytes.lower` unless the fold differs from it
    (`differs`). Offsets before `start` stay those of `data`; after it a fold may be longer
    or shorter ("ẞ" is "ss", "é" is "e")."""
    lowered = data.lower()
    changes = _changes(data, ascii_words)
    if not changes:
        return lowered
    # Each character replaced in the bytes: what decoding, folding and encoding the text
    # would give (ASCII folds as `lower`; the UTF-8 of a character is found only where it
    # stands), without a decode and `str.casefold` of the whole doc. split and join: one
    # scan of the doc, where `replace` makes two.
    body = lowered[start:]
    for was, now in changes:
        body = now.join(body.split(was))
    return lowered[:start] + body


def differs(data: bytes, *, ascii_words: bool = False) -> bool:
    """Whether a doc's fold (`fold_str`) may differ from its `bytes.lower`.

    A doc is read as bytes and mostly ASCII: it is folded only when one of its non-ASCII
    characters has a case or an accent to fold (a dash or an arrow have none; "é" has).
    With `ascii_words` (every word looked for is ASCII) only a character folding to ASCII
    letters or digits can matter, or a mark dropped from one, and one search of the
    non-ASCII bytes rules those out.
    """
    return bool(_changes(data, ascii_words))


def _changes(data: bytes, ascii_words: bool) -> list[tuple[bytes, bytes]]:
    """The UTF-8 of each non-ASCII character of `data` that `fold_char` changes, and of
    what it becomes; [] when there is none (or none that matters to ASCII words)."""
    if data.isascii():
        return []
    others = data.translate(None, _ASCII)  # a few dozen bytes, whole characters
    if ascii_words and not may_fold_to_ascii(others):
        return []
    found = []
    for ch in set(others.decode("utf-8", "surrogateescape")):
        to = fold_char(ch)
        if to != ch:
            found.append(
                (ch.encode("utf-8", "surrogateescape"), to.encode("utf-8", "surrogateescape"))
            )
    return found


def may_fold_to_ascii(data: bytes) -> bool:
    """Whether `data` (a doc's non-ASCII bytes, or any UTF-8) holds a character that folds
    to ASCII letters or digits, or a mark that would join them (`_TO_ASCII`)."""
    return _TO_ASCII.search(data) is not None


# What `fold_char` gave each character met so far (a doc holds a few dozen distinct ones).
_FOLDED: dict[str, str] = {}


def fold_char(ch: str) -> str:
    """One character as the search sees it: case folded, then its compatibility
    decomposition (NFKD) without combining marks, when that holds a letter or a digit
    ("é" is "e", "ﬁ" "fi", "²" "2", "Ａ" "a"); a combining mark alone is dropped. Other
    characters keep their case fold: "…" is not "...", a no-break space not a space."""
    got = _FOLDED.get(ch)
    if got is None:
        got = ch.casefold()
        if not "\ud800" <= ch <= "\udfff":  # a byte that was not UTF-8 (surrogateescape)
            bare = "".join(
                c for c in unicodedata.normalize("NFKD", got) if not unicodedata.combining(c)
            ).casefold()
            if not bare or any(c.isalnum() for c in bare):
                got = bare
        _FOLDED[ch] = got
    return got


def fold_str(text: str) -> str:
    """`text` case folded and its accents dropped (`fold_char`), its lines where they were:
    what a doc and a query are compared as."""
    text = text.casefold()
    if text.isascii():
        return text
    # Its distinct non-ASCII characters: a set of the whole text costs three times this.
    others = text.encode("utf-8", "surrogatepass").translate(None, _ASCII)
    for ch in set(others.decode("utf-8", "surrogatepass")):
        to = fold_char(ch)
        if to != ch:
            text = text.replace(ch, to)
    return text


def fold(data: bytes, start: int = 0, *, ascii_words: bool = False) -> bytes:
    """The whole fold of a doc's bytes: `cased`, then `flat`."""
    return cased(data, start, ascii_words=ascii_words).translate(_FLAT)


def fold_text(text: str) -> bytes:
    """The fold of a typed word or query, as a doc's text is folded."""
    return flat(fold_str(text).encode("utf-8", "replace"))


# A path or a name with a dot (`src/c.py`, `a.b`): its one-letter parts are what it names.
_PATHLIKE = re.compile(r"\w[./\\]\w")


def is_path(text: str) -> bool:
    """Does the query name a path or a dotted name (`src/c.py`, `a.b`)?"""
    return _PATHLIKE.search(text) is not None


def query_words(text: str) -> list[str]:
    """The words searched for, folded as the docs are, each once; filler words (and the
    one-letter pieces of "it's") only when the query is nothing else. In a path the
    one-letter parts count: `src/c.py` is not `src/b.py`."""
    from session_skill.matching.resolve import STOPWORDS

    found = fold_text(text).decode("utf-8", "replace").split()
    shortest = 1 if is_path(text) else 2
    kept = [w for w in found if w not in STOPWORDS and len(w) >= shortest] or found
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
        # A one-letter word (the `c` of `src/c.py`) is looked for whole: as the start of a
        # word it was held by every doc with a word in `c` ("claude").
        end = b" " if len(word) == 1 else b""
        self.probes = tuple(b" " + a.encode("utf-8") + end for a in alternatives)
        self.patterns = tuple(
            re.compile(re.escape(p.rstrip(b" ")) + (b"(?= )" if end else b"[^ ]*"))
            for p in self.probes
        )
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
        return any((word + b" ").startswith(p) for p in self.probes) and self.sim(word) > 0


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

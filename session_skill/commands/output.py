"""What a command returns, and the small helpers every command's output shares."""

from __future__ import annotations

import json

from session_skill.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# What a terminal acts on instead of showing: C0 controls but tab and newline (an escape
# sequence, a bell, a carriage return that rewrites the line), DEL, the C1 controls (U+009B
# is an escape on some terminals), and the bidi embeddings, overrides and isolates that
# show text in another order than it is stored. The set `park` refuses in an idea. Of
# those, `json.dumps` escapes C0 itself. Compiled when first needed: most output has none.
_UNSAFE = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
_UNSAFE_IN_JSON = r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]"


def _escaped(pattern: str, text: str, escape: Callable[[str], str]) -> str:
    import re

    return re.sub(pattern, lambda m: escape(m.group()), text)


class Output(Record):
    __slots__ = ("text", "code")
    text: str
    code: int

    def __init__(self, text: str, code: int = 0) -> None:
        self.text = text
        self.code = code


def dumps(obj: object) -> str:
    """Every `--json`: UTF-8 as it is, two-space indent; control characters and bidi
    overrides as `\\uXXXX` escapes (the same strings to a parser; harmless on a terminal)."""
    text = json.dumps(obj, ensure_ascii=False, indent=2)
    if text.isascii():
        return text
    return _escaped(_UNSAFE_IN_JSON, text, lambda ch: f"\\u{ord(ch):04x}")


def visible(text: str) -> str:
    """Text from the store (a hand-edited PARKED.md, a doc's frontmatter or Goal) as it
    may reach a terminal: each control character and bidi override written as its escape
    (`\\x1b`, `\\u202e`), so it is seen, never run; everything else as it is."""
    if text.isprintable():  # the common case; False for every character escaped, and more
        return text
    return _escaped(_UNSAFE, text, lambda ch: ascii(ch)[1:-1])


def choice_json(question: str, candidates: list[dict[str, object]]) -> str:
    """A choice (exit 4) under `--json`: the question and the candidates, each with what
    names it (`n`, `slug`) and what it says (`summary`)."""
    return dumps({"action": "choose", "question": question, "candidates": candidates})


def shown(text: str, limit: int = 80) -> str:
    """What the user typed, quoted for a message: a pasted 10 KB query is not echoed whole."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def cell(text: str) -> str:
    """Text for a markdown table cell: on one line, its `|` and backticks escaped, its
    control characters shown (`visible`)."""
    text = visible(" ".join(text.split()))
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def code(text: str) -> str:
    """`text` as a code span, whatever backticks it holds (CommonMark: a longer fence)."""
    if "`" not in text:
        return f"`{text}`"
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    if not longest:
        return f"`{text}`"
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"

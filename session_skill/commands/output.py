"""What a command returns, and the small helpers every command's output shares."""

from __future__ import annotations

import json

from session_skill.records import Record


class Output(Record):
    __slots__ = ("text", "code")
    text: str
    code: int

    def __init__(self, text: str, code: int = 0) -> None:
        self.text = text
        self.code = code


def dumps(obj: object) -> str:
    """Every `--json`: UTF-8 as it is, two-space indent."""
    return json.dumps(obj, ensure_ascii=False, indent=2)


def choice_json(question: str, candidates: list[dict[str, object]]) -> str:
    """A choice (exit 4) under `--json`: the question and the candidates, each with what
    names it (`n`, `slug`) and what it says (`summary`)."""
    return dumps({"action": "choose", "question": question, "candidates": candidates})


def shown(text: str, limit: int = 80) -> str:
    """What the user typed, quoted for a message: a pasted 10 KB query is not echoed whole."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def cell(text: str) -> str:
    """Text for a markdown table cell: on one line, its `|` and backticks escaped."""
    text = " ".join(text.split())
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

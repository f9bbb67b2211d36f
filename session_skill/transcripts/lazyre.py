"""A regex compiled when first used: most of a module's import time is compiling patterns a
command may never need (the sweep's phrasing classes, the Goal's filters, the tool calls')."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from session_skill import recache


class Lazy:
    """`re.compile(source, flags)`, done at the first search, match, split, sub or
    finditer."""

    __slots__ = ("_source", "_flags", "_pattern", "_lowered")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags
        self._pattern: re.Pattern[str] | None = None
        self._lowered: re.Pattern[str] | None = None

    def _get(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = recache.compile(self._source, self._flags)
        return self._pattern

    def search(self, text: str) -> re.Match[str] | None:
        return self._get().search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self._get().match(text)

    def search_lowered(self, text: str, low: str) -> re.Match[str] | None:
        """`search(text)`, given `low`, its `str.lower()`: searched compiled without
        IGNORECASE, the same answer for a pattern with no upper-case letter of its own, and
        two to four times faster on a long alternation (the engine folds case at each step).
        Text that lowering makes longer ("İ") is searched as it is."""
        if len(low) != len(text):
            return self.search(text)
        return self._get_lowered().search(low)

    def match_lowered(self, text: str, low: str) -> re.Match[str] | None:
        """`match(text)`, given `low`, as `search_lowered`."""
        if len(low) != len(text):
            return self.match(text)
        return self._get_lowered().match(low)

    def finditer_lowered(self, text: str, low: str) -> Iterator[re.Match[str]]:
        """`finditer(text)`, given `low`, as `search_lowered`: the matches' places are
        those of `text` (lowering kept its length), their groups `low`'s."""
        if len(low) != len(text):
            return self.finditer(text)
        return self._get_lowered().finditer(low)

    def _get_lowered(self) -> re.Pattern[str]:
        if self._lowered is None:
            self._lowered = recache.compile(self._source, self._flags & ~re.IGNORECASE)
        return self._lowered

    def split(self, text: str) -> list[str]:
        return self._get().split(text)

    def sub(self, repl: str, text: str) -> str:
        return self._get().sub(repl, text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self._get().finditer(text)


def alternation(words: Iterable[str]) -> str:
    """A pattern matching any of `words` literally, factored by their shared prefixes:
    `still|stay|so far` becomes `s(?:t(?:ill|ay)|o\\ far)`. The engine then tries one
    branch at each position of the text instead of every word (three times faster on a
    list of forty). It finds a match wherever `a|b|c` of them would, at the same place
    (the longest word there, where `a|b|c` takes the first listed)."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def source(node: dict) -> str:  # type: ignore[type-arg]
        branches = [re.escape(ch) + source(node[ch]) for ch in sorted(node) if ch]
        if not branches:
            return ""
        body = "(?:" + "|".join(branches) + ")" if len(branches) > 1 else branches[0]
        if "" in node:  # a word ends here: what follows is optional
            return body + "?" if len(body) == 1 else f"(?:{body})?"
        return body

    return source(trie)

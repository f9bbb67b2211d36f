"""Code fences in Markdown, as the handover's sections and PARKED.md's items both read them.

A fence opens with ``` or ~~~ (a backtick fence's info string holds no backtick) and
closes with a line of the same character, at least as long, and nothing else. One regex
and no import beyond `re`: `park`, `drop` and `list` read PARKED.md on every call.
"""

from __future__ import annotations

import re

FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}(?=[^`]*$)|~{3,})")


def closes_fence(line: str, fence: str) -> bool:
    """Does `line` close the fence `fence` (its opening run) began?"""
    bare = line.strip(" \t\r\n")
    return bool(bare) and bare == fence[0] * len(bare) and len(bare) >= len(fence)

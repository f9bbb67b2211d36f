"""The corpus split, by repository: a test third that extraction is never tuned on.

The repositories are ordered by the SHA-256 of `SALT + "<owner/name>"` and taken in that
order into the test split while it holds at most `TEST_MAX` sessions. The rule (and its
salt) was fixed before any session was labelled; `tests/fidelity/test_split.py` pins the
result, so a change to it shows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from bench.fidelity.keys import Key

SALT = "session-skill-fidelity-split:"
TEST_MAX = 13  # a third of the corpus's 39 sessions


def split(sessions_by_repo: dict[str, list[str]]) -> dict[str, str]:
    """`{repo: "test" | "train"}` for the repositories given (each with its sessions)."""
    order = sorted(sessions_by_repo, key=lambda r: hashlib.sha256((SALT + r).encode()).hexdigest())
    result: dict[str, str] = {}
    taken = 0
    for repo in order:
        n = len(sessions_by_repo[repo])
        if taken + n <= TEST_MAX:
            result[repo] = "test"
            taken += n
        else:
            result[repo] = "train"
    return result


def split_of(keys: Iterable[Key]) -> dict[str, str]:
    """`split` for the repositories of these keys."""
    repos: dict[str, list[str]] = {}
    for k in keys:
        repos.setdefault(k.repo, []).append(k.file)
    return split(repos)

"""Slugs for handover docs and parked items (SPEC §5, §6)."""

from __future__ import annotations

import re
from datetime import datetime

from session_skill.errors import SessionError
from session_skill.store.paths import valid_slug

RESERVED = frozenset({"latest", "parked", "dropped"})
_BRANCH_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def slugify(text: str, max_length: int = 60) -> str:
    from slugify import slugify as _slugify

    return str(_slugify(text, max_length=max_length, word_boundary=True, lowercase=True))


def name_slug(name: str) -> str:
    """The slug for `dump NAME`; refuses names that could escape the store or mean nothing."""
    if "/" in name or "\\" in name or ".." in name:
        raise SessionError(f"refused name {name[:60]!r}: it may not contain '/', '\\' or '..'")
    if "\0" in name or "\n" in name or "\r" in name:
        raise SessionError("refused name: it may not contain control characters")
    slug = slugify(name)
    if not slug:
        raise SessionError(f"refused name {name[:60]!r}: it has no letters or digits to keep")
    if slug in RESERVED:
        raise SessionError(f"refused name {name[:60]!r}: {slug!r} is reserved")
    if not valid_slug(slug):
        raise SessionError(f"refused name {name[:60]!r}")
    return slug


def stamp(now: datetime) -> str:
    return now.strftime("%Y-%m-%dT%H-%M-%SZ")


def auto_slug(branch: str | None, now: datetime) -> str:
    """`<branch>-<UTC stamp>`; `detached-…` on a detached HEAD; `session-…` with no git."""
    if branch is None:
        base = "session"
    elif branch == "detached":
        base = "detached"
    else:
        base = _BRANCH_UNSAFE.sub("-", branch).strip("-._") or "session"
    base = base[:90]
    return f"{base}-{stamp(now)}"


def numbered(slug: str, n: int) -> str:
    """`slug`, `slug-2`, `slug-3`, … kept within the 120-char slug limit."""
    if n <= 1:
        return slug
    suffix = f"-{n}"
    return slug[: 120 - len(suffix)] + suffix


def item_slug(text: str) -> str:
    """A parked item's slug: the first few words, ≤ 40 chars."""
    words = re.sub(r"[*`_]", " ", text).split()[:6]
    slug = slugify(" ".join(words), max_length=40)
    return slug or "item"

"""park (SPEC §7.5): append an open-loop item to PARKED.md, never twice."""

from __future__ import annotations

import re
from datetime import datetime

from session_skill.commands.output import Output, dumps
from session_skill.errors import SessionError
from session_skill.store.parked import Item, Parked, bullet
from session_skill.store.store import Store, valid_slug

MAX_IDEA = 1000
# C0 controls and DEL that `fold` leaves in place (it turns whitespace ones into spaces).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")


def fold(text: str) -> str:
    return " ".join(text.split())


def park(store: Store, idea: str, *, as_json: bool, now: datetime) -> Output:
    text = fold(idea)
    if not text:
        raise SessionError("nothing to park: give the idea as text (or on stdin)")
    if len(text) > MAX_IDEA:
        raise SessionError(f"the idea is {len(text)} characters; {MAX_IDEA} is the most")
    if _CONTROL.search(text):
        # A NUL makes grep call PARKED.md binary; an escape sequence would run in the
        # terminal of whoever lists it. (Tabs and line breaks were folded into spaces.)
        raise SessionError("the idea contains control characters (NUL, escapes); not parked")
    from session_skill.store.parked import _SLUG
    from session_skill.store.slugs import item_slug

    explicit = _SLUG.match(text)
    if explicit and explicit.group(2).strip():
        slug, summary = explicit.group(1).strip(), explicit.group(2).strip()
        if not valid_slug(slug) or len(slug) > 60:
            slug = item_slug(slug)  # `**Foo Bar** —` keeps its words, as a real slug
    else:
        slug, summary = item_slug(text), text
    store.ensure()
    # Import the matcher before taking the lock: under load its import alone held the lock
    # for seconds while other sessions queued up to the lock timeout.
    from session_skill.matching import resolve as matching  # noqa: F401

    with store.lock():
        parked = store.read_parked()
        action = "Parked"
        same = parked.find_slug(slug)
        if same is not None and explicit:
            parked.replace(same, bullet(slug, summary, same.raised or now.date().isoformat()))
            action = "Updated"
        else:
            dup = _near_duplicate(parked, summary)
            if dup is not None:
                msg = f"Already parked as {dup.slug}"
                open_n = len(parked.items)
                return Output(
                    dumps({"action": "exists", "slug": dup.slug, "open": open_n})
                    if as_json
                    else f"{msg} ({open_n} open)"
                )
            slug = _free_slug(parked, slug)
            parked.append(bullet(slug, summary, now.date().isoformat()))
        store.write_parked(parked)
        n = len(parked.items)
    if as_json:
        return Output(dumps({"action": action.lower(), "slug": slug, "open": n}))
    return Output(f"{action}: {slug} ({n} open)")


def _near_duplicate(parked: Parked, summary: str) -> Item | None:
    if not parked.items:
        return None
    from session_skill.matching.resolve import Choice, best_duplicate

    choices = [Choice(it.slug, (it.summary,)) for it in parked.items]
    i = best_duplicate(summary, choices)
    return parked.items[i] if i is not None else None


def _free_slug(parked: Parked, slug: str) -> str:
    """Never let a derived slug shadow another item: add -2, -3…"""
    n, cand = 1, slug
    while parked.find_slug(cand) is not None:
        n += 1
        cand = f"{slug}-{n}"
    return cand

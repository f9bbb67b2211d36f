"""park (SPEC §7.5): append an open-loop item to PARKED.md, never twice."""

from __future__ import annotations

import re
from datetime import datetime

from session_skill.commands.output import Output, dumps
from session_skill.errors import SessionError
from session_skill.store.parked import (
    Item,
    Parked,
    bullet,
    join_parts,
    split_parts,
    strip_raised,
)
from session_skill.store.store import Store, valid_slug

MAX_IDEA = 1000
# C0 controls and DEL that `fold` leaves in place (it turns whitespace ones into spaces),
# the C1 controls (U+009B is an escape on some terminals), and the bidi embeddings,
# overrides and isolates that make text display in another order than it is stored.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A slug the idea gives itself, a dash after it: `**retry-backoff** — …` (SPEC §7.5). A bold
# label alone is the user's words, kept as typed ("**Note:** the retry loop swallows
# errors", "**Important** fix the cache"): read as a slug, a second idea under the same
# label replaced the first in place, and the first was lost.
_GIVEN_SLUG = re.compile(r"^\*\*([^*\n]{1,120})\*\*\s*(?:[—–]+|-+(?=\s))\s*(.*)$")
# What surrounds an item when a line is copied back from PARKED.md or `list`: a bullet
# marker, `list`'s number and its stale mark (these two only before a `**slug**`).
_COPIED = re.compile(
    r"^(?:[-*] (?:\[[ xX]\] )?)?(?:\d{1,9}\. (?=(?:⚠ stale )?\*\*))?(?:⚠ stale (?=\*\*))?"
)


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
        raise SessionError(
            "the idea contains control characters (NUL, escapes, bidi overrides); not parked"
        )
    # The tool owns `Raised:` (today for a new item, the old date for an update), and a
    # copied bullet or `list` line is the item it shows, not a new one holding its marks.
    text = fold(strip_raised(_COPIED.sub("", text, count=1))).rstrip()
    if not text:
        raise SessionError("nothing to park: give the idea as text (or on stdin)")
    from session_skill.store.slugs import item_slug

    explicit = _GIVEN_SLUG.match(text)
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
        kept: list[str] = []
        added: list[str] = []
        same = parked.find_slug(slug)
        if same is not None and explicit and len(parked.with_slug(slug)) > 1:
            _ask_which(store, parked, text, slug, as_json, now)
        if same is not None and explicit:
            summary, kept = _keep_parts(same.summary, summary)
            if summary.rstrip(" .") == same.summary:
                return _exists(same, len(parked.items), as_json)
            parked.replace(same, bullet(slug, summary, same.raised or now.date().isoformat()))
            action = "Updated"
        else:
            dup = _near_duplicate(parked, summary)
            if dup is not None:
                summary, added = _add_parts(dup.summary, summary)
                if not added:
                    return _exists(dup, len(parked.items), as_json)
                # The same idea, parked again with a reason or a next step: they are kept.
                slug, action = dup.slug, "Updated"
                parked.replace(dup, bullet(slug, summary, dup.raised or now.date().isoformat()))
            else:
                slug = _free_slug(parked, slug)
                parked.append(bullet(slug, summary, now.date().isoformat()))
        store.write_parked(parked)
        n = len(parked.items)
    if as_json:
        found = {"action": action.lower(), "slug": slug, "open": n, "kept": kept}
        return Output(dumps({**found, "added": added} if added else found))
    keeping = f", keeping its {' and '.join(k + ':' for k in kept)}" if kept else ""
    adding = f", adding its {' and '.join(k + ':' for k in added)}" if added else ""
    return Output(f"{action}: {slug} ({n} open){keeping}{adding}")


def _exists(item: Item, open_n: int, as_json: bool) -> Output:
    if as_json:
        return Output(dumps({"action": "exists", "slug": item.slug, "open": open_n, "kept": []}))
    return Output(f"Already parked as {item.slug} ({open_n} open)")


def _add_parts(old: str, new: str) -> tuple[str, list[str]]:
    """The parked text `old` with the `Why:` / `Next:` that `new`, the same idea parked
    again, says and `old` does not (a second reason joins the first: no words are lost);
    and the labels added to."""
    _idea, parts = split_parts(new)
    old_idea, merged = split_parts(old)
    added = []
    for key, value in parts.items():
        if value and value.lower() not in merged.get(key, "").lower():
            merged[key] = "; ".join(t for t in (merged.get(key, ""), value) if t)
            added.append(key)
    return (join_parts(old_idea, merged), added) if added else (old, [])


def _ask_which(
    store: Store, parked: Parked, idea: str, slug: str, as_json: bool, now: datetime
) -> None:
    """Two hand-written items share the slug an edit names: which one is the user's to say
    (exit 4, the items numbered as `drop` numbers them), and nothing is parked."""
    from session_skill import agent
    from session_skill.commands.listing import ask_among
    from session_skill.commands.output import shown

    same = parked.with_slug(slug)
    ask_among(
        store,
        parked.items,
        same,
        f"Which item did you mean to edit by {shown(idea)}?",
        f"'{slug}' is the slug of {len(same)} parked items; nothing parked",
        f"→ give the idea a slug of its own, or {agent.hint('drop #N')} one of these first",
        now,
        as_json=as_json,
    )


def _keep_parts(old: str, new: str) -> tuple[str, list[str]]:
    """The new text of an edited item, with the old `Why:` / `Next:` it does not replace.

    Returns the text and the labels kept from the old one.
    """
    idea, parts = split_parts(new)
    _old_idea, old_parts = split_parts(old)
    kept = [k for k in ("Why", "Next") if old_parts.get(k) and k not in parts]
    if not kept:
        return new, []
    return join_parts(idea, {**parts, **{k: old_parts[k] for k in kept}}), kept


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

"""drop (SPEC §7.6): close a parked item and log it; a wrong item is never dropped."""

from __future__ import annotations

from datetime import datetime

from session_skill import agent
from session_skill.commands.listing import item_line
from session_skill.commands.output import Output, dumps, shown
from session_skill.commands.park import fold
from session_skill.errors import ChoiceNeeded, SessionError
from session_skill.store.parked import Item, Parked
from session_skill.store.store import Store
from session_skill.times import format_time


def drop(store: Store, query: str, *, as_json: bool, now: datetime) -> Output:
    query = fold(query)
    if not query:
        raise SessionError("nothing to drop: name the item (its slug, words from it, or #N)")
    if not store.exists():
        raise SessionError("no parked items", stdout="No stored handovers, no parked items.")
    from session_skill.matching import resolve as matching  # noqa: F401  (imported before the lock, as in park)

    with store.lock():
        parked = store.read_parked()
        item, score = _resolve_item(parked, query, now)
        parked.remove(item)
        record = {
            "ts": format_time(now),
            "item": item.slug,
            "action": "dropped",
            "summary": item.summary,
            "raised": item.raised.isoformat() if item.raised else None,
            "query": query,
            "score": round(score, 1),
            "line": item.line,
        }
        # Log first: a drop killed between the two writes leaves the item logged and still
        # parked (dropping it again is harmless), never gone without a trace.
        store.log_dropped(record)
        store.write_parked(parked)
        n = len(parked.items)
    if as_json:
        return Output(dumps({"action": "dropped", "slug": item.slug, "open": n, "record": record}))
    return Output(f"Dropped: {item.slug} ({n} open)")


def _resolve_item(parked: Parked, query: str, now: datetime) -> tuple[Item, float]:
    items = parked.items
    if not items:
        raise SessionError("no parked items", stdout="No parked items.")
    if query.startswith("#") and query[1:].isdigit():
        n = int(query[1:])
        if 1 <= n <= len(items):
            return items[n - 1], 100.0
        raise SessionError(
            f"there is no item #{n} ({len(items)} open)", stdout=_parked_list(items, now)
        )
    exact = parked.find_slug(query.strip("*` "))
    if exact is not None:
        return exact, 100.0
    from session_skill.matching.resolve import Choice, resolve

    choices = [Choice(it.slug, (it.slug.replace("-", " "), it.summary)) for it in items]
    res = resolve(query, choices)
    if res.kind == "match" and res.index is not None:
        return items[res.index], res.score
    if res.kind == "ambiguous":
        lines = [f"Which item did you mean by {shown(query)}?"]
        for n, (i, _s) in enumerate(res.candidates, 1):
            lines.append(f"({chr(96 + n)}) **{items[i].slug}** — {items[i].summary[:120]}")
        lines.append(f"→ {agent.hint('drop <slug>')} (or #N from {agent.hint('list')})")
        raise ChoiceNeeded(
            f"{shown(query)} matches more than one parked item", stdout="\n".join(lines)
        )
    raise SessionError(f"no parked item matches {shown(query)}", stdout=_parked_list(items, now))


def _parked_list(items: list[Item], now: datetime) -> str:
    return "\n".join(
        [f"### Parked ({len(items)} open)"]
        + [item_line(n, it, now) for n, it in enumerate(items, 1)]
    )

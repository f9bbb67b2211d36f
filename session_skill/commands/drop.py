"""drop (SPEC §7.6): close parked items and log them; a wrong item is never dropped.

`#N` takes the numbers printed last (`store/numbers.py`), and `#2 #3` drops both items or
neither. After a drop the remaining items are printed again with their numbers.
"""

from __future__ import annotations

import re
from datetime import datetime

from session_skill import agent
from session_skill.commands.listing import ask_among, item_json, item_line, show_numbers, viewer
from session_skill.commands.output import Output, choice_json, dumps, shown, visible
from session_skill.commands.park import fold
from session_skill.errors import ChoiceNeeded, SessionError
from session_skill.store.numbers import Numbers, number
from session_skill.store.parked import Item, Parked
from session_skill.store.store import NUMBERS, Store
from session_skill.times import format_time

# The reprint after a drop: enough to pick the next one, not a 10,000-line PARKED.md.
REPRINT_MAX = 25
_NUMBER = re.compile(r"#(\d{1,9})")
_SEPARATORS = re.compile(r"[\s,]+")


def _not_parked() -> str:
    """What to do about an item that was never parked (one a handover left outstanding,
    say), in this client's skill form."""
    return (
        f"Not parked? `{agent.hint('sweep')}` lists it (an item a handover left outstanding, "
        "too), and `session-skill sweep --drop N` closes it."
    )


def drop(store: Store, query: str, *, as_json: bool, now: datetime) -> Output:
    query = fold(query)
    if not query:
        raise SessionError("nothing to drop: name the item (its slug, words from it, or #N)")
    if not store.exists():
        nothing = _listing([], [], now, as_json=as_json)
        raise SessionError(
            "no parked items", stdout=nothing or "No stored handovers, no parked items."
        )
    from session_skill.matching import resolve as matching  # noqa: F401  (imported before the lock, as in park)

    with store.lock():
        parked = store.read_parked()
        before = store.read_numbers()
        targets = _resolve_items(store, parked, query, now, before, as_json=as_json)
        # The numbers the items have now, recorded before any of them goes: without a
        # record they are their places in the file, and those shift when a line goes.
        if before is None or before.broken:
            before = number(parked.items, None, viewer(), fresh=True)[1]
        records = []
        note_lines = 0
        for item, score in targets:
            record: dict[str, object] = {
                "ts": format_time(now),
                "item": item.slug,
                "action": "dropped",
                "summary": item.summary,
                "raised": item.raised.isoformat() if item.raised else None,
                "query": query,
                "score": round(score, 1),
                "line": item.line,
            }
            notes = parked.notes(item)
            if notes:
                record["notes"] = notes  # the indented lines that go with it, verbatim
                note_lines += len(notes)
            records.append(record)
        # Log first: a drop killed between the two writes leaves the item logged and still
        # parked (dropping it again is harmless), never gone without a trace.
        for record in records:
            store.log_dropped(record)
        for item, _score in sorted(targets, key=lambda t: -t[0].line_no):
            parked.remove(item)  # bottom up: the lines above keep their places
        store.write_parked(parked)
        left = parked.items
        shown = range(min(len(left), REPRINT_MAX))
        pairs = show_numbers(store, left, fresh=False, shown=shown, before=before)
    slugs = [item.slug for item, _ in targets]
    if as_json:
        return Output(
            dumps(
                {
                    "action": "dropped",
                    "slug": slugs[0],
                    "open": len(left),
                    "record": records[0],
                    "dropped": records,
                    "parked": [item_json(n, it, now) for n, it in pairs],
                }
            )
        )
    head = f"Dropped: {visible(', '.join(slugs))} ({len(left)} open)"
    if note_lines:
        head += f", with {_count(note_lines, 'indented note line')} (logged in dropped.jsonl)"
    if not left:
        return Output(head)
    return Output("\n".join([head, "", *_numbered(pairs, len(left), now)]))


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _numbered(pairs: list[tuple[int, Item]], total: int, now: datetime) -> list[str]:
    lines = [f"### Parked ({total} open)"] + [item_line(n, it, now) for n, it in pairs]
    if total > len(pairs):
        lines.append(f"… and {total - len(pairs)} more: {agent.hint('list')}")
    numbers = [n for n, _ in pairs]
    if numbers != list(range(1, len(numbers) + 1)):
        lines.append(f"(numbers stay as shown until the next {agent.hint('list')})")
    return lines


def _resolve_items(
    store: Store,
    parked: Parked,
    query: str,
    now: datetime,
    record: Numbers | None,
    *,
    as_json: bool,
) -> list[tuple[Item, float]]:
    items = parked.items
    if not items:
        listed = _listing([], [], now, as_json=as_json) or f"No parked items.\n{_not_parked()}"
        raise SessionError("no parked items", stdout=listed)
    numbers = _numbers_in(query)
    if numbers is not None:
        return _by_numbers(store, items, numbers, now, record, as_json=as_json)
    exact = parked.with_slug(query.strip("*` "))
    if len(exact) == 1:
        return [(items[exact[0]], 100.0)]
    if exact:  # hand-written items whose text starts alike: the slug names none alone
        why = f"is the slug of {len(exact)} parked items; nothing dropped"
        _ask(store, items, exact, query, why, now, as_json=as_json)
    from session_skill.matching.resolve import Choice, resolve

    choices = [Choice(it.slug, (it.slug.replace("-", " "), it.summary)) for it in items]
    res = resolve(query, choices)
    if res.kind == "match" and res.index is not None:
        return [(items[res.index], res.score)]
    if res.kind == "ambiguous":
        indexes = [i for i, _s in res.candidates]
        one = len(indexes) == 1
        why = "is only a loose match" if one else "matches more than one parked item"
        _ask(store, items, indexes, query, why, now, as_json=as_json)
    pairs = show_numbers(store, items, fresh=False)
    listed = _listing(items, pairs, now, as_json=as_json)
    if not as_json:
        listed = f"{listed}\n\n{_not_parked()}"
    raise SessionError(f"no parked item matches {shown(query)}", stdout=listed)


def _ask(
    store: Store,
    items: list[Item],
    indexes: list[int],
    query: str,
    why: str,
    now: datetime,
    *,
    as_json: bool,
) -> None:
    """Stop with the candidates, numbered (the numbers recorded), and ask: exit 4."""
    question = (
        f"Is this the item you meant by {shown(query)}?"
        if len(indexes) == 1
        else f"Which item did you mean by {shown(query)}?"
    )
    message = f"{shown(query)} {why}"
    ask_among(store, items, indexes, question, message, _pick_hint(), now, as_json=as_json)


def _numbers_in(query: str) -> list[int] | None:
    """`#2`, `#2 #3`, `#2, #3 and #5`: the numbers, in order, once each; else None."""
    words = [w for w in _SEPARATORS.split(query) if w and w.lower() != "and"]
    found: list[int] = []
    for w in words:
        m = _NUMBER.fullmatch(w)
        if m is None:
            return None
        if int(m.group(1)) not in found:
            found.append(int(m.group(1)))
    return found or None


def _by_numbers(
    store: Store,
    items: list[Item],
    numbers: list[int],
    now: datetime,
    record: Numbers | None,
    *,
    as_json: bool,
) -> list[tuple[Item, float]]:
    """Every number's item, or a refusal before anything is dropped."""
    from session_skill.store.numbers import lookup

    session = viewer()
    found: list[tuple[Item, float]] = []
    for n in numbers:
        got = lookup(items, record, session, n)
        if got.status == "ok" and got.item is not None:
            found.append((got.item, 100.0))
            continue
        nothing = "nothing dropped" if len(numbers) > 1 else ""
        tail = f"; {nothing}" if nothing else ""
        # The list is printed again with the refusal, numbered as it is recorded now.
        pairs = show_numbers(store, items, fresh=got.status in ("session", "broken"))
        if got.status == "none":
            given = dict(pairs)
            if n not in given:
                listed = _listing(items, pairs, now, as_json=as_json)
                raise SessionError(
                    f"there is no item #{n} ({len(items)} open){tail}", stdout=listed
                )
            # An item parked since: the list just printed gives it #n.
            message = (
                f"#{n} was not shown before; it is {given[n].slug} now, as listed: "
                f"drop #{n} again to drop it; nothing dropped"
            )
        elif got.status in ("gone", "changed"):
            what = "is no longer parked" if got.status == "gone" else "was edited since"
            message = f"#{n} was {got.slug} when the list was shown, and it {what}; nothing dropped"
        else:
            why = (
                "were shown in another session"
                if got.status == "session"
                else f"last shown cannot be read ({store.dir / NUMBERS})"
            )
            message = f"the numbers {why}; nothing dropped — check them and pick again"
        raise ChoiceNeeded(
            message, stdout=_listing(items, pairs, now, as_json=as_json, question=message)
        )
    return found


def _pick_hint() -> str:
    return f"→ {agent.hint('drop #N')} with a number above, or {agent.hint('drop <slug>')}"


def _listing(
    items: list[Item],
    pairs: list[tuple[int, Item]],
    now: datetime,
    *,
    as_json: bool,
    question: str | None = None,
) -> str:
    """The open items printed with a refusal, numbered as recorded (`pairs`); under
    `--json` a choice when there is a `question` (exit 4), else what is open (exit 1).
    "" for markdown with nothing open: the caller says so its own way."""
    if as_json:
        parked = [item_json(n, it, now) for n, it in pairs]
        if question is not None:
            return choice_json(question, parked)
        return dumps({"action": "none", "open": len(items), "parked": parked})
    if not items:
        return ""
    lines = [f"### Parked ({len(items)} open)"] + [item_line(n, it, now) for n, it in pairs]
    return "\n".join([*lines, _pick_hint()])

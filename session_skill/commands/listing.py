"""list (SPEC §7.4): stored handovers and open parked items; expired handovers swept first."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path

from session_skill import agent
from session_skill.commands.output import Output, cell, choice_json, code, dumps, visible
from session_skill.errors import ChoiceNeeded, SessionError, StoreError
from session_skill.store.docs import DocInfo, all_docs
from session_skill.store.docs import info as docinfo
from session_skill.store.docs import parses as frontmatter_parses
from session_skill.store.parked import Item
from session_skill.store.store import Store
from session_skill.times import age, format_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from session_skill.store.numbers import Numbers

EXPIRE_DAYS = 30
STALE_DAYS = 14


def list_store(store: Store, *, as_json: bool, now: datetime) -> Output:
    swept: list[str] = []
    docs: list[DocInfo] = []
    items: list[Item] = []
    pairs: list[tuple[int, Item]] = []
    parked_error: str | None = None
    if store.exists():
        docs = all_docs(store, now)
        # Only a doc whose frontmatter parses as YAML is ever deleted (SPEC §3): a file
        # whose keys were read past a broken line (`created: [unclosed`) is listed, kept.
        expired = [
            d.slug
            for d in docs
            if now - d.when >= timedelta(days=EXPIRE_DAYS) and frontmatter_parses(d.path)
        ]
        if expired:

            def still_expired(path: Path) -> bool:
                fresh = docinfo(path, now)
                return (
                    fresh is not None
                    and now - fresh.when >= timedelta(days=EXPIRE_DAYS)
                    and frontmatter_parses(path)
                )

            swept = store.expire(expired, still_expired)
            docs = [d for d in docs if d.slug not in swept]
        try:
            items = store.read_parked().items
        except StoreError as exc:
            # The handovers are still worth listing; the problem is one line naming the file.
            parked_error = exc.message
        else:
            pairs = show_numbers(store, items, fresh=True)
    out = _render(swept, docs, pairs, parked_error, as_json=as_json, now=now)
    if parked_error is not None:
        raise SessionError(parked_error, stdout=out)
    return Output(out)


def _render(
    swept: list[str],
    docs: list[DocInfo],
    pairs: list[tuple[int, Item]],
    parked_error: str | None,
    *,
    as_json: bool,
    now: datetime,
) -> str:
    if as_json:
        return dumps(
            {
                "swept": swept,
                "handovers": [
                    {
                        "slug": d.slug,
                        "created": format_time(d.when),
                        "age": age((now - d.when).total_seconds()),
                        "branch": d.branch or None,
                        "consumed": d.consumed,
                        "stale": now - d.when >= timedelta(days=STALE_DAYS),
                    }
                    for d in docs
                ],
                "parked": [item_json(n, it, now) for n, it in pairs],
                "parked_error": parked_error,
            }
        )
    out: list[str] = []
    if swept:
        out += [
            f"Swept {len(swept)} expired handover{'s' if len(swept) > 1 else ''}: "
            + ", ".join(swept),
            "",
        ]
    if not docs and not pairs and parked_error is None:
        out.append("No stored handovers, no parked items.")
        return "\n".join(out)
    out += [f"## Session store — {now.date().isoformat()}", ""]
    if docs:
        out.append(handover_table(docs, now))
        out.append("")
    if parked_error is None:
        out.append(f"### Parked ({len(pairs)} open)")
        out += [item_line(n, it, now) for n, it in pairs] or ["(none)"]
        out.append("")
    out.append(f"→ {agent.hint('recall <slug>')} to print a handover back into context")
    if parked_error is None:
        out.append(f"→ {agent.hint('drop <item>')} to close a parked item")
    return "\n".join(out)


def viewer(env: Mapping[str, str] | None = None) -> str:
    """The session reading the numbers (Claude Code, Codex); "" when unknown."""
    env = os.environ if env is None else env
    return env.get("CLAUDE_CODE_SESSION_ID") or env.get("CODEX_THREAD_ID") or ""


def show_numbers(
    store: Store,
    items: list[Item],
    *,
    fresh: bool,
    shown: Iterable[int] | None = None,
    before: Numbers | None = None,
) -> list[tuple[int, Item]]:
    """Number the items about to be printed (`store/numbers.py`) and record the numbers.

    `fresh` is `list`'s 1 to N; otherwise the numbers already shown are kept (`before`:
    the record as it was before this command changed the items, else the stored one).
    Every numbered output records what it shows, a `list` of an untouched store too: a
    hand edit can move the items after they were printed. With no record yet every item
    is recorded at its place in the file, the number `#N` took until then. When the
    record cannot be written (and so is removed), the numbers are file order: what `#N`
    then takes.
    """
    from session_skill.store.numbers import number

    picked = range(len(items)) if shown is None else sorted(set(shown))
    stored = store.read_numbers() if before is None else before
    if stored is None and not items:
        return []  # nothing shown, nothing to record
    if stored is None:
        pairs, new = number(items, None, viewer(), fresh=True)
        pairs = [pairs[i] for i in picked]
    else:
        old = None if fresh else stored
        pairs, new = number(items, old, viewer(), fresh=fresh, shown=picked)
    if store.write_numbers(new):
        return pairs
    return [(i + 1, items[i]) for i in picked]


def handover_table(docs: list[DocInfo], now: datetime | None) -> str:
    if not docs:
        return "No stored handovers."
    from session_skill.times import utcnow

    now = now or utcnow()
    rows = ["### Handovers", "| Slug | Age | Branch | Consumed |", "| --- | --- | --- | --- |"]
    for d in docs:
        stale = now - d.when >= timedelta(days=STALE_DAYS)
        label = code(f"⚠ stale {d.slug}" if stale else d.slug)
        rows.append(
            f"| {label} | {age((now - d.when).total_seconds())}"
            f"{' (created in the future)' if d.future else ''} | {cell(d.branch) or '—'} | "
            f"{'yes' if d.consumed else 'no'} |"
        )
    return "\n".join(rows)


def _stale(it: Item, now: datetime) -> bool:
    return it.raised is not None and (now.date() - it.raised).days >= STALE_DAYS


def item_line(n: int, it: Item, now: datetime) -> str:
    return f"{n}. {'⚠ stale ' if _stale(it, now) else ''}{visible(it.display)}"


def ask_among(
    store: Store,
    items: list[Item],
    indexes: list[int],
    question: str,
    message: str,
    hint: str,
    now: datetime,
    *,
    as_json: bool,
) -> None:
    """Stop with the items at `indexes`, numbered as `list` and `drop` number them (the
    numbers recorded), under `question` and in the order given: exit 4 with `message`,
    `hint` the last line."""
    pairs = show_numbers(store, items, fresh=False, shown=indexes)
    number_of = dict(zip(sorted(set(indexes)), (n for n, _ in pairs), strict=True))
    if as_json:
        found = [item_json(number_of[i], items[i], now) for i in indexes]
        raise ChoiceNeeded(message, stdout=choice_json(question, found))
    lines = [
        f"{number_of[i]}. **{visible(items[i].slug)}** — {visible(items[i].summary[:120])}"
        for i in indexes
    ]
    raise ChoiceNeeded(message, stdout="\n".join([question, *lines, hint]))


def item_json(n: int, it: Item, now: datetime) -> dict[str, object]:
    return {
        "n": n,
        "slug": it.slug,
        "summary": it.summary,
        "raised": it.raised.isoformat() if it.raised else None,
        "stale": _stale(it, now),
        "line": it.line,
    }

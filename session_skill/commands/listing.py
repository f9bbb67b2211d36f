"""list (SPEC §7.4): stored handovers and open parked items; expired handovers swept first."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from session_skill import agent
from session_skill.commands.output import Output, dumps
from session_skill.store.docs import DocInfo, all_docs
from session_skill.store.docs import info as docinfo
from session_skill.store.parked import Item
from session_skill.store.store import Store
from session_skill.times import age, format_time

EXPIRE_DAYS = 30
STALE_DAYS = 14


def list_store(store: Store, *, as_json: bool, now: datetime) -> Output:
    swept: list[str] = []
    docs: list[DocInfo] = []
    items: list[Item] = []
    if store.exists():
        docs = all_docs(store, now)
        expired = [d.slug for d in docs if now - d.when >= timedelta(days=EXPIRE_DAYS)]
        if expired:

            def still_expired(path: Path) -> bool:
                fresh = docinfo(path, now)
                return fresh is not None and now - fresh.when >= timedelta(days=EXPIRE_DAYS)

            swept = store.expire(expired, still_expired)
            docs = [d for d in docs if d.slug not in swept]
        items = store.read_parked().items
    if as_json:
        return Output(
            dumps(
                {
                    "swept": swept,
                    "handovers": [
                        {
                            "slug": d.slug,
                            "created": format_time(d.when),
                            "age": age((now - d.when).total_seconds()),
                            "branch": d.branch,
                            "consumed": d.consumed,
                            "stale": now - d.when >= timedelta(days=STALE_DAYS),
                        }
                        for d in docs
                    ],
                    "parked": [_item_json(n, it, now) for n, it in enumerate(items, 1)],
                }
            )
        )
    out: list[str] = []
    if swept:
        out += [
            f"Swept {len(swept)} expired handover{'s' if len(swept) > 1 else ''}: "
            + ", ".join(swept),
            "",
        ]
    if not docs and not items:
        out.append("No stored handovers, no parked items.")
        return Output("\n".join(out))
    out += [f"## Session store — {now.date().isoformat()}", ""]
    if docs:
        out.append(handover_table(docs, now))
        out.append("")
    out.append(f"### Parked ({len(items)} open)")
    out += [item_line(n, it, now) for n, it in enumerate(items, 1)] or ["(none)"]
    out += [
        "",
        f"→ {agent.hint('recall <slug>')} to print a handover back into context",
        f"→ {agent.hint('drop <item>')} to close a parked item",
    ]
    return Output("\n".join(out))


def handover_table(docs: list[DocInfo], now: datetime | None) -> str:
    if not docs:
        return "No stored handovers."
    from session_skill.times import utcnow

    now = now or utcnow()
    rows = ["### Handovers", "| Slug | Age | Branch | Consumed |", "| --- | --- | --- | --- |"]
    for d in docs:
        stale = now - d.when >= timedelta(days=STALE_DAYS)
        label = f"`⚠ stale {d.slug}`" if stale else f"`{d.slug}`"
        rows.append(
            f"| {label} | {age((now - d.when).total_seconds())}"
            f"{' (created in the future)' if d.future else ''} | {d.branch or '—'} | "
            f"{'yes' if d.consumed else 'no'} |"
        )
    return "\n".join(rows)


def _stale(it: Item, now: datetime) -> bool:
    return it.raised is not None and (now.date() - it.raised).days >= STALE_DAYS


def item_line(n: int, it: Item, now: datetime) -> str:
    return f"{n}. {'⚠ stale ' if _stale(it, now) else ''}{it.display}"


def _item_json(n: int, it: Item, now: datetime) -> dict[str, object]:
    return {
        "n": n,
        "slug": it.slug,
        "summary": it.summary,
        "raised": it.raised.isoformat() if it.raised else None,
        "stale": _stale(it, now),
        "line": it.line,
    }

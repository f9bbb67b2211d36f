"""recall, list, park and drop (SPEC §7.3–§7.6): plain functions returning their output."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta

from session_skill.errors import ChoiceNeeded, SessionError
from session_skill.handover import frontmatter
from session_skill.handover.doc import format_time, parse_doc
from session_skill.records import Record
from session_skill.store import fileio
from session_skill.store.docs import DocInfo, all_docs, banner_line
from session_skill.store.docs import info as docinfo
from session_skill.store.parked import Item, Parked, bullet
from session_skill.store.store import DROPPED, PARKED, Store, valid_slug
from session_skill.times import age

EXPIRE_DAYS = 30
STALE_DAYS = 14
MAX_IDEA = 1000
# C0 controls and DEL that `fold` leaves in place (it turns whitespace ones into spaces).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
NO_PENDING = "No pending handover. → /session list"


class Output(Record):
    __slots__ = ("text", "code")
    text: str
    code: int

    def __init__(self, text: str, code: int = 0) -> None:
        self.text = text
        self.code = code


def _dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2)


# -- recall -------------------------------------------------------------------
def recall(store: Store, name: str | None, *, peek: bool, as_json: bool, now: datetime) -> Output:
    if not name and not store.exists():
        return Output(_dumps({"pending": False}) if as_json else NO_PENDING)
    if not name:
        with store.lock():
            slug = store.read_latest()
            if slug is None:
                return Output(_dumps({"pending": False}) if as_json else NO_PENDING)
            if docinfo(store.doc_path(slug)) is None:  # gone, or not a handover doc
                store.write_latest(None)
                return Output(_dumps({"pending": False}) if as_json else NO_PENDING)
        target = slug
    else:
        target = _resolve_doc(store, name)
    return _print_doc(store, target, peek=peek, as_json=as_json, now=now)


def _resolve_doc(store: Store, name: str) -> str:
    from session_skill.store.slugs import slugify

    docs = all_docs(store)
    by_slug = {d.slug: d for d in docs}
    if name in by_slug:
        return name
    key = slugify(name)
    if key in by_slug:
        return key
    prefixed = [d for d in docs if key and d.slug.startswith(key + "-")]
    if prefixed:
        return prefixed[0].slug  # newest first
    from session_skill.matching.resolve import Choice, resolve

    choices = [Choice(d.slug, (d.slug.replace("-", " "), _goal_line(d))) for d in docs]
    res = resolve(name, choices)
    if res.kind == "match" and res.index is not None:
        return docs[res.index].slug
    if res.kind == "ambiguous":
        lines = [f"Several handovers match {_shown(name)}:"]
        for n, (i, _score) in enumerate(res.candidates, 1):
            lines.append(f"{n}. `{docs[i].slug}` — {_goal_line(docs[i])[:100]}")
        lines.append("→ /session recall <slug>")
        raise ChoiceNeeded(f"{_shown(name)} matches several handovers", stdout="\n".join(lines))
    raise SessionError(f"no handover matches {_shown(name)}", stdout=_handover_table(docs, None))


def _goal_line(d: DocInfo) -> str:
    from session_skill.handover.doc import section_content

    try:
        text = fileio.read_text(d.path)
    except (OSError, SessionError):
        return ""
    doc = parse_doc(text)
    goal = section_content(doc.body, "Goal") if doc else ""
    return goal.splitlines()[0] if goal else ""


def _print_doc(store: Store, slug: str, *, peek: bool, as_json: bool, now: datetime) -> Output:
    from session_skill.git import info as gitinfo

    path = store.doc_path(slug)
    try:
        text = fileio.read_text(path)
    except FileNotFoundError:
        raise SessionError(f"handover {slug} no longer exists") from None
    doc = parse_doc(text)
    if doc is None:
        raise SessionError(f"{path} is not a handover doc (no frontmatter)")
    d = DocInfo(slug, path, doc.meta, doc.created, os.stat(path).st_mtime)
    lines = [banner_line(d, now)]
    branch_now, commit_now = gitinfo.head_info(store.root)
    was_b, was_c = doc.meta.get("branch", ""), doc.meta.get("commit", "")
    drift = (was_b and branch_now and was_b != branch_now) or (
        was_c
        and commit_now
        and not commit_now.startswith(was_c)
        and not was_c.startswith(commit_now)
    )
    if drift:
        lines.append(
            f"Repository was: {was_b or '?'} · {was_c or '?'}; now: {branch_now or '?'} · "
            f"{commit_now or '?'}"
        )
    consumed = False
    if not peek:
        consumed = _consume(store, slug, now)
    if as_json:
        return Output(
            _dumps(
                {
                    "pending": True,
                    "slug": slug,
                    "path": str(path),
                    "meta": doc.meta,
                    "body": doc.body,
                    "drift": bool(drift),
                    "consumed_now": consumed,
                }
            )
        )
    return Output("\n".join(lines) + "\n\n" + doc.body.rstrip("\r\n"))


def _consume(store: Store, slug: str, now: datetime) -> bool:
    with store.lock():
        path = store.doc_path(slug)
        try:
            text = fileio.read_text(path)
        except FileNotFoundError:
            return False
        flipped = frontmatter.flip_consumed(text, "recall", format_time(now))
        if flipped is not None:
            store.write(path.name, flipped)
        if store.read_latest() == slug:
            store.write_latest(None)
        return flipped is not None


# -- list ---------------------------------------------------------------------
def list_store(store: Store, *, as_json: bool, now: datetime) -> Output:
    swept: list[str] = []
    docs: list[DocInfo] = []
    items: list[Item] = []
    if store.exists():
        docs = all_docs(store)
        expired = [d for d in docs if now - d.when >= timedelta(days=EXPIRE_DAYS)]
        if expired:
            with store.lock():
                latest = store.read_latest()
                for d in expired:
                    # Re-read under the lock: another process may have replaced it since.
                    fresh = docinfo(d.path)
                    if fresh is None or now - fresh.when < timedelta(days=EXPIRE_DAYS):
                        continue
                    try:
                        os.unlink(d.path)
                        swept.append(d.slug)
                    except OSError:
                        pass
                if latest in swept:
                    store.write_latest(None)
            docs = [d for d in docs if d.slug not in swept]
        items = _read_parked(store).items
    if as_json:
        return Output(
            _dumps(
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
        out.append(_handover_table(docs, now))
        out.append("")
    out.append(f"### Parked ({len(items)} open)")
    out += [_item_line(n, it, now) for n, it in enumerate(items, 1)] or ["(none)"]
    out += [
        "",
        "→ /session recall <slug> to print a handover back into context",
        "→ /session drop <item> to close a parked item",
    ]
    return Output("\n".join(out))


def _handover_table(docs: list[DocInfo], now: datetime | None) -> str:
    if not docs:
        return "No stored handovers."
    from session_skill.times import utcnow

    now = now or utcnow()
    rows = ["### Handovers", "| Slug | Age | Branch | Consumed |", "| --- | --- | --- | --- |"]
    for d in docs:
        stale = now - d.when >= timedelta(days=STALE_DAYS)
        label = f"`⚠ stale {d.slug}`" if stale else f"`{d.slug}`"
        rows.append(
            f"| {label} | {age((now - d.when).total_seconds())} | {d.branch or '—'} | "
            f"{'yes' if d.consumed else 'no'} |"
        )
    return "\n".join(rows)


def _stale(it: Item, now: datetime) -> bool:
    return it.raised is not None and (now.date() - it.raised).days >= STALE_DAYS


def _item_line(n: int, it: Item, now: datetime) -> str:
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


def _read_parked(store: Store) -> Parked:
    return Parked(store.read(PARKED) or "")


# -- park ---------------------------------------------------------------------
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
        parked = _read_parked(store)
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
                    _dumps({"action": "exists", "slug": dup.slug, "open": open_n})
                    if as_json
                    else f"{msg} ({open_n} open)"
                )
            slug = _free_slug(parked, slug)
            parked.append(bullet(slug, summary, now.date().isoformat()))
        store.write(PARKED, parked.render())
        n = len(parked.items)
    if as_json:
        return Output(_dumps({"action": action.lower(), "slug": slug, "open": n}))
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


# -- drop ---------------------------------------------------------------------
def drop(store: Store, query: str, *, as_json: bool, now: datetime) -> Output:
    query = fold(query)
    if not query:
        raise SessionError("nothing to drop: name the item (its slug, words from it, or #N)")
    if not store.exists():
        raise SessionError("no parked items", stdout="No stored handovers, no parked items.")
    from session_skill.matching import resolve as matching  # noqa: F401  (imported before the lock, as in park)

    with store.lock():
        parked = _read_parked(store)
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
        fileio.append_line(store.path(DROPPED), json.dumps(record, ensure_ascii=False))
        store.write(PARKED, parked.render())
        n = len(parked.items)
    if as_json:
        return Output(_dumps({"action": "dropped", "slug": item.slug, "open": n, "record": record}))
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
        lines = [f"Which item did you mean by {_shown(query)}?"]
        for n, (i, _s) in enumerate(res.candidates, 1):
            lines.append(f"({chr(96 + n)}) **{items[i].slug}** — {items[i].summary[:120]}")
        lines.append("→ /session drop <slug> (or #N from /session list)")
        raise ChoiceNeeded(
            f"{_shown(query)} matches more than one parked item", stdout="\n".join(lines)
        )
    raise SessionError(f"no parked item matches {_shown(query)}", stdout=_parked_list(items, now))


def _shown(text: str, limit: int = 80) -> str:
    """What the user typed, quoted for a message: a pasted 10 KB query is not echoed whole."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _parked_list(items: list[Item], now: datetime) -> str:
    return "\n".join(
        [f"### Parked ({len(items)} open)"]
        + [_item_line(n, it, now) for n, it in enumerate(items, 1)]
    )

"""recall (SPEC §7.3): print a stored handover into context, consuming it once."""

from __future__ import annotations

import os
import re
from datetime import datetime

from session_skill import agent
from session_skill.commands.history import goal_line
from session_skill.commands.listing import handover_table
from session_skill.commands.output import Output, choice_json, code, dumps, shown, visible
from session_skill.errors import ChoiceNeeded, SessionError
from session_skill.handover.doc import parse_doc
from session_skill.store import fileio
from session_skill.store.docs import DocInfo, all_docs, banner_line
from session_skill.store.docs import info as docinfo
from session_skill.store.store import Store
from session_skill.times import format_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from session_skill.matching.fulltext import Hit


def no_pending() -> str:
    return f"No pending handover. → {agent.hint('list')}"


def recall(store: Store, name: str | None, *, peek: bool, as_json: bool, now: datetime) -> Output:
    if not name and not store.exists():
        return Output(dumps({"pending": False}) if as_json else no_pending())
    if not name:
        # Read without the writer lock (LATEST is replaced whole, never written in place):
        # nothing pending, or a peek, needs no write, and a read-only store still answers.
        slug = store.read_latest()
        if slug is None:
            return Output(dumps({"pending": False}) if as_json else no_pending())
        if docinfo(store.doc_path(slug)) is None:  # gone, or not a handover doc
            _blank_latest(store, slug)
            return Output(dumps({"pending": False}) if as_json else no_pending())
        target = slug
    else:
        target = _resolve_doc(store, name, as_json=as_json, now=now)
    return _print_doc(store, target, peek=peek, as_json=as_json, now=now)


def _blank_latest(store: Store, slug: str) -> None:
    """Blank a LATEST naming no doc, re-read under the lock (a dump may have just pointed
    it elsewhere). Tidying only: a store that cannot be written keeps it, and every reader
    checks the doc it names."""
    try:
        with store.lock():
            if store.read_latest() == slug and docinfo(store.doc_path(slug)) is None:
                store.write_latest(None)
    except (SessionError, OSError):
        pass


def _resolve_doc(store: Store, name: str, *, as_json: bool, now: datetime) -> str:
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

    goal_of = {d.slug: goal_line(d) for d in docs}  # each doc read once, whatever follows
    choices = [Choice(d.slug, (d.slug.replace("-", " "), goal_of[d.slug])) for d in docs]
    res = resolve(name, choices)
    if res.kind == "match" and res.index is not None:
        return docs[res.index].slug
    # No one slug or Goal: what the bodies say weighs in, as `search` ranks them. A doc
    # holding every word beats Goals that hold one of them.
    from session_skill.commands.search import MAX_CANDIDATES, recall_by_content

    clear, close = recall_by_content(store, name)
    if clear is not None:
        return clear
    if res.kind == "ambiguous":
        # The docs whose bodies come close first, in search's order, then the slug and
        # Goal matches.
        slugs = [h.slug for h in close] + [docs[i].slug for i, _score in res.candidates]
        picked = [by_slug[s] for s in dict.fromkeys(slugs) if s in by_slug][:MAX_CANDIDATES]
        _ask_by_goal(name, picked, goal_of, as_json=as_json)
    if close:
        _ask_by_body(name, close, by_slug, goal_of, as_json=as_json, now=now)
    listed = (
        dumps({"handovers": [_candidate(None, d, goal_of[d.slug]) for d in docs]})
        if as_json
        else handover_table(docs, None)
    )
    raise SessionError(f"no handover matches {shown(name)}", stdout=listed)


def _ask_by_goal(
    name: str, picked: list[DocInfo], goal_of: dict[str, str], *, as_json: bool
) -> None:
    """Stop with the handovers to choose from, by slug and Goal (exit 4). One loose
    candidate is still a question, asked as one: recalling consumes the doc."""
    one = len(picked) == 1
    question = (
        f"One handover is close to {shown(name)}; is it this one?"
        if one
        else f"Several handovers match {shown(name)}:"
    )
    rows = [(n, d, goal_of[d.slug]) for n, d in enumerate(picked, 1)]
    lines = [question] + [f"{n}. {code(d.slug)} — {visible(goal[:100])}" for n, d, goal in rows]
    lines.append(f"→ {agent.hint('recall ' + (picked[0].slug if one else '<slug>'))}")
    why = "is only a loose match for one handover" if one else "matches several handovers"
    found = [_candidate(n, d, goal) for n, d, goal in rows]
    out = choice_json(question, found) if as_json else "\n".join(lines)
    raise ChoiceNeeded(f"{shown(name)} {why}", stdout=out)


def _ask_by_body(
    name: str,
    close: list[Hit],
    by_slug: dict[str, DocInfo],
    goal_of: dict[str, str],
    *,
    as_json: bool,
    now: datetime,
) -> None:
    """Stop with the handovers whose bodies say the words, each with its best line (exit 4)."""
    from session_skill.commands.search import hit_rows

    many = len(close) > 1
    question = f"{'These handovers mention' if many else 'This handover mentions'} {shown(name)}:"
    lines = [question]
    for n, (head, line) in enumerate(hit_rows(close, now), 1):
        lines += [f"{n}. {head}"] + ([f"   {line}"] if line else [])
    lines.append(f"→ {agent.hint('recall <slug>')}")
    found = [
        _candidate(n, by_slug[h.slug], h.line or goal_of[h.slug])
        for n, h in enumerate(close, 1)
        if h.slug in by_slug
    ]
    out = choice_json(question, found) if as_json else "\n".join(lines)
    why = f"could mean {len(close)} handover{'s' if many else ''}"
    raise ChoiceNeeded(f"{shown(name)} {why}", stdout=out)


def _candidate(n: int | None, d: DocInfo, summary: str) -> dict[str, object]:
    """A handover to choose from, as `--json` gives it."""
    out: dict[str, object] = {} if n is None else {"n": n}
    out.update(
        slug=d.slug,
        summary=summary,
        created=format_time(d.when),
        branch=d.branch or None,
        consumed=d.consumed,
    )
    return out


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
        consumed = store.consume(slug, "recall", format_time(now), session=_this_session())
    if as_json:
        return Output(
            dumps(
                {
                    "pending": True,
                    "slug": slug,
                    "path": str(path),
                    "meta": typed_meta(doc.meta),
                    "body": doc.body,
                    "drift": bool(drift),
                    "consumed_now": consumed,
                }
            )
        )
    return Output("\n".join(lines) + "\n\n" + doc.body.rstrip("\r\n"))


# Frontmatter is read as strings; `--json` gives each known field its type, as `list
# --json` and `dump --json` do. Unknown keys stay the strings they were written as.
_BOOLEANS = frozenset({"consumed", "over_cap"})
_INTEGERS = frozenset({"dirty", "tokens"})
_INTEGER = re.compile(r"-?[0-9]{1,18}")


def typed_meta(meta: dict[str, str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in meta.items():
        low = value.strip().lower()
        if key in _BOOLEANS and low in ("true", "false"):
            out[key] = low == "true"
        elif key in _INTEGERS and _INTEGER.fullmatch(low):
            out[key] = int(low)
        else:
            out[key] = value
    return out


def _this_session() -> str | None:
    """The session `recall` runs in, as the client tells its tool calls (Claude Code's
    CLAUDE_CODE_SESSION_ID, Codex's CODEX_THREAD_ID): a compaction there gives the handover
    back (SPEC §8.2)."""
    for key in ("CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"):
        value = os.environ.get(key, "").strip()
        if value and "\n" not in value and len(value) <= 128:
            return value
    return None

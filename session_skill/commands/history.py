"""history (issue 15): a branch's handovers as a story — the `follows` chain, newest first.

Each dump links the previous handover of its branch (`follows`, SPEC §4.1). `history`
starts at a handover (SLUG), or at the newest one of a branch (`--branch`, else the branch
checked out now) and walks those links back. A link to a doc that is gone (expired after
30 days, dropped by hand) ends the story, and the output says where.
"""

from __future__ import annotations

from session_skill import agent
from session_skill.commands.output import Output, dumps, shown, visible
from session_skill.errors import SessionError, UsageError
from session_skill.store.docs import DocInfo, all_docs
from session_skill.store.paths import valid_slug

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from session_skill.store.store import Store


def history(
    store: Store, slug: str | None, *, branch: str | None, as_json: bool, now: datetime
) -> Output:
    if slug and branch:
        raise UsageError("history takes a SLUG or --branch, not both")
    docs = all_docs(store) if store.exists() else []
    if not docs:
        raise SessionError("no stored handovers")
    start = _named(slug, docs) if slug else _newest_of(branch, docs, store)
    chain, broken = _chain(start, {d.slug: d for d in docs})
    linked = {d.slug for d in chain}
    unlinked = 0 if slug else sum(1 for d in docs if d.branch == start.branch) - len(chain)
    if as_json:
        return Output(
            dumps(
                {
                    "branch": start.branch or None,
                    "start": start.slug,
                    "handovers": [_row_json(d, now) for d in chain],
                    "broken_link": broken,
                    "unlinked": max(0, unlinked),
                }
            )
        )
    where = visible(start.branch) or "no branch"
    count = f"{len(chain)} handover{'s' if len(chain) != 1 else ''}"
    title = f"## History of `{start.slug}` — {where}" if slug else f"## History — {where}"
    out = [f"{title}: {count}, newest first"]
    for n, d in enumerate(chain, 1):
        out.append(f"{n}. {_row(d, now)}")
    if broken:
        out.append(f"(`{chain[-1].slug}` follows `{broken}`, which is no longer stored.)")
    if unlinked > 0:
        others = [d.slug for d in docs if d.branch == start.branch and d.slug not in linked]
        out.append(
            f"Not linked into this chain: {', '.join(f'`{s}`' for s in others[:5])}"
            + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        )
    out += ["", f"→ {agent.hint('recall <slug>')} to print one back into context"]
    return Output("\n".join(out))


def _named(name: str, docs: list[DocInfo]) -> DocInfo:
    """The doc named: its slug exactly, else the newest whose slug starts with it."""
    from session_skill.commands.listing import handover_table
    from session_skill.store.slugs import slugify

    by_slug = {d.slug: d for d in docs}
    key = slugify(name)
    found = by_slug.get(name) or by_slug.get(key)
    if found is None and key:
        found = next((d for d in docs if d.slug.startswith(key + "-")), None)  # newest first
    if found is None:
        raise SessionError(f"no handover named {shown(name)}", stdout=handover_table(docs, None))
    return found


def _newest_of(branch: str | None, docs: list[DocInfo], store: Store) -> DocInfo:
    from session_skill.git.head import current_branch

    wanted = branch if branch is not None else current_branch(store.root)
    if wanted is None:  # not a git checkout: the newest doc's story
        return docs[0]
    mine = [d for d in docs if d.branch == wanted]
    # The story's head: the newest that no other handover of the branch follows — not a
    # doc rewritten with `dump NAME --replace`, newer now, which keeps its place in the
    # chain (the story began and ended there, the rest "not linked").
    followed = {d.meta.get("follows", "").strip().strip("'\"") for d in mine}
    found = next((d for d in mine if d.slug not in followed), mine[0] if mine else None)
    if found is None:
        counts: dict[str, int] = {}
        for d in docs:
            counts[d.branch or "no branch"] = counts.get(d.branch or "no branch", 0) + 1
        listed = visible(", ".join(f"{b} ({n})" for b, n in sorted(counts.items())))
        raise SessionError(
            f"no handover of branch {shown(wanted)}", stdout=f"Branches with handovers: {listed}"
        )
    return found


def _chain(start: DocInfo, by_slug: dict[str, DocInfo]) -> tuple[list[DocInfo], str | None]:
    """`start` and the docs it follows, newest first; and the link that led nowhere."""
    chain = [start]
    seen = {start.slug}
    while True:
        prev = chain[-1].meta.get("follows", "").strip().strip("'\"")
        if not prev or prev in seen:  # the end, or a loop a hand edit made
            return chain, None
        doc = by_slug.get(prev) if valid_slug(prev) else None
        if doc is None:
            return chain, prev
        chain.append(doc)
        seen.add(prev)


def goal_line(d: DocInfo) -> str:
    """The first line of the doc's `## Goal` ("" when it has none or cannot be read)."""
    from session_skill.handover.doc import parse_doc, section_content
    from session_skill.store import fileio

    try:
        doc = parse_doc(fileio.read_text(d.path))
    except (OSError, SessionError):
        return ""
    goal = section_content(doc.body, "Goal") if doc else ""
    return goal.splitlines()[0].strip() if goal else ""


def _row(d: DocInfo, now: datetime) -> str:
    from session_skill.times import age

    consumed = "consumed" if d.consumed else "not consumed"
    goal = goal_line(d)
    when = age((now - d.when).total_seconds())
    return f"`{d.slug}` · {when} · {consumed}" + (f" — {visible(goal[:160])}" if goal else "")


def _row_json(d: DocInfo, now: datetime) -> dict[str, object]:
    from session_skill.times import age, format_time

    seconds = max(0, int((now - d.when).total_seconds()))
    return {
        "slug": d.slug,
        "created": format_time(d.when),
        "age": age(seconds),
        "age_seconds": seconds,
        "branch": d.branch or None,
        "consumed": d.consumed,
        "goal": goal_line(d),
        "follows": d.meta.get("follows") or None,
    }

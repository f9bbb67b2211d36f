"""search (issue 15): every stored handover, consumed ones included, ranked by what it says.

The ranking is `matching.fulltext`'s; this module prints it, and gives `recall WORDS…` what
the bodies say: the one handover that clearly says the words, or the few that might.
"""

from __future__ import annotations

from session_skill import agent
from session_skill.commands.output import Output, dumps, shown, visible
from session_skill.errors import SessionError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from session_skill.matching.fulltext import Hit
    from session_skill.store.docs import DocInfo
    from session_skill.store.store import Store

DEFAULT_LIMIT = 10
# recall WORDS…: one hit this good, this far ahead of the next, is the one meant.
CLEAR_SCORE = 60.0
CLEAR_MARGIN = 15.0
CLOSE_SPREAD = 25.0  # the others offered: this close to the best
MAX_CANDIDATES = 4


# -- the command -----------------------------------------------------------------------------
def parse_limit(value: str | None) -> int:
    if value is None:
        return DEFAULT_LIMIT
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise UsageError(f"--limit takes a whole number of at least 1; got {value[:20]!r}")
    return n


def search(store: Store, words: list[str], *, limit: int, as_json: bool, now: datetime) -> Output:
    from session_skill.matching.fulltext import query_words, rank

    query = " ".join(" ".join(words).split())
    if not query_words(query):
        raise UsageError("search needs words to look for: session-skill search WORDS…")
    ranking = rank(str(store.dir), query, limit=limit) if store.exists() else None
    if ranking is None or not ranking.searched:
        raise SessionError("no stored handovers to search")
    infos = _infos(ranking.hits)
    if as_json:
        text = dumps(
            {
                "query": query,
                "words": ranking.words,
                "unmatched": ranking.unmatched,
                "typos": ranking.typos,
                "searched": ranking.searched,
                "more": ranking.more,
                "hits": [
                    _hit_json(n, h, infos.get(h.slug), now) for n, h in enumerate(ranking.hits, 1)
                ],
            }
        )
        if not ranking.hits:
            raise SessionError(f"no handover mentions {shown(query)}", stdout=text)
        return Output(text)
    if not ranking.hits:
        raise SessionError(f"no handover mentions {shown(query)}")
    n = ranking.searched
    what = query if len(query) <= 80 else query[:80] + "…"
    out = [f"## Search: {what} — {n} handover{'s' if n != 1 else ''} searched"]
    if ranking.typos:
        read = (f"{typo} ({', '.join(near[:3])})" for typo, near in ranking.typos.items())
        out.append(f"Taken for typos: {'; '.join(read)}.")
    if ranking.unmatched:
        out.append(
            f"No handover holds: {', '.join(ranking.unmatched)} (ranked by the other words)."
        )
    for i, h in enumerate(ranking.hits, 1):
        out.append(f"{i}. {_hit_head(h, infos.get(h.slug), now)}")
        out.append(
            visible(f"   {h.section}: {h.highlighted}")
            if h.section
            else visible(f"   {h.highlighted}")
            if h.line
            else "   (the name matched)"
        )
    out.append("")
    if ranking.more:
        out.append(f"More may match: --limit {limit * 2}")
    out.append(f"→ {agent.hint('recall <slug>')} to print one back into context")
    return Output("\n".join(out))


def _infos(hits: list[Hit]) -> dict[str, DocInfo]:
    from pathlib import Path

    from session_skill.store.docs import info

    found = {}
    for h in hits:
        d = info(Path(h.path))
        if d is not None:
            found[h.slug] = d
    return found


def _age_seconds(h: Hit, now: datetime) -> int:
    return max(0, int(now.timestamp() - h.when))


def _hit_head(h: Hit, d: DocInfo | None, now: datetime) -> str:
    from session_skill.times import age

    branch = visible(d.branch if d else "") or "—"
    consumed = "consumed" if d is not None and d.consumed else "not consumed"
    return f"`{h.slug}` · {age(_age_seconds(h, now))} · {branch} · {consumed}"


def _hit_json(n: int, h: Hit, d: DocInfo | None, now: datetime) -> dict[str, object]:
    from session_skill.times import age, format_epoch

    seconds = _age_seconds(h, now)
    return {
        "rank": n,
        "slug": h.slug,
        "score": h.score,
        "created": format_epoch(h.when),
        "age": age(seconds),
        "age_seconds": seconds,
        "branch": (d.branch if d else "") or None,
        "consumed": bool(d is not None and d.consumed),
        "follows": (d.meta.get("follows") if d else None) or None,
        "section": h.section,
        "line": h.line,
        "highlighted": h.highlighted,
        "path": h.path,
    }


# -- recall WORDS…: what the bodies say ------------------------------------------------------
def recall_by_content(store: Store, name: str) -> tuple[str | None, list[Hit]]:
    """The handover that clearly says `name` (its slug, and its hit), else (None, the few
    that come close, best first); (None, []) when no handover holds the words."""
    from session_skill.matching.fulltext import rank
    from session_skill.matching.terms import is_path

    ranking = rank(str(store.dir), name, limit=MAX_CANDIDATES)
    hits = ranking.hits
    if not hits:
        return None, []
    best = hits[0]
    runner_up = hits[1].score if len(hits) > 1 else 0.0
    # The score counts only the words some handover holds: "add rate limiting" was a clear
    # 100 for the one saying "Add caching …" — recalled, and consumed, in place of asking.
    # A clear pick needs two thirds of the words held ("the redis fallback work" is clear);
    # a path, all of them (`src/c.py` is not the doc about `src/b.py`).
    held = len(ranking.words) - len(ranking.unmatched)
    enough = held == len(ranking.words) if is_path(name) else 3 * held >= 2 * len(ranking.words)
    if enough and best.score >= CLEAR_SCORE and best.score - runner_up >= CLEAR_MARGIN:
        return best.slug, [best]
    return None, [h for h in hits if h.score >= best.score - CLOSE_SPREAD]


def hit_rows(hits: list[Hit], now: datetime) -> list[tuple[str, str]]:
    """Each hit as its head line (slug, age, branch, consumed) and its best line ("" when
    only the slug matched), for a list to choose from."""
    infos = _infos(hits)
    rows = []
    for h in hits:
        line = (f"{h.section}: {h.highlighted}" if h.section else h.highlighted) if h.line else ""
        line = visible(line)
        rows.append((_hit_head(h, infos.get(h.slug), now), line))
    return rows

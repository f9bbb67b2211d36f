"""`search` over 1,000 and 10,000 handovers (issue 15): ≤ 1 s at 10,000, ~linear growth.

The stores come from the bench's builder (`fixtures.Project`, `fixtures.doc_text`). Its own
docs share one body, so each doc here is stitched from the sections of a pool of distinct
bodies: every doc differs, with the fixtures' Zipf vocabulary. One doc, in the middle,
also says in its Decisions what the first query looks for; the second query is the two
commonest words of the pool, which nearly every doc holds — every doc is a candidate; the
third is the first mistyped, which no doc holds: the typo pass.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from bench.fixtures import BRANCH, Project, doc_text
from bench.proc import Case, Run, measure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from bench.__main__ import Row

SEARCH_10K_MAX = 1.0  # seconds
TYPO_10K_MAX = 2.0  # a word no doc holds is tried as a typo: the store is read twice
SEARCH_GROWTH_MAX = 15.0  # (10k - floor) / (1k - floor): 10 is linear
POOL = 40
NEEDLE = (
    "- keep the redis fallback behind the circuit breaker — why: the primary cache times out "
    "under load\n"
)
NEEDLE_QUERY = "redis fallback"
TYPO_QUERY = "redsi falback"


class SearchStore:
    """A project whose store holds `n` distinct handovers; `needle` is the one that says it."""

    def __init__(self, root: Path, n: int, pool: list[str]) -> None:
        self.project = Project(root, docs=0, parked=0)
        now = self.project.now
        rng = random.Random(n)
        span = timedelta(days=20).total_seconds()
        heads = [p.split("\n## ", 1)[0] for p in pool]
        parts = [p.split("\n## ")[1:] for p in pool]
        self.needle = ""
        for i in range(n):
            created = now - timedelta(seconds=int(span * (i + 1) / (n + 1)))
            slug = f"{BRANCH}-{created.strftime('%Y-%m-%dT%H-%M-%SZ')}-{i}"
            stamp = created.strftime("%Y-%m-%dT%H:%M:%SZ")
            head = heads[0].replace("slug: SLUG", f"slug: {slug}", 1)
            head = re.sub(r"created: \S+", f"created: {stamp}", head, count=1)
            sections = [rng.choice(parts)[j] for j in range(len(parts[0]))]
            if i == n // 2:
                sections[1] = sections[1].replace("\n", "\n" + NEEDLE.rstrip("\n") + "\n", 1)
                self.needle = slug
            text = head + "".join("\n## " + s for s in sections)
            (self.project.store / f"{slug}.md").write_text(text, encoding="utf-8")

    @property
    def root(self) -> str:
        return str(self.project.root)


def pool_texts() -> tuple[list[str], str]:
    """The pool of distinct bodies, and its two commonest words as a query."""
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc).replace(microsecond=0)
    pool = [doc_text("SLUG", now, seed=100 + s) for s in range(POOL)]
    counts: Counter[str] = Counter()
    for text in pool:
        body = text.split("\n---\n", 1)[1]
        counts.update(w for w in re.findall(r"[a-z]+", body.lower()) if len(w) >= 4)
    common = " ".join(w for w, _ in counts.most_common(2))
    return pool, common


def rows(
    tmp: Path,
    env: dict[str, str],
    runs: int,
    log: Callable[[str], None],
    *,
    row: type[Row],
    floor_argv: list[str],
    cli: Callable[..., list[str]],
) -> list[Row]:
    log("search: building stores of 1,000 and 10,000 distinct handovers")
    pool, common = pool_texts()
    stores = {n: SearchStore(tmp / f"search{n}", n, pool) for n in (1000, 10000)}
    floor = Case("floor", floor_argv, env=env, cwd=str(tmp))

    def expect(needle: str) -> Callable[[Run], str | None]:
        def check(run: Run) -> str | None:
            text = run.stdout.decode("utf-8", "replace")
            return None if needle in text else f"{needle!r} not in stdout: {text[:300]!r}"

        return check

    cases = [floor]
    for n, s in stores.items():
        cases.append(Case(f"search <2 words of one doc>, {n:,} handovers",
                          cli("search", *NEEDLE_QUERY.split(), "--project", s.root), env=env,
                          cwd=s.root, expect=expect(f"1. `{s.needle}`")))  # fmt: skip
    for n, s in stores.items():
        cases.append(Case(f"search <2 words most docs hold>, {n:,} handovers",
                          cli("search", *common.split(), "--project", s.root), env=env,
                          cwd=s.root, expect=expect("10. `")))  # fmt: skip
    for n, s in stores.items():  # no doc holds them: each is tried as a typo, a second pass
        cases.append(Case(f"search <the 2 words, mistyped>, {n:,} handovers",
                          cli("search", *TYPO_QUERY.split(), "--project", s.root), env=env,
                          cwd=s.root, expect=expect(f"1. `{s.needle}`")))  # fmt: skip
    log(f"search: {len(cases)} commands x {runs} runs, interleaved")
    measure(cases, runs=runs, progress=lambda m: log(f"search: {m}"))
    out = [row("search", "floor: python -I -c 'import json'", floor)]
    pairs = ((cases[1], cases[2], SEARCH_10K_MAX), (cases[3], cases[4], SEARCH_10K_MAX),
             (cases[5], cases[6], TYPO_10K_MAX))  # fmt: skip
    for small, big, limit in pairs:
        r1k, r10k = row("search", small.name, small, floor), row("search", big.name, big, floor)
        growth = (r10k.median - floor.median) / max(r1k.median - floor.median, 1e-9)
        out.append(r1k.judge("", True, f"{r1k.median:.3f} s"))
        r10k.extra["growth_vs_1k"] = round(growth, 2)
        ok = r10k.median <= limit and growth <= SEARCH_GROWTH_MAX
        value = f"{r10k.median:.3f} s, {growth:.1f}x the 1k work"
        out.append(r10k.judge(f"≤ {limit:g} s, ~linear", ok, value))
    return out

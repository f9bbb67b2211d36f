"""Scratch projects for the benchmarks: a git repo with a store of docs and parked items."""

from __future__ import annotations

import os
import random
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

STORE_REL = Path(".claude") / "state" / "session"
BRANCH = "main"

# A project's vocabulary: a few thousand words, used with Zipf's law (a few words are in
# many items, most in a few), as in real notes. A fixed seed keeps every run the same.
_SYLLABLES = (
    "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge go ka ke ki ko la le li "
    "lo lu ma me mi mo mu na ne ni no nu pa pe pi po ra re ri ro ru sa se si so su ta te ti "
    "to tu va ve vi vo za ze zo"
).split()


def _vocabulary(size: int = 4000, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 4))))
        seen.setdefault(word, None)
    return list(seen)


_WORDS = _vocabulary()
_WEIGHTS = [1.0 / (rank + 1) for rank in range(len(_WORDS))]


def _stamp(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _phrase(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(_WORDS, _WEIGHTS, k=n))


def doc_text(slug: str, created: datetime, *, target_bytes: int = 6000, seed: int = 0) -> str:
    """A handover doc shaped like a real one (every section), about `target_bytes` long."""
    rng = random.Random(seed)
    head = (
        f"---\nslug: {slug}\ncreated: {_stamp(created)}\nconsumed: false\nbranch: {BRANCH}\n"
        f"commit: 3f2a9c1\ndirty: 3\ncwd: /home/me/app\n"
        f"session_id: 9ba084a4-3d12-4cf7-a14a-886e4505a15f\nagent: claude-code\n"
        f"capture: summarized\ntokens: 1200\n---\n"
    )
    parts = [
        f"## Goal\nMake the {_phrase(rng, 3)} path survive restarts without losing queued work.\n",
        "## Decisions\n"
        + "".join(f"- use {_phrase(rng, 4)} — why: {_phrase(rng, 8)}\n" for _ in range(6)),
        "## Didn't work\n"
        + "".join(f"- {_phrase(rng, 5)} — {_phrase(rng, 7)}\n" for _ in range(3)),
        "## Verified\n"
        + "".join(f"- {_phrase(rng, 5)} — `pytest -k {rng.choice(_WORDS)}`\n" for _ in range(4)),
        "## Files touched\n| File | Change | State | Ref |\n| --- | --- | --- | --- |\n"
        + "".join(
            f"| `src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py` | {_phrase(rng, 4)} | done "
            f"| +{rng.randint(1, 90)}/-{rng.randint(0, 30)} |\n"
            for _ in range(12)
        ),
        "## Outstanding\n"
        + "".join(
            f"- **{rng.choice(_WORDS)}-{i}** — {_phrase(rng, 6)}. Why: {_phrase(rng, 4)}. "
            f"Next: {_phrase(rng, 4)}.\n"
            for i in range(4)
        ),
    ]
    body = "\n".join(parts)
    filler: list[str] = []
    while len(head) + len(body) + sum(map(len, filler)) < target_bytes - 120:
        filler.append(f"- {_phrase(rng, 9)}\n")
    body += "\n## Standing instructions\n" + "".join(filler)
    body += f"\n## Next step\nRun the {_phrase(rng, 2)} suite and fix the first failure.\n"
    return head + body


class ParkedFixture:
    """PARKED.md with `n` items as `park` writes them, and a query that names one of them."""

    def __init__(self, n: int, *, today: datetime, seed: int = 1) -> None:
        rng = random.Random(seed)
        lines = ["# Parked items\n", "\n"]
        slugs: set[str] = set()
        ideas: list[list[str]] = []
        for _ in range(n):
            raised = (today - timedelta(days=rng.randint(0, 40))).date().isoformat()
            idea = rng.choices(_WORDS, _WEIGHTS, k=rng.randint(6, 11))
            base = slug = "-".join(idea[:4])  # park's slug: the first words
            k = 1
            while slug in slugs:
                k += 1
                slug = f"{base}-{k}"
            slugs.add(slug)
            ideas.append(idea)
            lines.append(
                f"- **{slug}** — {' '.join(idea)}. Raised: {raised}. "
                f"Why: {_phrase(rng, 4)}. Next: {_phrase(rng, 4)}.\n"
            )
        self.text = "".join(lines)
        # What a user types to drop the middle item: the two rarest words of its idea, as
        # they remember them (a fuzzy query: not its slug, not word for word).
        target = ideas[n // 2] if ideas else []
        rank = {w: r for r, w in enumerate(_WORDS)}
        rare = sorted(set(target), key=lambda w: -rank[w])[:2]
        self.drop_query = " ".join(reversed(rare))
        self.drop_line = lines[2 + n // 2] if ideas else ""


class Project:
    """A git project with a store; `docs` handovers within the last 20 days."""

    def __init__(self, root: Path, *, docs: int, parked: int, now: datetime | None = None):
        self.root = root
        self.store = root / STORE_REL
        self.now = now or datetime.now(timezone.utc).replace(microsecond=0)
        root.mkdir(parents=True, exist_ok=True)
        _git_init(root)
        self.store.mkdir(parents=True, exist_ok=True)
        (self.store / ".gitignore").write_text("*\n")
        (self.store / "dropped.jsonl").write_text("")
        self.parked = ParkedFixture(parked, today=self.now)
        self.parked_bytes = self.parked.text.encode()
        self.reset_parked()
        self.slugs: list[str] = []
        span = timedelta(days=20).total_seconds()
        template = doc_text("SLUG", self.now, seed=7)
        for i in range(docs):
            # Spread over 20 days (none old enough for list to expire), newest first.
            created = self.now - timedelta(seconds=int(span * (i + 1) / (docs + 1)))
            slug = f"{BRANCH}-{created.strftime('%Y-%m-%dT%H-%M-%SZ')}-{i}"
            text = template.replace("slug: SLUG", f"slug: {slug}", 1).replace(
                f"created: {_stamp(self.now)}", f"created: {_stamp(created)}", 1
            )
            (self.store / f"{slug}.md").write_text(text)
            self.slugs.append(slug)

    def reset_parked(self) -> None:
        (self.store / "PARKED.md").write_bytes(self.parked_bytes)
        (self.store / "dropped.jsonl").write_bytes(b"")

    def set_pending(self, slug: str = "pending-doc", *, size: int = 6000) -> None:
        """A fresh, unconsumed 6 KB doc named in LATEST (what /session dump leaves)."""
        now = datetime.now(timezone.utc).replace(microsecond=0)
        (self.store / f"{slug}.md").write_text(doc_text(slug, now, target_bytes=size))
        (self.store / "LATEST").write_text(slug + "\n")

    def clear_pending(self) -> None:
        try:
            os.unlink(self.store / "LATEST")
        except FileNotFoundError:
            pass


def _git_init(root: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    (root / "README.md").write_text("bench project\n")
    for args in (
        ["init", "-q", "-b", BRANCH],
        ["add", "README.md"],
        ["commit", "-q", "-m", "init"],
    ):
        subprocess.run(
            ["git", "-C", str(root), *args],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

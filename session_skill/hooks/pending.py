"""A pending handover as the SessionStart hook sees it: the read-only gates, and the locked
step that consumes it (or marks it noticed) exactly once. Standard library only."""

from __future__ import annotations

import os

from session_skill.hooks.serve import warner
from session_skill.store import paths as storepaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

DOC_LIMIT = 1 << 20  # a capped handover is ~6 KB; anything this big is not one (store.consume)
MAX_AGE = 30 * 60  # seconds: older, it is not restored (only said to be there, once)
MAX_FUTURE = 2 * 60  # seconds of clock skew tolerated
LOCK_WAIT = 0.5
DETACHED = frozenset({"detached", "head", "(detached)", "detached head"})
AUTOMATIC = "session-end"  # the `trigger` of a doc the SessionEnd hook wrote at /clear
PLAN = "plan-approval"  # …at a plan approved with "clear context"
COMPACT = "compact"  # …and the PreCompact hook before a compaction


class Pending:
    """A doc that passed every read-only gate."""

    __slots__ = ("slug", "path", "branch", "age", "body", "meta")

    def __init__(
        self,
        slug: str,
        path: str,
        branch: str,
        age: float,
        body: str,
        meta: dict[str, str] | None = None,
    ) -> None:
        self.slug = slug
        self.path = path
        self.branch = branch
        self.age = age  # seconds since `created`; negative within the skew allowance
        self.body = body
        self.meta = {} if meta is None else meta  # the frontmatter

    @property
    def trigger(self) -> str:
        return self.meta.get("trigger", "").strip()

    @property
    def automatic(self) -> bool:
        """Written at /clear by the SessionEnd hook (or its plan-approval twin)."""
        return self.trigger in (AUTOMATIC, PLAN)

    @property
    def plan(self) -> bool:
        return self.trigger == PLAN

    @property
    def stale(self) -> bool:
        """Older than MAX_AGE: not restored, only said to be there."""
        return self.age > MAX_AGE


def read_doc(path: str) -> str | None:
    from session_skill.store import fileio

    data = fileio.read_regular_bytes(path, DOC_LIMIT)
    if data is None:
        return None  # missing, a symlink, not a regular file, oversized: passed over silently
    try:
        # The BOM is kept: frontmatter handles it, and a rewrite keeps it.
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # Not restored, and not silently: stdout stays empty, stderr names the file.
        warn(f"{path} is not UTF-8 text: the pending handover was not restored")
        return None


STALE_NOTICE = 14 * 24 * 3600  # seconds: a dump older than this is not even said to be there


def gate(slug: str, path: str, text: str | None, now: float) -> Pending | None:
    """The frontmatter gates: `consumed: false`, not noticed yet, `created` parses, is no
    more than `MAX_FUTURE` in the future (clock skew) and no more than `STALE_NOTICE` (14
    days) old. A doc more than 30 min old passes as `stale`: it is not restored, but said
    to be there, once (issue 21: a /clear long after a dump lost it silently)."""
    if text is None:
        return None
    from session_skill.handover import frontmatter

    split = frontmatter.split(text)
    if not split.has_frontmatter:
        return None
    meta = frontmatter.parse(split.lines)
    if not frontmatter.is_false(meta.get("consumed")):
        return None
    from session_skill.store.consume import NOTICED

    if meta.get(NOTICED):  # an automatic handover the hook told about already
        return None
    from session_skill.times import epoch

    created = epoch(meta.get("created"))
    if created is None:
        return None
    age = now - created
    if age > STALE_NOTICE or age < -MAX_FUTURE:
        return None
    return Pending(slug, path, meta.get("branch", "").strip(), age, split.body, meta)


def branch_differs(doc_branch: str, current: str | None) -> bool:
    if not doc_branch or not current:
        return False  # nothing to compare: no git now, or a doc without a branch
    if doc_branch.lower() in DETACHED and current.lower() in DETACHED:
        return False
    return doc_branch != current


def consume(
    store: str,
    slug: str,
    path: str,
    now: float,
    env: Mapping[str, str],
    *,
    notice: bool = False,
    session: str | None = None,
) -> Pending | None:
    """Consume it (`notice`: mark it noticed) under the lock, its gates checked again;
    None if someone else got there first, or the store was busy. `session`: the session it
    is restored into (`restored_in`: what a compaction there gives back)."""
    from session_skill import agent
    from session_skill.store import consume as step
    from session_skill.store.lock import LockTimeout
    from session_skill.times import format_epoch

    stamp = format_epoch(now)

    def passes(text: str) -> bool:
        return gate(slug, path, text, now) is not None

    try:
        if notice:
            text = step.notice_once(store, slug, stamp=stamp, timeout=LOCK_WAIT, gate=passes)
        else:
            text = step.consume(
                store, slug, by="hook", stamp=stamp, timeout=LOCK_WAIT, gate=passes,
                session=session,
            )  # fmt: skip
    except LockTimeout:
        lock = os.path.join(store, storepaths.LOCK)
        warn(f"the store is busy ({lock}); `{agent.hint('recall ' + slug, env)}` loads it")
        return None
    return None if text is None else gate(slug, path, text, now)


warn = warner("session-skill hook: ")

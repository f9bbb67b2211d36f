"""Consume a handover once: the step that "restores exactly once" rests on (SPEC §8).

Shared by the SessionStart hook and `recall`, on plain strings: the hook must not pay for
pathlib. Under the writer lock the doc is read again (another session may have got there
first), checked by the caller's gate, flipped to `consumed: true`, written atomically, and
LATEST is cleared if it still names it. Standard library only, cheap modules only.
"""

from __future__ import annotations

import os

from session_skill.handover import frontmatter
from session_skill.store import fileio, paths
from session_skill.store.lock import file_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

DOC_LIMIT = 1 << 20  # a capped handover is ~6 KB; anything this big is not one
NOTICED = "noticed_at"
RESTORED_IN = "restored_in"


def doc_path(store_dir: str, slug: str) -> str:
    return os.path.join(store_dir, f"{slug}.md")


def consume(
    store_dir: str,
    slug: str,
    *,
    by: str,
    stamp: str,
    timeout: float | None,
    gate: Callable[[str], bool] | None = None,
    session: str | None = None,
) -> str | None:
    """The doc's text as it was when this call consumed it; None when it did not. With
    `session`, the doc records the session it was restored into (`restored_in`): a
    compaction there gives it back (SPEC §8.2).

    None: the doc is gone or unreadable, `gate(text)` refused it, or it was already
    consumed (LATEST is cleared then too: it pointed at nothing left to restore).
    Raises `lock.LockTimeout` when the lock is not had within `timeout` seconds.
    """
    path = doc_path(store_dir, slug)
    with file_lock(os.path.join(store_dir, paths.LOCK), timeout):
        text = fileio.read_regular(path, DOC_LIMIT)
        if text is None or (gate is not None and not gate(text)):
            return None
        flipped = frontmatter.flip_consumed(text, by, stamp)
        if flipped is not None and session:
            flipped = frontmatter.set_key(flipped, RESTORED_IN, session) or flipped
        if flipped is not None:
            fileio.atomic_write(path, flipped.encode("utf-8"))
        if paths.read_latest(store_dir) == slug:
            paths.clear_latest(store_dir)
        return text if flipped is not None else None


def notice_once(
    store_dir: str,
    slug: str,
    *,
    stamp: str,
    timeout: float | None,
    gate: Callable[[str], bool],
) -> str | None:
    """Mark a doc `noticed_at: <stamp>` (an automatic handover the hook told about without
    injecting it: the notice is given once, the doc stays pending for `recall`).

    The doc's text as it was when this call marked it; None when it did not (gone, refused
    by `gate`, which must refuse a doc already noticed). Raises `lock.LockTimeout`.
    """
    path = doc_path(store_dir, slug)
    with file_lock(os.path.join(store_dir, paths.LOCK), timeout):
        text = fileio.read_regular(path, DOC_LIMIT)
        if text is None or not gate(text):
            return None
        marked = frontmatter.set_key(text, NOTICED, stamp)
        if marked is None:
            return None
        fileio.atomic_write(path, marked.encode("utf-8"))
        return text


def restored_doc(store_dir: str, session_id: str) -> tuple[str, str] | None:
    """(slug, body) of the handover restored into the session `session_id` — by the
    SessionStart hook or by `recall` run in it (`restored_in`) — among the newest docs."""
    for path in paths.recent_docs(store_dir):
        text = fileio.read_regular(path, DOC_LIMIT)
        split = frontmatter.split(text) if text is not None else None
        if split is None or not split.has_frontmatter:
            continue
        meta = frontmatter.parse(split.lines)
        if meta.get(RESTORED_IN, "").strip() == session_id:
            return meta.get("slug", "").strip() or os.path.basename(path)[:-3], split.body
    return None

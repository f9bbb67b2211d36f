"""What a compaction drops, given back once at SessionStart(compact) (SPEC §8.2).

After `/compact` or automatic compaction the model sees only the client's summary: a handover
restored earlier in the session (by the hook or by `recall`) is gone, silently, and so is any
trace of the parked items. SessionStart(compact) — the same session id — injects, within
`LIMIT` characters: that handover (its Goal, Decisions, Files touched and Next step, each
clipped to fit; else its head and the `recall` line), the parked items (how many, the newest
few), and where the state before this compaction was saved (the PreCompact hook's doc).
Nothing when there is nothing. A second compaction's context replaces the first's (the
first is dropped by the compaction itself): it never accumulates.

The docs are found by a bounded look at the store's newest files (`store.paths.recent_docs`): a
doc restored or written in this session was rewritten lately. Standard library only.
"""

from __future__ import annotations

import os

from session_skill.hooks.pending import COMPACT, DOC_LIMIT
from session_skill.store import paths as storepaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

LIMIT = 2_000  # characters: paid on every request of the session
SECTIONS = ("Goal", "Decisions", "Files touched", "Next step")
_NEWEST_PARKED = 3
_SECTION_MAX = 500


def context(store: str, session_id: str, env: Mapping[str, str]) -> tuple[str, str] | None:
    """(the model's context, the user's line), or None when there is nothing to give back."""
    from session_skill import agent
    from session_skill.handover import frontmatter
    from session_skill.hooks.capture import COMPACT as MARKED
    from session_skill.hooks.capture import wait_for_captures
    from session_skill.store import fileio
    from session_skill.store.consume import RESTORED_IN

    # The PreCompact capture of this very compaction: waited for briefly, and said to be
    # on its way when it is still being written (a long transcript's capture runs on).
    writing = f"{session_id}{MARKED}" in wait_for_captures(store)
    restored: tuple[str, dict[str, str], str] | None = None
    saved: str | None = None
    for path in storepaths.recent_docs(store):
        text = fileio.read_regular(path, DOC_LIMIT)
        if text is None:
            continue
        split = frontmatter.split(text)
        if not split.has_frontmatter:
            continue
        meta = frontmatter.parse(split.lines)
        slug = meta.get("slug", "").strip() or os.path.basename(path)[:-3]
        if restored is None and meta.get(RESTORED_IN, "").strip() == session_id:
            restored = (slug, meta, split.body)
        elif (
            saved is None
            and meta.get("trigger", "").strip() == COMPACT
            and meta.get("session_id", "").strip() == session_id
        ):
            saved = slug
        if restored is not None and saved is not None:
            break
    parked = _parked(store)
    if saved is not None:
        writing = False
    if restored is None and saved is None and not writing and not parked[0]:
        return None
    recall = agent.hint("recall", env)
    parts = [
        "Context was compacted. session-skill gives back what the summary drops (a handover "
        "written earlier in this project, and the parked items):"
    ]
    tail: list[str] = []
    if saved is not None:
        tail.append(f"The state before this compaction is saved as `{saved}` (`{recall} {saved}`).")
    elif writing:
        tail.append(
            "The state before this compaction is still being saved as a handover: "
            f"`{agent.hint('list', env)}` shows it in a moment."
        )
    count, newest = parked
    if count:
        names = ", ".join(f"**{s}**" for s in newest)
        more = " (newest)" if count > len(newest) else ""
        tail.append(
            f"Parked items: {count} open — {names}{more}; `{agent.hint('list', env)}` shows them."
        )
    if restored is not None:
        slug, _meta, body = restored
        head = f"The handover `{slug}` restored earlier in this session (`{recall} {slug}`):"
        room = LIMIT - sum(len(p) + 1 for p in (*parts, head, *tail))
        parts += [head, _sections(body, room)]
    text = "\n".join([*parts, *tail]).strip()
    if len(text) > LIMIT:
        text = text[: LIMIT - 1].rstrip() + "…"
    what = [f"handover `{restored[0]}`"] if restored else []
    what += [f"{count} parked item{'s' * (count != 1)}"] if count else []
    what += [f"this compaction's doc `{saved}`"] if saved else []
    what += ["word that this compaction's doc is still being written"] if writing else []
    message = "session-skill: after compaction, gave back " + ", ".join(what)
    return text, message


def _sections(body: str, room: int) -> str:
    """The head of a handover — Goal, Decisions, Files touched, Next step, else the start of
    its body — within `room` characters, the line breaks between them counted: what follows
    it (the parked items, the compaction's doc) is never cut for it."""
    from session_skill.handover.doc import find_section, split_sections

    sections = split_sections(body)
    found = [(t, find_section(sections, t)) for t in SECTIONS]
    chunks = [s.text.strip("\n") for _t, s in found if s is not None] or [body.strip("\n")]
    share = max((room - len(chunks) + 1) // len(chunks), 80)
    out = []
    for chunk in chunks:
        limit = min(share, _SECTION_MAX)
        out.append(chunk if len(chunk) <= limit else chunk[: limit - 1].rstrip() + "…")
    text = "\n".join(out)
    if len(text) <= room:
        return text
    return text[: room - 1].rstrip() + "…" if room > 1 else ""


def _parked(store: str) -> tuple[int, list[str]]:
    """(open items, the slugs of the newest few) of PARKED.md; (0, []) when unreadable."""
    from session_skill.store import fileio

    text = fileio.read_regular(os.path.join(store, storepaths.PARKED), 4 << 20)
    if text is None:
        return 0, []
    from session_skill.store.parked import Parked

    items = Parked(text).items
    return len(items), [it.slug for it in items[-_NEWEST_PARKED:]][::-1]

"""The SessionEnd hook (SPEC §8.1): nothing lost when /clear comes without a dump.

On `/clear` Claude Code fires SessionEnd (`reason: clear`) for the session being cleared, its
transcript complete, and starts the new session only once this hook has returned — the user
waits on it. So it writes the extractive handover (`dump --extractive`: the transcript and git,
no model, no network) and points LATEST at it, and the SessionStart hook of the new session
then gives a notice about it or injects it (the `auto` setting, store/settings.py).

It writes nothing when `auto` is `off`, when the reason is not `clear`, when the ending session
has a pending handover of its own (an explicit `/session dump` wins), or when the session holds
no user request (a /clear right after a /clear). Cheap checks come first, on plain strings;
the transcript reader and git are imported only when there is something to capture, and the
token count is an estimate meant to be at or above cl100k_base's for any script
(`tokens.estimate`: tiktoken's encoding alone would cost ~100 ms), which the doc states.
Always exit 0; a failure is one line on stderr; at most 0.5 s waiting for the lock.
"""

from __future__ import annotations

import os

from session_skill.hooks.pending import AUTOMATIC, DOC_LIMIT, LOCK_WAIT, PLAN
from session_skill.hooks.serve import message_output, payload_dict, serve, text_field, warner
from session_skill.store import paths as storepaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["AUTOMATIC", "DOC_LIMIT", "LOCK_WAIT", "main", "run"]
WARN_PREFIX = "session-skill hook session-end: "


class Ending:
    """The session a SessionEnd(clear) payload names."""

    __slots__ = ("session_id", "transcript", "cwd")

    def __init__(self, session_id: str, transcript: str, cwd: str | None) -> None:
        self.session_id = session_id
        self.transcript = transcript
        self.cwd = cwd


def parse(payload: bytes) -> Ending | None:
    """The ending session for a SessionEnd with `reason: clear`; None for anything else."""
    data = payload_dict(payload, "SessionEnd")
    if data is None or data.get("reason") != "clear":
        return None
    session_id, transcript, cwd = (
        text_field(data, k) for k in ("session_id", "transcript_path", "cwd")
    )
    if session_id is None or transcript is None:
        return None
    return Ending(session_id, transcript, cwd)


def run(payload: bytes, *, env: Mapping[str, str]) -> str:
    """Capture the ending session if it needs it; the hook's stdout ("" when silent)."""
    ending = parse(payload)
    if ending is None:
        return ""
    root = storepaths.project_root(env=env, cwd=ending.cwd)
    store = storepaths.store_dir(root)
    exists = storepaths.store_exists(store)
    if exists:
        mark_cleared(store, ending.session_id)
    from session_skill.store import settings

    if settings.auto(root, env, warn) == settings.OFF:
        return ""
    dumped = own_pending(store, ending.session_id) if exists else None
    if dumped is not None:
        slug, meta = dumped
        point_latest(store, slug)  # the session dumped: that handover is the one to restore
        if not went_on(meta, ending.transcript):
            return ""
        return capture_once(root, store, ending, env, after=slug)  # …and what came after it
    if not _regular_file(ending.transcript):
        return ""  # a session that never got a message has no transcript
    return capture_once(root, store, ending, env)


def mark_cleared(store: str, session_id: str) -> None:
    """Say which session this /clear ended: the fresh session's SessionStart restores a dump
    only into the session that dumped it (another terminal's /clear names it instead)."""
    from session_skill.store import fileio

    try:
        fileio.atomic_write(os.path.join(store, storepaths.CLEARED), f"{session_id}\n".encode())
    except OSError as exc:
        warn(f"could not note which session /clear ended: {exc}")


def went_on(meta: Mapping[str, str], transcript: str) -> bool:
    """Did the user ask for more after the dump `meta` describes? A dump records how much of
    the transcript it was made from; one from before that record is taken as the end."""
    from session_skill.hooks.capture import READ_BYTES, asked_since

    read = meta.get(READ_BYTES, "").strip()
    return read.isdigit() and asked_since(transcript, int(read))


def own_pending(store: str, session_id: str) -> tuple[str, dict[str, str]] | None:
    """(slug, frontmatter) of an unconsumed doc this very session dumped — found by its
    `session_id`, whatever LATEST names now (another terminal may have cleared since, issue
    21)."""
    from session_skill.handover import frontmatter
    from session_skill.hooks.capture import recent_metas

    latest = storepaths.read_latest(store)
    first = (os.path.join(store, f"{latest}.md"),) if latest is not None else ()
    for path, meta in recent_metas(store, first=first):
        if meta.get("session_id", "").strip() != session_id:
            continue
        if frontmatter.is_false(meta.get("consumed")) and not meta.get("trigger", "").strip():
            slug = os.path.basename(path)[: -len(".md")]
            return (slug, meta) if storepaths.valid_slug(slug) else None
    return None


def point_latest(store: str, slug: str) -> None:
    """LATEST names this session's own dump: its fresh session restores it, whatever
    another terminal's /clear pointed LATEST at meanwhile (issue 21: your dump wins)."""
    if storepaths.read_latest(store) == slug:
        return
    from session_skill.store import fileio
    from session_skill.store.lock import LockTimeout, file_lock

    try:
        with file_lock(os.path.join(store, storepaths.LOCK), LOCK_WAIT):
            fileio.atomic_write(os.path.join(store, storepaths.LATEST), (slug + "\n").encode())
    except (LockTimeout, OSError) as exc:
        warn(f"could not point LATEST at this session's handover `{slug}`: {exc}")


def _regular_file(path: str) -> bool:
    try:
        return os.path.isfile(os.path.expanduser(path))
    except (OSError, ValueError):
        return False


def capture_once(
    root: str, store: str, ending: Ending, env: Mapping[str, str], after: str | None = None
) -> str:
    """One capture per ending session (SessionEnd hooks of a plugin and of a project
    install race), inside the hook's budget or finished detached (`hooks.capture`). `after`:
    the session's own dump, which stays the handover restored (LATEST)."""
    from session_skill.hooks import capture

    held = capture.claim(store, ending.session_id)
    if held is None:
        return ""  # another hook is capturing this very session
    triggers = (AUTOMATIC, PLAN)
    if capture.captured_already(store, ending.session_id, triggers, ending.transcript):
        capture.release(held)
        return ""
    return capture.detached(lambda: _capture(root, ending, env, after), held)


def _capture(root: str, ending: Ending, env: Mapping[str, str], after: str | None) -> str:
    """Write the automatic handover; "" when the session holds no user request."""
    from session_skill import agent
    from session_skill.hooks.capture import write_doc

    written = write_doc(
        root,
        session_id=ending.session_id,
        transcript=ending.transcript,
        trigger=AUTOMATIC,
        latest=after is None,
    )
    if written is None:
        return ""
    files, items, slug = written["files"], written["outstanding"], written["slug"]
    recall = agent.hint("recall", env)
    what = f"{files} file{'s' * (files != 1)}, {items} open item{'s' * (items != 1)}"
    if after is not None:
        message = (
            f"session-skill: the session went on after `/session dump` wrote `{after}`, so the "
            f"conversation up to /clear was saved too, as `{slug}` ({what}); `{after}` is "
            f"restored, and `{recall} {slug}` loads the rest"
        )
    elif written.get("plan"):
        message = (
            f"session-skill: the plan approval cleared the context; the conversation before "
            f"it was saved as `{slug}` (the plan, {what}); `{recall} {slug}` loads it"
        )
    else:
        message = (
            f"session-skill: no /session dump before /clear, so the conversation was saved as "
            f"`{slug}` ({what}); `{recall}` loads it"
        )
    return message_output(message)


warn = warner(WARN_PREFIX)


def main() -> int:
    """`session-skill hook session-end`: always exit 0 — whatever happens, /clear goes on.
    Expected failures (a busy store, a store we cannot use) are warned about by message."""
    from session_skill.errors import SessionError

    return serve(run, warn, (SessionError,))

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
token count is the chars/4 estimate (tiktoken's encoding alone would cost ~100 ms), which the
doc states. Always exit 0; a failure is one line on stderr; at most 0.5 s waiting for the lock.
"""

from __future__ import annotations

import json
import os

from session_skill.hooks.serve import message_output, payload_dict, serve, text_field, warner
from session_skill.store import paths as storepaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

DOC_LIMIT = 1 << 20
LOCK_WAIT = 0.5
TOKEN_METHOD = "chars/4 (estimated by the session-end hook, which does not load tiktoken)"
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
    from session_skill.store import settings

    auto = settings.effective(settings.AUTO, root, env)
    for problem in auto.problems:
        warn(problem)
    if auto.value == settings.OFF:
        return ""
    store = storepaths.store_dir(root)
    if storepaths.store_exists(store) and own_pending(store, ending.session_id):
        return ""  # the session dumped: that handover is the one to restore
    if not _regular_file(ending.transcript):
        return ""  # a session that never got a message has no transcript
    return capture(root, ending, env)


def own_pending(store: str, session_id: str) -> bool:
    """LATEST names an unconsumed doc that this very session wrote."""
    from session_skill.handover import frontmatter
    from session_skill.store import fileio

    slug = storepaths.read_latest(store)
    if slug is None:
        return False
    text = fileio.read_regular(os.path.join(store, f"{slug}.md"), DOC_LIMIT)
    meta = frontmatter.read_meta(text) if text is not None else None
    if meta is None or not frontmatter.is_false(meta.get("consumed")):
        return False
    return meta.get("session_id", "").strip() == session_id


def _regular_file(path: str) -> bool:
    try:
        return os.path.isfile(os.path.expanduser(path))
    except (OSError, ValueError):
        return False


def capture(root: str, ending: Ending, env: Mapping[str, str]) -> str:
    """Write the automatic handover; "" when the session holds no user request."""
    from pathlib import Path

    from session_skill import agent
    from session_skill.commands import dump
    from session_skill.commands.observe import observe
    from session_skill.handover.tokens import Counter
    from session_skill.store.store import Store
    from session_skill.times import utcnow

    store = Store(Path(root))
    observed = observe(
        store,
        transcript=ending.transcript,
        session_id=ending.session_id,
        with_sweep=True,
        quick=True,
    )
    if not observed.first_request:
        return ""
    written = json.loads(
        dump.automatic(
            store,
            observed,
            dump.DumpRequest(
                now=utcnow(),
                token_counter=Counter(method=TOKEN_METHOD),
                lock_timeout=LOCK_WAIT,
                quick=True,
            ),
        ).text
    )
    files, items = written["files"], written["outstanding"]
    message = (
        f"session-skill: no /session dump before /clear, so the conversation was saved as "
        f"`{written['slug']}` ({files} file{'s' * (files != 1)}, {items} open "
        f"item{'s' * (items != 1)}); `{agent.hint('recall', env)}` loads it"
    )
    return message_output(message)


warn = warner(WARN_PREFIX)


def main() -> int:
    """`session-skill hook session-end`: always exit 0 — whatever happens, /clear goes on.
    Expected failures (a busy store, a store we cannot use) are warned about by message."""
    from session_skill.errors import SessionError

    return serve(run, warn, (SessionError,))

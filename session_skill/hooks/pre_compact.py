"""The PreCompact hook (SPEC §8.2): the session's state saved before a compaction.

`/compact` and automatic compaction (both clients) fire PreCompact, then SessionStart with
`source: compact` in the same session; after it the model sees only the client's summary.
So this hook writes the automatic handover of the session so far (`trigger: compact`,
`compaction: manual|auto`; `follows` links it to the branch's previous doc) — files, open
loops, where it stopped — which SessionStart(compact) then points at (`session_start`). It
does not touch LATEST: the session goes on, nothing is pending for a `/clear`.

In Claude Code the hook's stdout is added to the compaction's instructions (seen in 2.1.328:
"Additional Instructions" of the summary request), so it asks the summary to keep what a
handover keeps. Codex reads nothing of it. Never blocks compaction: always exit 0, a
capture that runs long finishes detached (`hooks.capture`).
"""

from __future__ import annotations

import os

from session_skill.hooks.pending import COMPACT
from session_skill.hooks.serve import payload_dict, serve, text_field, warner
from session_skill.store import paths as storepaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TRIGGER = COMPACT
WARN_PREFIX = "session-skill hook pre-compact: "
# Added to the compaction's instructions: keep, word for word, what the session would lose.
INSTRUCTIONS = (
    "Keep in the summary, verbatim where they were stated: every decision and its reason, "
    "every open question put to the user, every task or step still to do, the files changed, "
    "and the next step. session-skill is saving the state before this compaction as a "
    "handover, which SessionStart points at."
)


def run(payload: bytes, *, env: Mapping[str, str]) -> str:
    """Save the session so far; the hook's stdout ("" when silent)."""
    data = payload_dict(payload, "PreCompact")
    if data is None:
        return ""
    session_id, transcript = text_field(data, "session_id"), text_field(data, "transcript_path")
    if session_id is None or transcript is None or not os.path.isfile(transcript):
        return ""
    when = text_field(data, "trigger") or "manual"
    root = storepaths.project_root(env=env, cwd=text_field(data, "cwd"))
    from session_skill.store import settings

    if settings.auto(root, env, warn) == settings.OFF:
        return ""
    from session_skill import agent
    from session_skill.hooks import capture

    store = storepaths.store_dir(root)
    held = capture.claim(store, f"{session_id}{capture.COMPACT}")
    if held is None:
        return ""  # the same compaction, captured by another hook already

    def job() -> str:
        if _saved_already(store, session_id, transcript):
            return ""  # another install's PreCompact hook of this compaction wrote it
        capture.write_doc(
            root, session_id=session_id, transcript=transcript, trigger=TRIGGER,
            latest=False, meta=(("compaction", when),),
        )  # fmt: skip
        return ""

    capture.detached(job, held)
    return INSTRUCTIONS + "\n" if agent.agent(env) == agent.CLAUDE else ""


_SAME_COMPACTION = 60.0  # seconds: two hooks of one compaction run within this


def _saved_already(store: str, session_id: str, transcript: str) -> bool:
    """Is this compaction's state saved? The plugin's and a project install's hooks both
    run: the one that came second (after the first's capture ended) finds a doc of this
    session's compaction written seconds ago, with nothing typed since. (The transcript may
    have grown by the client's record of the first hook: seen in 2.1.328.) A compaction
    needs the context to fill again: the next one is not seconds later."""
    import time

    from session_skill.hooks import capture

    for path, meta in capture.recent_metas(store):
        read = meta.get(capture.READ_BYTES, "").strip()
        if (
            meta.get("session_id", "").strip() != session_id
            or meta.get("trigger", "").strip() != TRIGGER
            or not read.isdigit()
        ):
            continue
        try:
            fresh = time.time() - os.path.getmtime(path) <= _SAME_COMPACTION
        except OSError:
            continue
        return fresh and not capture.asked_since(transcript, int(read))
    return False


warn = warner(WARN_PREFIX)


def main() -> int:
    """`session-skill hook pre-compact`: always exit 0 — compaction goes on."""
    from session_skill.errors import SessionError

    return serve(run, warn, (SessionError,))

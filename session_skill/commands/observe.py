"""What a session left behind: git's view of the project and, when found, its transcript.

Shared by the brief and by writing a doc (SPEC §7.2): the Files touched rows, the sweep
candidates, the pending tasks, the session id.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from session_skill.git.info import GitState
from session_skill.records import Record
from session_skill.store.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from session_skill.transcripts.scan import PlanExit, ReadStats


class Observed(Record):
    """What the session left behind, from git and (when found) its transcript."""

    __slots__ = (
        "git",
        "written",
        "weights",
        "candidates",
        "pending_tasks",
        "in_tasks",
        "first_request",
        "goal_guessed",
        "restored",
        "last_request",
        "last_reply",
        "recap",
        "plan",
        "skipped",
        "transcript",
        "session_id",
        "started",
        "stats",
    )

    def __init__(
        self,
        git: GitState,
        written: list[str] | None = None,
        candidates: list[dict[str, str]] | None = None,  # sweep candidates
        pending_tasks: list[str] | None = None,
        first_request: str = "",
        transcript: Path | None = None,
        session_id: str | None = None,
        started: datetime | None = None,
        stats: ReadStats | None = None,  # how the transcript read: unreadable lines…
        weights: dict[str, int] | None = None,  # writes per written file
        last_request: str = "",  # where the session stopped, verbatim
        last_reply: str = "",
        recap: str = "",  # Claude Code's recap, after the last request
        plan: PlanExit | None = None,  # it ends on a plan shown for approval
        skipped: list[str] | None = None,  # what the reading left out, and why
        goal_guessed: bool = False,  # first_request is only the first words typed
        restored: tuple[str, str] | None = None,  # (slug, body): the handover carried on
        in_tasks: set[int] | None = None,  # the candidates (`n`) pending_tasks shows
    ) -> None:
        self.git = git
        self.written = written or []
        self.weights = weights or {}
        self.candidates = candidates or []
        self.pending_tasks = pending_tasks or []
        self.in_tasks = in_tasks or set()
        self.first_request = first_request
        self.goal_guessed = goal_guessed
        self.restored = restored
        self.last_request = last_request
        self.last_reply = last_reply
        self.recap = recap
        self.plan = plan
        self.skipped = skipped or []
        self.transcript = transcript
        self.session_id = session_id
        self.started = started
        self.stats = stats


def observe(
    store: Store,
    *,
    transcript: str | None,
    session_id: str | None,
    with_sweep: bool,
    quick: bool = False,
) -> Observed:
    from session_skill.commands.sweep import facts_for
    from session_skill.git import info as gitinfo

    session_id = session_id or None

    asking = gitinfo.start(store.root)  # git runs while the transcript is read
    try:
        facts = facts_for(
            store, transcript=transcript, session_id=session_id, filtered=with_sweep, quick=quick
        )
    except BaseException:
        asking.close()
        raise
    git = asking.state(since=facts.started if facts else None)
    if facts is None:
        return Observed(git, session_id=session_id)
    return Observed(
        git,
        written=facts.written,
        weights=facts.weights,
        candidates=facts.candidates,
        pending_tasks=facts.pending_tasks,
        in_tasks=facts.in_tasks,
        first_request=facts.first_request,
        goal_guessed=facts.goal_guessed,
        restored=facts.restored,
        last_request=facts.last_request,
        last_reply=facts.last_reply,
        recap=facts.recap,
        plan=facts.plan,
        skipped=facts.skipped,
        transcript=facts.path,
        session_id=session_id or facts.session_id,  # the hook names the session that ends
        started=facts.started,
        stats=facts.stats,
    )


def slug_for(store: Store, name: str | None, git: GitState, now: datetime) -> str:
    from session_skill.store.slugs import auto_slug, name_slug

    if name:
        return name_slug(name)
    return auto_slug(git.branch if git.available else None, now)

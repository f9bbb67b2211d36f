"""Glue between the store and the transcript reader: find, analyze, filter, park."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from session_skill.commands.output import Output
from session_skill.errors import SessionError
from session_skill.store.store import DROPPED, Store

NO_TRANSCRIPT = (
    "No transcript found for this session: sweep from the conversation itself "
    "(then `session-skill park` what should not be lost)."
)


@dataclass
class Facts:
    path: Path
    session_id: str | None
    written: list[str] = field(default_factory=list)
    candidates: list[dict[str, str]] = field(default_factory=list)
    pending_tasks: list[str] = field(default_factory=list)
    first_request: str = ""
    started: datetime | None = None


def known_texts(store: Store) -> list[str]:
    """Open parked items and dropped ones: a sweep never offers them again."""
    if not store.exists():
        return []
    texts = [t for it in store.read_parked().items for t in (it.summary, it.slug) if t]
    try:
        with open(store.path(DROPPED), "rb") as fh:
            for raw in fh:
                try:
                    rec = json.loads(raw)
                except ValueError:
                    continue  # a malformed line is skipped, never fatal
                if isinstance(rec, dict):
                    texts += [str(rec[k]) for k in ("summary", "item") if rec.get(k)]
    except OSError:
        pass
    return texts


def locate(store: Store, *, transcript: str | None, session_id: str | None) -> Path | None:
    from session_skill.transcripts.discovery import find_transcript

    if transcript:
        p = Path(transcript).expanduser()
        if not p.is_file():
            raise SessionError(f"no such transcript: {transcript}")
        return p
    # An empty id (the skill's ${CLAUDE_SESSION_ID} substituted with nothing) means unknown.
    return find_transcript(
        store.root, transcript=None, session_id=session_id or None, env=os.environ, home=Path.home()
    )


def facts_for(
    store: Store, *, transcript: str | None, session_id: str | None, filtered: bool
) -> Facts | None:
    """What the session's transcript shows; None when no transcript is found."""
    from session_skill.transcripts import scan as sweep

    path = locate(store, transcript=transcript, session_id=session_id)
    if path is None:
        return None
    tf = sweep.analyze(path)
    cands = list(tf.candidates)
    if filtered:
        cands = sweep.filter_known(cands, known_texts(store))
    return Facts(
        path=path,
        session_id=tf.session_id or session_id,
        written=list(tf.written_files),
        candidates=sweep.to_json(cands),
        pending_tasks=[_task_text(t) for t in tf.pending_tasks],
        first_request=tf.first_user_request or "",
        started=getattr(tf, "started", None),
    )


def _task_text(task: object) -> str:
    if isinstance(task, str):
        return task
    for attr in ("content", "subject", "text"):
        value = getattr(task, attr, None)
        if isinstance(value, str) and value:
            return value
    return str(task)


def sweep_command(
    store: Store,
    *,
    transcript: str | None,
    session_id: str | None,
    park: str | None,
    as_json: bool,
    now: datetime,
) -> Output:
    from session_skill.commands.park import park as park_item
    from session_skill.transcripts import scan as sweep

    path = locate(store, transcript=transcript, session_id=session_id)
    if path is None:
        if as_json:
            return Output(json.dumps({"transcript": None, "candidates": []}))
        return Output(NO_TRANSCRIPT)
    tf = sweep.analyze(path)
    cands = sweep.filter_known(list(tf.candidates), known_texts(store))
    picked = _picks(park, len(cands)) if park else []
    parked_lines = [
        park_item(store, _park_text(cands[n - 1]), as_json=False, now=now).text for n in picked
    ]
    if as_json:
        return Output(
            json.dumps(
                {
                    "transcript": str(path),
                    "candidates": sweep.to_json(cands),
                    "parked": parked_lines,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    out = [sweep.render_table(cands)]
    if parked_lines:
        out += ["", *parked_lines]
    elif cands:
        out += ["", "→ session-skill sweep --park 1,3 to park some; park all, a subset, or none"]
    return Output("\n".join(out))


def _park_text(cand: object) -> str:
    text = str(getattr(cand, "text", cand))
    why = getattr(cand, "why", "")
    kind = getattr(cand, "type", "")
    return f"{text} Why: {kind.lower()}{'; ' + why if why else ''}." if kind else text


def _picks(spec: str, n: int) -> list[int]:
    picks: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        if not part.isdigit() or not 1 <= int(part) <= n:
            raise SessionError(f"--park takes candidate numbers from 1 to {n}; got {part!r}")
        if int(part) not in picks:
            picks.append(int(part))
    return picks

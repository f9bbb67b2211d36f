"""Glue between the store and the transcript reader: find, analyze, filter, park."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from session_skill.commands.output import Output
from session_skill.errors import SessionError
from session_skill.records import field, record
from session_skill.store.store import DROPPED, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from session_skill.transcripts.scan import Candidate, PlanExit, ReadStats

NO_TRANSCRIPT = (
    "No transcript found for this session: sweep from the conversation itself "
    "(then `session-skill park` what should not be lost)."
)


def no_transcript(session_id: str | None) -> str:
    if not session_id:
        return NO_TRANSCRIPT
    return NO_TRANSCRIPT.replace("for this session", f"for session `{session_id}`", 1)


@record
class Facts:
    path: Path
    session_id: str | None
    written: list[str] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)  # writes per written file
    candidates: list[dict[str, str]] = field(default_factory=list)
    items: list[Candidate] = field(default_factory=list)  # the same candidates, whole
    # Open tasks, the work in hand first: tasks in progress and the last request when the
    # transcript shows it unfinished (the newer of the two leads), then pending tasks.
    pending_tasks: list[str] = field(default_factory=list)
    # The numbers (`n`) of the candidates `pending_tasks` shows already: the task list's
    # items and the unfinished request — not a step left unticked or a check never run.
    in_tasks: set[int] = field(default_factory=set)
    # The session's goal: the first request, a slash command's arguments or purpose; and
    # whether it is only the first words typed, nothing having named the work.
    first_request: str = ""
    goal_guessed: bool = False
    # (slug, body) of the handover restored into the session, whose work it carried on.
    restored: tuple[str, str] | None = None
    # The last request when its turn never finished ("" when it did), and why.
    unfinished: str = ""
    # What the reading left out and why (a PARKED.md that is not UTF-8…), for the user.
    skipped: list[str] = field(default_factory=list)
    # Where it stopped, verbatim: the user's last request, the assistant's last paragraphs.
    last_request: str = ""
    last_reply: str = ""
    recap: str = ""  # Claude Code's, for the user coming back after the last request
    plan: PlanExit | None = None  # the session ends on a plan shown for approval
    started: datetime | None = None
    stats: ReadStats | None = None


def known_texts(store: Store, skipped: list[str] | None = None) -> list[str]:
    """Open parked items and dropped ones: a sweep never offers them again. With
    `skipped`, a PARKED.md that cannot be read is not fatal: it is said there (the hooks'
    capture must go on, and say what it left out where the user sees it)."""
    if not store.exists():
        return []
    try:
        parked = store.read_parked()
    except SessionError as exc:
        if skipped is None:
            raise
        skipped.append(f"{exc}; its items were not compared with this session's")
        parked = None
    texts = [t for it in parked.items for t in (it.summary, it.slug) if t] if parked else []
    try:
        with open(store.path(DROPPED), "rb") as fh:
            for raw in fh:
                try:
                    rec = json.loads(raw)
                except (ValueError, RecursionError):
                    continue  # a malformed line is skipped, never fatal
                if isinstance(rec, dict):
                    texts += [str(rec[k]) for k in ("summary", "item") if rec.get(k)]
    except OSError:
        pass
    return texts


def locate(store: Store, *, transcript: str | None, session_id: str | None) -> Path | None:
    """The transcript named, else the session's, else the project's newest; None if none.

    A session id given but not found is None, never another session's transcript."""
    from session_skill.transcripts.discovery import find_transcript

    if transcript:
        p = Path(transcript).expanduser()
        if p.is_dir():
            raise SessionError(f"{transcript} is a directory, not a transcript")
        if not p.is_file():
            if p.exists():  # a device, or a pipe (`<(…)`), which cannot be read twice
                raise SessionError(f"{transcript} is not a file: give the transcript's path")
            raise SessionError(f"no such transcript: {transcript}")
        return p
    # An empty id (the skill's ${CLAUDE_SESSION_ID} substituted with nothing) means unknown.
    sid = session_id or None
    found = find_transcript(
        store.root, transcript=None, session_id=sid, env=os.environ, home=Path.home()
    )
    if sid and found is not None and not _is_session_file(found, sid):
        return None
    return found


def _is_session_file(path: Path, sid: str) -> bool:
    """`<id>.jsonl` (Claude Code) or `rollout-<time>-<id>.jsonl` (a Codex thread)."""
    name = path.name
    return name == f"{sid}.jsonl" or (
        name.startswith("rollout-") and name.endswith(f"-{sid}.jsonl")
    )


# An item of an extractive doc's Outstanding, as `dump` writes it: "- <text> (<type>)", or
# "- <text> (<type>, left open in `<slug>`)" for one carried on from an older handover.
_OUTSTANDING = (
    r"^- (?P<text>.+) \((?P<type>Unfinished task|Unanswered question|Deferred exploration"
    r"|Diverging idea)(?:, left open in `(?P<origin>[^`\s]+)`)?\)$"
)
# The sweep's why of a carried item: where it was first left open.
CARRIED_WHY = "left open in `{}`; not seen landing since"
CARRIED_FROM = re.compile(r"^left open in `([^`\s]+)`")
# A Claude Code transcript is named by its session id; a Codex rollout ends with its thread's.
_SESSION_FILE = r"(?:^|-)(?P<id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"


def restored_into(store: Store, session_id: str | None, path: Path) -> tuple[str, str] | None:
    """(slug, body) of the handover restored into the session (by the SessionStart hook, or
    `recall` run in it): the one whose work the session carried on. Its id is the one given,
    else the transcript's name."""
    if not store.exists():
        return None
    named = re.search(_SESSION_FILE, path.stem)
    sid = session_id or (named["id"] if named else None)
    if not sid:
        return None
    from session_skill.store.consume import restored_doc

    return restored_doc(str(store.dir), sid)


def carried(restored: tuple[str, str] | None) -> tuple[Candidate, ...]:
    """The loose ends the session began with: the Outstanding items of the handover
    `restored` into it, as the automatic handover wrote them. A session that carries on a
    handover carries on what it left open: those items stay open until the session shows
    them landed, parked or dropped — they were lost at the next `/clear` when the session
    itself never said them again."""
    if restored is None:
        return ()
    from session_skill.handover.doc import section_content
    from session_skill.transcripts.candidates import Candidate

    slug, body = restored
    items = []
    for line in section_content(body, "Outstanding").splitlines():
        found = re.match(_OUTSTANDING, line.strip())
        if found is not None:
            text, why = found["text"], CARRIED_WHY.format(found["origin"] or slug)
            items.append(Candidate(text, found["type"], why, full=text, rule="carried"))
    return tuple(items)


def check_transcript(path: Path, stats: ReadStats | None) -> None:
    """Refuse a file that holds no transcript record at all (a README, random bytes)."""
    from session_skill.transcripts.scan import transcript_records

    if stats is None or transcript_records(stats) > 0:
        return
    lines = stats.records + stats.malformed
    if not lines:
        raise SessionError(f"{path} is not a transcript: it is empty")
    which = "its one line is not" if lines == 1 else f"none of its {_count(lines, 'line')} is"
    raise SessionError(f"{path} is not a transcript: {which} a Claude Code or Codex record")


def transcript_line(path: Path, stats: ReadStats | None) -> str:
    """`Transcript: <path>`, with how many of its lines could not be read."""
    bad = stats.malformed if stats is not None else 0
    return f"Transcript: {path}" + (f" ({_count(bad, 'unreadable line')} skipped)" if bad else "")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def facts_for(
    store: Store,
    *,
    transcript: str | None,
    session_id: str | None,
    filtered: bool,
    quick: bool = False,
) -> Facts | None:
    """What the session's transcript shows; None when no transcript is found. `quick`: the
    hooks' capture, whose cost barely grows with the transcript (`transcripts.quick`)."""
    from session_skill.transcripts import scan as sweep

    path = locate(store, transcript=transcript, session_id=session_id)
    if path is None:
        return None
    restored = restored_into(store, session_id, path)
    begun_with = carried(restored)
    if quick:
        from session_skill.transcripts.quick import analyze_quick

        tf = analyze_quick(path, begun_with)
    else:
        tf = sweep.analyze(path, begun_with)
    if restored is None and not session_id and tf.session_id:
        # Named by the id the transcript holds, not its file's: the Goal may still carry on.
        restored = restored_into(store, tf.session_id, path)
    cands = list(tf.candidates)
    skipped = _left_out(path, tf.stats, quick)
    tasks = list(tf.pending_tasks)
    request = tf.unfinished
    if filtered:
        known = known_texts(store, skipped if quick else None)
        cands = sweep.filter_known(cands, known)
        # A task or the unfinished request the user parked or dropped is no open task to
        # hand over either ("not listed or handed over again"): not the doc's Next step.
        gone = {c.full for c in tf.candidates if c.rule in _AS_TASKS}
        gone -= {c.full for c in cands if c.rule in _AS_TASKS}
        if gone:
            tasks = [t for t in tasks if t.text not in gone]
            request = None if request is not None and request.text in gone else request
    unfinished = ""
    if request is not None:
        unfinished = f"Finish the last request: “{request.text}” ({request.why})"
    return Facts(
        path=path,
        session_id=tf.session_id or session_id,
        written=list(tf.written_files),
        weights=dict(tf.written_weights),
        candidates=sweep.to_json(cands),
        items=cands,
        pending_tasks=_open_tasks(tasks, unfinished, tf.unfinished_is_latest),
        in_tasks={n for n, c in enumerate(cands, 1) if c.rule in _AS_TASKS},
        first_request=tf.goal or tf.first_user_request or "",
        goal_guessed=tf.goal_guessed,
        restored=restored,
        unfinished=unfinished,
        skipped=skipped,
        last_request=tf.last_request or "",
        last_reply=tf.last_reply or "",
        recap=tf.recap or "",
        plan=tf.plan,
        started=getattr(tf, "started", None),
        stats=tf.stats,
    )


def _left_out(path: Path, stats: ReadStats | None, quick: bool) -> list[str]:
    """What the reading left out of the transcript, for the doc's `skipped` and the user's
    line: its unreadable lines; the middle of a transcript too large to read whole."""
    said: list[str] = []
    bad = stats.malformed if stats is not None else 0
    if bad:
        said.append(f"{_count(bad, 'unreadable line')} of the transcript")
    if quick:
        from session_skill.transcripts import quick as q

        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if size > q.QUICK_FROM and size > q.HEAD_BYTES + q.TAIL_BYTES:
            said.append(
                f"the middle of the {size / 2**20:.0f} MB transcript, read for files, tasks, "
                "the plan, commits and requests only, not for loose ends"
            )
    return said


_AS_TASKS = frozenset({"task-list", "unfinished"})  # the rules of what `_open_tasks` lists


def _open_tasks(tasks: Sequence[object], unfinished: str, latest: bool) -> list[str]:
    """Tasks in progress, then pending ones; the unfinished request ahead of them when it
    came after the task list last changed, else right after the tasks in progress."""
    doing = [_task_text(t) for t in tasks if getattr(t, "status", "") == "in_progress"]
    todo = [_task_text(t) for t in tasks if getattr(t, "status", "") != "in_progress"]
    if not unfinished:
        return doing + todo
    return [unfinished, *doing, *todo] if latest else [*doing, unfinished, *todo]


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
    drop: str | None = None,
) -> Output:
    """The unlanded candidates of the session's transcript; `--park N,…` parks some, and
    `--drop N,…` closes some the user says are done or not wanted, never parked.

    Every candidate keeps its number, also once it is parked (or its item dropped) and
    left out of the table: `--park 3` after `--park 1` is still the third one shown.
    """
    from session_skill.commands.park import park as park_item
    from session_skill.transcripts import scan as sweep

    path = locate(store, transcript=transcript, session_id=session_id)
    if path is None:
        if as_json:
            return Output(json.dumps({"transcript": None, "candidates": []}))
        return Output(no_transcript(session_id))
    tf = sweep.analyze(path, carried(restored_into(store, session_id, path)))
    check_transcript(path, tf.stats)
    every = list(tf.candidates)
    still = {id(c) for c in sweep.filter_known(every, known_texts(store))}
    numbers = [n for n, c in enumerate(every, 1) if id(c) in still]
    cands = [c for c in every if id(c) in still]
    shown = _shown(store, path) if park or drop else None
    picked = len(shown) if shown is not None else len(every)
    parks = _picks(park, picked, "--park") if park else []
    drops = _picks(drop, picked, "--drop") if drop else []
    if shown is not None:
        # The session went on since the table was shown (the user's typed "drop 1" is in
        # it now): a number is the candidate it stood for then, wherever it stands now.
        parks, drops = (_now_numbered(shown, every, picks) for picks in (parks, drops))
    both = sorted(set(parks) & set(drops))
    if both:
        raise SessionError(f"#{both[0]} is in both --park and --drop: park it, or drop it")
    dropped_lines = _drop_picked(store, every, still, drops, now) if drops else []
    parked_lines = []
    for n in parks:
        if id(every[n - 1]) not in still:
            parked_lines.append(_already(n, every[n - 1], "not parked again"))
            continue
        text, cut = _park_text(every[n - 1])
        line = park_item(store, text, as_json=False, now=now).text
        parked_lines.append(line + (" (cut to park's 1,000-character limit)" if cut else ""))
    left_out = [n for n in range(1, len(every) + 1) if n not in numbers]
    _record_shown(store, path, every)
    if as_json:
        return Output(
            json.dumps(
                {
                    "transcript": str(path),
                    "unreadable": tf.stats.malformed,
                    "candidates": sweep.to_json(cands, numbers),
                    "left_out": left_out,
                    "parked": parked_lines,
                    "dropped": dropped_lines,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    out = [sweep.render_table(cands, numbers)]
    if left_out:
        out.append(
            f"(#{', #'.join(map(str, left_out))} left out: already parked, or dropped; "
            "the numbers stay)"
        )
    if parked_lines or dropped_lines:
        out += ["", *dropped_lines, *parked_lines]
    elif cands:
        out += [
            "",
            _park_hint(numbers, transcript or (None if session_id else str(path)), session_id),
        ]
    out += ["", transcript_line(path, tf.stats)]
    return Output("\n".join(out))


# What each number of a transcript's last sweep stood for (its candidates' whole texts),
# for the few transcripts swept last: `--park N` / `--drop N` take the candidate shown.
SHOWN = "swept.json"
_SHOWN_KEPT = 8


def _key(cand: Candidate) -> str:
    return " ".join((cand.full or cand.text).split())


def _shown(store: Store, path: Path) -> list[str] | None:
    """The candidates this transcript's last sweep showed, in their numbers' order; None
    when none was recorded (or the record cannot be read: the numbers are then this
    sweep's, as before there was a record)."""
    try:
        text = store.read(SHOWN)
        shown = json.loads(text)["shown"][os.path.abspath(path)] if text else None
    except (SessionError, OSError, ValueError, KeyError, TypeError):
        return None
    ok = isinstance(shown, list) and all(isinstance(t, str) for t in shown)
    return shown if ok else None


def _record_shown(store: Store, path: Path, every: list[Candidate]) -> None:
    """Keep what this sweep's numbers stand for (the store made for it, as `--park` would
    make it). Best effort: without a record a number is the candidate the transcript gives
    it now."""
    texts = [_key(c) for c in every]
    if not texts and not store.exists():
        return
    try:
        store.ensure()
        with store.lock():
            old = store.read(SHOWN)
            try:
                kept = json.loads(old)["shown"] if old else {}
            except (ValueError, KeyError, TypeError):
                kept = {}
            key = os.path.abspath(path)  # the same transcript, from any working directory
            if not isinstance(kept, dict) or kept.get(key) == texts:
                return
            kept.pop(key, None)
            # The newest last, the oldest let go.
            kept = dict([*list(kept.items())[-(_SHOWN_KEPT - 1) :], (key, texts)])
            store.write(SHOWN, json.dumps({"version": 1, "shown": kept}, ensure_ascii=False))
    except (SessionError, OSError):
        pass


def _now_numbered(shown: list[str], every: list[Candidate], picks: list[int]) -> list[int]:
    """The numbers this sweep gives the candidates `picks` named when they were shown; a
    candidate the session no longer leaves, or says otherwise now, is asked about (exit 4):
    nothing is parked or dropped."""
    from session_skill.errors import ChoiceNeeded
    from session_skill.transcripts.scan import clip

    now = [_key(c) for c in every]
    found = []
    for n in picks:
        text = shown[n - 1]
        # The k-th of the candidates that said this then is the k-th that says it now.
        k = shown[:n].count(text)
        at = [i for i, t in enumerate(now, 1) if t == text]
        if len(at) < k:
            raise ChoiceNeeded(
                f"#{n} was “{clip(text, 80)}” when the sweep was shown, and the session "
                "has gone on since: no candidate says that now; nothing parked or dropped "
                "— sweep again and pick from what it shows"
            )
        found.append(at[k - 1])
    return found


def _park_hint(numbers: list[int], transcript: str | None, session_id: str | None) -> str:
    """The command that parks from this same transcript, with numbers this sweep shows."""
    import shlex

    cmd = "session-skill sweep"
    if transcript:
        cmd += f" --transcript {shlex.quote(transcript)}"
    if session_id:
        cmd += f" --session-id {shlex.quote(session_id)}"
    if len(numbers) == 1:
        n = numbers[0]
        return f"→ {cmd} --park {n} to park it, --drop {n} if it is done; or leave it"
    return (
        f"→ {cmd} --park {numbers[0]},{numbers[1]} to park some (--drop those done or not "
        "wanted); park all, a subset, or none"
    )


def _park_text(cand: Candidate) -> tuple[str, bool]:
    """The whole candidate (the table shows it clipped), then why it did not land; and
    whether it had to be cut to park's 1,000-character limit."""
    from session_skill.commands.park import MAX_IDEA

    text = " ".join((cand.full or cand.text).split())
    why = f" Why: {cand.type.lower()}{'; ' + cand.why if cand.why else ''}."
    if text and text[-1] not in ".!?…":
        text += "."
    if len(text) + len(why) <= MAX_IDEA:
        return text + why, False
    room = MAX_IDEA - len(why) - 1
    return text[:room].rsplit(" ", 1)[0].rstrip(" .,;:") + "…" + why, True


def _drop_picked(
    store: Store, every: list[Candidate], still: set[int], picks: list[int], now: datetime
) -> list[str]:
    """Close the candidates numbered `picks` without parking them: each is logged to
    dropped.jsonl as the item it is, so no later sweep or handover offers it again."""
    from session_skill.store.slugs import item_slug
    from session_skill.times import format_time

    lines = []
    store.ensure()
    with store.lock():
        for n in picks:
            cand = every[n - 1]
            if id(cand) not in still:
                lines.append(_already(n, cand, "not dropped"))
                continue
            text = " ".join((cand.full or cand.text).split())
            slug = item_slug(text)
            store.log_dropped(
                {
                    "ts": format_time(now),
                    "item": slug,
                    "action": "dropped",
                    "summary": text,
                    "raised": None,
                    "query": f"sweep --drop {n}",
                    "score": None,
                    "line": None,  # never parked: no bullet was removed
                    "why": f"{cand.type}; {cand.why}" if cand.why else cand.type,
                }
            )
            lines.append(f"Dropped: {slug} (#{n}, never parked; not listed or handed over again)")
    return lines


def _already(n: int, cand: Candidate, what: str) -> str:
    """The line for a number whose candidate is parked or dropped already."""
    from session_skill.transcripts.scan import clip

    return f"#{n} is already parked (or was dropped): {what} — {clip(cand.text, 80)}"


def _picks(spec: str, n: int, flag: str) -> list[int]:
    if n == 0:
        verb = flag.lstrip("-")
        raise SessionError(f"{flag}: this sweep found no candidates to {verb}")
    picks: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        if not part.isdigit() or not 1 <= int(part) <= n:
            raise SessionError(f"{flag} takes candidate numbers from 1 to {n}; got {part!r}")
        if int(part) not in picks:
            picks.append(int(part))
    return picks

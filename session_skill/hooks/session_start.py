"""The SessionStart hook (SPEC §8, §8.2): what a new or compacted session is given.

It runs at every session start, so it imports only cheap standard-library modules, starts
no process (but git, for the Codex capture below) and never touches the network. Most
session starts have nothing pending and stop at the `LATEST` gate; the modules only a
pending doc needs are imported after that gate.
Whatever happens, it exits 0: a failure is one line on stderr, never a broken session.

By `source`:
- `clear` (or none): restore the pending handover (`notices.render`), or, for an automatic
  one, do as the `auto` setting says: `notice` (default) tells the model it exists, once
  (`noticed_at`), and leaves it pending for `recall`; `inject` injects it, labelled
  automatic; `off` says nothing. A handover written at a plan approval is only pointed at:
  Claude Code gives the plan itself. In Codex, whose `/clear` fires no SessionEnd, the
  thread just cleared is captured here first (`_capture_codex_thread`), inline: the answer
  carries the doc it writes. A failure of that capture is noted and said at once, and the
  restore goes on.
- `startup`: a notice that a handover is pending, nothing consumed.
- `compact`: what the compaction dropped (`after_compact`).
A notice that moves nothing is said once with the plugin and a settings-file install both
in place (in Claude Code or Codex): the plugin's hook leaves it to the other (`_said_beside`).
A dump too old to restore is said to be there, once. A capture still being written by the
boundary's hook is waited for briefly, else said to be on its way. Whatever the hook
gives, it also tells the user in one line (`systemMessage`).
"""

from __future__ import annotations

import os

from session_skill.hooks import pending as gates
from session_skill.hooks.notices import FULL_LIMIT as FULL_LIMIT
from session_skill.hooks.notices import NOTICE_LIMIT as NOTICE_LIMIT
from session_skill.hooks.notices import notice, render, restored_line, skipped_note, stale_notice
from session_skill.hooks.pending import MAX_AGE as MAX_AGE
from session_skill.hooks.pending import Pending as Pending
from session_skill.hooks.serve import MAX_PAYLOAD as MAX_PAYLOAD
from session_skill.hooks.serve import READ_TIMEOUT as READ_TIMEOUT
from session_skill.hooks.serve import context_output, payload_dict, serve, text_field

# Paths are plain strings here (store.paths): importing pathlib would cost more than the rest
# of the hook, and so would datetime (see times.epoch).
from session_skill.store import paths as storepaths

# `typing` costs more to import than this whole module; type checkers read this name as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

SOURCES = ("clear", "startup", "compact")


class _Start:
    """The payload's fields the hook acts on."""

    __slots__ = ("source", "cwd", "session_id", "transcript")

    def __init__(self, source: str, cwd: str | None, session_id: str | None,
                 transcript: str | None) -> None:  # fmt: skip
        self.source = source
        self.cwd = cwd
        self.session_id = session_id
        self.transcript = transcript


def run(payload: bytes, *, env: Mapping[str, str], now: datetime | None = None) -> str:
    """The hook's stdout for one SessionStart payload; "" means stay silent."""
    start = _start(payload)
    if start is None:
        return ""
    root = storepaths.project_root(env=env, cwd=start.cwd)
    store = storepaths.store_dir(root)
    if start.source == "clear" and _codex(start, env):
        _capture_codex_thread(root, store, start, env)
    if not storepaths.store_exists(store):  # never create the store here
        return ""
    out = _answer(start, root, store, env, now)
    if out and start.source == "compact" and not _first_to_give(store, start):
        return ""  # the other install's hook gave this very answer a moment ago
    if not os.path.exists(os.path.join(store, ".failed-capture")):  # capture.FAILED
        return out  # the common case: no import beyond this module's
    from session_skill.hooks.capture import take_failure

    failed = take_failure(store)
    return _with_failure(out, failed, env) if failed is not None else out


def _first_to_give(store: str, start: _Start) -> bool:
    """Is no other hook answering this compaction? With the plugin and a project install
    both in place, Claude Code runs both SessionStart hooks: after a compaction each gave the
    handover and the parked items back — twice the tokens, on every request after it. The
    first records that it answered (`.given`: when, the source, the session); another for
    the same start, within seconds, stays silent — whatever its text (the plugin names the
    skill `/session-skill:session`, and the two may be other versions). A session compacts
    once in those seconds: a compaction waits on the model's summary. (A `/clear`'s restore
    is given once already: only the hook that consumed the dump has it. A startup notice
    writes nothing: the plugin's hook leaves it to the other, `_said_beside`.)"""
    import time

    from session_skill.store import fileio
    from session_skill.store.lock import LockTimeout, file_lock

    key = f"{start.source} {start.session_id}"
    path = os.path.join(store, storepaths.GIVEN)
    now = time.time()
    try:
        with file_lock(os.path.join(store, storepaths.LOCK), timeout=gates.LOCK_WAIT):
            fresh: list[str] = []  # "<epoch> <source> <session>", the last seconds' answers
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    lines = fh.read(8192).splitlines()
            except OSError:
                lines = []  # none yet
            for line in lines:
                when, _, given = line.partition(" ")
                try:
                    if not 0 <= now - float(when) <= storepaths.GIVEN_FRESH:
                        continue  # an older start's
                except ValueError:
                    continue
                if given == key:
                    return False
                fresh.append(line)
            kept = [*fresh[-20:], f"{now:.3f} {key}"]
            fileio.atomic_write(path, "".join(f"{line}\n" for line in kept).encode())
    except (LockTimeout, OSError):
        pass  # a duplicate beats nothing given
    return True


def _answer(
    start: _Start, root: str, store: str, env: Mapping[str, str], now: datetime | None
) -> str:
    if start.source == "compact":
        if not start.session_id:
            return ""
        from session_skill.hooks import after_compact

        given = after_compact.context(store, start.session_id, env)
        return _output(*given) if given is not None else ""
    busy = start.source == "clear" and _captures_running(store)
    slug = storepaths.read_latest(store)
    if slug is None:
        return _still_writing(start, env) if busy else ""

    # Something is pending: only now pay for the modules a doc needs.
    from session_skill import times
    from session_skill.git import head as githead

    # SESSION_SKILL_NOW pins the clock for the demo and tests, as for every command.
    now_ts = now.timestamp() if now is not None else times.now_epoch(env)
    doc_path = os.path.join(store, f"{slug}.md")
    pending = gates.gate(slug, doc_path, gates.read_doc(doc_path), now_ts)
    if pending is None:
        return _still_writing(start, env) if busy else ""
    if pending.stale:
        told = gates.consume(store, slug, doc_path, now_ts, env, notice=True)
        if told is None:
            return ""
        said: tuple[str, str] | None = stale_notice(told, env)
    else:
        current = githead.current_branch(root)
        if pending.automatic:
            return _automatic(start, pending, root, store, current, now_ts, env)
        said = _dumped(start, pending, root, store, current, now_ts, env)
    if said is None:
        return ""
    return _output(
        *(said if pending.automatic else _with_later_capture(*said, store, pending, env))
    )


def _dumped(
    start: _Start,
    pending: Pending,
    root: str,
    store: str,
    current: str | None,
    now: float,
    env: Mapping[str, str],
) -> tuple[str, str] | None:
    """A dumped handover: restored, or named when it was written on another branch or the
    session is a fresh start. None when another process restored it first."""
    from session_skill import agent

    slug = pending.slug
    other_branch = gates.branch_differs(pending.branch, current)
    # (`.cleared` read once: a /clear that restores is the common start)
    another = (
        not other_branch
        and start.source != "startup"
        and not _codex(start, env)
        and _cleared_another(store, pending)
    )
    if (other_branch or start.source == "startup" or another) and _said_beside(start, env):
        return None  # a notice, which the settings-file install's hook gives beside this one
    if other_branch:
        return (
            f"A session handover `{slug}` from {_ago(pending.age)} was written on branch "
            f"`{pending.branch}`, but `{current}` is checked out now, so it was not loaded; "
            f"`{agent.hint('recall ' + slug, env)}` loads it.",
            f"session-skill: handover `{slug}` not loaded: it was written on "
            f"`{pending.branch}` and `{current}` is checked out; "
            f"`{agent.hint('recall ' + slug, env)}` loads it",
        )
    if start.source == "startup":
        return (
            f"A session handover from {_ago(pending.age)} is pending in this project "
            f"(`{slug}`); `{agent.hint('recall', env)}` loads it.",
            f"session-skill: handover `{slug}` ({_old(pending.age)}) is pending; "
            f"`{agent.hint('recall', env)}` loads it",
        )
    if another:
        recall = agent.hint(f"recall {slug}", env)
        return (
            f"A session handover `{slug}` from {_ago(pending.age)} is pending in this project, "
            f"dumped by another session than the one just cleared (another terminal, or one "
            f"since closed), so it was not loaded here: `{recall}` loads it now, and that "
            f"session's own /clear restores it.",
            f"session-skill: handover `{slug}` ({_old(pending.age)}) is another session's, not "
            f"loaded here — `{recall}` loads it",
        )
    consumed = gates.consume(store, slug, pending.path, now, env, session=start.session_id)
    if consumed is None:
        return None  # another process consumed it first, or the store was busy
    return render(consumed, env), restored_line(consumed)


def _said_beside(start: _Start, env: Mapping[str, str]) -> bool:
    """Is this the plugin's hook, with a settings-file install of ours (`session-skill
    install`, `--user`) answering the same start beside it? Claude Code runs both; a notice
    that moves nothing in the store — a handover pending at startup, one written on another
    branch or by another session, a capture still being written — was said by each, twice to
    the user and in the model's context. The store cannot say which hook spoke (a notice
    writes nothing), so the plugin's stays silent when that other hook is in a settings
    file, matches this start and looks able to run (`ours.speaks_beside`); the other then
    says it. Anything else (only the plugin, only a pip install, an install whose hooks are
    off or broken, a hook the user wrapped) is said as before, twice at worst. What consumes
    (a restore, a notice given once) is given once already. Codex (0.171.0, seen) runs its
    plugin's hook and a `.codex/hooks.json` install's alike: there the install counts when
    Codex would run it, the project and the hook trusted (`ours.codex_speaks_beside`)."""
    from session_skill import agent

    # Codex (0.171.0) gives its plugin's hooks PLUGIN_ROOT, and CLAUDE_PLUGIN_ROOT too.
    plugin_root = env.get("CLAUDE_PLUGIN_ROOT") or env.get("PLUGIN_ROOT")
    if not agent.via_plugin(env) or not plugin_root:
        return False
    from session_skill.hooks import ours

    if _codex(start, env):  # Codex runs the plugin's and a .codex/hooks.json install's alike
        if not start.cwd:
            return False
        root = storepaths.project_root(env={}, cwd=start.cwd)
        return ours.codex_speaks_beside(start.source, start.cwd, root, env)
    project = env.get("CLAUDE_PROJECT_DIR") or start.cwd
    if not project or agent.agent(env) != agent.CLAUDE:
        return False
    return ours.speaks_beside(start.source, project, env)


def _cleared_another(store: str, dumped: Pending) -> bool:
    """Did the /clear that started this session end another session than the one that
    dumped `dumped`? Its SessionEnd hook said which it ended (`.cleared`) a moment ago; a
    dump without a session, or no such word (a client that sent none), is restored as
    before. Not asked for Codex's /clear, which fires no SessionEnd: a word there is
    Claude Code's, about another /clear in the project."""
    mine = dumped.meta.get("session_id", "").strip()
    if not mine:
        return False
    import time

    path = os.path.join(store, storepaths.CLEARED)
    try:
        if time.time() - os.stat(path).st_mtime > storepaths.CLEARED_FRESH:
            return False
        with open(path, encoding="utf-8", errors="replace") as fh:
            ended = fh.read(256).strip()
    except OSError:
        return False
    return bool(ended) and ended != mine


def _with_later_capture(
    context: str, message: str, store: str, dumped: Pending, env: Mapping[str, str]
) -> tuple[str, str]:
    """A dump's restore or notice, and — when its session went on after it and that was
    saved at its /clear (hooks/session_end.py) — the later handover, named: the dump does
    not hold what was done after it."""
    later = _later_capture(store, dumped)
    if later is None:
        return context, message
    from session_skill import agent

    recall = agent.hint(f"recall {later}", env)
    context += (
        f"\n\nThe session went on after `{dumped.slug}` was dumped, and the conversation up to "
        f"its /clear was saved as `{later}`, which `{dumped.slug}` does not hold; `{recall}` "
        f"loads it."
    )
    return context, message + f"; the work after it was saved as `{later}` — `{recall}`"


def _later_capture(store: str, dumped: Pending) -> str | None:
    """The slug of the unloaded automatic handover its session wrote after the dump
    `dumped`; a capture of that session still running is waited for briefly. None when
    there is none (always for a dump that does not say how much of its transcript it read)."""
    from session_skill.handover import frontmatter

    session = dumped.meta.get("session_id", "").strip()
    if not session or not dumped.meta.get("transcript_bytes", "").strip():
        return None
    from session_skill import times
    from session_skill.hooks import capture

    created = times.epoch(dumped.meta.get("created", "").strip())
    if os.path.exists(capture.marker_path(store, session)):
        capture.wait_for_captures(store, compactions=False)
    for path, meta in capture.recent_metas(store, limit=8):
        if path == dumped.path or meta.get("session_id", "").strip() != session:
            continue
        if meta.get("trigger", "").strip() not in (gates.AUTOMATIC, gates.PLAN):
            continue
        when = times.epoch(meta.get("created", "").strip())
        if (
            frontmatter.is_false(meta.get("consumed"))
            and when is not None
            and created is not None
            and when >= created
        ):
            slug = os.path.basename(path)[: -len(".md")]
            return slug if storepaths.valid_slug(slug) else None
    return None


def _automatic(
    start: _Start,
    pending: Pending,
    root: str,
    store: str,
    current: str | None,
    now: float,
    env: Mapping[str, str],
) -> str:
    """An automatic handover: inject it, or say once that it exists, as `auto` says."""
    from session_skill.store import settings

    auto = settings.auto(root, env, _warn)
    if auto == settings.OFF:
        return ""
    moved = gates.branch_differs(pending.branch, current)
    inject = auto == settings.INJECT and start.source == "clear" and not moved
    if inject and not pending.plan:  # a plan's doc beside the plan would compete with it
        consumed = gates.consume(
            store, pending.slug, pending.path, now, env, session=start.session_id
        )
        if consumed is None:
            return ""
        context = render(consumed, env)
        message = restored_line(consumed) + skipped_note(consumed)
        return _output(*_with_dump_beside(context, message, store, consumed, now, env))
    noticed = gates.consume(store, pending.slug, pending.path, now, env, notice=True)
    if noticed is None:
        return ""  # told already (another session got there first), or the store was busy
    context, message = notice(noticed, current if moved else None, env)
    message += skipped_note(noticed)
    context, message = _with_unloaded_before(context, message, store, noticed, env)
    return _output(*_with_dump_beside(context, message, store, noticed, now, env))


def _with_unloaded_before(
    context: str, message: str, store: str, auto: Pending, env: Mapping[str, str]
) -> tuple[str, str]:
    """The notice of an automatic handover, and — when the ones it follows were automatic
    too, held open items and were never loaded (their notices passed over) — those, the
    nearest named: the newer handover does not carry their items, so they would drop out
    of sight. At most `_UNLOADED_MAX` are read back along the `follows` links."""
    from session_skill.handover import frontmatter
    from session_skill.hooks.notices import captured

    nearest, docs, items = "", 0, 0
    before, seen = auto.meta.get("follows", ""), {auto.slug}
    for _ in range(_UNLOADED_MAX):
        before = before.strip().strip("\"'")
        if not storepaths.valid_slug(before) or before in seen:
            break
        seen.add(before)
        text = gates.read_doc(os.path.join(store, f"{before}.md"))
        split = frontmatter.split(text) if text is not None else None
        if split is None or not split.has_frontmatter:
            break
        meta = frontmatter.parse(split.lines)  # one split, as `pending` reads a doc
        if not frontmatter.is_false(meta.get("consumed")):
            break
        if meta.get("trigger", "").strip() not in (gates.AUTOMATIC, gates.PLAN):
            break
        nearest = nearest or before
        docs += 1
        items += captured(split.body)[1]
        before = meta.get("follows", "")
    if not items:
        return context, message
    from session_skill import agent

    recall = agent.hint(f"recall {nearest}", env)
    said = f"{items} open item{'' if items == 1 else 's'}"
    more = f" and {docs - 1} more before that" if docs > 1 else ""
    context += (
        f"\n\nThe automatic handover before it, `{nearest}`{more}, holding {said}, was never "
        f"loaded either, and the newer one does not carry those items; `{recall}` loads it."
    )
    return context, message + f"; before it `{nearest}`{more} ({said}), never loaded — `{recall}`"


_UNLOADED_MAX = 5


def _with_dump_beside(
    context: str, message: str, store: str, auto: Pending, now: float, env: Mapping[str, str]
) -> tuple[str, str]:
    """The automatic handover's context and line, and — when a dump written for a next
    session still waits beside it (another terminal's, another client's: the capture took
    LATEST from it) — that dump, named, so it is not hidden behind the capture."""
    dump = _dump_beside(store, auto, now)
    if dump is None:
        return context, message
    from session_skill import agent

    slug, age = dump
    recall = agent.hint(f"recall {slug}", env)
    context += (
        f"\n\nThe handover `{slug}` dumped {_ago(age)} is pending too, not restored here; "
        f"`{recall}` loads it."
    )
    return context, message + f"; `{slug}` ({_old(age)}) is pending too — `{recall}`"


def _dump_beside(store: str, auto: Pending, now: float) -> tuple[str, float] | None:
    """(slug, age) of the newest handover dumped for a next session — not automatic, not
    restored, fresh enough to restore — among the store's newest docs; None when there is
    none."""
    from session_skill import times
    from session_skill.handover import frontmatter
    from session_skill.hooks.capture import recent_metas

    for path, meta in recent_metas(store, limit=8):
        if path == auto.path or not frontmatter.is_false(meta.get("consumed")):
            continue
        if meta.get("trigger", "").strip() in (gates.AUTOMATIC, gates.PLAN, gates.COMPACT):
            continue
        created = times.epoch(meta.get("created", "").strip())
        if created is not None and -gates.MAX_FUTURE <= now - created <= gates.MAX_AGE:
            return meta.get("slug", "").strip() or os.path.basename(path)[:-3], now - created
    return None


def _captures_running(store: str) -> bool:
    """A capture of a session that ended (the one just cleared: its id is not this one's)
    still being written: waited for briefly. A compaction's capture is not one. One whose
    process is gone failed: noted, and said below as a failure (`run`)."""
    try:
        if not any(n.startswith(".capture-") for n in os.listdir(store)):
            return False
    except OSError:
        return False
    from session_skill.hooks.capture import note_abandoned, wait_for_captures

    busy = bool(wait_for_captures(store, compactions=False))
    note_abandoned(store)
    return busy


def _still_writing(start: _Start, env: Mapping[str, str]) -> str:
    if _said_beside(start, env):
        return ""
    from session_skill import agent

    recall = agent.hint("recall", env)
    return _output(
        "session-skill is still writing the automatic handover of the conversation that was "
        f"just cleared (a long transcript); `{recall}` loads it in a moment.",
        f"session-skill: the handover of the cleared conversation is still being written; "
        f"`{recall}` loads it in a moment",
    )


def _codex(start: _Start, env: Mapping[str, str]) -> bool:
    from session_skill import agent

    if agent.agent(env) == agent.CODEX:
        return True
    path = start.transcript or ""
    return "rollout-" in os.path.basename(path) and f"{os.sep}sessions{os.sep}" in path


def _capture_codex_thread(root: str, store: str, start: _Start, env: Mapping[str, str]) -> None:
    """Codex's `/clear` fires no SessionEnd: the thread it left is captured at the next
    SessionStart(clear), unless it dumped its own handover or was captured already."""
    if not start.transcript:
        return
    from session_skill.store import settings

    if settings.auto(root, env, _warn) == settings.OFF:
        return
    from session_skill.hooks import capture, session_end
    from session_skill.transcripts.discovery import previous_codex_rollout

    found = previous_codex_rollout(start.transcript, root)
    if found is None:
        return
    rollout, thread = found
    dumped = session_end.own_pending(store, thread) if storepaths.store_exists(store) else None
    if dumped is not None:
        session_end.point_latest(store, dumped[0])  # it dumped: that handover is restored below
        if not session_end.went_on(dumped[1], rollout):
            return  # …and what it said after the dump is saved beside it
    held = capture.claim(store, thread)
    if held is None:
        return
    try:
        if capture.captured_already(store, thread, (gates.AUTOMATIC,), rollout):
            return
        capture.write_doc(
            root,
            session_id=thread,
            transcript=rollout,
            trigger=gates.AUTOMATIC,
            latest=dumped is None,
        )
    except Exception as exc:  # noqa: BLE001 - the restore below must still run
        # Said at once, as a background capture's failure is: this start reads the note.
        from session_skill.errors import SessionError

        said = str(exc) if isinstance(exc, SessionError) else f"{type(exc).__name__}: {exc}"
        capture.note_failure(store, thread, said)
    finally:
        capture.release(held)


def _start(payload: bytes) -> _Start | None:
    """The SessionStart we act on; None otherwise."""
    data = payload_dict(payload, "SessionStart")
    if data is None:
        return None
    source = data.get("source")
    if source is None:
        source = "clear"  # SPEC §8: a payload without a source counts as /clear
    if source not in SOURCES:
        return None
    return _Start(
        str(source),
        text_field(data, "cwd"),
        text_field(data, "session_id"),
        text_field(data, "transcript_path"),
    )


def _ago(seconds: float) -> str:
    from session_skill.hooks.notices import _ago as ago

    return ago(seconds)


def _old(seconds: float) -> str:
    from session_skill.hooks.notices import _old as old

    return old(seconds)


def main() -> int:
    """`session-skill hook session-start`: always exit 0."""
    return serve(run, _warn)


def _output(context: str, message: str) -> str:
    return context_output("SessionStart", context, message)


def _with_failure(out: str, failed: tuple[str, str], env: Mapping[str, str]) -> str:
    """`out` with a capture's background failure said once, to the model and to the user:
    the conversation is not lost — its transcript is on disk and one command saves it."""
    import json

    session_id, problem = failed
    if session_id:
        import shlex  # an id is printable and has no space (`take_failure`): still a shell's

        retry = f"session-skill dump --extractive --session-id {shlex.quote(session_id)}"
        context = (
            f"session-skill could not save the automatic handover of an earlier conversation "
            f"({problem}); its transcript is still on disk, and `{retry}` saves it."
        )
        message = (
            f"session-skill: an automatic handover could not be written ({problem}); `{retry}`"
        )
    else:  # a note not as written: its bytes are not given, the failure is
        retry = "session-skill dump --extractive --session-id <its session id>"
        context = (
            "session-skill: an automatic capture failed (its note could not be read); the "
            f"conversation's transcript is still on disk, and `{retry}` saves it."
        )
        message = f"session-skill: an automatic capture failed; `{retry}`"
    if not out:
        return _output(context, message)
    data = json.loads(out)
    specific = data.get("hookSpecificOutput", {})
    before = specific.get("additionalContext", "")
    specific["additionalContext"] = f"{before}\n\n{context}" if before else context
    data["hookSpecificOutput"] = {"hookEventName": "SessionStart", **specific}
    said = data.get("systemMessage", "")
    data["systemMessage"] = f"{said} · {message}" if said else message
    return json.dumps(data, ensure_ascii=False) + "\n"


_warn = gates.warn  # the same prefix as the gates' warnings

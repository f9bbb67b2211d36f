"""The automatic handover a session boundary writes, inside the time a hook really gets.

Three boundaries write one: SessionEnd at `/clear` (and at a plan approved with "clear
context"), PreCompact, and — Codex's `/clear` fires no SessionEnd — the next SessionStart
(clear). Each reads the transcript as a hook can afford (`transcripts.quick`) and writes the
extractive doc (`dump.automatic`).

Claude Code kills a plugin's SessionEnd hook at ~1.5 s whatever its `timeout` says, and a
long session is worth the most. So the work runs in a child detached twice over — its own
session, its parent gone at once, its standard streams closed — which survives the kill
(seen in 2.1.328: only such a child does). This process waits for it until `BUDGET` seconds
after the process started: interpreter start-up, a pyenv or plugin shim and the imports count
too (seen: 0.2–0.5 s of them on a busy machine). A capture that finishes in time is answered
as usual; one that does not finishes on its own. A marker file in the store
(`.capture-<session id>`) stands while it runs, so the next SessionStart waits for it
briefly or says it is being written; it is also what makes racing hooks of one ending
session (a plugin's and a project install's) capture it once.

Standard library only on the import path; the capture's modules load inside the child.
"""

from __future__ import annotations

import json
import os
import re
import time

from session_skill.hooks.pending import DOC_LIMIT, LOCK_WAIT, PLAN
from session_skill.store import paths as storepaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from session_skill.commands.observe import Observed

BUDGET = 1.25  # seconds from the process's start to the hook's answer (a plugin gets ~1.5)
MIN_WAIT = 0.1  # seconds the capture is given at least, however late it started
MARKER = ".capture-"
FAILED = ".failed-capture"  # a background capture's failure, for the next SessionStart
MARKER_STALE = 120.0  # seconds: a marker older than this is left from a capture that died
START_WAIT = 0.3  # seconds SessionStart waits for a capture still running
TOKEN_METHOD = "chars/4 (estimated by the session-end hook, which does not load tiktoken)"


def marker_path(store: str, session_id: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id)[:120]
    return os.path.join(store, MARKER + safe)


class Claim:
    """This process's hold on one capture: the marker, and the folders made for it."""

    __slots__ = ("store", "session_id", "made")

    def __init__(self, store: str, session_id: str, made: list[str]) -> None:
        self.store = store
        self.session_id = session_id
        self.made = made  # store folders created for the marker, deepest first


def claim(store: str, session_id: str) -> Claim | None:
    """Take the capture of this session: None when another process has it (its marker
    stands and is fresh). A store that does not exist yet is made for the marker — and
    removed again when the capture writes nothing (`release`)."""
    made = _make_dirs(store)
    path = marker_path(store, session_id)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if _fresh(path):
                return None
            try:
                os.unlink(path)  # left by a capture that died: take it over
            except OSError:
                return None
            continue
        except OSError:
            return Claim(store, session_id, made) if _unusable(store) else None
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{os.getpid()} {time.time():.3f}\n")
        return Claim(store, session_id, made)
    return None


def _make_dirs(store: str) -> list[str]:
    """The store's own folders, made for the marker: never the project folder it sits in
    (a payload's `cwd` naming one that does not exist made `/nonexistent/dir` whole)."""
    project = store
    for _ in storepaths.STORE_PARTS:
        project = os.path.dirname(project)
    if not os.path.isdir(project):
        return []
    made: list[str] = []
    folder = store
    while folder and not os.path.lexists(folder):
        made.append(folder)
        folder = os.path.dirname(folder)
    for path in reversed(made):
        try:
            os.mkdir(path)
        except OSError:
            return [p for p in made if os.path.isdir(p)]
    return made


def _unusable(store: str) -> bool:
    """No marker can be written (a read-only store, a file in its place): the capture runs
    without one, and says what is wrong as it would have anyway."""
    return not os.path.isdir(store) or not os.access(store, os.W_OK)


def release(held: Claim) -> None:
    try:
        os.unlink(marker_path(held.store, held.session_id))
    except OSError:
        pass
    for folder in held.made:  # deepest first; only if the capture left them empty
        try:
            os.rmdir(folder)
        except OSError:
            break


def _fresh(path: str) -> bool:
    try:
        age = time.time() - os.stat(path).st_mtime
    except OSError:
        return False
    return age < MARKER_STALE


COMPACT = "-compact"  # PreCompact's marker: `<session id>-compact`


def running(store: str, compactions: bool = True) -> list[str]:
    """The sessions whose capture is being written now (fresh markers); without
    `compactions`, only the captures of sessions that ended (not PreCompact's)."""
    try:
        names = os.listdir(store)
    except OSError:
        return []
    return [
        n[len(MARKER) :]
        for n in names
        if n.startswith(MARKER)
        and (compactions or not n.endswith(COMPACT))
        and _fresh(os.path.join(store, n))
    ]


def wait_for_captures(store: str, limit: float = START_WAIT, compactions: bool = True) -> list[str]:
    """Wait up to `limit` seconds for the captures running now; those still running."""
    deadline = time.monotonic() + limit
    busy = running(store, compactions)
    while busy and time.monotonic() < deadline:
        time.sleep(0.02)
        busy = running(store, compactions)
    return busy


ERROR = "\0error\0"  # how the child reports a failure through the pipe


def _started_ago() -> float:
    """Seconds since this process started (its exec: a shim that execs Python counts), from
    /proc; since this module was imported where there is no /proc."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        return max(0.0, uptime - int(stat[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.monotonic() - _IMPORTED


_IMPORTED = time.monotonic()


def detached(job: Callable[[], str], held: Claim, budget: float | None = None) -> str:
    """Run `job` (the capture; it returns the hook's stdout) in a child that outlives this
    process, and wait for it up to `budget` seconds: its output, or "" when it runs on.
    The child releases `held` when done. A failure of the job is raised here as it would
    have been inline, when it comes in time; later, it is left for the next SessionStart.
    `SESSION_SKILL_DETACH=0` (tests, debugging) runs it inline."""
    if not hasattr(os, "fork") or os.environ.get("SESSION_SKILL_DETACH") == "0":
        try:
            return job()
        finally:
            release(held)
    read_end, write_end = os.pipe()
    try:
        first = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        try:
            return job()
        finally:
            release(held)
    if first == 0:  # the first child: a session of its own, then gone
        try:
            os.close(read_end)
            os.setsid()
            if os.fork() != 0:
                os._exit(0)
            _run_detached(job, write_end, held)
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(first, 0)
    wait = budget if budget is not None else max(MIN_WAIT, BUDGET - _started_ago())
    out = _await(read_end, wait)
    if out.startswith(ERROR):
        from session_skill.errors import SessionError

        raise SessionError(out[len(ERROR) :])
    return out


def _run_detached(job: Callable[[], str], out_fd: int, held: Claim) -> None:
    """The grandchild: no standard stream of the hook's (the client waits for them to
    close), the job, its output through the pipe, the marker gone."""
    from session_skill.errors import SessionError

    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        out = job()
    except SessionError as exc:
        out = ERROR + str(exc)
    except BaseException as exc:
        out = ERROR + f"{type(exc).__name__}: {exc}"
    try:
        os.write(out_fd, out.encode("utf-8"))
    except OSError:
        if out.startswith(ERROR):  # nobody heard it: the next SessionStart says it
            note_failure(held.store, held.session_id, out[len(ERROR) :])
    finally:
        # After the note (a store made for the marker keeps it), and before the pipe
        # closes: the hook that reads to its end finds the marker gone, not still writing.
        release(held)
        os.close(out_fd)
        _keep_patterns()


def _keep_patterns() -> None:
    """Save the patterns the capture compiled (`recache`): this child ends in `os._exit`,
    which runs no exit handler, and a user who only ever clears would never get the file."""
    try:
        from session_skill import recache

        recache.save()
    except Exception:  # noqa: BLE001 - a cache never costs a capture
        pass


def _await(read_end: int, budget: float) -> str:
    import select

    deadline = time.monotonic() + budget
    chunks: list[bytes] = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return ""  # still writing: the next SessionStart waits or says so
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                return ""
            chunk = os.read(read_end, 65536)
            if not chunk:
                return b"".join(chunks).decode("utf-8", "replace")
            chunks.append(chunk)
    finally:
        os.close(read_end)


def note_failure(store: str, session_id: str, message: str) -> None:
    """A capture that failed (in the background, or Codex's at SessionStart) leaves one line
    the next SessionStart shows:
    the session's id, a tab, what went wrong (the last failure wins)."""
    line = session_id.replace("\t", " ") + "\t" + " ".join(message.split())[:300] + "\n"
    try:
        from session_skill.store import fileio

        fileio.atomic_write(os.path.join(store, FAILED), line.encode("utf-8"))
    except Exception:  # a note about a failure must not fail in turn
        pass


def take_failure(store: str) -> tuple[str, str] | None:
    """(session id, what went wrong) of a background capture that failed, once: the note is
    removed as it is read. None when there is none (one stat on the common path)."""
    path = os.path.join(store, FAILED)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(4096).strip()
        os.unlink(path)
    except OSError:
        return None
    session_id, _, message = text.partition("\t")
    return (session_id, message) if message else None


def captured_already(
    store: str, session_id: str, triggers: tuple[str, ...], transcript: str | None = None
) -> bool:
    """Does a recent doc hold this session's automatic capture (one of `triggers`) — of its
    `transcript` as it stands? A session resumed after its capture (the same id, the same
    file) and given a new request since is not captured: its next /clear was saved never."""
    for _, meta in recent_metas(store):
        if meta.get("session_id", "").strip() != session_id:
            continue
        if meta.get("trigger", "").strip() not in triggers:
            continue
        read = meta.get(READ_BYTES, "").strip()
        if transcript is None or not read.isdigit() or not asked_since(transcript, int(read)):
            return True
    return False


READ_BYTES = "transcript_bytes"  # how much of the transcript a doc was made from (doc.py)
_GREW_MAX = 4 << 20  # grown by this much, it holds new work; not scanned
_USER_RECORD = re.compile(rb'"type":\s*"user"')
_META = re.compile(rb'"isMeta":\s*true')


def asked_since(transcript: str, offset: int) -> bool:
    """Does the transcript hold a request the user typed after `offset`? (Not any growth:
    a record the client adds about the /clear itself is no new work.)"""
    try:
        with open(os.path.expanduser(transcript), "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size <= offset:
                return False
            if size - offset > _GREW_MAX:
                return True
            fh.seek(offset)
            for line in fh:
                if b'"user_message"' in line:  # Codex: a prompt typed
                    return True
                if (
                    _USER_RECORD.search(line)
                    and b'"tool_result"' not in line
                    and b"<command-name>" not in line
                    and b"<local-command" not in line
                    and not _META.search(line)
                ):
                    return True  # Claude Code: the user's words, not a tool's result
    except OSError:
        return False
    return False


def recent_metas(
    store: str, limit: int = storepaths.RECENT_DOCS, *, first: tuple[str, ...] = ()
) -> Iterator[tuple[str, dict[str, str]]]:
    """(path, frontmatter) of the docs at `first`, then of the store's newest (`recent_docs`);
    a doc that cannot be read, or has no frontmatter, is passed over."""
    from session_skill.handover import frontmatter
    from session_skill.store import fileio

    for path in (*first, *storepaths.recent_docs(store, limit)):
        text = fileio.read_regular(path, DOC_LIMIT)
        meta = frontmatter.read_meta(text) if text is not None else None
        if meta:
            yield path, meta


def write_doc(
    root: str,
    *,
    session_id: str,
    transcript: str,
    trigger: str,
    latest: bool = True,
    meta: tuple[tuple[str, object], ...] = (),
) -> dict[str, object] | None:
    """The capture itself: the automatic doc of this transcript (the dump's JSON), or None
    when the session holds no request of the user's (a /clear right after a /clear)."""
    from pathlib import Path

    from session_skill.commands import dump
    from session_skill.commands.observe import observe
    from session_skill.handover.tokens import Counter
    from session_skill.store.store import Store
    from session_skill.times import utcnow

    store = Store(Path(root))
    try:  # what a later capture of this session (resumed, cleared again) is measured by
        meta = (*meta, (READ_BYTES, os.stat(os.path.expanduser(transcript)).st_size))
    except OSError:
        pass
    observed = observe(
        store, transcript=transcript, session_id=session_id, with_sweep=True, quick=True
    )
    if observed.plan is None and not _worth_a_handover(observed):
        return None
    plan = observed.plan
    extra = meta
    if plan is not None and trigger == dump.AUTOMATIC_TRIGGER:
        trigger = PLAN
        extra = (*meta, ("plan_file", plan.path)) if plan.path else meta
    req = dump.DumpRequest(
        now=utcnow(),
        trigger=trigger,
        token_counter=Counter(method=TOKEN_METHOD),
        lock_timeout=LOCK_WAIT,
        latest=latest,
        meta=extra,
    )
    written: dict[str, object] = json.loads(dump.automatic(store, observed, req).text)
    written["plan"] = plan.title if plan is not None else None
    return written


def _worth_a_handover(observed: Observed) -> bool:
    """Did the session ask or do anything? Not a `/clear` right after a `/clear`, and not a
    greeting answered ("hello" — "Noted."): such a capture would only push a handover that
    is waiting for the next session (a dump) out of LATEST."""
    if not observed.first_request:
        return False
    if observed.written or observed.candidates:
        return True
    from session_skill.transcripts.turns import could_be_goal

    return could_be_goal(observed.first_request)

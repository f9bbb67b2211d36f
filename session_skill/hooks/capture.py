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
session (a plugin's and a project install's) capture it once. Its owner holds a `flock` on it
while the capture runs, so a marker whose capture was killed is told from one still writing.
A capture that fails — in time for the hook or not, or killed — leaves one line in
`.failed-capture` for the next SessionStart.

Standard library only on the import path; the capture's modules load inside the child.
"""

from __future__ import annotations

import fcntl
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
MARKER_NEW = 1.0  # seconds: an unlocked, empty marker this young is being created
START_WAIT = 0.3  # seconds SessionStart waits for a capture still running
# The hooks count a doc's tokens without tiktoken (~100 ms to load): `tokens.estimate`, meant
# to be at or above cl100k_base's count for any script, so that the cap holds by it too.
TOKEN_METHOD = (
    "estimated, meant to be at or above cl100k_base (ASCII by word shape, other characters "
    "by script), by a hook that does not load tiktoken"
)


def marker_path(store: str, session_id: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id)[:120]
    return os.path.join(store, MARKER + safe)


class Claim:
    """This process's hold on one capture: the marker, and the folders made for it."""

    __slots__ = ("store", "session_id", "made", "fd")

    def __init__(self, store: str, session_id: str, made: list[str], fd: int | None) -> None:
        self.store = store
        self.session_id = session_id
        self.made = made  # store folders created for the marker, deepest first
        self.fd = fd  # the marker, locked while the capture runs; None: it runs without one


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
            return Claim(store, session_id, made, None) if _unusable(store) else None
        try:
            # Held by whichever process runs the capture (it passes to the detached child):
            # the capture's end, killed or not, frees it (`_gone`). Blocking: a reader holds
            # its shared lock for a moment only.
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, f"{os.getpid()} {time.time():.3f}\n".encode())
        except OSError:  # the disk full since the create: an empty marker would say "running"
            os.close(fd)
            _unlink(path)
            return Claim(store, session_id, made, None)  # runs without one, and says what fails
        return Claim(store, session_id, made, fd)
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


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


def release(held: Claim) -> None:
    if held.fd is not None:  # the marker goes before its lock: never an unlocked one of ours
        _unlink(marker_path(held.store, held.session_id))
        _let_go(held)
    for folder in held.made:  # deepest first; only if the capture left them empty
        try:
            os.rmdir(folder)
        except OSError:
            break


def _let_go(held: Claim) -> None:
    """Close this process's hold on the marker (a detached child keeps its own)."""
    if held.fd is not None:
        try:
            os.close(held.fd)
        except OSError:
            pass
        held.fd = None


def _fresh(path: str) -> bool:
    try:
        age = time.time() - os.stat(path).st_mtime
    except OSError:
        return False
    return age < MARKER_STALE and not _gone(path, age)


def _gone(path: str, age: float) -> bool:
    """Is the marker's capture over without having removed it — killed, or left empty by a
    write that failed? Its lock is free (a dead process holds none, zombie or not) and it
    holds its line, or is past its first moment. One this process cannot open (another
    user's) is taken as running, as its age says."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return age >= MARKER_NEW or bool(os.read(fd, 64))
    except OSError:  # held: the capture runs
        return False
    finally:
        os.close(fd)


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


def note_abandoned(store: str) -> None:
    """Each capture whose process is gone with its marker standing (killed: by the client,
    out of memory) failed: its marker becomes the note the next SessionStart says — the one
    calling this reads it next. Whoever removes the marker notes it: once."""
    try:
        names = os.listdir(store)
    except OSError:
        return
    for name in names:
        if not name.startswith(MARKER):
            continue
        path = os.path.join(store, name)
        try:
            age = time.time() - os.stat(path).st_mtime
        except OSError:
            continue
        if _gone(path, age) and _unlink(path):
            session_id = name[len(MARKER) :]
            note_failure(store, session_id, "its process ended before the handover was written")


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
    have been inline, when it comes in time; either way, it is left for the next SessionStart.
    `SESSION_SKILL_DETACH=0` (tests, debugging) runs it inline."""
    if not hasattr(os, "fork") or os.environ.get("SESSION_SKILL_DETACH") == "0":
        return _inline(job, held)
    read_end, write_end = os.pipe()
    try:
        first = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return _inline(job, held)
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
    _let_go(held)  # the child holds the marker's lock now: its end frees it, not this one's
    os.waitpid(first, 0)
    wait = budget if budget is not None else max(MIN_WAIT, BUDGET - _started_ago())
    out = _await(read_end, wait)
    if out.startswith(ERROR):
        from session_skill.errors import SessionError

        raise SessionError(out[len(ERROR) :])
    return out


def _inline(job: Callable[[], str], held: Claim) -> str:
    try:
        return job()
    except BaseException as exc:
        # Before the release: a store made for the marker keeps the note.
        note_failure(held.store, held.session_id, _said(exc))
        raise
    finally:
        release(held)


def _said(exc: BaseException) -> str:
    from session_skill.errors import SessionError

    return str(exc) if isinstance(exc, SessionError) else f"{type(exc).__name__}: {exc}"


def _run_detached(job: Callable[[], str], out_fd: int, held: Claim) -> None:
    """The grandchild: no standard stream of the hook's (the client waits for them to
    close), the job, its output through the pipe, the marker gone."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        out = job()
    except BaseException as exc:
        out = ERROR + _said(exc)
        # Heard by the hook in time or not, the next SessionStart says it (a line on the
        # hook's stderr alone would be a capture lost silently).
        note_failure(held.store, held.session_id, out[len(ERROR) :])
    try:
        os.write(out_fd, out.encode("utf-8"))
    except OSError:
        pass  # the hook is gone: the note says a failure
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


NOTE_CAP = 300  # characters of what went wrong a note keeps
_ID_CAP = 200  # characters of a session id (a UUID has 36)


def note_failure(store: str, session_id: str, message: str) -> None:
    """A capture that failed (its hook's, detached, killed, or Codex's at SessionStart) leaves
    one line the next SessionStart shows: the session's id (of a compaction's marker, the
    session's own; none when it is no id), a tab, what went wrong (the last failure wins).
    Best effort: a store that cannot be written has only the hook's line on stderr."""
    if session_id.endswith(COMPACT):
        session_id = session_id[: -len(COMPACT)]
    noted = session_id if _valid_id(session_id) else ""
    line = noted + "\t" + _one_line(message) + "\n"
    try:
        from session_skill.store import fileio

        fileio.atomic_write(os.path.join(store, FAILED), line.encode("utf-8"))
    except Exception:  # a note about a failure must not fail in turn
        pass


def _valid_id(session_id: str) -> bool:
    return 0 < len(session_id) <= _ID_CAP and session_id.isprintable() and " " not in session_id


def _one_line(text: str) -> str:
    """`text` as a note holds it: no control character, one line, at most `NOTE_CAP`."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())[:NOTE_CAP]


def take_failure(store: str) -> tuple[str, str] | None:
    """(session id, what went wrong) of a capture that failed, once: the note is removed as
    it is read. ("", "") for a note that is not one `note_failure` writes (garbage, control
    characters, a session id it would not write): it is said, never its bytes. None when
    there is none (one stat on the common path)."""
    from session_skill.store import fileio

    path = os.path.join(store, FAILED)
    if not os.path.exists(path):
        return None
    data = fileio.read_regular_bytes(path, 4 * (_ID_CAP + NOTE_CAP) + 2)
    if not _unlink(path):
        return None  # not ours to say (or another start said it)
    try:
        text = data.decode("utf-8") if data is not None else ""
    except UnicodeDecodeError:
        text = ""
    session_id, tab, message = text.removesuffix("\n").partition("\t")
    if tab and _valid_id(session_id) and message and message == _one_line(message):
        return session_id, message
    return "", ""


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
    from session_skill.handover.tokens import Counter, estimate
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
        token_counter=Counter(method=TOKEN_METHOD, _count=estimate),
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

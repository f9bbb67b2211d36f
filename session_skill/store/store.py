"""The file store under `<project>/.claude/state/session/` (SPEC §3).

Every write to the store goes through here: docs created and replaced, LATEST, consume,
expiry, PARKED.md and the dropped.jsonl log. Commands call these methods and never open a
store file themselves. Standard library only. Where the store is and its LATEST pointer are
worked out in `paths` (no pathlib: the hooks use that alone); this builds on it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from session_skill.errors import StoreError
from session_skill.store import fileio
from session_skill.store import paths as storepaths
from session_skill.store.lock import LockTimeout, file_lock
from session_skill.store.paths import LATEST as LATEST
from session_skill.store.paths import LATEST_READ_LIMIT as LATEST_READ_LIMIT
from session_skill.store.paths import LOCK as LOCK
from session_skill.store.paths import NON_DOCS as NON_DOCS
from session_skill.store.paths import PARKED as PARKED
from session_skill.store.paths import SLUG_RE as SLUG_RE
from session_skill.store.paths import valid_slug as valid_slug

TYPE_CHECKING = False
if TYPE_CHECKING:
    from session_skill.store.numbers import Numbers
    from session_skill.store.parked import Parked

STORE_REL = Path(*storepaths.STORE_PARTS)
DROPPED = "dropped.jsonl"
NUMBERS = "numbers.json"  # the parked-item numbers last shown (store/numbers.py)
# A temp file older than this belongs to a writer that crashed.
TMP_MAX_AGE = 60.0


def find_project_root(
    project: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Path:
    """`--project`; `CLAUDE_PROJECT_DIR`; nearest ancestor holding `.git`; the working dir."""
    return Path(storepaths.project_root(project, env=env, cwd=cwd))


def template_dir() -> Path:
    """`state_template/`: packaged inside the wheel, or beside the package in a checkout."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_data" / "state_template"
    return packaged if packaged.is_dir() else here.parent / "state_template"


class Store:
    def __init__(self, project_root: Path) -> None:
        self.root = project_root
        self.dir = project_root / STORE_REL

    # -- layout -------------------------------------------------------------
    def exists(self) -> bool:
        try:
            return self.dir.is_dir() and not self.dir.is_symlink()
        except OSError:  # ENAMETOOLONG, EACCES…: pathlib ignores only "not there" errors
            return False

    def check(self) -> None:
        """Refuse a store we cannot use safely before anything is written."""
        if self.dir.is_symlink():
            raise StoreError(f"{self.dir} is a symlink; refusing to write through it")
        if os.path.lexists(self.dir) and not self.dir.is_dir():
            raise StoreError(f"{self.dir} exists and is not a directory")

    def ensure(self) -> None:
        """Create the store from `state_template/` (missing files only) — in a project folder
        that exists: a hook's `cwd` or `CLAUDE_PROJECT_DIR` naming one that does not made
        the whole path, `/nonexistent/dir/.claude/state/session`, to hold a handover."""
        self.check()
        if not self.dir.is_dir() and not self.root.is_dir():
            raise StoreError(f"{self.root}: no such directory; no store made there")
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            tpl = template_dir()
            if tpl.is_dir():
                for src in sorted(tpl.iterdir()):
                    dest = self.dir / src.name
                    if src.is_file() and not os.path.lexists(dest):
                        fileio.create_exclusive(dest, src.read_bytes())
            if not os.path.lexists(self.dir / ".gitignore"):
                fileio.create_exclusive(self.dir / ".gitignore", b"*\n")
        except OSError as exc:
            raise StoreError(f"cannot create the store at {self.dir}: {exc.strerror}") from None

    def path(self, name: str) -> Path:
        """A path inside the store for a validated file name; never leaves the store."""
        if (
            not name
            or "/" in name
            or "\\" in name
            or "\0" in name
            or name in (".", "..")
            or len(name) > 200
        ):
            raise StoreError(f"invalid store file name: {name[:80]!r}")
        p = self.dir / name
        if p.is_symlink():
            target = p.resolve()
            if self.dir.resolve() not in target.parents:
                raise StoreError(f"{p} is a symlink leading outside the store; not touching it")
        return p

    def doc_path(self, slug: str) -> Path:
        if not valid_slug(slug):
            raise StoreError(f"invalid handover slug: {slug[:80]!r}")
        return self.path(slug + ".md")

    @contextmanager
    # 30 s, not less: holds are milliseconds, but 64 sessions writing at once on a loaded
    # 2-core machine queued the last one past 10 s (tests/reliability/test_concurrency.py).
    def lock(self, timeout: float | None = 30.0) -> Iterator[None]:
        """Exclusive writer lock; leftover temp files of crashed writers are cleaned under it."""
        self.ensure()
        try:
            with file_lock(self.path(LOCK), timeout):
                self._clean_tmp()
                yield
        except LockTimeout:
            raise StoreError(f"the store is locked by another process: {self.dir / LOCK}") from None

    def _clean_tmp(self) -> None:
        # Only old ones: `ensure()` creates files outside the lock, and a temp file it is
        # about to link into place must not vanish under it.
        try:
            entries = list(os.scandir(self.dir))
        except OSError:
            return
        cutoff = time.time() - TMP_MAX_AGE
        for entry in entries:
            if fileio.is_tmp_name(entry.name):
                try:
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
                except OSError:
                    pass

    # -- LATEST -------------------------------------------------------------
    def read_latest(self) -> str | None:
        """The pending slug, or None (blank, missing, junk or a name that is not a slug)."""
        return storepaths.read_latest(str(self.dir))

    def write_latest(self, slug: str | None) -> None:
        """Point LATEST at `slug`, or remove it (None). Callers hold the lock.

        A LATEST that is a symlink is replaced by a plain file (`os.replace` and `unlink`
        act on the link itself): nothing is written through it, wherever it points.
        """
        if slug is None:
            storepaths.clear_latest(str(self.dir))
            return
        try:
            fileio.atomic_write(self.dir / LATEST, (slug + "\n").encode())
        except OSError as exc:
            raise StoreError(f"cannot write {self.dir / LATEST}: {exc.strerror or exc}") from None

    def check_latest(self) -> None:
        """Refuse, before a doc is written, a LATEST that could not be pointed at it."""
        path = self.dir / LATEST
        if path.is_dir() and not path.is_symlink():
            raise StoreError(
                f"{path} is a directory, not the LATEST file: move it away, then dump again"
            )

    # -- files --------------------------------------------------------------
    def read(self, name: str, *, keep_bom: bool = False) -> str | None:
        p = self.path(name)
        try:
            return fileio.read_text(p, keep_bom=keep_bom)
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise StoreError(f"{p} is a directory") from None

    def write(self, name: str, text: str) -> None:
        p = self.path(name)
        try:
            fileio.atomic_write(p, text.encode("utf-8"))
        except OSError as exc:
            raise StoreError(f"cannot write {p}: {exc.strerror}") from None

    def doc_files(self) -> Iterator[Path]:
        """Candidate handover files: regular `*.md` other than PARKED.md, with a slug name."""
        for entry in storepaths.doc_entries(str(self.dir)):
            yield Path(entry.path)

    # -- handover docs (callers hold the lock) ------------------------------
    def create_doc(self, slug: str, render: Callable[[str], str]) -> str:
        """Create `<slug>.md`, or `<slug>-2.md`… if taken; never over an existing doc.

        `render(slug)` is the doc's text for the slug it gets. Returns that slug.
        """
        for cand in self.free_slugs(slug):
            if fileio.create_exclusive(self.doc_path(cand), render(cand).encode("utf-8")):
                return cand
        raise StoreError(f"too many handovers named {slug}")

    def free_slugs(self, slug: str) -> Iterator[str]:
        """`slug`, `slug-2`, `slug-3`… that no file holds now, in order (at most 999 tried):
        the name `create_doc` gives a doc, and the one a brief says it will get."""
        from session_skill.store.slugs import numbered

        for n in range(1, 1000):
            cand = numbered(slug, n)
            if not os.path.lexists(self.doc_path(cand)):
                yield cand

    def replace_doc(self, slug: str, text: str) -> None:
        """Overwrite `<slug>.md` deliberately (`dump --replace`); never through a symlink."""
        path = self.doc_path(slug)
        if path.is_symlink():
            raise StoreError(f"{path} is a symlink; not replacing it")
        try:
            fileio.atomic_write(path, text.encode("utf-8"))
        except OSError as exc:
            raise StoreError(f"cannot write {path}: {exc.strerror}") from None

    def discard_doc(self, slug: str) -> None:
        """Take back a doc just created (callers hold the lock): its LATEST failed."""
        try:
            os.unlink(self.doc_path(slug))
        except OSError:
            pass

    def consume(self, slug: str, by: str, stamp: str, session: str | None = None) -> bool:
        """Mark a doc consumed once (the hook's step, shared); True if this call did it.
        `session`: the session it is restored into, when known (`restored_in`)."""
        from session_skill.store.consume import consume

        self.ensure()
        try:
            done = consume(str(self.dir), slug, by=by, stamp=stamp, timeout=30.0, session=session)
            return done is not None
        except LockTimeout:
            raise StoreError(f"the store is locked by another process: {self.dir / LOCK}") from None

    def expire(self, slugs: list[str], still_expired: Callable[[Path], bool]) -> list[str]:
        """Delete the docs named, each re-checked under the lock; LATEST follows. Swept slugs."""
        swept: list[str] = []
        with self.lock():
            latest = self.read_latest()
            for slug in slugs:
                path = self.doc_path(slug)
                # Re-read under the lock: another process may have replaced it since.
                if not still_expired(path):
                    continue
                try:
                    os.unlink(path)
                    swept.append(slug)
                except OSError:
                    pass
            if latest in swept:
                self.write_latest(None)
        return swept

    # -- PARKED.md and dropped.jsonl ------------------------------------------
    def read_parked(self) -> Parked:
        from session_skill.store.parked import Parked

        return Parked(self.read(PARKED, keep_bom=True) or "")  # a rewrite keeps the BOM

    def write_parked(self, parked: Parked) -> None:
        """Rewrite PARKED.md (callers hold the lock): every byte that is not an item kept."""
        self.write(PARKED, parked.render())

    def log_dropped(self, record: Mapping[str, object]) -> None:
        """Append one JSON line to dropped.jsonl (callers hold the lock)."""
        import json

        fileio.append_line(self.path(DROPPED), json.dumps(record, ensure_ascii=False))

    # -- numbers.json: the numbers `drop #N` takes ----------------------------------------
    def read_numbers(self) -> Numbers | None:
        """The numbers last shown for parked items; None when none were ever recorded.

        A record that cannot be read comes back `broken` (every `#N` is then refused).
        """
        from session_skill.store.numbers import Numbers, parse

        try:
            text = self.read(NUMBERS)
        except (StoreError, OSError):
            return Numbers(broken=True)
        return None if text is None else parse(text)

    def write_numbers(self, numbers: Numbers) -> bool:
        """Record the numbers about to be shown. False when it could not (disk full…).

        A failed write removes the old record if it can: numbers that no longer match
        what is printed must not be taken. With no record `#N` is the Nth item in file
        order, so a caller that gets False prints the items numbered that way.
        """
        from session_skill.store.numbers import render

        text = render(numbers)
        try:
            if self.read(NUMBERS) == text:
                return True  # the same numbers again: no write
            self.write(NUMBERS, text)
            return True
        except (StoreError, OSError):
            try:
                os.unlink(self.path(NUMBERS))
            except (StoreError, OSError):
                pass
            return False

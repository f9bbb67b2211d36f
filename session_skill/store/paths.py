"""Where the store is, and its LATEST pointer, on plain strings (SPEC §3).

The SessionStart hook runs at every session start and needs only this much of the
store. `pathlib` would cost it a third of Python's own start-up (it imports urllib.parse
and ipaddress), so this module works on `str` with `os.path`, and `store.py` builds its
`Path`s on it: one implementation, resolved exactly as `pathlib` resolves paths.
Standard library only, cheap modules only.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False  # `typing` costs more to import than this module
if TYPE_CHECKING:
    from collections.abc import Mapping

STORE_PARTS = (".claude", "state", "session")
SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}\Z")
LATEST = "LATEST"
LOCK = ".lock"
CLEARED = ".cleared"  # the session a /clear just ended (hooks/session_end.py)
CLEARED_FRESH = 30.0  # seconds: SessionStart follows its SessionEnd within this
GIVEN = ".given"  # the compactions SessionStart answered lately (hooks/session_start.py)
GIVEN_FRESH = 10.0  # seconds: two installs' hooks of one compaction fire within this
LATEST_READ_LIMIT = 4096


def valid_slug(slug: str | None) -> bool:
    return bool(slug) and SLUG_RE.match(slug or "") is not None and ".." not in (slug or "")


PARKED = "PARKED.md"
NON_DOCS = frozenset({PARKED})


def doc_entries(store_dir: str) -> list[os.DirEntry[str]]:
    """The store's candidate handover files: regular `*.md` other than PARKED.md, with a
    slug name (not followed through links). [] when the folder cannot be read."""
    try:
        entries = list(os.scandir(store_dir))
    except OSError:
        return []
    out = []
    for entry in entries:
        name = entry.name
        if not name.endswith(".md") or name in NON_DOCS or not valid_slug(name[:-3]):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                out.append(entry)
        except OSError:
            continue
    return out


def _split(path: str) -> tuple[str, list[str]]:
    """(root, parts) as pathlib parses a POSIX path: no empty or "." parts, ".." kept,
    and exactly two leading slashes kept as they are (POSIX leaves them open)."""
    root = ""
    if path.startswith("/"):
        stripped = path.lstrip("/")
        root = "//" if len(path) - len(stripped) == 2 else "/"
        path = stripped
    return root, [p for p in path.split("/") if p and p != "."]


def _absolute(path: str, *, expand_user: bool) -> tuple[str, list[str]]:
    """`Path(path)[.expanduser()].absolute()`, as (root, parts)."""
    root, parts = _split(path)
    if expand_user and not root and parts and parts[0][:1] == "~":
        home = os.path.expanduser(parts[0])
        if home[:1] == "~":
            raise RuntimeError("Could not determine home directory.")
        root, head = _split(home)
        parts = head + parts[1:]
    if not root:
        root, head = _split(os.getcwd())
        parts = head + parts
    return root, parts


def project_root(
    project: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> str:
    """`--project`; else the nearest ancestor holding `.git` of `CLAUDE_PROJECT_DIR` or of the
    working dir; else that folder itself."""
    if project:
        root, parts = _absolute(os.fspath(project), expand_user=True)
        return root + "/".join(parts)
    env = os.environ if env is None else env
    from_env = env.get("CLAUDE_PROJECT_DIR")
    if from_env:
        # Claude Code sets it for hooks only — to the folder `claude` was started in — and
        # the model's Bash calls find the store from their working directory, by its git
        # root: started in a repository's subfolder, the dump went to the root's store and
        # the hooks read the subfolder's, and nothing was restored (seen, 2.1.328). Both
        # take the git root the folder is in.
        root, parts = _absolute(from_env, expand_user=True)
    else:
        root, parts = _absolute(os.fspath(cwd) if cwd else os.getcwd(), expand_user=False)
    for n in range(len(parts), -1, -1):  # the directory itself, then each parent
        candidate = root + "/".join(parts[:n])
        if os.path.lexists(root + "/".join([*parts[:n], ".git"])):
            return candidate
    return root + "/".join(parts)


def store_dir(project_root: str) -> str:
    return os.path.join(project_root, *STORE_PARTS)


def store_exists(directory: str) -> bool:
    """A real directory (a symlink in its place is not the store)."""
    try:
        return os.path.isdir(directory) and not os.path.islink(directory)
    except (OSError, ValueError):
        return False


def read_latest(directory: str) -> str | None:
    """The pending slug, or None (blank, missing, junk or a name that is not a slug)."""
    p = os.path.join(directory, LATEST)
    try:
        if os.path.islink(p) or not os.path.isfile(p):
            return None
        with open(p, "rb") as fh:
            raw = fh.read(LATEST_READ_LIMIT)
    except (OSError, ValueError):
        return None
    try:
        slug = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    return slug if valid_slug(slug) else None


def clear_latest(directory: str) -> None:
    """Remove LATEST (a symlink there is removed itself, not what it points to)."""
    try:
        os.unlink(os.path.join(directory, LATEST))
    except FileNotFoundError:
        pass


RECENT_DOCS = 64  # docs looked at for one session's own (`recent_docs`)


def recent_docs(store: str, limit: int = RECENT_DOCS) -> list[str]:
    """The store's newest `*.md` files by modification time (a doc consumed or written
    lately is among them), at most `limit`."""
    try:
        names = [n for n in os.listdir(store) if n.endswith(".md") and n not in NON_DOCS]
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(store, name)
        try:
            found.append((os.stat(path).st_mtime, path))
        except OSError:
            continue
    found.sort(reverse=True)
    return [p for _, p in found[:limit]]

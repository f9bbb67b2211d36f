"""What install notes about the files it writes, for a later install or uninstall to read:
that it created a client's settings file (uninstall deletes such a file when it empties
it, and only such a one: an empty `{}` of the user's stays), and the SHA-256 of the SKILL.md
it wrote (an update never wipes the user's edit of it).

A project install keeps these notes in the store its hooks use, `.install.json`, which git
never sees (the store ignores itself). Kept beside the files they describe
(`.claude/.session-skill-created`, `.claude/skills/session/.session-skill-written`), they
showed in `git status` and in a handover's Files table. A user install still keeps them
there, beside its files in ~/.claude, ~/.codex, ~/.agents (no repository; no store). A note
an older project install left beside a file is still read; the next install moves it into
the store, an uninstall removes it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from session_skill.errors import StoreError
from session_skill.install.settings_file import read_bytes
from session_skill.install.steps import Place
from session_skill.store import fileio
from session_skill.store.lock import LockTimeout, file_lock
from session_skill.store.store import LOCK, Store

Kind = Literal["created", "written"]
# Beside a settings file install created: its name. Beside a skill file: the SHA-256 of
# what install wrote there. (Every install of a user's; a project's before `.install.json`.)
CREATED = ".session-skill-created"
WRITTEN = ".session-skill-written"
_BESIDE: dict[Kind, str] = {"created": CREATED, "written": WRITTEN}
# In the store: {"created": {path: true}, "written": {path: sha256}}, each path relative to
# the store's project (`sub/.claude/settings.json` for `install --project sub`).
NOTES = ".install.json"


def described(place: Place, kind: Kind) -> Path:
    """The file a note of `kind` is about: the settings file, or the skill file."""
    return place.settings if kind == "created" else place.skill


def beside(place: Place, kind: Kind) -> Path:
    """Where the note is beside its file (a user install's; an older project install's)."""
    return described(place, kind).parent / _BESIDE[kind]


def old_note(place: Place, kind: Kind) -> Path | None:
    """The note an older project install left beside its file, when there is one."""
    path = beside(place, kind)
    return path if place.store_root is not None and os.path.lexists(path) else None


def created(place: Place) -> bool:
    """Whether install created this settings file (an older install recorded nothing: the
    file is then the user's)."""
    entry = _entry(place, "created")
    if entry is not None:
        return entry is True
    raw = _read_beside(place, "created")
    return raw is not None and place.settings.name in raw.split()


def written(place: Place) -> str | None:
    """The digest of the SKILL.md install last wrote here; None when none is recorded."""
    entry = _entry(place, "written")
    if entry is not None:
        return entry if isinstance(entry, str) else None
    raw = _read_beside(place, "written")
    return (raw.strip() or None) if raw is not None else None


def recorded(place: Place, kind: Kind) -> bool:
    """Whether a note of `kind` is kept anywhere, in the store or beside its file."""
    return _entry(place, kind) is not None or os.path.lexists(beside(place, kind))


def note(place: Place, kind: Kind, value: bool | str) -> None:
    """Keep a note (when a step is applied): in the store for a project install, an older
    one beside its file then removed; beside the file for a user install."""
    if place.store_root is None:
        text = place.settings.name if kind == "created" else str(value)
        fileio.atomic_write(beside(place, kind), (text + "\n").encode())
        return
    _update(place, kind, value, create=True)
    _unlink(beside(place, kind))


def forget(place: Place, kind: Kind) -> None:
    """Drop a note wherever it is kept (when a step is applied). Never creates the store."""
    _unlink(beside(place, kind))
    if place.store_root is not None:
        _update(place, kind, None, create=False)


def _key(place: Place, kind: Kind) -> str:
    assert place.store_root is not None
    return described(place, kind).relative_to(place.store_root).as_posix()


def _store(place: Place) -> Store | None:
    return None if place.store_root is None else Store(place.store_root)


def _load(store: Store) -> dict[str, dict[str, object]]:
    """The store's notes; none when it has none, or when they are not the JSON install
    writes (a file of ours that cannot be read is rewritten, not trusted)."""
    if not store.exists():
        return {}
    try:
        text = store.read(NOTES)
    except (StoreError, OSError):
        return {}
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in _BESIDE and isinstance(v, dict)}


def _entry(place: Place, kind: Kind) -> object:
    store = _store(place)
    if store is None:
        return None
    return _load(store).get(kind, {}).get(_key(place, kind))


def _read_beside(place: Place, kind: Kind) -> str | None:
    path = beside(place, kind)
    raw = read_bytes(path, place.show(path))
    return None if raw is None else raw.decode("utf-8", "replace")


def _update(place: Place, kind: Kind, value: bool | str | None, *, create: bool) -> None:
    store = _store(place)
    assert store is not None
    if create:
        store.ensure()
    elif not store.exists() or not os.path.lexists(store.dir / NOTES):
        return
    try:
        with file_lock(store.path(LOCK), 30.0):
            data = _load(store)  # re-read under the lock: another install may have written
            entries = data.setdefault(kind, {})
            key = _key(place, kind)
            if value is None:
                entries.pop(key, None)
            else:
                entries[key] = value
            data = {k: v for k, v in data.items() if v}
            if data:
                store.write(NOTES, json.dumps(data, indent=2, sort_keys=True) + "\n")
            else:
                _unlink(store.dir / NOTES)
    except LockTimeout:
        raise StoreError(f"the store is locked by another process: {store.dir / LOCK}") from None


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def forget_what(place: Place, kind: Kind) -> str:
    """How a step that only forgets a note says so."""
    old = beside(place, kind)
    if os.path.lexists(old):
        return f"remove {place.show(old)}"
    shown = place.show(described(place, kind))
    if kind == "created":
        return f"drop the store's note that install created {shown}"
    return f"drop the store's note of the {shown} install wrote"

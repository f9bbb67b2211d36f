"""Shared helpers for the reliability suite (issue 6): run the CLI as real processes,
snapshot trees byte for byte, and check that every file of a store parses."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from session_skill.handover.doc import Doc, parse_doc
from session_skill.store import fileio
from session_skill.store.parked import Item, Parked
from session_skill.store.store import DROPPED, LATEST, PARKED, Store, valid_slug

STORE_REL = Path(".claude") / "state" / "session"
NOW = "2026-11-29T18:30:00Z"
BODY = "## Goal\nShip the retry change.\n\n## Next step\nRun the integration tests.\n"
HOOK_CLEAR = {"hook_event_name": "SessionStart", "source": "clear"}


def store_of(root: Path) -> Path:
    return root / STORE_REL


# -- running the real CLI ---------------------------------------------------------
@dataclass
class Result:
    code: int
    out: str
    err: str

    def __str__(self) -> str:  # what pytest shows when an assert fails
        return f"exit {self.code}\n--- stdout\n{self.out[:3000]}\n--- stderr\n{self.err[:3000]}"


def cli_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child: the test's (isolated HOME), a pinned clock, no pycache."""
    env = dict(os.environ)
    env["SESSION_SKILL_NOW"] = NOW
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("CLAUDE_PROJECT_DIR", None)
    env.update(extra or {})
    return env


def cli_argv(root: Path | None, *args: str) -> list[str]:
    project = ["--project", str(root)] if root is not None and args[:1] != ("hook",) else []
    return [sys.executable, "-m", "session_skill", *project, *args]


def popen_cli(
    root: Path | None,
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    stdin: int | None = subprocess.PIPE,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cli_argv(root, *args),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(env),
        cwd=cwd,
        start_new_session=True,  # SIGKILL the group: a dump's git child dies with it
        preexec_fn=preexec_fn,
    )


def run_cli(
    root: Path | None,
    *args: str,
    input: str | bytes | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 120,
    preexec_fn: Callable[[], None] | None = None,
) -> Result:
    data = input.encode("utf-8") if isinstance(input, str) else input
    proc = subprocess.run(
        cli_argv(root, *args),
        input=data if data is not None else b"",
        capture_output=True,
        env=cli_env(env),
        cwd=cwd,
        timeout=timeout,
        preexec_fn=preexec_fn,
    )
    return Result(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def hook_payload(cwd: Path | str, source: str | None = "clear", **extra: object) -> bytes:
    data: dict[str, object] = {"hook_event_name": "SessionStart", "cwd": str(cwd)}
    if source is not None:
        data["source"] = source
    data.update(extra)
    return json.dumps(data).encode()


def feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    """Write all of stdin and close it now, so many children see EOF at the same moment."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.stdin = None


def finish(proc: subprocess.Popen[bytes], timeout: float = 120) -> Result:
    out, err = proc.communicate(timeout=timeout)
    return Result(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


# -- dropping the privilege that makes chmod meaningless for root -------------------
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3


def without_dac_override() -> None:
    """preexec_fn: the child (and what it execs) obeys file modes even when run as root.

    Tests run as root, for whom a chmod'ed store stays writable. Dropping these
    capabilities from the bounding set before exec makes a 0555 directory read-only to
    the child, exactly as it is for a normal user.
    """
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


# -- snapshots -----------------------------------------------------------------------
Snapshot = dict[str, object]


def snapshot(root: Path, *, skip: Path | None = None) -> Snapshot:
    """Every entry under `root`: file bytes, symlink targets, directories and their modes."""
    snap: Snapshot = {}
    if not os.path.lexists(root):
        return snap
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        if skip is not None and (d == skip or skip in d.parents):
            dirnames[:] = []
            continue
        for name in sorted(dirnames):
            p = d / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                snap[rel] = ("symlink", os.readlink(p))
            else:
                snap[rel] = ("dir", os.stat(p).st_mode & 0o7777)
        for name in filenames:
            p = d / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                snap[rel] = ("symlink", os.readlink(p))
            elif p.is_file():
                snap[rel] = p.read_bytes()
            else:
                snap[rel] = ("special", os.lstat(p).st_mode)
    return snap


def changed(before: Snapshot, after: Snapshot) -> set[str]:
    keys = set(before) | set(after)
    return {k for k in keys if before.get(k, "<absent>") != after.get(k, "<absent>")}


# -- the store, read back strictly ----------------------------------------------------
@dataclass
class StoreView:
    items: list[Item] = field(default_factory=list)
    parked_text: str = ""
    docs: dict[str, Doc] = field(default_factory=dict)
    dropped: list[dict[str, object]] = field(default_factory=list)
    latest: str | None = None
    latest_raw: bytes | None = None
    tmp: list[str] = field(default_factory=list)

    @property
    def slugs(self) -> list[str]:
        return [it.slug for it in self.items]


def read_store(root: Path) -> StoreView:
    """Read every file of the store and fail the test if any of them is torn.

    PARKED.md must decode and parse; every `<slug>.md` must be a whole handover doc (its
    frontmatter parses and the file ends the way the tool writes it); every line of
    dropped.jsonl must be one whole JSON object; LATEST must be empty or one valid slug.
    """
    sd = store_of(root)
    view = StoreView()
    if not sd.is_dir():
        return view
    for entry in sorted(os.listdir(sd)):
        p = sd / entry
        if fileio.is_tmp_name(entry):
            view.tmp.append(entry)
        elif entry == PARKED:
            view.parked_text = fileio.read_text(p)
            parked = Parked(view.parked_text)
            assert parked.render() == view.parked_text
            view.items = parked.items
        elif entry == DROPPED:
            raw = p.read_bytes()
            assert raw == b"" or raw.endswith(b"\n"), f"torn last line in {p}: {raw[-200:]!r}"
            for line in raw.decode("utf-8").split("\n")[:-1]:  # not splitlines: U+2028
                rec = json.loads(line)
                assert isinstance(rec, dict), line
                view.dropped.append(rec)
        elif entry == LATEST:
            view.latest_raw = p.read_bytes()
            text = view.latest_raw.decode("utf-8").strip()
            assert text == "" or valid_slug(text), f"LATEST holds {view.latest_raw[:200]!r}"
            view.latest = text or None
        elif entry.endswith(".md") and valid_slug(entry[:-3]):
            text = fileio.read_text(p)
            doc = parse_doc(text)
            assert doc is not None, f"{p} is not a whole handover doc:\n{text[:500]}"
            assert text.endswith("\n"), f"{p} is cut short"
            view.docs[entry[:-3]] = doc
    return view


def tmp_files(root: Path) -> list[str]:
    sd = store_of(root)
    return sorted(n for n in os.listdir(sd) if fileio.is_tmp_name(n)) if sd.is_dir() else []


def new_store(root: Path) -> Store:
    store = Store(root)
    store.ensure()
    with store.lock():
        pass
    return store


def write_doc(
    root: Path,
    slug: str,
    *,
    created: str | None = NOW,
    consumed: str = "false",
    branch: str | None = None,
    body: str = BODY,
    extra: str = "",
    newline: str = "\n",
) -> Path:
    """A handover doc written by hand, as another tool or a person would."""
    sd = store_of(root)
    sd.mkdir(parents=True, exist_ok=True)
    head = [f"slug: {slug}"]
    if created is not None:
        head.append(f"created: {created}")
    head.append(f"consumed: {consumed}")
    if branch is not None:
        head.append(f"branch: {branch}")
    text = "---\n" + "\n".join(head) + "\n" + extra + "---\n" + body
    path = sd / f"{slug}.md"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


def distinct_texts(n: int, seed: int, words: int = 4) -> list[str]:
    """`n` ideas that share no word, so park's near-duplicate rule never merges two."""
    import random

    rng = random.Random(seed)
    seen: set[str] = set()
    texts = []
    for _ in range(n):
        ws = []
        while len(ws) < words:
            w = "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(4))
            if w not in seen:
                seen.add(w)
                ws.append(w)
        texts.append(" ".join(ws))
    return texts


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """A project directory that is not a git repository (no git subprocess to wait for)."""
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SESSION_SKILL_NOW", NOW)
    return NOW

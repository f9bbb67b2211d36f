"""`recache`: the capture's patterns built from a file, equal to what `re.compile` makes."""

from __future__ import annotations

import json
import marshal
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from session_skill import recache
from session_skill.transcripts import lazyre, phrasing

PATTERNS = [
    (r"\b(?:still\s+open|left\s+open)\b", re.IGNORECASE | re.VERBOSE),
    (r"(?P<key>\b[A-Za-z0-9_.-]*?(?P<word>password|secret))\s*[:=]\s*(\S+)", re.IGNORECASE),
    (r"^\s*(?:[-*+•]|\d{1,2}[.)]|\[[ xX]\])\s+", re.MULTILINE),
    (r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END|\Z)", re.DOTALL),
    (r"[^\w]+|_+", 0),
]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh cache at a scratch path, as if this were a new process."""
    where = tmp_path / "__pycache__" / "recache.test.marshal"
    monkeypatch.setattr(recache, "path", lambda: str(where))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)

    def new_process() -> None:
        monkeypatch.setattr(recache, "_loaded", None)
        monkeypatch.setattr(recache, "_used", {})
        monkeypatch.setattr(recache, "_dirty", False)

    new_process()
    monkeypatch.setattr(recache, "new_process", new_process, raising=False)
    yield where


def test_fresh_and_cached_patterns_equal_re_compile(store: Path) -> None:
    fresh = [recache.compile(p, f) for p, f in PATTERNS]
    assert fresh == [re.compile(p, f) for p, f in PATTERNS]
    recache.save()
    assert store.is_file()
    recache.new_process()  # type: ignore[attr-defined]
    cached = [recache.compile(p, f) for p, f in PATTERNS]
    assert recache._loaded and len(recache._loaded) == len(PATTERNS)
    assert cached == [re.compile(p, f) for p, f in PATTERNS]
    assert cached[1].groupindex == {"key": 1, "word": 2}
    found = cached[1].search("DB_PASSWORD = hunter2")
    assert found is not None and found.group("word") == "PASSWORD"
    assert not recache._dirty  # nothing new: nothing to write at exit


def test_every_phrasing_and_lazy_pattern_is_what_re_compiles(store: Path) -> None:
    """What the sweep really uses: its phrasing classes and the lazily compiled filters."""
    import importlib

    for name in ("asks", "claude", "codex", "discovery", "ending", "landed", "loose", "prose",
                 "quick", "redact", "scan", "toolcalls", "turns"):  # fmt: skip
        importlib.import_module(f"session_skill.transcripts.{name}")
    rules = [r.pattern for r in phrasing.RULES] + [r.before for r in phrasing.RULES if r.before]
    assert rules and all(p == re.compile(p.pattern, p.flags) for p in rules)
    lazies = [
        value._get()
        for module in list(sys.modules.values())
        if getattr(module, "__name__", "").startswith("session_skill.")
        for value in vars(module).values()
        if isinstance(value, lazyre.Lazy)
    ]
    assert len(lazies) > 20
    assert all(p == re.compile(p.pattern, p.flags) for p in lazies)


def test_no_file_without_bytecode_writing(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    recache.compile(*PATTERNS[0])
    recache.save()
    assert not store.exists()


@pytest.mark.parametrize(
    "content",
    [
        b"not marshal at all",
        marshal.dumps((("another python", 1), {})),
        marshal.dumps([1, 2, 3]),
    ],
)
def test_a_damaged_or_foreign_file_is_ignored(store: Path, content: bytes) -> None:
    store.parent.mkdir(parents=True)
    store.write_bytes(content)
    assert recache.compile(*PATTERNS[0]) == re.compile(*PATTERNS[0])
    recache.save()  # and replaced by a good one
    recache.new_process()  # type: ignore[attr-defined]
    assert recache.compile(*PATTERNS[0]) == re.compile(*PATTERNS[0])
    assert recache._loaded and list(recache._loaded) == [PATTERNS[0]]


def test_an_entry_sre_refuses_is_compiled_afresh(store: Path) -> None:
    recache.compile(*PATTERNS[0])
    recache.save()
    stamp, entries = marshal.loads(store.read_bytes())
    flags, code, groups, groupindex, indexgroup = entries[PATTERNS[0]]
    entries[PATTERNS[0]] = (flags, [99999] * 5, groups, groupindex, indexgroup)
    store.write_bytes(marshal.dumps((stamp, entries)))
    recache.new_process()  # type: ignore[attr-defined]
    assert recache.compile(*PATTERNS[0]) == re.compile(*PATTERNS[0])


def test_a_growing_file_keeps_only_what_the_run_used(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recache, "MAX_ENTRIES", 3)
    for p, f in PATTERNS[:3]:
        recache.compile(p, f)
    recache.save()
    recache.new_process()  # type: ignore[attr-defined]
    recache.compile(*PATTERNS[3])  # a fourth: over the cap, only this run's are kept
    recache.save()
    _, entries = marshal.loads(store.read_bytes())
    assert list(entries) == [PATTERNS[3]]


def test_the_file_is_written_at_exit_in_the_users_cache(tmp_path: Path) -> None:
    """A real process: its first run writes the file at exit, the next loads from it."""
    code = (
        "import sys; from session_skill import recache\n"
        "recache.compile(r'\\bsaved\\b', 2)\n"
        "print(len(recache._entries()), recache.path())\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(Path(recache.__file__).parents[1]),
        "HOME": str(tmp_path / "home"),
    }
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        for _ in range(2)
    ]
    version = sys.version.split()[0]
    where = tmp_path / "home" / ".cache" / "session-skill"
    expected = where / f"recache-{sys.implementation.cache_tag}-{version}.marshal"
    assert [r.stdout for r in runs] == [f"0 {expected}\n", f"1 {expected}\n"], runs[0].stderr
    assert expected.is_file()
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    moved = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert moved.stdout.startswith(f"0 {tmp_path / 'xdg' / 'session-skill'}/")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["XDG_CACHE_HOME"] = str(tmp_path / "none")
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert not (tmp_path / "none").exists()


def test_the_modules_patterns_from_the_file_are_what_re_compiles(tmp_path: Path) -> None:
    """The patterns the hooks' modules compile at import, through `recache`: in a first
    process (compiled, then written) and a second (built from the file), every one of them
    is the pattern `re.compile` makes."""
    code = (
        "import importlib, re, sys\n"
        "from session_skill import recache\n"
        "for name in sys.argv[1:]:\n"
        "    importlib.import_module('session_skill.' + name)\n"
        "found = [v for m in list(sys.modules.values())\n"
        "         if getattr(m, '__name__', '').startswith('session_skill.')\n"
        "         for v in vars(m).values() if isinstance(v, re.Pattern)]\n"
        "cached = [p for p in found if (p.pattern, p.flags & ~re.UNICODE) in recache._entries()\n"
        "          or (p.pattern, p.flags) in recache._entries()]\n"
        "bad = [p for p in found if p != re.compile(p.pattern, p.flags)]\n"
        "print(len(found), len(cached), bad)\n"
    )
    modules = ["hooks.session_end", "hooks.pre_compact", "commands.dump", "commands.sweep",
               "transcripts.quick", "store.parked", "handover.filestable"]  # fmt: skip
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(Path(recache.__file__).parents[1]),
        "HOME": str(tmp_path / "home"),
    }
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, *modules], env=env, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    first, second = (r.stdout.split(" ", 2) for r in runs)
    assert first[2] == second[2] == "[]\n", runs[0].stderr + runs[1].stderr
    assert first[1] == "0" and int(second[1]) >= 20  # from the file, the second time


@pytest.mark.parametrize(
    "argv", [["park", "try the streaming parser"], ["list"], ["drop", "streaming"],
             ["recall", "--peek"], ["dispatch", "list"], ["hook", "session-start"]],
)  # fmt: skip
def test_the_loop_commands_and_the_start_hook_read_no_cache_file(
    tmp_path: Path, argv: list[str]
) -> None:
    """The file costs ~1 ms to load; a command the model runs in its loop, or the hook at
    every session start, compiles its few patterns sooner than that: none imports it."""
    proj = tmp_path / "proj"
    (proj / ".claude" / "state" / "session").mkdir(parents=True)
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(Path(recache.__file__).parents[1]),
        "HOME": str(tmp_path / "home"),
        "SESSION_SKILL_AGENT": "claude-code",
    }
    payload = json.dumps({"session_id": "s1", "source": "startup", "cwd": str(proj)})
    subprocess.run([sys.executable, "-m", "session_skill", "park", "try the streaming parser"],
                   cwd=proj, env=env, capture_output=True, check=True)  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "session_skill", *argv],
        cwd=proj, env=env, input=payload, capture_output=True, text=True,
    )  # fmt: skip
    assert "session_skill.records" in run.stderr or argv[0] == "hook", run.stderr[-500:]
    assert "session_skill.recache" not in run.stderr


def test_code_from_the_file_is_what_compile_makes(store: Path) -> None:
    source = "def __init__(self, a, b=_d_b):\n    self.a = a\n    self.b = b"
    assert recache.code(source) == compile(source, "<string>", "exec")
    recache.save()
    recache.new_process()  # type: ignore[attr-defined]
    cached = recache.code(source)
    assert (source, -1) in recache._entries() and not recache._dirty
    assert cached == compile(source, "<string>", "exec")
    env: dict[str, object] = {"_d_b": 2}
    exec(cached, env)
    assert env["__init__"].__code__.co_varnames[:3] == ("self", "a", "b")  # type: ignore[attr-defined]


def test_a_damaged_code_entry_is_compiled_afresh(store: Path) -> None:
    source = "x = 1"
    store.parent.mkdir(parents=True)
    store.write_bytes(marshal.dumps((recache._stamp(), {(source, -1): "x = 2"})))
    env: dict[str, object] = {}
    exec(recache.code(source), env)
    assert env["x"] == 1 and recache._dirty

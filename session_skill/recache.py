"""Compiled regular expressions (and small generated code) kept between runs, the way
Python keeps bytecode.

Python compiles a pattern in pure Python (`re._parser`, `re._compiler`) on every run; the
capture at a session boundary uses ~40 of the sweep's patterns and spent ~27 ms of its
budget compiling them, every time. What that compilation produces is plain data — the
pattern's code (a list of ints), its flags and its groups — which `_sre.compile` turns into
the very `re.Pattern` that `re.compile` returns. So `compile` keeps that data in the user's
cache folder (`$XDG_CACHE_HOME/session-skill/`, else `~/.cache/session-skill/`), one file per
Python, and later runs build the pattern from it in microseconds.

Bytecode rules apply: nothing is written when Python writes no bytecode
(`PYTHONDONTWRITEBYTECODE`, `-B`) or the folder cannot be written; the file names the Python
it was made by, and is ignored for any other. Whatever goes wrong — no such internals, a
damaged or foreign file, code `_sre` refuses — the pattern is compiled as `re.compile` does;
the file only ever saves time. It is outside the package, so uninstalling leaves the
package's folder clean; deleting the file costs the next capture ~45 ms, nothing else.

The same file keeps the code `records.record` compiles for each class it builds (`code`):
a code object is plain data to `marshal` too, and the capture builds twenty such classes.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import builtins
import os
import re
import sys
import types  # (re imports it: free)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType
    from typing import Any

    Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

# Entries kept at most: a pattern changed by an upgrade leaves its old entry behind, so a
# file that grows past this keeps only what the run that saves it used.
MAX_ENTRIES = 400
_loaded: dict[tuple[str, int], Entry | CodeType] | None = None
_used: dict[tuple[str, int], Entry | CodeType] = {}
_dirty = False
_CODE = -1  # the flags of a code entry's key (`code`): no pattern's flags are negative


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 - re's own name
    """`re.compile(pattern, flags)`, from the file when it holds the pattern."""
    flags = int(flags)
    key = (pattern, flags)
    entry = _entries().get(key)
    if isinstance(entry, tuple):
        try:
            compiled = _build(pattern, entry)
        except Exception:  # a damaged entry, another Python's code: compile afresh
            pass
        else:
            _used[key] = entry
            return compiled
    try:
        entry = _compile(pattern, flags)
        compiled = _build(pattern, entry)
    except Exception:  # re's internals moved: re.compile, uncached
        return re.compile(pattern, flags)
    _keep(key, entry)
    return compiled


def code(source: str) -> CodeType:
    """`compile(source, "<string>", "exec")`, from the file when it holds it: the code
    `records.record` builds each class's methods from (~0.3 ms a class to compile)."""
    key = (source, _CODE)
    entry = _entries().get(key)
    if isinstance(entry, types.CodeType):
        _used[key] = entry
        return entry
    compiled = builtins.compile(source, "<string>", "exec")  # (`compile` is this module's)
    _keep(key, compiled)
    return compiled


def _keep(key: tuple[str, int], entry: Entry | CodeType) -> None:
    """Remember what this run compiled, to be written at exit."""
    global _dirty
    _used[key] = entry
    if not _dirty:
        _dirty = True
        import atexit

        atexit.register(save)


def _build(pattern: str, entry: Entry) -> re.Pattern[str]:
    final_flags, code, groups, groupindex, indexgroup = entry
    return _sre.compile(pattern, final_flags, code, groups, groupindex, indexgroup)  # type: ignore[no-any-return]


def _compile(pattern: str, flags: int) -> Entry:
    """What `re._compiler.compile` hands `_sre.compile`, as plain data."""
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_compile as _compiler
        import sre_parse as _parser
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (
        flags | parsed.state.flags,
        [int(op) for op in code],  # opcodes are named int subclasses marshal cannot write
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )


def path() -> str | None:
    """The file for this Python; None where there is no cache folder to name."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        home = os.environ.get("HOME")
        if not home:
            return None
        base = os.path.join(home, ".cache")
    tag = sys.implementation.cache_tag or "python"
    version = "".join(ch if ch.isalnum() or ch in "._" else "-" for ch in sys.version.split()[0])
    return os.path.join(base, "session-skill", f"recache-{tag}-{version}.marshal")


def _stamp() -> tuple[Any, ...]:
    return ("session-skill recache 2", sys.version, _sre.MAGIC, _sre.CODESIZE, sys.maxunicode)


def _entries() -> dict[tuple[str, int], Entry | CodeType]:
    global _loaded
    if _loaded is None:
        _loaded = {}
        where = path()
        if where is not None:
            try:
                with open(where, "rb") as fh:
                    data = fh.read()
                import marshal

                stamp, entries = marshal.loads(data)
                if stamp == _stamp() and isinstance(entries, dict):
                    _loaded = entries
            except Exception:  # missing, damaged, another Python's: start empty
                _loaded = {}
    return _loaded


def save() -> None:
    """Write the file, when this run compiled a pattern it did not hold (at exit)."""
    global _dirty
    if not _dirty or sys.dont_write_bytecode:
        return
    _dirty = False
    where = path()
    if where is None:
        return
    entries = {**_entries(), **_used}
    if len(entries) > MAX_ENTRIES:
        entries = dict(_used)
    tmp = f"{where}.{os.getpid()}.tmp"
    try:
        import marshal

        os.makedirs(os.path.dirname(where), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(marshal.dumps((_stamp(), entries)))
        os.replace(tmp, where)
    except Exception:  # a read-only install, a full disk: the next run compiles again
        try:
            os.unlink(tmp)
        except OSError:
            pass

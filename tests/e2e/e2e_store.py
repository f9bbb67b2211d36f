"""Reading session-skill's store in the end-to-end tests (both clients share it:
``<project>/.claude/state/session/``): the docs, their frontmatter and sections, and a wait
for what a hook writes a moment later."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def wait_until(pred: Callable[[], Any], timeout: float = 20, what: str = "condition") -> Any:
    """Poll ``pred`` until it returns something truthy; return that."""
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


def frontmatter(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines and lines[0] == "---", f"{path} has no frontmatter"
    end = lines.index("---", 1)
    return {
        k.strip(): v.strip().strip("'\"")
        for k, sep, v in (line.partition(":") for line in lines[1:end])
        if sep
    }


def body(path: Path) -> str:
    return path.read_text(encoding="utf-8").split("\n---\n", 1)[1]


def docs(store: Path) -> list[Path]:
    return sorted(p for p in store.glob("*.md") if p.name != "PARKED.md")


def docs_with(store: Path, **match: str) -> list[Path]:
    """The docs whose frontmatter holds every ``match`` value."""
    out = []
    for p in docs(store):
        try:
            fm = frontmatter(p)
        except (OSError, ValueError, AssertionError):
            continue  # being written
        if all(fm.get(k) == v for k, v in match.items()):
            out.append(p)
    return out


def section(text: str, title: str) -> str:
    """A ``## title`` section's content (up to the next ``## ``)."""
    head = f"## {title}\n"
    assert head in text, f"no {head!r} in:\n{text}"
    return text.split(head, 1)[1].split("\n## ", 1)[0].strip("\n")

"""The hooks' tests share one project: a git repository, the clock pinned, the cwd in it.

Captures run inline (`SESSION_SKILL_DETACH=0`): a test that reads the doc as soon as the
hook returns must not depend on the machine finishing it inside the 1.2 s budget. The tests
of the detached capture itself take the `detaching` fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import NOW, make_repo


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    proj = make_repo(tmp_path / "proj")
    monkeypatch.chdir(proj)
    monkeypatch.setenv("SESSION_SKILL_NOW", NOW)
    return proj


@pytest.fixture(autouse=True)
def inline_captures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_SKILL_DETACH", "0")


@pytest.fixture
def detaching(monkeypatch: pytest.MonkeyPatch) -> None:
    """Captures detach as in a real client (the `inline_captures` default undone)."""
    monkeypatch.delenv("SESSION_SKILL_DETACH")

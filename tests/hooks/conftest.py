"""The hooks' tests share one project: a git repository, the clock pinned, the cwd in it."""

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

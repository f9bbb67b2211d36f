"""Fixtures for the end-to-end tests; the machinery lives in ``e2e_harness.py``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codex_harness import CodexWorld, find_codex, make_world  # noqa: E402
from e2e_harness import (  # noqa: E402
    World,
    find_claude,
    find_tmux,
    find_venv_bin,
    make_project,
    seed_claude_json,
)
from mock_api import MockAnthropic  # noqa: E402
from plugin_harness import PluginWorld, plugin_world_in  # noqa: E402


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return find_claude()


@pytest.fixture(scope="session")
def tmux_bin() -> str:
    return find_tmux()


@pytest.fixture(scope="session")
def venv_bin() -> Path:
    return find_venv_bin()


@pytest.fixture
def bare_world(tmp_path: Path, claude_bin: Path) -> Iterator[World]:
    """Scratch HOME + git project + mock; nothing of session-skill installed."""
    root = tmp_path
    home = root / "home"
    home.mkdir()
    (root / "tmp").mkdir()
    proj = root / "proj"
    make_project(proj)
    seed_claude_json(home, proj)
    mock = MockAnthropic(log_path=root / "requests.jsonl")
    w = World(
        root=root,
        home=home,
        proj=proj,
        mock=mock,
        claude=claude_bin,
        venv_bin=Path(sys.executable).parent,
    )
    mock.start()
    try:
        yield w
    finally:
        w.close()


@pytest.fixture
def world(bare_world: World, venv_bin: Path) -> World:
    """``bare_world`` with ``session-skill install --project <proj>`` run in it."""
    bare_world.venv_bin = venv_bin
    w = bare_world
    w.session_skill("install", "--project", str(w.proj))
    # as a user would: commit what install added, so handovers list only real work
    w.git("add", "-A")
    w.git("commit", "-q", "-m", "install session-skill")
    return w


@pytest.fixture
def tmux_world(world: World, tmux_bin: str) -> World:
    world.tmux = tmux_bin
    return world


@pytest.fixture
def bare_tmux_world(bare_world: World, tmux_bin: str) -> World:
    bare_world.tmux = tmux_bin
    return bare_world


@pytest.fixture
def plugin_world(tmp_path: Path, claude_bin: Path, tmux_bin: str) -> Iterator[PluginWorld]:
    """The session-skill plugin installed from a local marketplace into a scratch HOME with
    no ``session-skill`` on PATH, tmux available (plugin_harness.py)."""
    with plugin_world_in(tmp_path, claude_bin, tmux_bin) as w:
        yield w


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return find_codex()


@pytest.fixture
def bare_codex_world(
    tmp_path: Path, codex_bin: Path, venv_bin: Path, tmux_bin: str
) -> Iterator[CodexWorld]:
    """Scratch HOME/CODEX_HOME + git project + mock + tmux; nothing of session-skill."""
    w = make_world(tmp_path, codex_bin, venv_bin, tmux_bin)
    try:
        yield w
    finally:
        w.close()

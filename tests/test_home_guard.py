"""The autouse guard in conftest.py notices a write to the (real) home directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import conftest


def test_the_guard_sees_an_entry_created_in_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "_REAL_HOME", tmp_path)
    before = conftest._home_state()
    (tmp_path / ".claude").mkdir()
    assert conftest._home_state() != before


def test_the_guard_sees_settings_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "_REAL_HOME", tmp_path)
    (tmp_path / ".claude").mkdir()
    settings = tmp_path / ".claude" / "settings.json"
    settings.write_text("{}\n")
    before = conftest._home_state()
    settings.write_text('{"hooks": {}}\n')
    assert conftest._home_state()[".claude/settings.json"] != before[".claude/settings.json"]


def test_tests_run_with_an_isolated_home() -> None:
    assert Path.home() != conftest._REAL_HOME

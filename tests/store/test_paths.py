"""store.paths: where the store is and its LATEST pointer, on plain strings, as pathlib would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.store import paths

SEGMENT = st.sampled_from(["a", "b", ".", "..", "", "x y", "é"])


@given(st.lists(SEGMENT, max_size=6), st.sampled_from(["", "/", "//", "///"]))
def test_project_root_of_an_explicit_path_is_pathlib_absolute(parts: list[str], lead: str) -> None:
    raw = lead + "/".join(parts)
    if not raw:
        return  # empty --project is "not given"
    assert paths.project_root(raw, env={}) == str(Path(raw).expanduser().absolute())


def test_project_root_order(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    assert paths.project_root(env={}, cwd=deep) == str(repo)  # nearest .git
    env = {"CLAUDE_PROJECT_DIR": str(tmp_path / "other")}
    assert paths.project_root(env=env, cwd=deep) == str(tmp_path / "other")
    assert paths.project_root(str(tmp_path), env=env, cwd=deep) == str(tmp_path)  # --project
    plain = tmp_path / "plain"
    plain.mkdir()
    assert paths.project_root(env={}, cwd=plain) in (str(plain), "/")


def test_project_root_expands_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.project_root("~/proj", env={}) == str(tmp_path / "proj")


@pytest.mark.parametrize(
    ("slug", "ok"),
    [("auth-work", True), ("main-2026-11-29T18-00-00Z", True), ("a..b", False),
     ("-x", False), ("", False), (None, False), ("a/b", False), ("x" * 121, False),
     ("plan\n", False), ("plan\r\n", False)],  # `$` would have let a trailing "\n" in
)  # fmt: skip
def test_valid_slug(slug: str | None, ok: bool) -> None:
    assert paths.valid_slug(slug) is ok


def test_latest_reads_only_a_plain_file_naming_a_slug(tmp_path: Path) -> None:
    latest = tmp_path / paths.LATEST
    assert paths.read_latest(str(tmp_path)) is None
    latest.write_text("  auth-work \n")
    assert paths.read_latest(str(tmp_path)) == "auth-work"
    latest.write_text("../../etc/passwd\n")
    assert paths.read_latest(str(tmp_path)) is None
    latest.write_bytes(b"\xff\xfe")
    assert paths.read_latest(str(tmp_path)) is None
    latest.unlink()
    target = tmp_path / "elsewhere"
    target.write_text("auth-work\n")
    os.symlink(target, latest)
    assert paths.read_latest(str(tmp_path)) is None  # a symlink is not followed
    paths.clear_latest(str(tmp_path))
    assert not os.path.lexists(latest) and target.exists()  # the link went, not its target
    paths.clear_latest(str(tmp_path))  # already gone: fine


def test_store_exists_refuses_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    os.symlink(real, link)
    assert paths.store_exists(str(real)) and not paths.store_exists(str(link))
    assert paths.store_dir("/p") == "/p/.claude/state/session"

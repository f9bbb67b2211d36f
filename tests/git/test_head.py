"""githead: the branch from `.git/HEAD`, no subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_skill.git.head import current_branch, git_dir
from tests.conftest import git, make_repo


def test_branch_of_a_repo(project: Path) -> None:
    assert current_branch(project) == "main"
    git(project, "checkout", "-q", "-b", "feat/auth")
    assert current_branch(project) == "feat/auth"


def test_detached_head(project: Path) -> None:
    git(project, "checkout", "-q", "--detach")
    assert current_branch(project) == "detached"


def test_unborn_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", commit=False)
    assert current_branch(repo) == "main"


def test_no_git(tmp_path: Path) -> None:
    assert git_dir(tmp_path) is None
    assert current_branch(tmp_path) is None


def test_linked_worktree(project: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git(project, "worktree", "add", "-q", "-b", "side", str(wt))
    gd = git_dir(wt)
    assert gd is not None and gd.is_dir()
    assert current_branch(wt) == "side"
    assert current_branch(project) == "main"


def test_relative_gitdir_file(tmp_path: Path) -> None:
    real = tmp_path / "real-git"
    real.mkdir()
    (real / "HEAD").write_text("ref: refs/heads/topic\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text("gitdir: ../real-git\n")
    assert current_branch(wt) == "topic"


@pytest.mark.parametrize(
    ("head", "branch"),
    [("ref: refs/remotes/x\n", "refs/remotes/x"), ("", None), ("0123abcd\n", "detached")],
)
def test_odd_heads(tmp_path: Path, head: str, branch: str | None) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text(head)
    assert current_branch(tmp_path) == branch


def test_garbage_git_file(tmp_path: Path) -> None:
    (tmp_path / ".git").write_bytes(b"\xff\xfe not a gitdir line")
    assert current_branch(tmp_path) is None

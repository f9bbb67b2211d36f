"""gitinfo: branch, commit, dirty count and per-path Refs from real git; failures tolerated."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from session_skill.git import info as gitinfo
from tests.conftest import git, make_repo


def _seed(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "keep.py").write_text("a\nb\nc\n")
    (project / "src" / "gone.py").write_text("x\n")
    (project / "old name.txt").write_text("rename me\n" * 5)
    (project / "blob.bin").write_bytes(b"\0\1\2")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "seed")


def test_not_a_repository(tmp_path: Path) -> None:
    st = gitinfo.state(tmp_path)
    assert not st.available
    assert st.refs == {} and st.dirty == 0 and st.branch is None


def test_clean_repository(project: Path) -> None:
    st = gitinfo.state(project)
    assert st.available
    assert st.branch == "main"
    assert st.commit == git(project, "rev-parse", "--short", "HEAD").strip()
    assert st.dirty == 0 and st.refs == {}


def test_refs_for_each_kind_of_change(project: Path) -> None:
    _seed(project)
    (project / "src" / "keep.py").write_text("a\nB\nc\nd\n")
    (project / "src" / "gone.py").unlink()
    git(project, "mv", "old name.txt", "new name.txt")
    (project / "untracked dir").mkdir()
    (project / "untracked dir" / "ünï.md").write_text("hi\n")
    (project / "staged.py").write_text("s\n")
    git(project, "add", "staged.py")
    (project / "blob.bin").write_bytes(b"\0\1\2\3")
    st = gitinfo.state(project)
    assert st.refs == {
        "src/keep.py": "+2/-1",
        "src/gone.py": "deleted",
        "new name.txt": "renamed from old name.txt",
        "untracked dir/ünï.md": "new",
        "staged.py": "new",
        "blob.bin": "binary",
    }
    assert st.dirty == 6


def test_repository_without_commits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", commit=False)
    (repo / "a.py").write_text("x\n")
    st = gitinfo.state(repo)
    assert st.available and st.commit is None and st.branch == "main"
    assert st.refs == {"a.py": "new"}


def test_detached_head(project: Path) -> None:
    git(project, "checkout", "-q", "--detach")
    assert gitinfo.state(project).branch == "detached"


def test_committed_since(project: Path) -> None:
    since = datetime.now(timezone.utc) - timedelta(minutes=5)
    (project / "done.py").write_text("x\n")
    git(project, "add", "done.py")
    git(project, "commit", "-q", "-m", "work")
    assert "done.py" in gitinfo.committed_since(project, since)
    st = gitinfo.state(project, since=since)
    assert st.refs["done.py"] == "committed"
    assert st.dirty == 0  # committed paths are not uncommitted


def test_head_info(project: Path) -> None:
    branch, commit = gitinfo.head_info(project)
    assert branch == "main"
    assert commit == git(project, "rev-parse", "--short", "HEAD").strip()


@pytest.mark.parametrize("error", [OSError("fork"), PermissionError()])
def test_a_git_failure_never_raises(
    project: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(subprocess, "Popen", fail)
    st = gitinfo.state(project)
    assert not st.available and not st.missing
    assert gitinfo.head_info(project) == ("main", None)


def _fake_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def test_a_git_that_hangs_is_given_up_on_and_killed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    _fake_git(tmp_path, monkeypatch, f"echo $$ >> {pids}; exec sleep 30")
    monkeypatch.setattr(gitinfo, "TIMEOUT", 0.5)
    began = time.monotonic()
    st = gitinfo.state(project)
    assert time.monotonic() - began < 5
    assert not st.available
    started = [int(n) for n in pids.read_text().split()]
    assert len(started) == 4  # the four asked at once
    for pid in started:  # none left running (nor as a zombie of ours)
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_the_answers_are_read_after_the_callers_own_work(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git started, then the transcript read for longer than git's timeout: answers that
    came in the meantime still count."""
    (project / "new.txt").write_text("x\n")
    monkeypatch.setattr(gitinfo, "TIMEOUT", 0.3)
    asking = gitinfo.start(project)
    time.sleep(0.6)
    st = asking.state()
    assert st.available and st.branch == "main" and st.refs == {"new.txt": "new"}


def test_a_git_that_fails_is_no_repository(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_git(tmp_path, monkeypatch, "exit 1")
    st = gitinfo.state(project)
    assert not st.available and not st.missing


def test_project_in_a_subdirectory_gets_project_relative_paths(project: Path) -> None:
    pkg = project / "packages" / "app"
    pkg.mkdir(parents=True)
    (pkg / "main.py").write_text("a\n")
    (pkg / "old.py").write_text("o\n" * 5)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "pkg")
    (pkg / "main.py").write_text("a\nb\n")
    git(project, "mv", "packages/app/old.py", "packages/app/renamed.py")
    (project / "README.md").write_text("changed outside the project\n")
    st = gitinfo.state(pkg)
    assert st.refs == {
        "main.py": "+1/-0",
        "renamed.py": "renamed from old.py",
        "../../README.md": "+1/-1",
    }


# -- issue 11 #7: names git quotes (tab, newline, quote, backslash, non-ASCII) -------------
ODD_NAMES = ["tab\there.py", "new\nline.py", 'quo"te.py', "back\\slash.py", "ünï cödé.py"]


@pytest.mark.parametrize("quote_path", ["true", "false"])
def test_refs_for_names_git_quotes(project: Path, quote_path: str) -> None:
    git(project, "config", "core.quotePath", quote_path)
    for name in ODD_NAMES:
        (project / name).write_text("one\n")
    (project / "renamed from.py").write_text("r\n" * 4)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "odd names")
    since = datetime.now(timezone.utc) - timedelta(minutes=5)
    for name in ODD_NAMES:
        (project / name).write_text("one\ntwo\n")
    git(project, "mv", "renamed from.py", 'to\t"odd".py')
    st = gitinfo.state(project)
    assert st.refs == {
        **dict.fromkeys(ODD_NAMES, "+1/-0"),
        'to\t"odd".py': "renamed from renamed from.py",
    }
    git(project, "commit", "-q", "-am", "more")
    assert {*ODD_NAMES, 'to\t"odd".py'} <= set(gitinfo.committed_since(project, since))
    refs = gitinfo.state(project, since=since).refs
    names = [*ODD_NAMES, 'to\t"odd".py']
    assert {name: refs.get(name) for name in names} == dict.fromkeys(names, "committed")


# -- issue 11 #25: git missing is not "not a git repository" ---------------------------------
def test_git_not_found_is_told_apart(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(project / "no-such-bin"))
    st = gitinfo.state(project)
    assert not st.available and st.missing
    assert gitinfo.state(project / "..").missing
    monkeypatch.undo()


def test_not_a_repository_is_not_git_missing(tmp_path: Path) -> None:
    st = gitinfo.state(tmp_path)
    assert not st.available and not st.missing

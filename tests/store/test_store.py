"""The store (SPEC §3): root resolution, creation, names, symlinks, locking, CRLF, UTF-8."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from session_skill.errors import StoreError
from session_skill.store import fileio
from session_skill.store import store as store_module
from session_skill.store.lock import file_lock
from session_skill.store.store import STORE_REL, Store, find_project_root, valid_slug
from tests.conftest import RunCli, git, make_repo


# -- project root ---------------------------------------------------------------
def test_root_order_project_flag_then_env_then_git_then_cwd(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    env = {"CLAUDE_PROJECT_DIR": str(other)}
    assert find_project_root(tmp_path / "flag", env=env, cwd=deep) == tmp_path / "flag"
    assert find_project_root(None, env=env, cwd=deep) == other
    assert find_project_root(None, env={}, cwd=deep) == repo
    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    assert find_project_root(None, env={}, cwd=plain) == plain


def test_root_uses_the_real_environment_and_cwd(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = project / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert find_project_root() == project
    # `claude` started in a subfolder: its hooks get CLAUDE_PROJECT_DIR=<the subfolder>, its
    # Bash calls none (seen, 2.1.328). Both must find the same store, the repository's.
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(sub))
    assert find_project_root() == project


def test_linked_worktree_has_its_own_store(project: Path, tmp_path: Path, sub: RunCli) -> None:
    wt = tmp_path / "wt"
    git(project, "worktree", "add", "-q", "-b", "feature", str(wt))
    assert (wt / ".git").is_file()
    inner = wt / "deeper"
    inner.mkdir()
    assert find_project_root(None, env={}, cwd=inner) == wt
    r = sub("park", "worktree only idea", cwd=inner)
    assert r.code == 0, r
    assert "worktree only idea" in (wt / STORE_REL / "PARKED.md").read_text()
    assert not (project / STORE_REL).exists()


def test_global_and_command_project_options(tmp_path: Path, cli: RunCli) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert cli("--project", str(a), "park", "idea for a").code == 0
    assert cli("park", "--project", str(b), "idea for b").code == 0
    assert "idea for a" in (a / STORE_REL / "PARKED.md").read_text()
    assert "idea for b" in (b / STORE_REL / "PARKED.md").read_text()
    # The global option does not stick to later calls in the same process.
    assert cli("list").out.startswith("No stored handovers")


# -- creation -------------------------------------------------------------------
def test_new_store_comes_from_the_template(project: Path) -> None:
    store = Store(project)
    store.ensure()
    assert (store.dir / "PARKED.md").read_text().startswith("# Parked items")
    assert (store.dir / ".gitignore").read_text().strip() == "*"
    assert git(project, "status", "--porcelain", "--untracked-files=all") == ""


def test_ensure_never_overwrites(project: Path) -> None:
    store = Store(project)
    store.dir.mkdir(parents=True)
    (store.dir / "PARKED.md").write_text("# mine\n- **x** — y\n")
    store.ensure()
    assert (store.dir / "PARKED.md").read_text() == "# mine\n- **x** — y\n"


def test_store_dir_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".claude" / "state").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / STORE_REL).symlink_to(elsewhere)
    with pytest.raises(StoreError, match="symlink"):
        Store(root).ensure()
    assert list(elsewhere.iterdir()) == []


def test_store_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "state").mkdir(parents=True)
    (tmp_path / STORE_REL).write_text("oops")
    with pytest.raises(StoreError, match="not a directory"):
        Store(tmp_path).ensure()


# -- names ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["../x", "/abs", "/etc/passwd", "a/b", "a\\b", "x\0y", "", ".", "..", "n" * 201]
)
def test_bad_names_are_refused_before_a_path_is_built(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)

    def no_fs(*args: object, **kwargs: object) -> bool:
        raise AssertionError("the file system was asked about an invalid name")

    monkeypatch.setattr(Path, "is_symlink", no_fs)
    with pytest.raises(StoreError, match="invalid"):
        store.path(name)


@pytest.mark.parametrize("slug", ["../x", "/abs", "x\0y", "a/b", "-lead", ".hidden", "a..b", ""])
def test_bad_slugs_are_refused(tmp_path: Path, slug: str) -> None:
    assert not valid_slug(slug)
    with pytest.raises(StoreError):
        Store(tmp_path).doc_path(slug)


@pytest.mark.parametrize("slug", ["main-2026-11-29T18-30-00Z", "a", "v1.2_x", "A" * 120])
def test_good_slugs(slug: str) -> None:
    assert valid_slug(slug)


def test_slug_length_limit() -> None:
    assert not valid_slug("a" * 121)


def test_path_traversal_via_the_cli_is_refused(project: Path, cli: RunCli) -> None:
    r = cli("recall", "../../etc/passwd")
    assert r.code == 1, r
    assert r.err.startswith("error: ")
    assert "Traceback" not in r.err
    r = cli("dump", "../evil", input="## Goal\ng\n## Next step\nn\n")
    assert r.code == 1, r
    assert r.err == "error: refused name '../evil': it may not contain '/', '\\' or '..'\n"
    assert not (project / ".claude" / "evil.md").exists()


# -- symlinks -------------------------------------------------------------------
def test_symlink_leading_outside_the_store_is_refused(project: Path, cli: RunCli) -> None:
    store = Store(project)
    store.ensure()
    outside = project.parent / "outside.md"
    outside.write_text("# not yours\n")
    (store.dir / "PARKED.md").unlink()
    (store.dir / "PARKED.md").symlink_to(outside)
    r = cli("park", "an idea")
    assert r.code == 1, r
    assert "symlink leading outside the store" in r.err
    assert r.err.startswith("error: ") and r.err.count("\n") == 1
    assert outside.read_text() == "# not yours\n"


def test_symlink_inside_the_store_is_allowed(project: Path) -> None:
    store = Store(project)
    store.ensure()
    (store.dir / "real.md").write_text("x")
    (store.dir / "alias.md").symlink_to(store.dir / "real.md")
    assert store.path("alias.md") == store.dir / "alias.md"


def test_latest_symlink_is_treated_as_absent(project: Path) -> None:
    store = Store(project)
    store.ensure()
    target = project / "elsewhere"
    target.write_text("main-2026\n")
    (store.dir / "LATEST").symlink_to(target)
    assert store.read_latest() is None


@pytest.mark.parametrize(
    "content", [b"", b"\n", b"   \n", b"../x\n", b"\xff\xfe\n", b"two words\n", b"a" * 5000]
)
def test_latest_junk_is_absent(project: Path, content: bytes) -> None:
    store = Store(project)
    store.ensure()
    (store.dir / "LATEST").write_bytes(content)
    assert store.read_latest() is None


def test_latest_round_trip(project: Path) -> None:
    store = Store(project)
    with store.lock():
        store.write_latest("main-2026-11-29T18-30-00Z")
        assert store.read_latest() == "main-2026-11-29T18-30-00Z"
        store.write_latest(None)
        store.write_latest(None)  # blanking twice is fine
    assert store.read_latest() is None


def test_doc_files_skip_non_docs(project: Path) -> None:
    store = Store(project)
    store.ensure()
    (store.dir / "good.md").write_text("---\nslug: good\n---\n")
    (store.dir / "has space.md").write_text("x")
    (store.dir / "dir.md").mkdir()
    (store.dir / "link.md").symlink_to(store.dir / "good.md")
    (store.dir / "notes.txt").write_text("x")
    names = sorted(p.name for p in store.doc_files())
    assert names == ["good.md"]


# -- lock -----------------------------------------------------------------------
def test_lock_cleans_temp_files_of_crashed_writers(project: Path) -> None:
    store = Store(project)
    store.ensure()
    stale = fileio.tmp_name(store.dir / "PARKED.md")
    stale.write_text("half")
    old = stale.stat().st_mtime - 3600
    os.utime(stale, (old, old))
    fresh = fileio.tmp_name(store.dir / "PARKED.md")  # a live writer's, outside the lock
    fresh.write_text("in flight")
    with store.lock():
        pass
    assert not stale.exists()
    assert fresh.exists()


def test_lock_timeout_is_a_store_error(project: Path) -> None:
    store = Store(project)
    store.ensure()
    with file_lock(store.dir / ".lock"):
        with pytest.raises(StoreError, match="locked by another process"):
            with store.lock(timeout=0.05):
                pass


def test_writers_reread_state_after_taking_the_lock(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process appends while we wait for the lock: its item must survive ours."""
    assert cli("park", "first idea about caching").code == 0
    parked = project / STORE_REL / "PARKED.md"
    real_lock = store_module.file_lock

    @contextmanager
    def racing_lock(path: Path, timeout: float | None = None) -> Iterator[None]:
        with real_lock(path, timeout):
            text = parked.read_text()
            if "racer" not in text:
                parked.write_text(
                    text + "- **racer** — written while we waited. Raised: 2026-11-28.\n"
                )
            yield

    monkeypatch.setattr(store_module, "file_lock", racing_lock)
    r = cli("park", "second idea about logging")
    assert r.code == 0, r
    text = parked.read_text()
    assert "racer" in text and "first idea" in text and "second idea" in text
    assert "(3 open)" in r.out
    r = cli("drop", "#1")
    assert r.code == 0, r
    assert "racer" in parked.read_text()


def test_concurrent_parks_lose_nothing(project: Path) -> None:
    ideas = [
        f"parallel idea number {word}" for word in "alpha bravo charlie delta echo foxtrot".split()
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "session_skill", "park", idea],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        for idea in ideas
    ]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    text = (project / STORE_REL / "PARKED.md").read_text()
    for idea in ideas:
        assert idea in text
    assert text.count("\n- ") == len(ideas)


# -- line endings and encodings -----------------------------------------------------
def test_crlf_parked_keeps_crlf_through_park_and_drop(project: Path, cli: RunCli) -> None:
    store = Store(project)
    store.ensure()
    parked = store.dir / "PARKED.md"
    parked.write_bytes(
        b"# Parked items\r\n\r\nA note kept as is.\r\n"
        b"- **retry-backoff** \xe2\x80\x94 revisit exponential vs linear. Raised: 2026-11-20.\r\n"
        b"- **split-ratio** \xe2\x80\x94 80/20 vs 70/30. Raised: 2026-11-02.\r\n"
    )
    assert cli("park", "cache warmup on deploy").code == 0
    data = parked.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") == 6
    r = cli("drop", "retry-backoff")
    assert r.code == 0, r
    data = parked.read_bytes()
    assert b"retry-backoff" not in data
    assert data.count(b"\r\n") == data.count(b"\n") == 5
    assert data.startswith(b"# Parked items\r\n\r\nA note kept as is.\r\n- **split-ratio**")


def test_crlf_file_without_final_newline(project: Path, cli: RunCli) -> None:
    store = Store(project)
    store.ensure()
    parked = store.dir / "PARKED.md"
    parked.write_bytes(
        b"# Parked items\r\n\r\n- **a-thing** \xe2\x80\x94 thing. Raised: 2026-11-20."
    )
    assert cli("park", "another unrelated idea").code == 0
    data = parked.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert data.endswith(b"Raised: 2026-11-29.\r\n") or data.endswith(b".\r\n")


@pytest.mark.parametrize("argv", [("park", "new idea"), ("drop", "#1"), ("list",)])
def test_non_utf8_parked_is_never_rewritten(
    project: Path, cli: RunCli, argv: tuple[str, ...]
) -> None:
    store = Store(project)
    store.ensure()
    parked = store.dir / "PARKED.md"
    original = b"# Parked items\n\n- **cafe** \x97 caf\xe9 au lait. Raised: 2026-11-20.\n"
    parked.write_bytes(original)
    r = cli(*argv)
    assert r.code == 1, r
    assert r.err == f"error: {parked} is not UTF-8 text; not touching it\n"
    assert "Traceback" not in r.err
    assert parked.read_bytes() == original


def test_write_failure_is_a_store_error_and_keeps_the_file(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("park", "keep this one").code == 0
    parked = project / STORE_REL / "PARKED.md"
    before = parked.read_bytes()

    def boom(src: object, dst: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(os, "replace", boom)
    r = cli("park", "cannot be written")
    assert r.code == 1, r
    assert r.err == f"error: cannot write {parked}: Read-only file system\n"
    assert parked.read_bytes() == before
    assert not [p for p in parked.parent.iterdir() if fileio.is_tmp_name(p.name)]

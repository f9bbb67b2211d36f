"""Hook fuzz (issue 6): generated payloads, environments and store states.

Each case builds a sandbox (a project with or without git, a store in one of many states,
a doc with generated frontmatter and body) and a SessionStart payload, and knows from the
way it was built what the hook must do: stay silent, print a one-line notice (startup, or
a branch mismatch), or inject the handover and mark it consumed. Then it runs the hook —
2,000 cases in process through `hook.run`, 300 more through the real
`python -m session_skill hook session-start` — and asserts:

- exit 0 (in process: no exception), nothing on stderr (but the one line naming a pending
  doc that is not UTF-8), no traceback;
- stdout is empty or one JSON object of exactly the SessionStart shape, under 10,000
  characters, its context under 9,500, and it is the expected kind of output;
- the sandbox outside the store is unchanged byte for byte, and inside it the only changes
  are the consumed flip of the injected doc (body bytes unchanged) and LATEST's removal.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stderr
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from session_skill.handover.doc import parse_doc
from session_skill.hooks import session_start as hook
from session_skill.times import format_time

from .conftest import changed, cli_env, snapshot

N_IN_PROCESS = 2000
N_SUBPROCESS = 300
NOW = datetime(2026, 11, 29, 18, 30, 0, tzinfo=timezone.utc)
STORE = Path(".claude") / "state" / "session"


@dataclass
class Case:
    dir: Path
    payload: bytes
    env: dict[str, str]
    expect: str  # "silent" | "inject" | "notice-startup" | "notice-branch"
    slug: str = ""
    body: str = ""
    doc_branch: str = ""
    current: str = ""
    doc_rel: str = ""
    latest_rel: str = ""
    lock_existed: bool = True
    labels: dict[str, str] = field(default_factory=dict)
    warns: bool = False  # a pending doc that is not UTF-8: one stderr line names it


def _pick(rng: random.Random, weighted: dict[str, int]) -> str:
    return rng.choices(list(weighted), weights=list(weighted.values()))[0]


def _junk_text(rng: random.Random, n: int) -> str:
    alphabet = "abc XYZ 123 \t\"'`*#|:-_.,;{}[]()\\/é漢🙂\u2028\x0c\r"
    return "".join(rng.choice(alphabet) for _ in range(n))


def _body(rng: random.Random) -> str:
    size = _pick(rng, {"small": 70, "large": 15, "huge-table": 8, "huge-goal": 4, "empty": 3})
    if size == "empty":
        return ""
    parts = [f"## Goal\n{_junk_text(rng, rng.randint(1, 200))}\n"]
    if rng.random() < 0.5:
        parts.append("## Decisions\n" + "".join(f"- d{i} — why: r{i}\n" for i in range(5)))
    if rng.random() < 0.3:
        parts.append("```\n## not a heading\n---\n```\n")
    rows = {"small": rng.randint(0, 5), "large": 60, "huge-table": 400, "huge-goal": 3}[size]
    table = "| File | Change | State | Ref |\n| --- | --- | --- | --- |\n"
    table += "".join(f"| `src/m{i}/f{i}.py` | edit {i} | done | +{i}/-1 |\n" for i in range(rows))
    parts.append("## Files touched\n" + table)
    if size == "large":
        parts.append(
            "## Verified\n" + "".join(f"- claim {i} — `pytest -k c{i}`\n" for i in range(150))
        )
    if size == "huge-goal":
        parts[0] = "## Goal\n" + "goal words " * 1200 + "\n"
    parts.append(f"## Next step\n{_junk_text(rng, rng.randint(0, 80))}\n")
    body = "\n".join(parts)
    if rng.random() < 0.1:
        body = body.rstrip("\n")  # no final newline
    return body


def _created(rng: random.Random) -> tuple[str | None, bool]:
    """The `created` value and whether it passes the hook's age gate (restored when under
    30 min, said to be there once when under 14 days: `_stale`)."""
    kind = _pick(
        rng,
        {
            "fresh": 40,
            "edge": 4,
            "stale": 12,
            "future-ok": 5,
            "future-bad": 5,
            "garbage": 6,
            "missing": 4,
            "overflow": 3,
            "offset": 5,
            "space": 4,
            "quoted": 4,
            "old-year": 2,
        },
    )
    if kind == "fresh":
        return format_time(NOW - timedelta(seconds=rng.randint(0, 29 * 60))), True
    if kind == "edge":
        return format_time(NOW - timedelta(minutes=30)), True
    if kind == "stale":
        return format_time(NOW - timedelta(seconds=rng.randint(31 * 60, 400 * 86400))), True
    if kind == "future-ok":
        return format_time(NOW + timedelta(seconds=rng.randint(0, 119))), True
    if kind == "future-bad":
        return format_time(NOW + timedelta(seconds=rng.randint(121, 10**8))), False
    if kind == "garbage":
        return rng.choice(["yesterday", "2026-13-45T99:99:99Z", "", "null", "[]", "🙂"]), False
    if kind == "missing":
        return None, False
    if kind == "overflow":
        return rng.choice(["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"]), False
    if kind == "offset":
        t = (NOW - timedelta(minutes=rng.randint(0, 29))).astimezone(timezone(timedelta(hours=2)))
        return t.isoformat(), True
    if kind == "space":
        return (NOW - timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M:%S"), True
    if kind == "quoted":
        return '"' + format_time(NOW - timedelta(minutes=3)) + '"', True
    return "1999-01-01T00:00:00Z", False


def _stale(created: str | None) -> bool | None:
    """For a `created` that passes the gate: True when it is over 30 min old (a notice,
    once), None when over 14 days (silent)."""
    from session_skill.times import epoch

    when = epoch((created or "").strip('"'))
    if when is None:
        return False
    age = NOW.timestamp() - when
    if age > 14 * 86400:
        return None
    return age > 30 * 60


def build(rng: random.Random, d: Path) -> Case:
    labels: dict[str, str] = {}
    proj, other = d / "proj", d / "other"
    (proj / "sub").mkdir(parents=True)
    other.mkdir()
    (proj / "README.md").write_text("# readme\n")

    # -- git: what the hook will call the current branch --------------------------------
    git = labels["git"] = _pick(
        rng,
        {"branch": 45, "detached": 8, "worktree": 10, "none": 27, "broken": 5, "other-branch": 5},
    )
    current = ""
    if git in ("branch", "other-branch", "detached", "broken"):
        (proj / ".git").mkdir()
        head = {
            "branch": "ref: refs/heads/main\n",
            "other-branch": "ref: refs/heads/feat/other\n",
            "detached": "3f2a9c1d" * 5 + "\n",
            "broken": "",
        }[git]
        (proj / ".git" / "HEAD").write_text(head)
        current = {"branch": "main", "other-branch": "feat/other", "detached": "detached"}.get(
            git, ""
        )
    elif git == "worktree":
        gd = d / "gitdirs" / "wt"
        gd.mkdir(parents=True)
        (gd / "HEAD").write_text("ref: refs/heads/main\n")
        (proj / ".git").write_text(f"gitdir: {gd}\n")
        current = "main"
    has_git = git != "none"

    # -- where the hook will look --------------------------------------------------------
    env: dict[str, str] = {}
    env_kind = labels["env"] = _pick(rng, {"unset": 80, "proj": 8, "other": 6, "empty": 6})
    if env_kind == "proj":
        env["CLAUDE_PROJECT_DIR"] = str(proj)
    elif env_kind == "other":
        env["CLAUDE_PROJECT_DIR"] = str(other)
    elif env_kind == "empty":
        env["CLAUDE_PROJECT_DIR"] = ""
    cwd_kind = labels["cwd"] = _pick(
        rng,
        {
            "proj": 45,
            "sub": 10,
            "nonexistent-sub": 6,
            "file": 5,
            "relative": 6,
            "elsewhere": 6,
            "missing": 5,
            "not-a-string": 4,
            "nul": 3,
            "too-long": 4,
            "empty": 3,
            "root": 3,
        },
    )
    cwd: object = {
        "proj": str(proj),
        "sub": str(proj / "sub"),
        "nonexistent-sub": str(proj / "nope" / "deeper"),
        "file": str(proj / "README.md"),
        "relative": "../proj",  # relative to the hook's working directory, `other`
        "elsewhere": str(other),
        "not-a-string": rng.choice([7, None, ["x"], {"a": 1}, True]),
        "nul": str(proj) + "\x00x",
        "too-long": "/" + "a" * 5000,
        "empty": "",
        "root": "/",
    }.get(cwd_kind)
    if env_kind == "proj":
        finds_proj = True
    elif env_kind == "other":
        finds_proj = False
    else:
        finds_proj = cwd_kind in ("proj", "relative") or (
            has_git and cwd_kind in ("sub", "nonexistent-sub", "file")
        )

    # -- the payload -----------------------------------------------------------------------
    shape = labels["payload"] = _pick(
        rng,
        {
            "valid": 80,
            "wrong-event": 4,
            "not-json": 4,
            "not-object": 4,
            "deep": 2,
            "empty-object": 2,
            "binary": 2,
            "huge": 2,
        },
    )
    source_kind = labels["source"] = _pick(
        rng, {"clear": 60, "startup": 20, "missing": 8, "resume": 4, "compact": 4, "odd": 4}
    )
    data: dict[str, object] = {"hook_event_name": "SessionStart"}
    if source_kind in ("clear", "startup", "resume", "compact"):
        data["source"] = source_kind
    elif source_kind == "odd":
        data["source"] = rng.choice(["CLEAR", "", 0, None, ["clear"]])
    if cwd_kind != "missing":
        data["cwd"] = cwd
    for _ in range(rng.randint(0, 4)):
        data[rng.choice(["session_id", "transcript_path", "model", "x", "🙂"])] = rng.choice(
            ["9ba084a4", "/tmp/t.jsonl", 3, None, {"n": [1, 2]}, "\u2028"]
        )
    if shape == "valid":
        payload = json.dumps(data, ensure_ascii=rng.random() < 0.5).encode()
    elif shape == "wrong-event":
        data["hook_event_name"] = rng.choice(["sessionstart", "Stop", "", None, 1])
        payload = json.dumps(data).encode()
    elif shape == "not-json":
        payload = _junk_text(rng, rng.randint(0, 300)).encode()
    elif shape == "not-object":
        payload = json.dumps(rng.choice([[data], "SessionStart", 42, None, True])).encode()
    elif shape == "deep":
        n = rng.randint(2_000, 200_000)
        payload = b"[" * n + b"]" * n
    elif shape == "empty-object":
        payload = b"{}"
    elif shape == "binary":
        payload = rng.randbytes(rng.randint(1, 2000))
    else:
        payload = json.dumps({**data, "pad": "x" * (1 << 20)}).encode()
    effective = (
        "clear"
        if source_kind == "missing" or (source_kind == "odd" and data.get("source") is None)
        else source_kind
    )
    acts = shape == "valid" and effective in ("clear", "startup")

    # -- the store ---------------------------------------------------------------------------
    sd = proj / STORE
    store_kind = labels["store"] = _pick(rng, {"dir": 85, "absent": 5, "symlink": 5, "file": 5})
    slug = rng.choice(["feat-auth-2026-11-29T18-01-00Z", "plan", "a", "x.y_z-1", "9" * 120])
    real = sd if store_kind == "dir" else d / "elsewhere-store"
    real.mkdir(parents=True)
    lock_existed = rng.random() < 0.7
    if lock_existed:
        (real / ".lock").write_bytes(b"")
    (real / ".gitignore").write_text("*\n")
    if rng.random() < 0.5:
        (real / "PARKED.md").write_bytes(
            rng.choice([b"# Parked items\n\n- **x** \xe2\x80\x94 y.\n", b"\xff\xfe junk", b""])
        )
    if rng.random() < 0.2:
        (real / f".{slug}.md.tmp-123-abcd").write_text("---\nslug: torn")
    if rng.random() < 0.2:
        (real / "README.md").write_text("not a doc\n")

    # LATEST
    latest_kind = labels["latest"] = _pick(
        rng,
        {
            "ok": 70,
            "ok-padded": 6,
            "missing": 5,
            "blank": 3,
            "junk": 4,
            "traversal": 3,
            "no-doc": 3,
            "dir": 2,
            "symlink": 2,
            "bom": 2,
        },
    )
    latest = real / "LATEST"
    if latest_kind == "ok":
        latest.write_text(slug + "\n")
    elif latest_kind == "ok-padded":
        latest.write_bytes(f"  {slug} \r\n\n".encode())
    elif latest_kind == "blank":
        latest.write_text(rng.choice(["", "\n", "   \n"]))
    elif latest_kind == "junk":
        latest.write_bytes(b"\xff" + rng.randbytes(rng.randint(0, 5000)))
    elif latest_kind == "traversal":
        latest.write_text(rng.choice(["../../etc/passwd", "/etc/passwd", "..", "a/b"]) + "\n")
    elif latest_kind == "no-doc":
        latest.write_text("not-there\n")
    elif latest_kind == "dir":
        latest.mkdir()
    elif latest_kind == "symlink":
        (d / "latest-target").write_text(slug + "\n")
        latest.symlink_to(d / "latest-target")
    elif latest_kind == "bom":
        latest.write_bytes(b"\xef\xbb\xbf" + slug.encode() + b"\n")
    latest_ok = latest_kind in ("ok", "ok-padded")

    # The doc
    doc_kind = labels["doc"] = _pick(
        rng,
        {
            "ok": 82,
            "absent": 3,
            "symlink": 3,
            "dir": 2,
            "fifo": 2,
            "binary": 3,
            "over-1mb": 2,
            "no-frontmatter": 3,
        },
    )
    consumed_kind = labels["consumed"] = _pick(
        rng, {"false": 70, "False": 5, "quoted": 5, "true": 10, "missing": 4, "no": 3, "odd": 3}
    )
    consumed_line = {
        "false": "consumed: false",
        "False": "consumed: False",
        "quoted": rng.choice(['consumed: "false"', "consumed: 'false'"]),
        "true": "consumed: true",
        "missing": None,
        "no": "consumed: no",
        "odd": rng.choice(["consumed:", "consumed: [false]", "consumed: false # yes"]),
    }[consumed_kind]
    unconsumed = consumed_kind in ("false", "False", "quoted") or (
        consumed_kind == "odd" and consumed_line == "consumed: false # yes"
    )
    created, fresh = _created(rng)
    branch_kind = labels["branch"] = _pick(
        rng, {"main": 50, "none": 20, "feat/auth": 15, "detached": 8, "empty": 7}
    )
    doc_branch = {"main": "main", "feat/auth": "feat/auth", "detached": "detached"}.get(
        branch_kind, ""
    )
    head = [f"slug: {slug}"]
    if created is not None:
        head.append(f"created: {created}")
    if consumed_line is not None:
        head.append(consumed_line)
    if branch_kind != "none":
        head.append(f"branch: {doc_branch}")
    head += rng.sample(
        [
            "commit: 3f2a9c1",
            "dirty: 3",
            "agent: claude-code",
            "unknown_key: {a: [1, 2]}",
            "  nested: value",
            "- a list item",
            "# a comment",
            "tokens: 812",
            "cwd: /x: y",
        ],
        k=rng.randint(0, 5),
    )
    rng.shuffle(head)
    body = _body(rng)
    end = rng.choice(["---", "---", "...", "---  "])
    text = "---\n" + "\n".join(head) + f"\n{end}\n" + body
    if rng.random() < 0.2:
        text = text.replace("\n", "\r\n")
        body = body.replace("\n", "\r\n")
    if rng.random() < 0.1:
        text = "\ufeff" + text
    doc = real / f"{slug}.md"
    if doc_kind == "ok":
        doc.write_bytes(text.encode("utf-8"))
    elif doc_kind == "symlink":
        (d / "doc-target.md").write_bytes(text.encode("utf-8"))
        doc.symlink_to(d / "doc-target.md")
    elif doc_kind == "dir":
        doc.mkdir()
    elif doc_kind == "fifo":
        os.mkfifo(doc)
    elif doc_kind == "binary":
        doc.write_bytes(text.encode("utf-8") + b"\xff\xfe\x00")
    elif doc_kind == "over-1mb":
        doc.write_bytes(text.encode("utf-8") + b"x" * (1 << 20))
    elif doc_kind == "no-frontmatter":
        doc.write_bytes(body.encode("utf-8"))
    if store_kind == "symlink":
        sd.parent.mkdir(parents=True)
        sd.symlink_to(real)
    elif store_kind == "file":
        sd.parent.mkdir(parents=True)
        sd.write_text("not a store\n")

    pending = (
        acts
        and finds_proj
        and store_kind == "dir"
        and latest_ok
        and doc_kind == "ok"
        and unconsumed
        and fresh
    )
    both_detached = doc_branch == "detached" and current == "detached"
    differs = bool(doc_branch and current and not both_detached and doc_branch != current)
    stale = _stale(created) if pending else False
    if not pending or stale is None:
        expect = "silent"
    elif stale:
        expect = "notice-stale"
    elif differs:
        expect = "notice-branch"
    elif effective == "startup":
        expect = "notice-startup"
    else:
        expect = "inject"
    return Case(
        d,
        payload,
        env,
        expect,
        slug=slug,
        body=body,
        doc_branch=doc_branch,
        current=current,
        doc_rel=str(STORE / f"{slug}.md"),
        latest_rel=str(STORE / "LATEST"),
        lock_existed=lock_existed,
        labels=labels,
        warns=bool(
            acts and finds_proj and store_kind == "dir" and latest_ok and doc_kind == "binary"
        ),
    )


def verify(case: Case, out: str, err: str, before: dict[str, object]) -> None:
    where = f"{case.labels} expect={case.expect}"
    if case.warns:  # issue 11 #24: silent on stdout, the file named on stderr
        assert err.count("\n") == 1 and f"{case.slug}.md is not UTF-8" in err, (where, err)
    else:
        assert err == "", (where, err)
    assert len(out) < 10_000, where
    after = snapshot(case.dir)
    moved = changed(before, after)
    if case.expect == "silent":
        assert out == "", (where, out[:300])
        assert moved == set(), (where, moved)
        return
    assert out.endswith("\n") and out.count("\n") == 1, (where, out[:300])
    data = json.loads(out)
    assert list(data) == ["hookSpecificOutput", "systemMessage"], where
    assert "\n" not in data["systemMessage"] and case.slug in data["systemMessage"], where
    inner = data["hookSpecificOutput"]
    assert list(inner) == ["hookEventName", "additionalContext"], where
    assert inner["hookEventName"] == "SessionStart", where
    ctx = inner["additionalContext"]
    assert isinstance(ctx, str) and 0 < len(ctx) < 9_500, (where, len(ctx))
    if case.expect == "notice-stale":  # said once: the doc is marked noticed
        assert "is pending" in ctx and "more than 30 minutes old" in ctx, (where, ctx)
        assert f"proj/{case.doc_rel}" in moved and len(moved) <= 2, (where, moved)
        return
    if case.expect != "inject":
        assert moved == set(), (where, moved)
        assert "\n" not in ctx.strip(), (where, ctx)  # a one-line notice
        assert "/session recall" in ctx and f"`{case.slug}`" in ctx, (where, ctx)
        if case.expect == "notice-branch":
            assert f"`{case.doc_branch}`" in ctx and f"`{case.current}`" in ctx, (where, ctx)
        else:
            assert "is pending" in ctx, (where, ctx)
        return
    # Injected: the banner, then the body (or its head), and the doc is consumed.
    assert ctx.startswith(f"Session handover `{case.slug}`, restored after /clear"), (where, ctx)
    assert "handover written earlier in this project" in ctx, where
    body = case.body.replace("\r\n", "\n").strip("\n")
    full = ctx.endswith("\n\n" + body + "\n") if body else ctx.endswith("\n\n\n")
    head_only = f"→ /session recall {case.slug} for the full document" in ctx
    assert full or head_only, (where, ctx[-300:])
    banner = ctx.split("\n\n", 1)[0]
    assert full == (len(banner) + 2 + len(body) + 1 <= hook.FULL_LIMIT), (where, len(ctx))
    expected_moves = {f"proj/{case.doc_rel}", f"proj/{case.latest_rel}"}
    if not case.lock_existed:
        expected_moves.add(f"proj/{STORE / '.lock'}")
    assert moved == expected_moves, (where, moved)
    doc_text = (case.dir / "proj" / case.doc_rel).read_bytes().decode("utf-8")
    doc = parse_doc(doc_text)
    assert doc is not None, where
    assert doc.meta["consumed"] == "true" and doc.meta["consumed_by"] == "hook", where
    assert doc.meta["consumed_at"] == format_time(NOW), where
    old = before[f"proj/{case.doc_rel}"]
    assert isinstance(old, bytes)
    old_doc = parse_doc(old.decode("utf-8"))
    assert old_doc is not None and doc.body == old_doc.body, where  # body bytes unchanged
    assert doc_text.startswith("\ufeff") == old.startswith(b"\xef\xbb\xbf"), where


def test_hook_fuzz_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["HOME"])
    home_before = snapshot(home)
    seen: dict[str, int] = {}
    for i in range(N_IN_PROCESS):
        rng = random.Random(i)
        case = build(rng, tmp_path / f"c{i}")
        before = snapshot(case.dir)
        monkeypatch.chdir(case.dir / "other")
        err = io.StringIO()
        with redirect_stderr(err):
            out = hook.run(case.payload, env=case.env, now=NOW)
        verify(case, out, err.getvalue(), before)
        seen[case.expect] = seen.get(case.expect, 0) + 1
    assert changed(home_before, snapshot(home)) == set()
    print(f"\nhook fuzz, in process: {N_IN_PROCESS} cases {seen}")
    # The generator reaches every outcome, each many times.
    assert all(
        seen.get(k, 0) >= 40 for k in ("silent", "inject", "notice-startup", "notice-branch")
    ), seen


def test_hook_fuzz_through_the_real_process(tmp_path: Path) -> None:
    cases = [build(random.Random(10_000 + i), tmp_path / f"p{i}") for i in range(N_SUBPROCESS)]
    befores = [snapshot(c.dir) for c in cases]

    def run(case: Case) -> subprocess.CompletedProcess[bytes]:
        env = cli_env(case.env)
        env["SESSION_SKILL_NOW"] = format_time(NOW)
        if "CLAUDE_PROJECT_DIR" not in case.env:
            env.pop("CLAUDE_PROJECT_DIR", None)
        return subprocess.run(
            [sys.executable, "-m", "session_skill", "hook", "session-start"],
            input=case.payload,
            capture_output=True,
            cwd=case.dir / "other",
            env=env,
            timeout=60,
        )

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(run, cases))
    seen: dict[str, int] = {}
    for case, before, proc in zip(cases, befores, results, strict=True):
        assert proc.returncode == 0, (case.labels, proc.stderr[-500:])
        assert b"Traceback" not in proc.stderr
        verify(case, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"), before)
        seen[case.expect] = seen.get(case.expect, 0) + 1
    print(f"\nhook fuzz, real process: {N_SUBPROCESS} cases {seen}")
    assert all(
        seen.get(k, 0) >= 5 for k in ("silent", "inject", "notice-startup", "notice-branch")
    ), seen

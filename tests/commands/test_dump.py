"""dump (SPEC §7.2): writing a doc, the brief, the cap, slugs, the files table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from session_skill.handover import doc as handover
from session_skill.handover import frontmatter
from session_skill.store.store import Store
from tests.conftest import NOW, RunCli, git
from tests.lines import write as write_lines

pytestmark = pytest.mark.usefixtures("pinned_now")
SLUG = "main-2026-11-29T18-30-00Z"
DOC = """\
## Goal
Add token expiry to auth.

## Decisions
- JWT with 15 min expiry — why: stateless
- keep refresh tokens in the DB — why: revocation

## Outstanding
- **rotate-keys** — rotate signing keys. Why: compliance. Next: ask ops.

## Next step
Run the auth tests.
"""


def _doc(store_dir: Path, slug: str = SLUG) -> tuple[dict[str, str], str]:
    doc = handover.parse_doc((store_dir / f"{slug}.md").read_text())
    assert doc is not None
    return doc.meta, doc.body


def test_dump_from_stdin_writes_doc_and_latest(project: Path, store_dir: Path, cli: RunCli) -> None:
    r = cli("dump", input=DOC)
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[0].startswith(
        f"→ .claude/state/session/{SLUG}.md (0 files, 2 decisions, 1 outstanding, "
    )
    assert lines[0].endswith(" tokens)")
    assert lines[1:] == [
        "Next: send /clear — the restore hook re-injects this handover in the fresh session.",
        "",
        "/clear",
    ]
    assert r.err == ""
    assert (store_dir / "LATEST").read_text() == SLUG + "\n"
    meta, body = _doc(store_dir)
    commit = git(project, "rev-parse", "--short", "HEAD").strip()
    assert list(meta)[:3] == ["slug", "created", "consumed"]
    assert meta["slug"] == SLUG and meta["created"] == NOW and meta["consumed"] == "false"
    assert (meta["branch"], meta["commit"], meta["dirty"]) == ("main", commit, "0")
    assert meta["cwd"] == str(project)
    assert meta["capture"] == "summarized" and meta["agent"] == "claude-code"
    assert int(meta["tokens"]) > 0 and "over_cap" not in meta and "follows" not in meta
    assert body == DOC
    text = (store_dir / f"{SLUG}.md").read_text()
    assert "\nconsumed: false\n" in text  # the literal line the hook flips


def test_dump_from_file_and_dash(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    f = tmp_path / "doc.md"
    f.write_text(DOC)
    assert cli("dump", "from-file", "--file", str(f)).code == 0
    assert cli("dump", "from-dash", "--file", "-", input=DOC).code == 0
    assert (store_dir / "from-file.md").exists() and (store_dir / "from-dash.md").exists()
    assert (store_dir / "LATEST").read_text() == "from-dash\n"


def test_dump_file_errors(project: Path, cli: RunCli, tmp_path: Path) -> None:
    r = cli("dump", "--file", str(tmp_path / "nope.md"))
    assert (r.code, r.err) == (1, f"error: no such file: {tmp_path / 'nope.md'}\n")
    r = cli("dump", "--file", "-")  # stdin is a terminal
    assert (r.code, r.err) == (
        1,
        "error: --file - reads the doc from stdin, but stdin is a terminal\n",
    )
    bad = tmp_path / "latin1.md"
    bad.write_bytes(b"## Goal\ncaf\xe9\n## Next step\nx\n")
    r = cli("dump", "--file", str(bad))
    assert (r.code, r.err) == (1, f"error: {bad} is not UTF-8 text; not touching it\n")


@pytest.mark.parametrize(
    ("doc", "err"),
    [
        ("## Goal\ng\n", "error: the handover has no `## Next step` section (or it is empty)\n"),
        ("## Next step\nn\n", "error: the handover has no `## Goal` section (or it is empty)\n"),
        (
            "## Goal\n\n## Next step\n \n",
            "error: the handover has no `## Goal` and `## Next step` section (or it is empty)\n",
        ),
        (
            "---\nslug: x\n---\n\n",
            "error: the handover is empty: write the doc on stdin or with --file\n",
        ),
    ],
)
def test_dump_refuses_missing_sections(
    project: Path, store_dir: Path, cli: RunCli, doc: str, err: str
) -> None:
    r = cli("dump", "--file", "-", input=doc)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert not list(store_dir.glob("*.md")) or [p.name for p in store_dir.glob("*.md")] == [
        "PARKED.md"
    ]


def test_bare_dump_with_nothing_piped_prints_the_brief(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    r = cli("dump")
    assert r.code == 0, r
    assert r.out.startswith(f"# Handover brief — slug `{SLUG}`\n")
    assert not (store_dir / "LATEST").exists()


def test_slug_collisions_get_numbers(project: Path, store_dir: Path, cli: RunCli) -> None:
    for expected in (SLUG, SLUG + "-2", SLUG + "-3"):
        r = cli("dump", input=DOC)
        assert r.out.startswith(f"→ .claude/state/session/{expected}.md"), r
        assert _doc(store_dir, expected)[0]["slug"] == expected
    assert (store_dir / "LATEST").read_text() == SLUG + "-3\n"
    assert cli("dump", "Plan X", input=DOC).out.startswith("→ .claude/state/session/plan-x.md")
    assert cli("dump", "plan x", input=DOC).out.startswith("→ .claude/state/session/plan-x-2.md")


def test_replace_overwrites_a_named_doc(project: Path, store_dir: Path, cli: RunCli) -> None:
    assert cli("dump", "plan", input=DOC).code == 0
    r = cli("dump", "plan", "--replace", input=DOC.replace("Add token expiry", "Changed goal"))
    assert r.code == 0, r
    assert r.out.startswith("→ .claude/state/session/plan.md")
    meta, body = _doc(store_dir, "plan")
    assert "Changed goal" in body
    assert meta.get("follows") != "plan"  # never points at itself
    assert sorted(p.name for p in store_dir.glob("plan*.md")) == ["plan.md"]


def test_a_replaced_doc_keeps_its_place_in_the_chain(
    project: Path, store_dir: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n, name in enumerate(("first", "aaa", "bbb")):
        monkeypatch.setenv("SESSION_SKILL_NOW", f"2026-11-29T18:4{n}:00Z")
        assert cli("dump", name, input=DOC).code == 0
    monkeypatch.setenv("SESSION_SKILL_NOW", "2026-11-29T18:50:00Z")
    assert cli("dump", "aaa", "--replace", input=DOC).code == 0
    # aaa still follows first, and bbb aaa: no loop aaa → bbb → aaa.
    assert _doc(store_dir, "aaa")[0]["follows"] == "first"
    assert _doc(store_dir, "bbb")[0]["follows"] == "aaa"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"My own notes.\n", "is not a handover (no frontmatter with `created` or `slug`)"),
        (b"\xff\xfebinary", "is not UTF-8: it is never rewritten"),
    ],
)
def test_replace_never_overwrites_a_file_that_is_no_handover(
    project: Path, store_dir: Path, cli: RunCli, content: bytes, why: str
) -> None:
    """`--replace` overwrites a named doc; a file of the user's with that name (their notes,
    bytes that are not UTF-8) was overwritten too, and lost (SPEC §3)."""
    store_dir.mkdir(parents=True, exist_ok=True)
    (store_dir / "notes.md").write_bytes(content)
    r = cli("dump", "notes", "--replace", input=DOC)
    assert r.code == 1 and why in r.err, r
    assert (store_dir / "notes.md").read_bytes() == content


def test_replace_needs_a_name(project: Path, cli: RunCli) -> None:
    r = cli("dump", "--replace", input=DOC)
    assert (r.code, r.err) == (1, "error: --replace needs the NAME of the doc to overwrite\n")


def test_follows_links_the_previous_dump_of_the_branch(
    project: Path, store_dir: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("dump", "first", input=DOC).code == 0
    monkeypatch.setenv("SESSION_SKILL_NOW", "2026-11-29T18:40:00Z")
    git(project, "checkout", "-q", "-b", "other")
    assert cli("dump", "elsewhere", input=DOC).code == 0
    git(project, "checkout", "-q", "main")
    monkeypatch.setenv("SESSION_SKILL_NOW", "2026-11-29T18:50:00Z")
    assert cli("dump", "second", input=DOC).code == 0
    assert _doc(store_dir, "second")[0]["follows"] == "first"
    assert "follows" not in _doc(store_dir, "elsewhere")[0]


def test_model_frontmatter_tool_keys_are_ignored(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    doc = (
        "---\nslug: evil/../../x\ncreated: 1999-01-01T00:00:00Z\nconsumed: true\n"
        "branch: made-up\ncommit: deadbee\ndirty: 99\ntokens: 1\nover_cap: false\n"
        "trigger: session-end\nnoticed_at: 2026-11-29T18:00:00Z\nrestored_in: other\n"
        "plan_file: /tmp/p.md\ncompaction: auto\nskipped: nothing\n"
        "topic: auth work\n---\n" + DOC
    )
    r = cli("dump", input=doc)
    assert r.code == 0, r
    meta, body = _doc(store_dir)
    assert meta["slug"] == SLUG and meta["created"] == NOW and meta["consumed"] == "false"
    assert meta["branch"] == "main" and meta["commit"] != "deadbee" and meta["dirty"] == "0"
    assert meta["tokens"] != "1" and "over_cap" not in meta
    # What the hooks read to decide a restore is the tool's too: this stays a user's dump.
    for key in ("trigger", "noticed_at", "restored_in", "plan_file", "compaction", "skipped"):
        assert key not in meta, key
    assert meta["topic"] == "auth work"  # unknown keys are kept
    assert body == DOC


def test_the_models_own_frontmatter_is_kept_as_written(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    own = [
        "# written by the model",
        "tags:",
        "  - auth",
        "  - tokens",
        "refs: [a, b]",
        "count: 3",
        'note: "quoted: with a colon"',
    ]
    doc = "---\n" + "\n".join(own) + "\ntrigger: session-end\nslug: x\n---\n" + DOC
    assert cli("dump", input=doc).code == 0
    text = next(p for p in store_dir.glob("*.md") if p.name != "PARKED.md").read_text()
    head = text.split("---\n")[1].splitlines()
    assert head[-len(own) :] == own  # after the tool's keys, exactly as written
    assert "trigger: session-end" not in head and "slug: x" not in head


def test_over_cap_is_refused_with_section_counts(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    decisions = "".join(
        f"- decision {i} about the retry policy and its many trade-offs — why: measured {i} times\n"
        for i in range(110)
    )
    doc = f"## Goal\nBig.\n\n## Decisions\n{decisions}\n## Next step\nCompress.\n"
    r = cli("dump", input=doc)
    assert r.code == 3, r
    lines = r.out.splitlines()
    assert (
        lines[0].startswith("Over the cap: ") and "(cap 1500, counted with cl100k_base)" in lines[0]
    )
    total = int(lines[0].split()[3])
    assert total > 1500
    assert lines[1:3] == ["| Section | Tokens |", "| --- | --- |"]
    counts = {ln.split("|")[1].strip(): int(ln.split("|")[2]) for ln in lines[3:-1]}
    assert set(counts) == {"Goal", "Decisions", "Next step"}
    assert counts["Decisions"] > 1400
    assert lines[-1].startswith("Compress the prose (never drop a decision)")
    assert r.err == f"error: the handover is {total} tokens; the cap is 1500 (cl100k_base)\n"
    assert not (store_dir / "LATEST").exists()
    assert not list(store_dir.glob("main-*.md"))
    r = cli("dump", "--force", input=doc)
    assert r.code == 0, r
    assert "⚠ over the 1500-token cap: written with --force (over_cap: true)" in r.out
    assert r.out.endswith("\n/clear\n")
    meta, _ = _doc(store_dir)
    assert meta["over_cap"] == "true" and meta["tokens"] == str(total)


def test_token_count_falls_back_and_says_so(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.handover import tokens

    monkeypatch.setattr(tokens, "counter", lambda: tokens.Counter(method=tokens.FALLBACK_METHOD))
    r = cli("dump", input="## Goal\n" + "word " * 1300 + "\n## Next step\nx\n")
    assert r.code == 3, r
    assert "counted with chars/4 (tiktoken encoding unavailable)" in r.out


def test_files_table_merge_in_a_real_repo(project: Path, store_dir: Path, cli: RunCli) -> None:
    (project / "src").mkdir()
    (project / "src" / "token.py").write_text("a\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    (project / "src" / "token.py").write_text("a\nb\nc\n")
    (project / "src" / "new.py").write_text("n\n")
    doc = DOC.replace(
        "## Outstanding",
        "## Files touched\n| File | Change | State | Ref |\n| --- | --- | --- | --- |\n"
        "| `src/token.py` | added expiry check | done | +999/-0 |\n"
        "| `docs/plan.md` | wrote the plan | wip | |\n"
        "\nThe plan lives outside git.\n\n## Outstanding",
    )
    r = cli("dump", input=doc)
    assert r.code == 0, r
    assert "(3 files, 2 decisions, 1 outstanding," in r.out
    _, body = _doc(store_dir)
    section = handover.section_content(body, "Files touched")
    assert section.splitlines() == [
        "| File | Change | State | Ref |",
        "| --- | --- | --- | --- |",
        "| `src/token.py` | added expiry check | done | +2/-0 |",
        "| `docs/plan.md` | wrote the plan | wip | — |",
        "| `src/new.py` |  | unlisted | new |",
        "The plan lives outside git.",
    ]
    titles = [s.title for s in handover.split_sections(body)]
    assert titles == ["Goal", "Decisions", "Files touched", "Outstanding", "Next step"]


def test_files_table_added_when_the_model_wrote_none(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    (project / "README.md").write_text("changed\n")
    assert cli("dump", input=DOC).code == 0
    _, body = _doc(store_dir)
    assert "| `README.md` |  | unlisted | +1/-1 |" in body
    titles = [s.title for s in handover.split_sections(body)]
    assert titles == ["Goal", "Decisions", "Files touched", "Outstanding", "Next step"]


def _forty_files(project: Path) -> list[str]:
    paths = []
    for d in ("api", "web/components", "core", "tests"):
        (project / d).mkdir(parents=True)
        for i in range(10):
            paths.append(f"{d}/file_{i}.py")
            (project / d / f"file_{i}.py").write_text(f"v{i}\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "forty")
    for n, p in enumerate(paths):
        if n % 3 == 0:
            (project / p).unlink()
        else:
            (project / p).write_text("changed\n" * (n % 5 + 1))
    return paths


def test_forty_changed_files_fit_in_twenty_five_rows(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    paths = _forty_files(project)
    r = cli("dump", input=DOC)
    assert r.code == 0, r
    assert "(40 files," in r.out
    _, body = _doc(store_dir)
    section = handover.section_content(body, "Files touched")
    rows = [ln for ln in section.splitlines() if ln.startswith("| `")]
    assert len(rows) <= 25
    folded = {}
    singles = set()
    for ln in rows:
        cell = ln.split("|")[1].strip()
        name = cell.split("`")[1]
        if name.endswith("/"):
            folded[name] = int(cell.split("(")[1].split()[0])
        else:
            singles.add(name)
    for p in paths:  # no path lost: a row of its own, or counted in its directory's row
        assert p in singles or any(p.startswith(d) for d in folded), p
    assert len(singles) + sum(folded.values()) == 40
    note = (
        f"_{sum(folded.values())} files grouped into {len(folded)} directory rows "
        "to keep the table at 25 rows._"
    )
    assert note in section


def test_brief_with_forty_files_then_dump_of_the_copied_skeleton(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    _forty_files(project)
    brief = cli("dump", "--brief").out
    skeleton = brief.split(
        "### Files touched (observed; keep these rows, fill Change and State)\n"
    )[1]
    skeleton = skeleton.split("\n\n### ")[0]
    assert "directory rows to keep the table at 25 rows" in skeleton
    doc = DOC.replace("## Outstanding", "## Files touched\n" + skeleton + "\n\n## Outstanding")
    r = cli("dump", input=doc)
    assert r.code == 0, r
    assert "(40 files," in r.out
    _, body = _doc(store_dir)
    section = handover.section_content(body, "Files touched")
    names = [ln.split("`")[1] for ln in section.splitlines() if ln.startswith("| `")]
    assert len(names) == len(set(names)) <= 25  # no directory listed twice


def test_brief_shows_git_files_and_parked_items(project: Path, cli: RunCli) -> None:
    (project / "README.md").write_text("changed\n")
    (project / "new.py").write_text("x\n")
    assert cli("park", "**retry-backoff** — revisit exponential vs linear").code == 0
    r = cli("dump", "--brief", "My Plan")
    assert r.code == 0, r
    out = r.out
    commit = git(project, "rev-parse", "--short", "HEAD").strip()
    assert out.startswith("# Handover brief — slug `my-plan`\n")
    assert f"Git: main · {commit} · 2 uncommitted paths" in out
    assert "| `README.md` |  | unlisted | +1/-1 |" in out
    assert "| `new.py` |  | unlisted | new |" in out
    assert "- **retry-backoff** — revisit exponential vs linear (parked)" in out
    assert "session-skill dump 'My Plan' --file - <<'SESSION_DOC'" in out
    for title in handover.SECTION_ORDER:
        if title not in handover.TOOL_SECTIONS:
            assert f"## {title}" in out
    assert "1,500 tokens" in out
    assert not Store(project).read_latest()


def test_brief_json(project: Path, cli: RunCli) -> None:
    data = json.loads(cli("dump", "--brief", "--json").out)
    assert data["slug"] == SLUG
    assert data["git"]["branch"] == "main" and data["git"]["dirty"] == 0
    assert data["command"].startswith("session-skill dump --file - <<'SESSION_DOC'")


def test_brief_refuses_a_bad_name(project: Path, cli: RunCli) -> None:
    r = cli("dump", "--brief", "latest")
    assert (r.code, r.err) == (1, "error: refused name 'latest': 'latest' is reserved\n")


def test_dump_outside_git(tmp_path: Path, cli: RunCli) -> None:
    r = cli("--project", str(tmp_path), "dump", input=DOC)
    assert r.code == 0, r
    store_dir = tmp_path / ".claude" / "state" / "session"
    meta, _ = _doc(store_dir, "session-2026-11-29T18-30-00Z")
    assert "branch" not in meta and "commit" not in meta


def test_dump_detached_head(project: Path, store_dir: Path, cli: RunCli) -> None:
    git(project, "checkout", "-q", "--detach")
    r = cli("dump", input=DOC)
    assert r.out.startswith("→ .claude/state/session/detached-2026-11-29T18-30-00Z.md"), r


def test_dump_json(project: Path, cli: RunCli) -> None:
    data = json.loads(cli("dump", "--json", input=DOC).out)
    assert data["slug"] == SLUG and data["decisions"] == 2 and data["outstanding"] == 1
    assert data["over_cap"] is False and data["token_method"] == "cl100k_base"


def test_dump_crlf_doc_keeps_crlf(project: Path, store_dir: Path, cli: RunCli) -> None:
    assert cli("dump", input=DOC.replace("\n", "\r\n")).code == 0
    raw = (store_dir / f"{SLUG}.md").read_bytes()
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert frontmatter.read_meta(raw.decode())["slug"] == SLUG  # type: ignore[index]


def test_extractive_without_a_transcript(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.commands import sweep as transcripts

    monkeypatch.setattr(transcripts, "facts_for", lambda *a, **k: None)
    r = cli("dump", "--extractive")
    assert (r.code, r.err) == (
        1,
        "error: no transcript found for --extractive: pass --transcript PATH or --session-id ID\n",
    )


# -- issue 11 -------------------------------------------------------------------------------------
def _transcript(path: Path, session: str = "s-brief", *, junk: int = 0) -> Path:
    """A small Claude Code transcript begun long ago (so every commit since counts)."""
    records = [
        {
            "type": "user",
            "sessionId": session,
            "cwd": "/home/dev/app",
            "timestamp": "2020-01-01T10:00:00.000Z",
            "message": {"role": "user", "content": "Add token expiry to the auth module."},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "timestamp": "2020-01-01T10:01:00.000Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Done. We could revisit the refresh flow later."}
                ],
            },
        },
    ]
    return write_lines(path, [*records, *["{not json"] * junk])


def test_the_brief_command_carries_its_transcript(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    """#10: the Refs the brief showed (`committed`) are the ones the doc gets."""
    (project / "auth.py").write_text("x\n")
    git(project, "add", "auth.py")
    git(project, "commit", "-q", "-m", "auth")
    t = _transcript(tmp_path / "session.jsonl")
    brief = cli("dump", "--brief", "--transcript", str(t))
    assert brief.code == 0, brief
    assert "| `auth.py` |  | unlisted | committed |" in brief.out
    command = next(ln for ln in brief.out.splitlines() if ln.startswith("session-skill dump"))
    assert command == (
        f"session-skill dump --transcript {t} --session-id s-brief --file - <<'SESSION_DOC'"
    )
    r = cli("dump", "--transcript", str(t), "--session-id", "s-brief", "--file", "-", input=DOC)
    assert r.code == 0, r
    _, body = _doc(store_dir)
    assert "| `auth.py` |  | unlisted | committed |" in body


def test_an_unknown_session_id_never_reads_another_transcript(
    project: Path, store_dir: Path, cli: RunCli, isolated_home: Path
) -> None:
    """#11: the brief and --extractive say none was found; they never take the newest."""
    from session_skill.transcripts.discovery import project_key

    folder = isolated_home / ".claude" / "projects" / project_key(project)
    folder.mkdir(parents=True)
    _transcript(folder / "someone-else.jsonl", "someone-else")
    brief = cli("dump", "--brief", "--session-id", "mine")
    assert "Transcript: none found for session `mine`" in brief.out, brief
    assert "someone-else" not in brief.out
    r = cli("dump", "--extractive", "--session-id", "mine")
    assert (r.code, r.err) == (
        1,
        "error: no transcript found for session `mine` for --extractive: "
        "pass --transcript PATH or --session-id ID\n",
    )
    assert not list(store_dir.glob("*.md")) or [p.name for p in store_dir.glob("*.md")] == [
        "PARKED.md"
    ]


@pytest.mark.parametrize(
    "content", [b"root:x:0:0:root:/root:/bin/bash\n", b"# README\n\nhello\n", bytes(range(256))]
)
def test_extractive_of_a_file_that_is_not_a_transcript(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path, content: bytes
) -> None:
    """#12: exit 1, one error line, no doc."""
    path = tmp_path / "passwd"
    path.write_bytes(content)
    r = cli("dump", "--extractive", "--transcript", str(path))
    assert r.code == 1, r
    assert r.err.startswith(f"error: {path} is not a transcript: ") and r.err.count("\n") == 1
    assert not list(store_dir.glob("*-*.md"))
    assert Store(project).read_latest() is None


def test_extractive_reports_unreadable_lines(
    project: Path, store_dir: Path, cli: RunCli, tmp_path: Path
) -> None:
    t = _transcript(tmp_path / "t.jsonl", junk=3)
    r = cli("dump", "--extractive", "--transcript", str(t))
    assert r.code == 0, r
    assert f"⚠ 3 unreadable lines of {t} were skipped" in r.out
    brief = cli("dump", "--brief", "--transcript", str(t))
    assert f"Transcript: {t} (3 unreadable lines skipped)" in brief.out


def test_latest_as_a_directory_stops_before_the_doc(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """#20: nothing half-done, and no `-2` on the retry."""
    (store_dir / "LATEST").mkdir(parents=True)
    r = cli("dump", input=DOC)
    assert r.code == 1, r
    assert r.err == (
        f"error: {store_dir / 'LATEST'} is a directory, not the LATEST file: "
        "move it away, then dump again\n"
    )
    assert not list(store_dir.glob("*.md")) or all(
        p.name == "PARKED.md" for p in store_dir.glob("*.md")
    )
    assert not [p for p in store_dir.iterdir() if p.name.startswith(".tmp")]
    (store_dir / "LATEST").rmdir()
    r = cli("dump", input=DOC)
    assert r.code == 0, r
    assert r.out.startswith(f"→ .claude/state/session/{SLUG}.md "), r


def test_a_failed_latest_write_takes_the_doc_back(
    project: Path, store_dir: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.store import fileio

    real = fileio.atomic_write

    def fail_latest(path: Path, data: bytes) -> None:
        if Path(path).name == "LATEST":
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(fileio, "atomic_write", fail_latest)
    r = cli("dump", input=DOC)
    assert r.code == 1, r
    assert r.err.startswith("error: cannot write ") and "LATEST" in r.err
    assert not (store_dir / f"{SLUG}.md").exists()


def test_git_not_found_is_said_plainly(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#25"""
    monkeypatch.setenv("PATH", str(project / "no-bin"))
    r = cli("dump", "--brief")
    assert r.code == 0, r
    assert "Git: git was not found (branch, commit and Refs are unknown)" in r.out
    assert "not a git repository" not in r.out


def test_the_written_line_says_1_file_and_1_decision(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    """#26"""
    (project / "README.md").write_text("changed\n")
    doc = DOC.replace("- keep refresh tokens in the DB — why: revocation\n", "")
    r = cli("dump", input=doc)
    assert r.code == 0, r
    assert f"→ .claude/state/session/{SLUG}.md (1 file, 1 decision, 1 outstanding, " in r.out

"""`session-skill install` / `uninstall` (SPEC §10, issue 3)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from session_skill.errors import SessionError, UsageError
from session_skill.install import hooks as inst_hooks
from session_skill.install import notes as inst_notes
from session_skill.install import plan as inst_plan
from session_skill.install import skills as inst_skills
from session_skill.install.steps import Place
from session_skill.store import paths as storepaths
from tests.conftest import RunCli

MARK = "-m session_skill hook session-start"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return p


@pytest.fixture(autouse=True)
def session_skill_on_path(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`session-skill` on PATH, as after `pip install`: install's output does not depend on
    the shell the tests run in (the PATH warning has tests of its own)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    script = bin_dir / "session-skill"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(inst_plan, "_login_path_warning", lambda: [])  # tests of its own


@pytest.fixture(scope="module")
def command() -> str:
    return inst_hooks.hook_command()


def do_install(project: Path | None, home: Path, **kw: object) -> str:
    args: dict[str, object] = {"user": False, "agent": "claude", "dry_run": False}
    args.update(kw)
    return inst_plan.install(project=project, home=home, **args)  # type: ignore[arg-type]


def do_uninstall(project: Path | None, home: Path, **kw: object) -> str:
    args: dict[str, object] = {"user": False, "agent": "claude"}
    args.update(kw)
    return inst_plan.uninstall(project=project, home=home, **args)  # type: ignore[arg-type]


def place_of(project: Path, home: Path, agent: str = "claude") -> Place:
    """Where install puts `agent`'s files in `project`, and keeps its notes about them."""
    return inst_plan._targets(project, False, agent, home, None)[1][0]


def snapshot(*roots: Path) -> dict[str, bytes | None]:
    """Every path under the roots (dirs as None) with its bytes, `.git` internals aside; a
    symlink as where it points."""
    out: dict[str, bytes | None] = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            if ".git" in p.relative_to(root).parts[:1] and p.name != ".gitignore":
                continue
            if p.is_symlink():
                out[str(p)] = f"-> {os.readlink(p)}".encode()
            else:
                out[str(p)] = None if p.is_dir() else p.read_bytes()
    return out


def our_entry(command: str) -> dict[str, object]:
    return {
        "matcher": "startup|clear|compact",
        "hooks": [{"type": "command", "command": command, "timeout": 10}],
    }


def our_compact_entry(command: str) -> dict[str, object]:
    """The PreCompact entry (issue 20): /compact and automatic compaction."""
    pre = command.replace("hook session-start", "hook pre-compact")
    return {"matcher": "manual|auto", "hooks": [{"type": "command", "command": pre, "timeout": 10}]}


def our_end_entry(command: str) -> dict[str, object]:
    """The SessionEnd entry (issue 12): /clear only, with a timeout (else ~1.5 s)."""
    end = command.replace("hook session-start", "hook session-end")
    return {"matcher": "clear", "hooks": [{"type": "command", "command": end, "timeout": 10}]}


def claude_hooks(command: str) -> dict[str, object]:
    return {
        "SessionStart": [our_entry(command)],
        "SessionEnd": [our_end_entry(command)],
        "PreCompact": [our_compact_entry(command)],
    }


def codex_hooks(command: str) -> dict[str, object]:
    codex = f"SESSION_SKILL_AGENT=codex {command}"
    return {"SessionStart": [our_entry(codex)], "PreCompact": [our_compact_entry(codex)]}


FOREIGN = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}
        ],
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "Stop": [],
    },
    "env": {"FOO": "1"},
}


# -- install --------------------------------------------------------------------------------


def test_fresh_project(project: Path, home: Path, command: str) -> None:
    report = do_install(project, home)
    skill = project / ".claude" / "skills" / "session" / "SKILL.md"
    assert skill.read_bytes() == inst_skills.skill_source().read_bytes()
    settings = project / ".claude" / "settings.json"
    raw = settings.read_text()
    assert raw.endswith("}\n") and raw.startswith('{\n  "hooks": {\n    "SessionStart": [')
    assert json.loads(raw) == {"hooks": claude_hooks(command)}
    store = project / ".claude" / "state" / "session"
    assert store.is_dir() and (store / ".gitignore").read_text() == "*\n"
    assert (project / ".gitignore").read_text() == ".claude/state/\n"
    assert report.splitlines() == [
        f"Installed session-skill for Claude Code in {project}:",
        "  - write .claude/skills/session/SKILL.md",
        "  - add the SessionStart, SessionEnd and PreCompact hooks to .claude/settings.json",
        "  - create the store .claude/state/session/",
        "  - create .gitignore with .claude/state/",
        f"Hook command: {command}",
        "Next: start a new session so the hook is loaded, then `/session dump` before `/clear`.",
    ]
    assert list(home.iterdir()) == []


def test_command_is_this_interpreter_by_absolute_path(command: str) -> None:
    assert MARK in command
    python = command.split(" -P -m ")[0].split(" ")[-1].strip("'")
    assert os.path.isabs(python) and os.path.samefile(python, sys.executable)


def test_the_project_the_hook_runs_in_cannot_stand_in_for_the_package(
    command: str, tmp_path: Path
) -> None:
    """`python -m` searched the working directory first: a project holding a `session_skill/`
    of its own (a fork, another version) ran that code in every hook of a `--user` install."""
    fake = tmp_path / "session_skill"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text('print("the project\'s own code ran")')
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = ["sh", "-c", command]
    r = subprocess.run(run, input=b"{}", capture_output=True, cwd=tmp_path, env=bare, timeout=60)
    assert (r.returncode, r.stdout) == (0, b"")


def test_foreign_hooks_and_keys_are_kept_in_order(project: Path, home: Path, command: str) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(FOREIGN, indent=4))
    do_install(project, home)
    data = json.loads(settings.read_text())
    assert list(data) == list(FOREIGN)
    assert list(data["hooks"]) == [*FOREIGN["hooks"], "SessionEnd", "PreCompact"]  # type: ignore[misc]
    expected = json.loads(json.dumps(FOREIGN))
    expected["hooks"]["SessionStart"].append(our_entry(command))
    expected["hooks"]["SessionEnd"] = [our_end_entry(command)]
    expected["hooks"]["PreCompact"] = [our_compact_entry(command)]
    assert data == expected


def test_gitignore_is_appended_keeping_its_bytes(project: Path, home: Path) -> None:
    gi = project / ".gitignore"
    gi.write_bytes(b"node_modules\r\n*.log")  # CRLF, no final newline
    do_install(project, home)
    assert gi.read_bytes() == b"node_modules\r\n*.log\r\n.claude/state/\r\n"


@pytest.mark.parametrize("line", [".claude/state/", "/.claude/state", ".claude/", ".claude"])
def test_gitignore_already_covering_the_store_is_left_alone(
    project: Path, home: Path, line: str
) -> None:
    gi = project / ".gitignore"
    gi.write_text(f"dist/\n{line}\n")
    do_install(project, home)
    assert gi.read_text() == f"dist/\n{line}\n"


def test_no_gitignore_outside_a_git_repository(tmp_path: Path, home: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    do_install(plain, home)
    assert not (plain / ".gitignore").exists()
    assert (plain / ".claude" / "state" / "session").is_dir()


def test_second_install_changes_no_byte_and_says_so(project: Path, home: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(FOREIGN))
    do_install(project, home, agent="all")
    before = snapshot(project, home)
    assert do_install(project, home, agent="all") == "Already installed: nothing to change."
    assert snapshot(project, home) == before


def test_foreign_formatting_is_not_rewritten_when_nothing_changes(
    project: Path, home: Path, command: str
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    data = dict(FOREIGN, hooks=claude_hooks(command))
    settings.write_text(json.dumps(data, indent=4))  # not our 2-space style
    do_install(project, home)
    assert settings.read_text() == json.dumps(data, indent=4)


def test_changed_interpreter_is_replaced_not_duplicated(
    project: Path, home: Path, command: str
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    old = "/old/venv/bin/python -m session_skill hook session-start"
    data = {
        "hooks": {
            "SessionStart": [
                {"matcher": "startup|clear", "hooks": [{"type": "command", "command": old}]},
                {"matcher": "clear", "hooks": [{"type": "command", "command": old}]},
            ]
        }
    }
    settings.write_text(json.dumps(data))
    report = do_install(project, home)
    line = (
        "update the SessionStart hook and add the SessionEnd and PreCompact hooks in "
        ".claude/settings.json"
    )
    assert f"  - {line}" in report
    hooks = json.loads(settings.read_text())["hooks"]["SessionStart"]
    # One entry of ours, its matcher now including compact (issue 20), with a timeout.
    ours = {"type": "command", "command": command, "timeout": 10}
    assert hooks == [{"matcher": "startup|clear|compact", "hooks": [ours]}]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{\n  "model": "opus",\n  oops\n}\n',
            ".claude/settings.json is not valid JSON (line 3): not touching it",
        ),
        ("[1, 2]", ".claude/settings.json does not hold a JSON object: not touching it"),
        ('{"hooks": []}', '.claude/settings.json: "hooks" is not a JSON object: not touching it'),
        (
            '{"hooks": {"SessionStart": {}}}',
            '.claude/settings.json: "hooks.SessionStart" is not a JSON list: not touching it',
        ),
        # null is a shape too, not a key absent (it was a TypeError's traceback)
        ('{"hooks": null}', '.claude/settings.json: "hooks" is not a JSON object: not touching it'),
        (
            '{"hooks": {"SessionEnd": null}}',
            '.claude/settings.json: "hooks.SessionEnd" is not a JSON list: not touching it',
        ),
        # Python reads these; the clients' JSON parsers do not: "installed" would be false.
        ('{"a": NaN}', ".claude/settings.json is not valid JSON (line 1): not touching it"),
    ],
)
def test_unusable_settings_are_refused_untouched(
    project: Path, home: Path, content: str, message: str
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(content)
    before = snapshot(project, home)
    with pytest.raises(SessionError) as err:
        do_install(project, home)
    assert err.value.message == message
    assert snapshot(project, home) == before  # nothing else was written either
    with pytest.raises(SessionError):
        do_uninstall(project, home)
    assert snapshot(project, home) == before


def test_foreign_skill_of_the_same_name_is_refused(project: Path, home: Path) -> None:
    skill = project / ".claude" / "skills" / "session" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: session\ndescription: someone else's\n---\nHello.\n")
    before = snapshot(project, home)
    with pytest.raises(SessionError, match="is not session-skill's: not touching it"):
        do_install(project, home)
    assert snapshot(project, home) == before


def test_an_older_version_of_our_skill_is_updated(project: Path, home: Path) -> None:
    skill = project / ".claude" / "skills" / "session" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: session\n---\nRun `session-skill dispatch` (old text).\n")
    assert "update .claude/skills/session/SKILL.md" in do_install(project, home)
    assert skill.read_bytes() == inst_skills.skill_source().read_bytes()


def test_dry_run_writes_nothing(project: Path, home: Path, command: str) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(FOREIGN))
    before = snapshot(project, home)
    report = do_install(project, home, dry_run=True, agent="all")
    assert snapshot(project, home) == before
    assert report.splitlines() == [
        f"Dry run: nothing written. Installing for Claude Code and Codex in {project} would:",
        "  - write .claude/skills/session/SKILL.md",
        "  - add the SessionStart, SessionEnd and PreCompact hooks to .claude/settings.json",
        "  - write .agents/skills/session/SKILL.md",
        "  - add the SessionStart and PreCompact hooks to .codex/hooks.json",
        "  - create the store .claude/state/session/",
        "  - create .gitignore with .claude/state/",
        f"Hook command (Claude Code): {command}",
        f"Hook command (Codex): SESSION_SKILL_AGENT=codex {command}",
    ]
    do_install(project, home, agent="all")
    assert do_install(project, home, dry_run=True) == "Already installed: nothing to change."


def test_project_defaults_to_the_git_root_of_the_working_directory(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    sub = project / "src"
    sub.mkdir()
    monkeypatch.chdir(sub)
    do_install(None, home)
    assert (project / ".claude" / "settings.json").is_file()


def test_bad_arguments_are_usage_errors(project: Path, home: Path) -> None:
    with pytest.raises(UsageError):
        do_install(project, home, agent="vim")
    with pytest.raises(UsageError):
        do_install(project, home, user=True)


def test_install_into_a_subfolder_makes_the_store_the_hooks_will_use(
    project: Path, home: Path
) -> None:
    """`install --project sub` made its store in `sub`, where nothing ever reads one: Claude
    Code started in `sub` reads `sub/.claude/settings.json` (so the hooks rightly go there),
    but its hooks find the store from `sub`'s git root, as the CLI does from the model's
    working directory. The store goes there, and says where."""
    sub = project / "packages" / "api"
    sub.mkdir(parents=True)
    report = do_install(sub, home, agent="all")
    assert (sub / ".claude" / "settings.json").is_file()
    assert (sub / ".claude" / "skills" / "session" / "SKILL.md").is_file()
    assert (sub / ".codex" / "hooks.json").is_file()
    store = project / ".claude" / "state" / "session"
    hooks_store = storepaths.project_root(env={"CLAUDE_PROJECT_DIR": str(sub)}, cwd=str(sub))
    cli_store = storepaths.project_root(env={}, cwd=str(sub))
    assert Path(storepaths.store_dir(hooks_store)) == store == Path(storepaths.store_dir(cli_store))
    assert (store / ".gitignore").read_text() == "*\n" and (store / "PARKED.md").is_file()
    assert not (sub / ".claude" / "state").exists()
    assert (project / ".gitignore").read_text() == ".claude/state/\n"
    assert (
        f"  - create the store {store}/ (the repository's: the hooks and the CLI look for it "
        "at its root)" in report.splitlines()
    )
    assert f"  - create {project / '.gitignore'} with .claude/state/" in report.splitlines()
    notes = json.loads((store / inst_notes.NOTES).read_text())  # by path from the root
    assert sorted(notes["created"]) == [
        "packages/api/.claude/settings.json",
        "packages/api/.codex/hooks.json",
    ]
    assert do_install(sub, home, agent="all") == "Already installed: nothing to change."
    report = do_uninstall(sub, home, agent="all")
    assert report.splitlines()[-2:] == [
        f"Kept the store {store}/ (your handovers and parked items).",
        f"Kept the .claude/state/ line in {project / '.gitignore'} (the store stays, so it "
        "stays ignored).",
    ]
    assert list(sub.iterdir()) == [] and store.is_dir()
    assert not (store / inst_notes.NOTES).exists()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository, to ask `git status`."""
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run(["git", "init", "-q", str(r)], check=True)
    return r


def git_status(repo: Path) -> list[str]:
    found = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(found.stdout.splitlines())


INSTALLED_ALL = [
    "?? .agents/skills/session/SKILL.md",
    "?? .claude/settings.json",
    "?? .claude/skills/session/SKILL.md",
    "?? .codex/hooks.json",
    "?? .gitignore",
]


def test_install_keeps_its_notes_out_of_the_users_repository(repo: Path, home: Path) -> None:
    """`.session-skill-created` (beside a settings file install created) and
    `.session-skill-written` (beside the skill) showed in `git status`, and so in a
    handover's Files table; a project install keeps them in its store, which git never sees."""
    do_install(repo, home, agent="all")
    assert git_status(repo) == INSTALLED_ALL
    for place in (place_of(repo, home), place_of(repo, home, "codex")):
        assert inst_notes.created(place)
        assert inst_notes.written(place) == hashlib.sha256(place.skill.read_bytes()).hexdigest()
    store = repo / ".claude" / "state" / "session"
    assert json.loads((store / inst_notes.NOTES).read_text())["created"] == {
        ".claude/settings.json": True,
        ".codex/hooks.json": True,
    }
    assert do_install(repo, home, agent="all") == "Already installed: nothing to change."
    do_uninstall(repo, home, agent="all")
    assert git_status(repo) == ["?? .gitignore"]
    # The store keeps what it kept before (and the writers' lock the notes were kept under).
    assert sorted(p.name for p in store.iterdir()) == [".gitignore", ".lock", "PARKED.md"]


def an_older_install(repo: Path, home: Path) -> list[Path]:
    """An install made before the notes moved into the store: each beside its file, as it
    wrote them (the settings file's name; the skill's SHA-256). The notes, by place."""
    do_install(repo, home, agent="all")
    notes = []
    for place in (place_of(repo, home), place_of(repo, home, "codex")):
        digest = inst_notes.written(place)
        inst_notes.forget(place, "created")
        inst_notes.forget(place, "written")
        created = place.settings.parent / inst_hooks.CREATED
        created.write_text(place.settings.name + "\n")
        written = place.skill.parent / inst_skills.WRITTEN
        written.write_text(f"{digest}\n")
        notes += [written, created]
    assert not (repo / ".claude" / "state" / "session" / inst_notes.NOTES).exists()
    assert git_status(repo) == sorted(
        INSTALLED_ALL + [f"?? {p.relative_to(repo).as_posix()}" for p in notes]
    )
    return notes


def test_install_moves_an_older_installs_notes_into_the_store(repo: Path, home: Path) -> None:
    notes = an_older_install(repo, home)
    report = do_install(repo, home, agent="all")
    assert [line for line in report.splitlines() if line.startswith("  - ")] == [
        f"  - move {p.relative_to(repo).as_posix()} into the store (out of git's sight)"
        for p in notes
    ]
    assert "trust" not in report  # no hook changed: nothing for Codex to trust again
    assert git_status(repo) == INSTALLED_ALL
    for place in (place_of(repo, home), place_of(repo, home, "codex")):
        assert inst_notes.created(place)
        assert inst_notes.written(place) == hashlib.sha256(place.skill.read_bytes()).hexdigest()
    assert do_install(repo, home, agent="all") == "Already installed: nothing to change."
    report = do_uninstall(repo, home, agent="all")
    assert "  - remove .codex/hooks.json (it held only the session-skill hook)" in report
    assert git_status(repo) == ["?? .gitignore"]


def test_an_update_moves_an_older_installs_notes_too(repo: Path, home: Path) -> None:
    """An older install whose hooks run another interpreter, with an older skill: the one
    install that updates them moves the notes beside them as well."""
    an_older_install(repo, home)
    for place in (place_of(repo, home), place_of(repo, home, "codex")):
        place.settings.write_text(place.settings.read_text().replace(sys.executable, "/old/py"))
        older = place.skill.read_text() + "an older version\n"
        place.skill.write_text(older)
        digest = hashlib.sha256(older.encode()).hexdigest()
        (place.skill.parent / inst_skills.WRITTEN).write_text(digest + "\n")
    report = do_install(repo, home, agent="all")
    assert "  - move " not in report and "SKILL.md.edited" not in report
    assert git_status(repo) == INSTALLED_ALL
    for place in (place_of(repo, home), place_of(repo, home, "codex")):
        assert inst_notes.created(place)
        assert inst_notes.written(place) == hashlib.sha256(place.skill.read_bytes()).hexdigest()
    do_uninstall(repo, home, agent="all")
    assert git_status(repo) == ["?? .gitignore"]


def test_uninstall_reads_and_removes_an_older_installs_notes(repo: Path, home: Path) -> None:
    an_older_install(repo, home)
    report = do_uninstall(repo, home, agent="all")
    assert report.splitlines()[1:5] == [
        "  - remove .claude/skills/session/SKILL.md",
        "  - remove .claude/settings.json (it held only the session-skill hook)",
        "  - remove .agents/skills/session/SKILL.md",
        "  - remove .codex/hooks.json (it held only the session-skill hook)",
    ]
    assert git_status(repo) == ["?? .gitignore"]
    assert not (repo / ".claude" / "state" / "session" / inst_notes.NOTES).exists()


def test_a_note_whose_file_is_gone_goes_at_uninstall(repo: Path, home: Path) -> None:
    """The skill or the hooks removed by hand: the store's note of them goes too (an older
    install's note beside them, as before)."""
    do_install(repo, home)
    place = place_of(repo, home)
    place.skill.unlink()
    settings = json.loads(place.settings.read_text())
    place.settings.write_text(json.dumps({k: v for k, v in settings.items() if k != "hooks"}))
    report = do_uninstall(repo, home)
    assert report.splitlines()[1:3] == [
        "  - drop the store's note of the .claude/skills/session/SKILL.md install wrote",
        "  - drop the store's note that install created .claude/settings.json",
    ]
    assert not (repo / ".claude" / "state" / "session" / inst_notes.NOTES).exists()
    assert not (repo / ".claude" / "skills").exists()
    assert do_uninstall(repo, home).startswith("Not installed: nothing to remove.")


def test_a_settings_file_made_again_by_hand_is_the_users(repo: Path, home: Path) -> None:
    """install created settings.json; the user deleted it and made their own, `{}`: the
    store's note that install created it no longer holds, and uninstall keeps theirs."""
    do_install(repo, home)
    settings = repo / ".claude" / "settings.json"
    settings.write_text("{}\n")
    do_install(repo, home)
    assert not inst_notes.created(place_of(repo, home))
    do_uninstall(repo, home)
    assert settings.read_text() == "{}\n"


# -- codex and user -------------------------------------------------------------------------


def test_codex(project: Path, home: Path, command: str) -> None:
    report = do_install(project, home, agent="codex")
    skill = (project / ".agents" / "skills" / "session" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: session\ndescription: ")
    assert "session-skill dispatch <<'SESSION_ARGS'\n" in skill
    assert "$ARGUMENTS" not in skill and "CLAUDE_SESSION_ID" not in skill
    assert "<what the user wrote after $session, verbatim>" in skill
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())
    # Codex gives a hook no variable of its own: the command says who runs it
    assert hooks == {"hooks": codex_hooks(command)}
    assert not (project / ".claude" / "skills").exists()
    assert not (project / ".claude" / "settings.json").exists()
    assert (project / ".claude" / "state" / "session").is_dir()  # the store is shared
    assert "then `$session dump` before `/clear`" in report and "`/session" not in report
    assert "codex_hooks" not in report  # no feature flag to set
    trust = report.split("Codex runs a new or changed hook only once you trust it", 1)[1]
    for seen_in_codex_0171 in (
        '"Trust this folder?" choose "Trust and continue"',
        f"[projects.{json.dumps(str(project))}]",
        '"Hooks need review" choose "Trust all and continue"',
        "`/hooks`",
        "`codex exec` never asks: it skips the hook silently",
        "a changed hook command must be trusted again",
    ):
        assert seen_in_codex_0171 in trust, trust


def test_codex_update_of_the_hook_says_trust_it_again(
    project: Path, home: Path, command: str
) -> None:
    do_install(project, home, agent="codex")
    hooks = project / ".codex" / "hooks.json"
    data = json.loads(hooks.read_text())
    data["hooks"]["SessionStart"][0]["hooks"][0]["command"] = f"/old/python {MARK}"
    hooks.write_text(json.dumps(data))
    report = do_install(project, home, agent="codex")
    assert "  - update the SessionStart hook in .codex/hooks.json" in report
    assert "changed the hook's command, so Codex asks again: trust it again" in report
    # only the skill changed (an older version's): the trusted hook stays trusted, nothing
    # to say about trust
    skill = project / ".agents" / "skills" / "session" / "SKILL.md"
    older = skill.read_text() + "\nold\n"
    skill.write_text(older)
    digest = hashlib.sha256(older.encode()).hexdigest()
    inst_notes.note(place_of(project, home, agent="codex"), "written", digest)
    report = do_install(project, home, agent="codex")
    assert "update .agents/skills/session/SKILL.md" in report and "trust" not in report


def test_codex_user_install_names_the_user_hooks_file(home: Path) -> None:
    report = do_install(None, home, user=True, agent="codex")
    assert "`t` on each hook of ~/.codex/hooks.json (SessionStart and PreCompact)" in report
    assert "Trust this folder?" not in report  # no project .codex/ involved


def test_claude_install_says_nothing_about_codex(project: Path, home: Path) -> None:
    report = do_install(project, home)
    assert "Codex" not in report and "$session" not in report
    assert "then `/session dump` before `/clear`" in report


def test_codex_skill_asks_in_plain_text_and_names_dollar_session() -> None:
    codex = inst_skills.skill_text("codex")
    head, body = codex.split("\n---\n", 1)
    assert "AskUserQuestion" not in codex
    assert body.count("in plain text") == 2 and "numbered" in body and "wait" in body
    assert "Use for $session" in head and "/session" not in head
    assert "allowed-tools" not in head and "argument-hint" not in head  # Claude Code keys


def test_codex_skill_fails_loudly_when_the_skill_moves_under_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    moved = tmp_path / "SKILL.md"
    moved.write_text(inst_skills.skill_source().read_text().replace("AskUserQuestion", "AskUser"))
    monkeypatch.setattr(inst_skills, "skill_source", lambda: moved)
    with pytest.raises(SessionError, match="Codex copy of the skill"):
        inst_skills.skill_text("codex")


def test_user(project: Path, home: Path, command: str) -> None:
    report = do_install(None, home, user=True, agent="all")
    assert (home / ".claude" / "skills" / "session" / "SKILL.md").is_file()
    assert (home / ".agents" / "skills" / "session" / "SKILL.md").is_file()
    claude = json.loads((home / ".claude" / "settings.json").read_text())
    assert claude == {"hooks": claude_hooks(command)}
    codex = json.loads((home / ".codex" / "hooks.json").read_text())  # Codex: no SessionEnd
    assert codex == {"hooks": codex_hooks(command)}
    assert "  - write ~/.claude/skills/session/SKILL.md" in report
    assert "in your user account (~)" in report
    assert not (home / ".claude" / "state").exists()  # no store for a user install
    # Its notes stay beside the files (no repository there): install created settings.json…
    assert (home / ".claude" / inst_hooks.CREATED).read_text() == "settings.json\n"
    assert (home / ".codex" / inst_hooks.CREATED).read_text() == "hooks.json\n"
    # … and wrote this SKILL.md
    for skill in (home / ".claude" / "skills" / "session", home / ".agents" / "skills" / "session"):
        digest = hashlib.sha256((skill / "SKILL.md").read_bytes()).hexdigest()
        assert (skill / inst_skills.WRITTEN).read_text() == digest + "\n"
    assert not (project / ".claude").exists()
    assert do_install(None, home, user=True, agent="all") == "Already installed: nothing to change."
    do_uninstall(None, home, user=True, agent="all")
    assert sorted(p.name for p in home.rglob("*")) == []


def test_user_settings_symlink_is_written_through(tmp_path: Path, home: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"theme": "dark"}\n')
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").symlink_to(dotfiles)
    do_install(None, home, user=True)
    assert (home / ".claude" / "settings.json").is_symlink()
    assert json.loads(dotfiles.read_text())["theme"] == "dark"
    assert "SessionStart" in json.loads(dotfiles.read_text())["hooks"]
    do_uninstall(None, home, user=True)
    assert (home / ".claude" / "settings.json").is_symlink()
    assert json.loads(dotfiles.read_text()) == {"theme": "dark"}


def test_unwritable_target_is_an_error_not_a_traceback(project: Path, home: Path) -> None:
    (project / ".agents").write_text("a file where a folder should be\n")
    before = snapshot(project, home)
    with pytest.raises(SessionError) as err:
        do_install(project, home, agent="codex")
    assert err.value.message == "cannot read .agents/skills/session/SKILL.md: Not a directory"
    assert snapshot(project, home) == before


# -- uninstall ------------------------------------------------------------------------------


def test_uninstall_leaves_foreign_hooks_and_the_store(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(FOREIGN, indent=2) + "\n")
    do_install(project, home, agent="all")
    parked = project / ".claude" / "state" / "session" / "PARKED.md"
    parked.write_text("# Parked items\n\n- **x** — keep me.\n")
    report = do_uninstall(project, home, agent="all")
    assert json.loads(settings.read_text()) == FOREIGN
    assert settings.read_text() == json.dumps(FOREIGN, indent=2) + "\n"
    assert parked.read_text() == "# Parked items\n\n- **x** — keep me.\n"
    assert (project / ".gitignore").read_text() == ".claude/state/\n"
    assert not (project / ".claude" / "skills").exists()
    assert not (project / ".agents").exists() and not (project / ".codex").exists()
    assert report.splitlines() == [
        f"Uninstalled session-skill for Claude Code and Codex from {project}:",
        "  - remove .claude/skills/session/SKILL.md",
        "  - remove the SessionStart, SessionEnd and PreCompact hooks from .claude/settings.json",
        "  - remove .agents/skills/session/SKILL.md",
        "  - remove .codex/hooks.json (it held only the session-skill hook)",
        "Kept the store .claude/state/session/ (your handovers and parked items).",
        "Kept the .claude/state/ line in .gitignore (the store stays, so it stays ignored).",
    ]
    again = do_uninstall(project, home, agent="all")
    assert again.splitlines()[0] == "Not installed: nothing to remove."


def test_uninstall_after_the_store_was_removed_says_so(project: Path, home: Path) -> None:
    """The store deleted by hand: uninstall does not say it stays, and keeps the settings
    file install made (its note went with the store: the file is taken for the user's)."""
    do_install(project, home)
    shutil.rmtree(project / ".claude" / "state")
    report = do_uninstall(project, home)
    assert "the store stays" not in report
    assert report.splitlines()[-1] == (
        "Kept the .claude/state/ line in .gitignore (it keeps a store out of git)."
    )
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {}


def test_uninstall_drops_only_containers_it_emptied(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    data = {"hooks": {"SessionStart": [], "Stop": []}, "model": "x"}
    settings.write_text(json.dumps(data))
    assert do_uninstall(project, home).startswith("Not installed: nothing to remove.")
    assert json.loads(settings.read_text()) == data  # empty before us: left as it was
    do_install(project, home)
    do_uninstall(project, home)
    # Removing our entry emptied SessionStart, so it goes; Stop was never ours.
    assert json.loads(settings.read_text()) == {"hooks": {"Stop": []}, "model": "x"}


def test_uninstall_keeps_our_hook_neighbours_in_a_shared_entry(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    ours = {"type": "command", "command": f"/usr/bin/python3 {MARK}"}
    theirs = {"type": "command", "command": "echo hi"}
    settings.write_text(
        json.dumps({"hooks": {"SessionStart": [{"matcher": "", "hooks": [theirs, ours]}]}})
    )
    do_uninstall(project, home)
    assert json.loads(settings.read_text()) == {
        "hooks": {"SessionStart": [{"matcher": "", "hooks": [theirs]}]}
    }


def test_uninstall_keeps_an_edited_skill(project: Path, home: Path) -> None:
    do_install(project, home)
    skill = project / ".claude" / "skills" / "session" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMy own note.\n")
    report = do_uninstall(project, home)
    assert skill.is_file()
    assert "Kept .claude/skills/session/SKILL.md: it differs from the packaged skill" in report


# -- the hook it writes actually works ------------------------------------------------------


def test_written_hook_command_injects_a_pending_doc(project: Path, home: Path) -> None:
    do_install(project, home)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    store = project / ".claude" / "state" / "session"
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    (store / "plan-x.md").write_text(
        f"---\nslug: plan-x\ncreated: {created}\nconsumed: false\nbranch: main\n---\n"
        "## Goal\nShip the installer.\n\n## Next step\nRun the tests.\n"
    )
    (store / "LATEST").write_text("plan-x\n")
    payload = {
        "session_id": "s",
        "transcript_path": "/nowhere.jsonl",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "clear",
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "PYTHON"))}
    r = subprocess.run(
        ["bash", "-c", command],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "plan-x" in context and "## Goal\nShip the installer." in context
    assert "consumed: true" in (store / "plan-x.md").read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_checkout_without_install_gets_pythonpath(tmp_path: Path) -> None:
    """A python that cannot import the package by itself gets it through PYTHONPATH."""
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    command = inst_hooks.hook_command(python)
    repo = Path(inst_plan.__file__).resolve().parents[2]
    assert command == f"PYTHONPATH={repo} {python} -P {MARK}"
    r = subprocess.run(
        ["bash", "-c", command], input=b"{}", capture_output=True, cwd=tmp_path, timeout=60
    )
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")


# -- the SessionEnd hook (issue 12) ---------------------------------------------------------


def test_an_older_install_gets_the_session_end_hook(
    project: Path, home: Path, command: str
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    older = {**our_entry(command), "matcher": "startup|clear"}  # before issue 20
    shared = {"matcher": "startup|clear", "hooks": [{"type": "command", "command": "echo hi"}]}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [older, shared]}}))
    report = do_install(project, home)
    line = "update the SessionStart hook and add the SessionEnd and PreCompact hooks in"
    assert f"  - {line} .claude/settings.json" in report
    expected = claude_hooks(command)
    expected["SessionStart"] = [our_entry(command), shared]  # theirs keeps its own matcher
    assert json.loads(settings.read_text()) == {"hooks": expected}


def test_our_hook_in_an_entry_shared_with_another_moves_to_its_own(
    project: Path, home: Path, command: str
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    theirs = {"type": "command", "command": "echo hi"}
    ours = {"type": "command", "command": command, "timeout": 10}
    entry = {"matcher": "startup|clear", "hooks": [theirs, ours]}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [entry]}}))
    do_install(project, home)
    starts = json.loads(settings.read_text())["hooks"]["SessionStart"]
    assert starts == [{"matcher": "startup|clear", "hooks": [theirs]}, our_entry(command)]


def test_our_hook_without_a_timeout_gets_one_and_a_set_one_is_kept(
    project: Path, home: Path
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    end = our_end_entry(inst_hooks.hook_command())
    del end["hooks"][0]["timeout"]  # hand-edited: SessionEnd would get ~1.5 s
    start = our_entry(inst_hooks.hook_command())
    start["hooks"][0]["timeout"] = 30  # the user's own choice
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [end], "SessionStart": [start]}}))
    do_install(project, home)
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] == 10
    assert hooks["SessionStart"][0]["hooks"][0]["timeout"] == 30
    before = settings.read_bytes()
    do_install(project, home)
    assert settings.read_bytes() == before  # a second run changes no byte


def test_uninstall_removes_a_session_end_hook_left_alone(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    end = our_end_entry(inst_hooks.hook_command())
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [end], "Stop": []}}))
    report = do_uninstall(project, home)
    assert "  - remove the SessionEnd hook from .claude/settings.json" in report
    assert json.loads(settings.read_text()) == {"hooks": {"Stop": []}}


def test_written_session_end_command_captures_a_clear(project: Path, home: Path) -> None:
    do_install(project, home)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    (entry,) = settings["hooks"]["SessionEnd"]
    assert entry["matcher"] == "clear" and entry["hooks"][0]["timeout"] == 10
    transcript = project.parent / "t.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "sessionId": "s-1",
                "cwd": str(project),
                "timestamp": "2026-11-29T18:00:00.000Z",
                "message": {"role": "user", "content": "Ship the installer with its end hook"},
            }
        )
        + "\n"
    )
    payload = {
        "session_id": "s-1",
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": "SessionEnd",
        "reason": "clear",
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "PYTHON"))}
    env["SESSION_SKILL_DETACH"] = "0"  # inline: LATEST is read as soon as the hook exits
    r = subprocess.run(
        ["bash", "-c", entry["hooks"][0]["command"]],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    store = project / ".claude" / "state" / "session"
    slug = (store / "LATEST").read_text().strip()
    doc = (store / f"{slug}.md").read_text()
    assert "trigger: session-end" in doc and "Ship the installer with its end hook" in doc


# -- issue 11 #21: settings.json keeps its BOM, line endings and indentation -------------------
STYLED = {
    "bom-crlf-4": (
        '\ufeff{\r\n    "model": "opus",\r\n    "env": {\r\n        "A": "1"\r\n    }\r\n}\r\n'
    ),
    "tabs": '{\n\t"model": "opus",\n\t"permissions": {\n\t\t"allow": []\n\t}\n}\n',
    "one-line": '{"model": "opus", "env": {"A": "1"}}\n',
    "one-line-compact-no-newline": '{"model":"opus"}',
}


@pytest.mark.parametrize("name", list(STYLED))
def test_install_and_uninstall_keep_the_settings_style(
    project: Path, home: Path, command: str, name: str
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = STYLED[name].encode("utf-8")
    settings.write_bytes(original)
    do_install(project, home)
    raw = settings.read_bytes()
    text = raw.decode("utf-8-sig")
    assert json.loads(text)["hooks"] == claude_hooks(command)
    assert raw.startswith(b"\xef\xbb\xbf") == original.startswith(b"\xef\xbb\xbf")
    if b"\r\n" in original:
        assert b"\n" not in raw.replace(b"\r\n", b"")
    if name.startswith("one-line"):
        assert text.count("\n") == original.count(b"\n")
        assert (": " in text) == (b": " in original)
    if name == "tabs":
        assert '\n\t"hooks": {\n\t\t"SessionStart": [' in text
    if name == "bom-crlf-4":
        assert '\r\n    "hooks": {\r\n        "SessionStart": [' in text
    do_uninstall(project, home)
    assert settings.read_bytes() == original


# -- issue 11 #18: the skill runs `session-skill`: say so when it is not on PATH ----------------
def test_install_warns_when_session_skill_is_not_on_path(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for out in (do_install(project, home, dry_run=True), do_install(project, home)):
        warning = [ln for ln in out.splitlines() if ln.startswith("⚠")]
        assert len(warning) == 1, out
        assert "`session-skill` is not on PATH" in warning[0]
        assert "the skill runs it by that name" in warning[0]
    assert "`session-skill` is not on PATH" in do_install(project, home)  # nothing to change


def test_install_is_quiet_about_path_when_session_skill_is_found(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "session-skill"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert "not on PATH" not in do_install(project, home)


@pytest.mark.parametrize("found", [True, False])
def test_a_codex_install_says_when_a_login_shell_cannot_find_session_skill(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, found: bool
) -> None:
    """Codex runs the skill's commands with `bash -lc`, whose profile may set PATH afresh: a
    venv on this shell's PATH alone gave a `$session` that could not run, and no warning."""
    monkeypatch.undo()  # the real check, against a `bash` that answers as told
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    for name, body in (("session-skill", ""), ("bash", "echo /usr/bin/session-skill" if found
                                                    else "exit 1")):  # fmt: skip
        exe = bin_dir / name
        exe.write_text(f"#!/bin/sh\n{body}\n")
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    out = do_install(project, home, agent="codex")
    said = [ln for ln in out.splitlines() if ln.startswith("⚠")]
    if found:
        assert said == []
    else:
        assert said == [
            "⚠ Codex runs commands in a login shell (`bash -lc`), and there `session-skill` is "
            f'not on PATH: add `export PATH="{bin_dir}:$PATH"` to ~/.profile (or '
            "~/.bash_profile), or `$session` cannot run it."
        ]
    assert "login shell" not in do_install(project, home, agent="claude")


def test_user_install_follows_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: RunCli, command: str
) -> None:
    """Issue 21 #13: with CLAUDE_CONFIG_DIR set, Claude Code 2.1.328 reads the user's
    settings.json and skills/ there, never ~/.claude (seen: a SessionStart hook and a skill
    in each place, one `claude -p` run); `install --user` wrote ~/.claude all the same."""
    home = Path(os.environ["HOME"])
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    r = cli("install", "--user")
    assert r.code == 0, r
    assert (config / "skills" / "session" / "SKILL.md").is_file()
    hooks = json.loads((config / "settings.json").read_text())["hooks"]
    assert [h["command"] for e in hooks["SessionStart"] for h in e["hooks"]] == [command]
    assert not (home / ".claude").exists()
    assert f"  - write {config}/skills/session/SKILL.md" in r.out
    assert cli("install", "--user").out.startswith("Already installed: nothing to change.")
    r = cli("uninstall", "--user")
    assert r.code == 0, r
    assert not (config / "settings.json").exists()
    assert not (config / "skills").exists()
    assert not (home / ".claude").exists()


def test_a_config_dir_under_home_is_shown_under_home(
    monkeypatch: pytest.MonkeyPatch, cli: RunCli
) -> None:
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".config" / "claude"))
    r = cli("install", "--user", "--dry-run")
    assert "  - write ~/.config/claude/skills/session/SKILL.md" in r.out, r


def test_a_settings_file_keeps_its_permissions(project: Path, home: Path) -> None:
    """settings.json is where a user puts tokens (`env`): kept 0600, a rewrite made it 0644,
    readable by all, install and uninstall alike."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"env": {"GITHUB_TOKEN": "ghp_x"}}')
    settings.chmod(0o600)
    do_install(project, home)
    assert "SessionEnd" in settings.read_text() and settings.stat().st_mode & 0o777 == 0o600
    do_uninstall(project, home)
    assert "SessionEnd" not in settings.read_text() and settings.stat().st_mode & 0o777 == 0o600


def test_a_read_only_settings_file_is_refused_untouched(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus"}')
    settings.chmod(0o444)
    before = snapshot(project, home)
    with pytest.raises(SessionError) as err:
        do_install(project, home)  # as root too, who could write it all the same
    assert err.value.message == ".claude/settings.json is read-only: not touching it"
    assert snapshot(project, home) == before


def test_a_user_codex_install_goes_where_codex_home_says(
    home: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `$CODEX_HOME` set, Codex reads its user hooks.json there (beside config.toml, its
    rollouts): the hooks went to ~/.codex/hooks.json, never read — installed, and no
    handover ever restored or captured."""
    codex_home = home / "elsewhere" / "codex"
    codex_home.mkdir(parents=True)
    report = do_install(None, home, user=True, agent="codex", codex_dir=codex_home)
    assert "add the SessionStart and PreCompact hooks to ~/elsewhere/codex/hooks.json" in report
    assert not (home / ".codex").exists()
    hooks = json.loads((codex_home / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "PreCompact"}
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    r = cli("install", "--user", "--agent", "codex", "--dry-run")
    assert r.code == 0 and "Already installed" in r.out, r
    report = do_uninstall(None, home, user=True, agent="codex", codex_dir=codex_home)
    assert "remove ~/elsewhere/codex/hooks.json" in report


def test_an_update_keeps_the_users_edits_to_the_skill(project: Path, home: Path) -> None:
    """`install` replaced a SKILL.md its user had edited ("update … to this version"), and
    the edits were gone; `uninstall` kept an older version install itself had written."""
    do_install(project, home)
    skill = project / ".claude" / "skills" / "session" / "SKILL.md"
    packaged = skill.read_text()
    older = packaged.replace("session-skill dispatch", "session-skill dispatch ", 1)
    # This very version, edited: a second install changes no byte of it.
    skill.write_text(packaged + "- my own rule\n")
    assert "Already installed" in do_install(project, home)
    assert skill.read_text() == packaged + "- my own rule\n"
    # An older version, edited: the update keeps the edited copy, and a later one keeps its
    # own beside it, never over it (the first edits were lost).
    for n, kept in enumerate(("SKILL.md.edited", "SKILL.md.edited-2"), 1):
        inst_notes.note(
            place_of(project, home), "written", hashlib.sha256(older.encode()).hexdigest()
        )
        skill.write_text(older + f"- my own rule {n}\n")
        report = do_install(project, home)
        assert f"(your edited copy kept as .claude/skills/session/{kept})" in report
        assert skill.read_text() == packaged
        assert skill.with_name(kept).read_text().endswith(f"- my own rule {n}\n")
    assert skill.with_name("SKILL.md.edited").read_text().endswith("- my own rule 1\n")
    # A version install wrote, unedited, is install's to update and remove, whatever its text.

    def an_older_install(beside: bool) -> None:
        """Its note in the store, or beside the skill (as older installs kept it)."""
        skill.write_text(older)
        digest = hashlib.sha256(older.encode()).hexdigest()
        if beside:
            inst_notes.forget(place_of(project, home), "written")
            (skill.parent / inst_skills.WRITTEN).write_text(digest + "\n")
        else:
            inst_notes.note(place_of(project, home), "written", digest)

    update = "  - update .claude/skills/session/SKILL.md to this version"
    for beside in (False, True):
        an_older_install(beside)
        assert update in do_install(project, home).splitlines()
        assert not (skill.parent / inst_skills.WRITTEN).exists()
        an_older_install(beside)
        do_uninstall(project, home)
        assert not skill.exists() and not (skill.parent / inst_skills.WRITTEN).exists()
        assert inst_notes.written(place_of(project, home)) is None
        assert skill.with_name("SKILL.md.edited").exists()  # the user's, never removed
        do_install(project, home)


def test_a_symlinked_skill_is_updated_through_its_link(
    project: Path, home: Path, tmp_path: Path
) -> None:
    do_install(project, home)
    skill = project / ".claude" / "skills" / "session" / "SKILL.md"
    dotfiles = tmp_path / "dotfiles" / "SKILL.md"
    dotfiles.parent.mkdir()
    dotfiles.write_text(skill.read_text() + "an older version\n")  # with no record of it
    inst_notes.forget(place_of(project, home), "written")
    skill.unlink()
    skill.symlink_to(dotfiles)
    do_install(project, home)
    assert skill.is_symlink() and dotfiles.read_text() == inst_skills.skill_text("claude")


# -- a user's settings file: its layout, an empty one, hooks they wrapped, a dangling link ----
HAND_WRITTEN = (
    "{\n"
    '    "permissions": {\n'
    '        "allow": ["Bash(npm test)", "Bash(ls)"],\n'
    '        "deny": []\n'
    "    },\n"
    '    "model": "opus",\n'
    '    "effort": 1.0,\n'
    '    "statusLine": {"type": "command", "command": "echo caf\\u00e9"}\n'
    "}"
)


def test_install_changes_only_the_hooks_in_a_hand_written_settings_file(
    project: Path, home: Path, command: str
) -> None:
    """The whole file came back re-serialised: one-line arrays split one item a line, `1.0`,
    `\\u00e9` and one-line objects rewritten — and an uninstall did not give the file back."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(HAND_WRITTEN)
    do_install(project, home)
    text = settings.read_text()
    assert json.loads(text)["hooks"] == claude_hooks(command)
    kept, added = text.split(',\n    "hooks": {\n        "SessionStart": [\n            {\n')
    assert kept == HAND_WRITTEN[: -len("\n}")]  # every byte of theirs, as they wrote it
    assert added.endswith("\n        ]\n    }\n}")  # their indent; no final line break: none
    do_uninstall(project, home)
    assert settings.read_text() == HAND_WRITTEN


def test_install_keeps_a_hooks_list_the_user_keeps_on_one_line(
    project: Path, home: Path, command: str
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    theirs = '[{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]'
    original = f'{{\n  "hooks": {{\n    "SessionStart": {theirs}\n  }}\n}}\n'
    settings.write_text(original)
    do_install(project, home)
    lines = settings.read_text().splitlines()
    start = next(line for line in lines if line.startswith('    "SessionStart": '))
    assert start.startswith(f'    "SessionStart": {theirs[:-1]}, {{"matcher": "startup|clear|')
    assert json.loads(settings.read_text())["hooks"]["SessionStart"][1] == our_entry(command)
    do_uninstall(project, home)
    assert settings.read_text() == original


@pytest.mark.parametrize("empty", ["{}\n", "{}", "{ }\n"])
def test_uninstall_leaves_an_empty_settings_file_the_user_had(
    project: Path, home: Path, empty: str
) -> None:
    """A settings.json that was `{}` before install vanished at uninstall, as if install had
    created it; install now says so beside a file it creates, and only that one goes."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(empty)
    do_install(project, home)
    installed = settings.read_text()
    report = do_uninstall(project, home)
    assert "  - remove the SessionStart, SessionEnd and PreCompact hooks from " in report
    assert settings.read_text() == empty.replace(" ", "")
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json", "state"]
    assert installed.startswith('{\n  "hooks": {\n')  # `{}` shows no style: ours, not one line


def test_uninstall_removes_a_settings_file_only_install_created(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.json"
    do_install(project, home)
    assert inst_notes.created(place_of(project, home))
    assert do_install(project, home) == "Already installed: nothing to change."
    report = do_uninstall(project, home)
    assert "  - remove .claude/settings.json (it held only the session-skill hook)" in report
    assert sorted(p.name for p in settings.parent.iterdir()) == ["state"]
    # One it created that the user then added to stays, without the note: it is theirs now.
    do_install(project, home)
    data = json.loads(settings.read_text())
    settings.write_text(json.dumps({"model": "opus", **data}, indent=2) + "\n")
    do_uninstall(project, home)
    assert settings.read_text() == '{\n  "model": "opus"\n}\n'
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json", "state"]
    # An older install recorded nothing: the file may be the user's, and stays.
    settings.unlink()
    do_install(project, home)
    inst_notes.forget(place_of(project, home), "created")
    settings.write_text(json.dumps({"hooks": json.loads(settings.read_text())["hooks"]}))
    do_uninstall(project, home)
    assert settings.read_text() == "{}"


def hook_commands(settings: Path) -> list[tuple[str, str]]:
    data = json.loads(settings.read_text())
    return [
        (event, hook["command"])
        for event, entries in data.get("hooks", {}).items()
        for entry in entries
        for hook in entry["hooks"]
    ]


def test_a_hook_the_user_wrapped_is_kept_as_they_wrote_it_and_not_duplicated(
    project: Path, home: Path, command: str
) -> None:
    """`nice -n 10 session-skill hook session-end` got a second SessionEnd hook beside it (the
    capture ran twice); `env FOO=1 python -P -m session_skill hook session-start` was
    replaced by install's own command, the user's wrapper silently gone."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    nice = "nice -n 10 session-skill hook session-end"
    env = "/usr/bin/env FOO=1 python -P -m session_skill hook session-start"
    data = {
        "hooks": {
            "SessionStart": [{"matcher": "startup|clear", "hooks": [{"command": env}]}],
            "SessionEnd": [{"matcher": "clear", "hooks": [{"command": nice}]}],
        }
    }
    settings.write_text(json.dumps(data, indent=2) + "\n")
    report = do_install(project, home)
    pre = command.replace("hook session-start", "hook pre-compact")
    assert hook_commands(settings) == [
        ("SessionStart", env),
        ("SessionEnd", nice),
        ("PreCompact", pre),
    ]
    assert (
        json.loads(settings.read_text())["hooks"]["SessionStart"] == data["hooks"]["SessionStart"]
    )
    assert "  - add the PreCompact hook to .claude/settings.json" in report
    note = "Kept your SessionEnd hook in .claude/settings.json as you wrote it, `{}` (install "
    assert note.format(nice) + "updates only the form it writes)." in report.splitlines()
    again = do_install(project, home).splitlines()
    assert again[0] == "Already installed: nothing to change."
    assert any(line.startswith(note.format(nice)) for line in again)
    # A copy of install's own beside the user's form is a duplicate: it goes, theirs stays.
    data = json.loads(settings.read_text())
    data["hooks"]["SessionEnd"].append(our_end_entry(command))
    settings.write_text(json.dumps(data, indent=2) + "\n")
    do_install(project, home)
    assert [c for e, c in hook_commands(settings) if e == "SessionEnd"] == [nice]
    # Uninstall: a wrapped form runs only ours, and goes; one among commands of the user's
    # stays, and is named.
    mixed = f"./notify.sh && {pre}"
    data = json.loads(settings.read_text())
    data["hooks"]["PreCompact"][0]["hooks"][0]["command"] = mixed
    settings.write_text(json.dumps(data, indent=2) + "\n")
    report = do_uninstall(project, home)
    assert "  - remove the SessionStart and SessionEnd hooks from .claude/settings.json" in report
    assert (
        f"Kept your PreCompact hook in .claude/settings.json, `{mixed}`: it runs session-skill "
        "among commands of yours (edit it yourself)." in report.splitlines()
    )
    assert hook_commands(settings) == [("PreCompact", mixed)]


@pytest.mark.parametrize(
    ("command_text", "form"),
    [
        ("/v/bin/python3 -P -m session_skill hook session-end", "ours"),
        ("/old/python -m session_skill hook session-end", "ours"),  # before -P
        ("PYTHONPATH='/a b' '/x y/python' -P -m session_skill hook session-end", "ours"),
        ("SESSION_SKILL_AGENT=codex /v/python -P -m session_skill hook session-end", "ours"),
        ("nice -n 10 session-skill hook session-end", "wrapped"),
        ("/usr/bin/env FOO=1 python -P -m session_skill hook session-end", "wrapped"),
        ("FOO=1 /v/python -m session_skill hook session-end", "wrapped"),
        ("/v/python -m session_skill hook session-end >/dev/null 2>&1", "wrapped"),
        ("./notify.sh && /v/python -m session_skill hook session-end", "mixed"),
        ("/v/python -m session_skill hook session-end; echo done", "mixed"),
        ("sh -c '/v/python -m session_skill hook session-end'", "mixed"),
        ("/v/python -m session_skill hook session-start", None),
        ("echo 'unclosed", None),
    ],
)
def test_how_a_hook_runs_ours(command_text: str, form: str | None) -> None:
    hook = {"type": "command", "command": command_text}
    assert inst_hooks.our_form(hook, inst_hooks.END_MARK) == form


@pytest.mark.parametrize("user", [True, False])
def test_a_dangling_settings_symlink_is_refused_not_given_folders(
    tmp_path: Path, project: Path, home: Path, user: bool
) -> None:
    """Install wrote through a dangling link by creating its target's folders (a dotfiles
    checkout not cloned yet, an unmounted disk): now it refuses in one line, naming the
    target, and writes nothing; a link into a folder that exists is written through."""
    folder = home / ".claude" if user else project / ".claude"
    folder.mkdir()
    target = tmp_path / "dotfiles" / "claude" / "settings.json"
    (folder / "settings.json").symlink_to(target)
    before = snapshot(project, home)
    with pytest.raises(SessionError) as err:
        do_install(None if user else project, home, user=user)
    shown = "~/.claude/settings.json" if user else ".claude/settings.json"
    assert err.value.message == (
        f"{shown} is a symlink to {target}, whose folder does not exist: not touching it"
    )
    assert snapshot(project, home) == before
    assert not (tmp_path / "dotfiles").exists()
    target.parent.mkdir(parents=True)
    do_install(None if user else project, home, user=user)
    assert (folder / "settings.json").is_symlink()
    assert "SessionStart" in json.loads(target.read_text())["hooks"]
    do_uninstall(None if user else project, home, user=user)
    assert (folder / "settings.json").is_symlink() and json.loads(target.read_text()) == {}


@pytest.mark.parametrize("which", [".claude/skills/session/SKILL.md", ".gitignore"])
def test_no_dangling_symlink_gets_folders_made_for_it(
    tmp_path: Path, project: Path, home: Path, which: str
) -> None:
    link = project / which
    link.parent.mkdir(parents=True, exist_ok=True)
    target = tmp_path / "nowhere" / "file"
    link.symlink_to(target)
    before = snapshot(project, home)
    with pytest.raises(SessionError) as err:
        do_install(project, home)
    assert err.value.message == (
        f"{which} is a symlink to {target}, whose folder does not exist: not touching it"
    )
    assert snapshot(project, home) == before and not (tmp_path / "nowhere").exists()

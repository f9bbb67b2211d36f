"""The fast path (session_skill/fastpath.py) answers exactly as the Typer CLI does.

Every invocation in the table runs twice from the same store: through `fastpath.main`
and through `cli.main` (Typer). stdout, stderr, the exit code and the files left behind
must be the same. Invocations the fast path must not take (help, odd options, other
commands) must come back as None, so that `__main__` hands them to Typer.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from datetime import datetime, timezone
from pathlib import Path

import pytest

from session_skill.cli import app as cli
from session_skill.cli import fastpath
from tests.conftest import STORE_REL, Result, _Stdin, write_doc

PARKED = """# Parked items

- **retry-backoff** — revisit exponential vs linear backoff. Raised: 2026-11-20. Why: p99.
- **retry-budget** — cap the retries per request. Raised: 2026-11-02.
- **flaky-login-test** — the login test times out on CI. Raised: 2026-11-28.
* a bullet written by hand, no slug at all
"""
LATEST = "main-2026-11-29T18-00-00Z"
# (argv, stdin). {P} is the project directory. stdin None: a terminal.
TABLE: list[tuple[list[str], bytes | None]] = [
    (["list"], None),
    (["list", "--json"], None),
    (["--project", "{P}", "list"], None),
    (["--project={P}", "list", "--json"], None),
    (["list", "--project", "{P}"], None),
    (["list", "--project={P}", "--"], None),
    (["recall", "--peek"], None),
    (["recall", "--peek", "--json"], None),
    (["recall"], None),
    (["recall", "auth-plan", "--peek"], None),
    (["recall", "auth"], None),
    (["recall", "no such handover at all", "--peek"], None),  # exit 1
    (["recall", "--", "--peek"], None),  # a name, after --
    (["restore", "--peek"], None),
    (["load", LATEST, "--json", "--peek"], None),
    (["park", "a", "new", "idea", "about", "caching"], None),
    (["park", "--json", "keep", "--weird-flag", "as", "payload", "--x=1"], None),
    (["park", "--", "--json", "is", "payload", "after", "the", "dashes"], None),
    (["park"], b"from stdin: try the new index\n"),
    (["park"], b""),  # nothing to park: exit 1
    (["park"], b"\xff\xfe not utf-8"),  # exit 1
    (["park", "**retry-budget**", "—", "cap", "retries", "per", "user"], None),
    (["park", "revisit", "exponential", "vs", "linear", "backoff"], None),  # a near-duplicate
    (["park", "x" * 1001], None),  # too long: exit 1
    # A payload word is never an option (issue 11): a copied bullet, a leading dash, `-h`
    # or `--help` among other words, an option spelled with a value it does not take.
    (["park", "- **copied** — a bullet copied with its dash, h and all."], None),
    (["park", "-x", "short", "options"], None),
    (["park", "use", "-h", "or", "--help", "to", "see"], None),
    (["park", "--json=1", "idea"], None),
    (["drop", "-5"], None),  # nothing close: exit 1
    (["drop", "retry-backoff"], None),
    (["drop", "#1", "#3"], None),
    (["drop", "#2"], None),
    (["drop", "#99"], None),  # exit 1
    (["drop", "retry"], None),  # ambiguous: exit 4
    (["drop", "zzzz", "qqqq"], None),  # nothing close: exit 1
    (["drop", "--json", "flaky", "login"], None),
    (["archive", "retry-budget"], None),
    (["drop"], b"flaky login test\n"),
    (["drop", "--project", "{P}", "--json", "#1"], None),
    (["dispatch", "list"], None),
    (["dispatch", "list --json"], None),
    (["dispatch", "park an idea --with flags, verbatim"], None),
    (["dispatch", ""], None),  # exit 4: which mode?
    (["dispatch", "bogus"], None),  # exit 4
    (["dispatch", "list --bogus"], None),  # exit 4: unknown flag
    (["dispatch", "--ignore-unknown-flags", "list --bogus"], None),
    (["dispatch", "--session-id", "abc-123", "recall --peek"], None),
    (["dispatch", "--session-id=abc-123"], b"drop retry-budget\n"),
    (["dispatch"], b"park from a heredoc: $HOME `x` 'y' \"z\"\n"),
    (["--version"], None),
    (["--project", "{P}", "--version"], None),
    (["sweep", "--transcript", "{T}"], None),
    (["sweep", "--json", "--transcript={T}", "--session-id", "abc"], None),
    (["sweep", "--transcript", "{T}", "--park", "1,2"], None),
    (["sweep", "--transcript", "{T}", "--park", "99"], None),  # exit 1
    (["sweep", "--transcript", "no-such-file.jsonl"], None),  # exit 1
    (["sweep"], None),  # no transcript found: says so
]
TRANSCRIPT = Path(__file__).parent.parent / "fixtures" / "transcripts" / "claude_loose_ends.jsonl"
# What the fast path must leave to Typer (help, usage errors, other commands, odd forms).
FALLBACK = [
    [],
    ["-h"],
    ["--help"],
    ["list", "-h"],
    ["list", "--help"],
    ["park", "--help"],
    ["park", "-h"],
    ["drop", "--json", "-h"],
    ["list", "extra"],
    ["list", "--bogus"],
    ["list", "--json=yes"],
    ["list", "--project"],
    ["list", "--project="],
    ["--project=", "list"],
    ["--project"],
    ["recall", "--peek=1"],
    ["dispatch", "a", "b"],
    ["dispatch", "--session-id"],
    ["--version", "list"],
    ["--bogus", "list"],
    ["LIST"],
    ["dump"],
    ["save"],
    ["sweep", "extra"],
    ["sweep", "--park"],
    ["install", "--dry-run"],
    ["hook", "session-start"],
]


@pytest.fixture
def template(project: Path, pinned_now: str) -> Path:
    """A store with three handovers (one pending) and four parked items; a saved copy."""
    store = project / STORE_REL
    write_doc(store, LATEST, created="2026-11-29T18:00:00Z")
    write_doc(store, "auth-plan", created="2026-11-20T10:00:00Z", branch="feat/auth",
              body="## Goal\nMove auth to tokens.\n\n## Next step\nWrite the test.\n")  # fmt: skip
    write_doc(store, "auth-notes", created="2026-11-10T10:00:00Z", consumed=True)
    (store / "LATEST").write_text(LATEST + "\n")
    (store / "PARKED.md").write_text(PARKED)
    (store / ".gitignore").write_text("*\n")
    saved = project.parent / "store-template"
    shutil.copytree(store, saved)
    return saved


def _restore(project: Path, saved: Path) -> None:
    store = project / STORE_REL
    shutil.rmtree(store)
    shutil.copytree(saved, store)


def _snapshot(project: Path) -> dict[str, bytes]:
    store = project / STORE_REL
    return {p.name: p.read_bytes() for p in sorted(store.iterdir()) if p.name != ".lock"}


def _run(entry, argv: list[str], stdin: bytes | None, monkeypatch: pytest.MonkeyPatch) -> Result:  # type: ignore[no-untyped-def]
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as m:
        m.setattr(sys, "stdin", _Stdin(stdin))
        # cli.py keeps a root `--project` in a module global that no later call resets: in
        # one process (unlike a real command) it would leak from one invocation to the next.
        m.setitem(cli._state, "project", None)
        with redirect_stdout(out), redirect_stderr(err):
            code = entry(list(argv))
    return Result(code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize(("argv", "stdin"), TABLE, ids=[" ".join(a)[:60] for a, _ in TABLE])
def test_fast_path_answers_as_typer(
    argv: list[str],
    stdin: bytes | None,
    project: Path,
    template: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = [a.replace("{P}", str(project)).replace("{T}", str(TRANSCRIPT)) for a in argv]
    assert fastpath.parse(argv) is not None, "the fast path should take this"
    _restore(project, template)
    fast = _run(fastpath.main, argv, stdin, monkeypatch)
    fast_files = _snapshot(project)
    _restore(project, template)
    typer = _run(cli.main, argv, stdin, monkeypatch)
    assert (fast.code, fast.out, fast.err) == (typer.code, typer.out, typer.err)
    assert fast_files == _snapshot(project)
    assert "Traceback" not in fast.err


def test_the_table_covers_every_exit_code_and_form(
    project: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(TABLE) >= 30
    flat = [" ".join(argv) for argv, _ in TABLE]
    assert any("--json" in a for a in flat) and any("--project=" in a for a in flat)
    codes = set()
    for argv, stdin in TABLE:
        _restore(project, template)
        argv = [a.replace("{P}", str(project)).replace("{T}", str(TRANSCRIPT)) for a in argv]
        codes.add(_run(fastpath.main, argv, stdin, monkeypatch).code)
    assert codes == {0, 1, 4}


@pytest.mark.parametrize("argv", FALLBACK, ids=[" ".join(a) or "(none)" for a in FALLBACK])
def test_everything_else_goes_to_typer(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert fastpath.parse(argv) is None
    # And then nothing is run, nothing is read.
    monkeypatch.setattr(sys, "stdin", None)
    assert fastpath.main(argv) is None


def test_parse_reads_options_as_click_does() -> None:
    inv = fastpath.parse(["--project", "/a", "park", "x", "--json", "--y", "--project=/b", "z"])
    assert inv is not None
    assert (inv.command, inv.words, inv.flags) == ("park", ["x", "--y", "z"], {"--json"})
    assert inv.project == "/b"  # the command's own --project wins
    inv = fastpath.parse(["--project=/a", "list"])
    assert inv is not None and inv.project == "/a"
    inv = fastpath.parse(["dispatch", "--session-id", "--json"])  # a value, whatever it looks like
    assert inv is not None and inv.values == {"--session-id": "--json"} and inv.words == []
    inv = fastpath.parse(["archive", "-", "--", "-h"])
    assert inv is not None and (inv.command, inv.words) == ("drop", ["-", "-h"])


# -- whole processes: what `python -m session_skill` imports ----------------------------
_PROBE = """
import json, sys
from session_skill.__main__ import main
sys.argv = ["session-skill", *sys.argv[1:]]
code = main()
sys.stderr.write("\\nPROBE " + json.dumps({"code": code, "modules": sorted(sys.modules)}) + "\\n")
"""


def _probe(cwd: Path, *argv: str, stdin: bytes = b"") -> tuple[int, set[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    err = proc.stderr.decode()
    line = next(ln for ln in err.splitlines() if ln.startswith("PROBE "))
    data = json.loads(line[6:])
    return data["code"], set(data["modules"]), proc.stdout.decode()


def _tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["recall", "--peek"],
        ["park", "an idea to keep"],
        ["drop", "retry", "backoff"],
        ["dispatch", "list"],
        ["--version"],
    ],
)
def test_the_fast_path_never_imports_typer(argv: list[str], project: Path, template: Path) -> None:
    code, modules, _ = _probe(project, *argv)
    assert code == 0
    assert not _tops(modules) & {"typer", "click", "rich", "shellingham", "pydantic"}
    assert "session_skill.cli.app" not in modules


def test_help_still_comes_from_typer(project: Path) -> None:
    code, modules, out = _probe(project, "-h")
    assert code == 0 and "Usage:" in out
    assert "typer" in _tops(modules)


def test_list_reads_no_body_and_imports_nothing_heavy(project: Path, template: Path) -> None:
    code, modules, out = _probe(project, "list")
    assert code == 0 and "### Parked (4 open)" in out
    assert not _tops(modules) & {"rapidfuzz", "tiktoken", "tiktoken_ext", "slugify", "subprocess"}
    # The numbers' hash is blake2b without hashlib's OpenSSL load (~3 ms of every list).
    assert "_hashlib" not in modules


def test_recall_peek_of_latest_imports_neither_matcher_nor_tokenizer(
    project: Path, template: Path
) -> None:
    code, modules, out = _probe(project, "recall", "--peek")
    assert code == 0 and f"`{LATEST}`" in out
    assert not _tops(modules) & {"rapidfuzz", "tiktoken", "tiktoken_ext", "slugify"}


def test_the_hook_restoring_a_doc_skips_pathlib_and_datetime(tmp_path: Path) -> None:
    """Both cost the hook a large share of Python's own start-up (see bench/)."""
    root = tmp_path / "proj"
    store = root / STORE_REL
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_doc(store, "fresh", created=created, body="## Goal\ng\n\n## Next step\nn\n" * 50)
    (store / "LATEST").write_text("fresh\n")
    payload = {"hook_event_name": "SessionStart", "source": "clear", "cwd": str(root)}
    env = {k: v for k, v in __import__("os").environ.items() if k != "SESSION_SKILL_NOW"}
    code, modules, out = _probe_env(root, env, json.dumps(payload).encode())
    assert code == 0 and "additionalContext" in out
    assert not {"pathlib", "datetime", "typing", "dataclasses", "subprocess"} & modules


def _probe_env(cwd: Path, env: dict[str, str], stdin: bytes) -> tuple[int, set[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, "hook", "session-start"],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
    )
    line = next(ln for ln in proc.stderr.decode().splitlines() if ln.startswith("PROBE "))
    data = json.loads(line[6:])
    return data["code"], set(data["modules"]), proc.stdout.decode()


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["list", "--json"], 0), (["drop", "zzzz", "qqqq"], 1), (["drop", "retry"], 4)],
)
def test_whole_processes_agree(argv: list[str], code: int, project: Path, template: Path) -> None:
    """`python -m session_skill` (fast path) against the Typer CLI, as real processes."""
    typer_cli = "import sys; from session_skill.cli.app import main; sys.exit(main(sys.argv[1:]))"
    runs = []
    for cmd in ([sys.executable, "-m", "session_skill"], [sys.executable, "-c", typer_cli]):
        _restore(project, template)
        proc = subprocess.run([*cmd, *argv], cwd=project, capture_output=True, timeout=60)
        runs.append((proc.returncode, proc.stdout, proc.stderr, _snapshot(project)))
    assert runs[0] == runs[1]
    assert runs[0][0] == code

"""The command table is the one declaration: Typer's signatures and aliases must equal it,
and `/session X` must answer exactly as `session-skill X` (SPEC §7.1)."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from typer.core import TyperArgument
from typer.main import get_command

from session_skill.cli import app as cli
from session_skill.cli.table import ALIASES, BY_NAME, COMMANDS, MODES, Command
from tests.conftest import STORE_REL, RunCli, git, make_repo, write_doc

HELP = {"-h", "--help"}


def _typer_commands() -> dict[str, object]:
    """Every command Typer knows, subcommands as `group sub`, hidden aliases included."""
    root = get_command(cli.app)
    out: dict[str, object] = {}
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        subs = getattr(command, "commands", None)
        if subs:
            for sub_name, sub in subs.items():
                out[f"{name} {sub_name}"] = sub
        else:
            out[name] = command
    return out


def _shape(command: object) -> tuple[frozenset[str], frozenset[str], int | None]:
    flags: set[str] = set()
    values: set[str] = set()
    words: int | None = 0
    for param in command.params:  # type: ignore[attr-defined]
        if isinstance(param, TyperArgument):
            if param.nargs == -1:
                words = None
            elif words is not None:
                words += param.nargs
            continue
        opts = set(param.opts) - HELP
        if not opts:
            continue
        assert len(opts) == 1, f"one spelling per option: {opts}"
        (target := flags if param.is_flag else values).update(opts)
        assert target is not None
    return frozenset(flags), frozenset(values), words


def test_every_typer_command_is_in_the_table_and_back() -> None:
    typer_names = set(_typer_commands())
    table_names = set(BY_NAME) | set(ALIASES)
    assert typer_names == table_names


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_typer_signature_equals_the_table(command: Command) -> None:
    typer_cmd = _typer_commands()[command.name]
    flags, values, words = _shape(typer_cmd)
    assert flags == command.flags
    assert values == command.values
    assert words == command.words
    verbatim = bool(typer_cmd.context_settings.get("ignore_unknown_options"))  # type: ignore[attr-defined]
    assert verbatim == command.verbatim


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_aliases_run_the_same_callback_hidden(alias: str) -> None:
    commands = _typer_commands()
    target = commands[ALIASES[alias]]
    aliased = commands[alias]
    infos = {(c.name or c.callback.__name__): c for c in cli.app.registered_commands if c.callback}
    assert infos[alias].callback is infos[ALIASES[alias]].callback
    assert aliased.hidden  # type: ignore[attr-defined]
    assert _shape(aliased) == _shape(target)


def test_the_modes_are_the_eight() -> None:
    assert MODES == ("dump", "recall", "list", "park", "sweep", "drop", "search", "history")


# -- dispatch "X" ≡ session-skill X ------------------------------------------------------
# Every mode but park/drop (whose payload is verbatim text, tested in test_dispatch.py).
# {T} is a transcript, {D} a doc file; each case runs in a fresh copy of the same project.
EQUIVALENT = [
    "list",
    "list --json",
    "recall --peek",
    "recall --peek --json",
    "recall",
    "recall auth-plan --peek",
    "recall auth",
    "recall no such handover at all --peek",
    "restore --peek",
    "load --json --peek",
    "sweep --transcript {T}",
    "sweep --transcript {T} --json",
    "sweep --transcript {T} --park 1",
    "sweep --transcript /nonexistent.jsonl",
    "dump",
    "dump plan --brief",
    "dump plan --brief --transcript {T}",
    "dump --brief --json",
    "dump --brief --extractive --transcript {T}",  # the brief wins: nothing written
    "dump a --extractive --file {D} --transcript {T}",  # extractive wins over --file
    "dump a --file {D}",
    "save b --file {D} --json",
    "dump a --file {D} --replace",
    "dump --file /nonexistent/doc.md",
    "dump huge --file {BIG}",  # over the cap: exit 3
    "dump huge --file {BIG} --force",
    "dump --extractive --transcript {T} --json",
    "dump --extractive",  # no transcript: exit 1
    "search auth token",
    "search refresh --json --limit 1",
    "search kubernetes",  # nothing matches: exit 1
    "search auth --limit 0",  # exit 2
    "recall token refresh rework --peek",
    "history",
    "history --json",
    "history auth-plan",
    "history --branch nope",  # exit 1
]
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def _project(base: Path) -> Path:
    proj = make_repo(base)
    (proj / "app.py").write_text("print('hi')\n")
    store = proj / STORE_REL
    write_doc(
        store, "auth-plan", body="## Goal\nRework the auth token refresh\n\n## Next step\nn\n"
    )
    latest = "main-2026-11-29T18-00-00Z"
    write_doc(store, latest, body="## Goal\nSomething else entirely\n\n## Next step\nn\n")
    (store / "LATEST").write_text(latest + "\n")
    (store / "PARKED.md").write_text(
        "# Parked items\n\n- **retry-budget** — cap the retries. Raised: 2026-11-20.\n"
    )
    return proj


def _files(proj: Path) -> dict[str, bytes]:
    store = proj / STORE_REL
    return {
        str(p.relative_to(store)): p.read_bytes()
        for p in sorted(store.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


@pytest.mark.parametrize("case", EQUIVALENT)
@pytest.mark.usefixtures("pinned_now")
def test_dispatch_answers_exactly_as_the_command(
    case: str, tmp_path: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("## Goal\nShip the parser\n\n## Next step\nRun the tests\n")
    big = tmp_path / "big.md"
    big.write_text("## Goal\n" + "word " * 2500 + "\n\n## Next step\nn\n")
    transcript = FIXTURE / "claude_loose_ends.jsonl"
    text = case.format(T=transcript, D=doc, BIG=big)
    # Both sides rebuild the repo; pin the commit dates so they get the same commit.
    # (A fresh hash per side flaked whenever one looked like a YAML number: it is quoted.)
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(var, "2026-11-29T18:00:00Z")
    results = []
    for side in ("direct", "dispatch"):
        shutil.rmtree(tmp_path / "p", ignore_errors=True)
        proj = _project(tmp_path / "p")  # the same path both times: docs record it
        monkeypatch.chdir(proj)
        monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
        if side == "direct":
            r = cli(*shlex.split(text))
        else:
            r = cli("dispatch", text)
        head = git(proj, "rev-parse", "--short", "HEAD").strip()
        files = {k: v.replace(head.encode(), b"<C>") for k, v in _files(proj).items()}
        results.append((r.code, r.out.replace(head, "<C>"), r.err, files))
    assert results[0] == results[1]

"""dispatch (SPEC §7.1): the raw `/session` argument string → one mode, same output and exit."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_skill.cli import dispatch
from session_skill.commands.output import Output
from session_skill.errors import ChoiceNeeded
from tests.conftest import RunCli

pytestmark = pytest.mark.usefixtures("pinned_now")

CHOOSE = (
    "Which session mode did you want?\n"
    "(a) dump [name] — write a handover before /clear\n"
    "(b) park <idea> — keep an idea for later\n"
    "(c) sweep — find what never landed\n"
    "(d) list — stored handovers and parked items\n"
)


# -- parse ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "mode"),
    [
        ("dump", "dump"),
        ("SAVE plan", "dump"),
        ("restore", "recall"),
        ("Load x", "recall"),
        ("archive #1", "drop"),
        ("LIST", "list"),
        ("  park\nmultiline idea", "park"),
        ("sweep\t--json", "sweep"),
    ],
)
def test_modes_and_aliases(raw: str, mode: str) -> None:
    assert dispatch.parse(raw).mode == mode


@pytest.mark.parametrize(
    "raw",
    [
        'park weird -- "quoted" $HOME `tick` --force',
        "drop --json retry-backoff",
        "park   leading and trailing   ",
        "park it's unbalanced \"quote",
    ],
)
def test_park_and_drop_payload_is_verbatim(raw: str) -> None:
    req = dispatch.parse(raw)
    assert req.payload == raw.split(None, 1)[1].strip()
    assert req.flags == {} and req.args == []


def test_flags_and_args() -> None:
    req = dispatch.parse('dump "my plan" --force --transcript=/tmp/t.jsonl')
    assert req.args == ["my plan"]
    assert req.flags == {"--force": True, "--transcript": "/tmp/t.jsonl"}
    req = dispatch.parse("sweep --park 1,3 --json")
    assert req.flags == {"--park": "1,3", "--json": True}


def test_a_bare_double_dash_ends_the_flags_and_is_no_word() -> None:
    """Issue 21: `search --limit 1 -- redis` searched for "-- redis"."""
    req = dispatch.parse("search --limit 1 -- redis")
    assert req.args == ["redis"] and req.flags == {"--limit": "1"}
    req = dispatch.parse("recall -- --not-a-flag plan")  # after it, words are words
    assert req.args == ["--not-a-flag", "plan"] and req.flags == {}
    assert dispatch.parse("park a -- b").payload == "a -- b"  # payloads stay verbatim
    assert dispatch.parse("drop -- x").payload == "-- x"


def test_dispatch_search_after_a_double_dash(project: Path, cli: RunCli) -> None:
    from tests.conftest import STORE_REL, write_doc

    write_doc(project / STORE_REL, "cache", body="## Goal\nredis cache\n\n## Next step\nx\n")
    r = cli("dispatch", "search --limit 1 -- redis")
    assert r.code == 0, r
    assert r.out.startswith("## Search: redis — 1 handover searched\n"), r


def test_unbalanced_quotes_fall_back_to_words() -> None:
    assert dispatch.parse("recall it's").args == ["it's"]


@pytest.mark.parametrize("raw", ["", "   ", "\n", "fly away", "dumpster"])
def test_empty_or_unknown_mode(raw: str) -> None:
    with pytest.raises(ChoiceNeeded) as info:
        dispatch.parse(raw)
    assert info.value.stdout + "\n" == CHOOSE


def test_unknown_flags() -> None:
    with pytest.raises(ChoiceNeeded) as info:
        dispatch.parse("list --x --verbose=2")
    assert info.value.stdout == (
        "! Unknown flag(s): `--x`, `--verbose=2`. Supported modes: dump, recall, list, park, "
        "sweep, drop, search, history.\n"
        "(a) Abort\n(b) Continue ignoring — re-run with --ignore-unknown-flags"
    )
    req = dispatch.parse("list --x --json", ignore_unknown_flags=True)
    assert req.flags == {"--json": True}


# -- through the CLI -----------------------------------------------------------------
def test_dispatch_empty_asks_for_a_mode(project: Path, cli: RunCli) -> None:
    r = cli("dispatch", input="")
    assert (r.code, r.out) == (4, CHOOSE)
    assert r.err == "error: no session mode given\n"
    r = cli("dispatch", "teleport")
    assert (r.code, r.out, r.err) == (4, CHOOSE, "error: unknown session mode 'teleport'\n")


def test_dispatch_unknown_flag_exact_line(project: Path, cli: RunCli) -> None:
    r = cli("dispatch", "list --x")
    assert r.code == 4, r
    assert r.out.splitlines() == [
        "! Unknown flag(s): `--x`. Supported modes: dump, recall, list, park, sweep, drop, "
        "search, history.",
        "(a) Abort",
        "(b) Continue ignoring — re-run with --ignore-unknown-flags",
    ]
    r = cli("dispatch", "--ignore-unknown-flags", "list --x")
    assert (r.code, r.out) == (0, "No stored handovers, no parked items.\n")


def test_dispatch_park_from_stdin_is_verbatim(project: Path, store_dir: Path, cli: RunCli) -> None:
    raw = 'park try `rg -- "$HOME"` --no-ignore; echo $(whoami) & done\n'
    r = cli("dispatch", input=raw)
    assert r.code == 0, r
    assert r.out.startswith("Parked: ")
    text = (store_dir / "PARKED.md").read_text()
    assert '— try `rg -- "$HOME"` --no-ignore; echo $(whoami) & done. Raised: 2026-11-29.' in text


def test_dispatch_matches_the_command(project: Path, cli: RunCli) -> None:
    for raw in ("park first idea about caching", "park second idea about logging"):
        assert cli("dispatch", raw).code == 0
    assert cli("dispatch", "list").out == cli("list").out
    assert cli("dispatch", "LIST --json").out == cli("list", "--json").out
    via = cli("dispatch", "archive --json #1")  # payload verbatim: --json is part of the query
    assert via.code == 1
    assert via.err == "error: no parked item matches '--json #1'\n"
    r = cli("dispatch", "drop #1")
    assert (r.code, r.out) == (
        0,
        "Dropped: first-idea-about-caching (1 open)\n\n### Parked (1 open)\n"
        "2. **second-idea-about-logging** — second idea about logging. Raised: 2026-11-29.\n"
        "(numbers stay as shown until the next /session list)\n",
    )
    r = cli("dispatch", "restore")
    assert (r.code, r.out) == (0, "No pending handover. → /session list\n")
    r = cli("dispatch", "recall nothing-like-this")
    assert (r.code, r.err) == (1, "error: no handover matches 'nothing-like-this'\n")


def test_dispatch_drop_ambiguous_exit_4(project: Path, cli: RunCli) -> None:
    cli("park", "**retry-backoff** — revisit exponential vs linear")
    cli("park", "**retry-budget** — cap retries per request")
    r = cli("dispatch", "drop retry")
    assert r.code == 4
    assert "\n1. **retry-b" in r.out and "\n2. **retry-b" in r.out


def test_dispatch_drop_without_payload_shows_the_list(project: Path, cli: RunCli) -> None:
    cli("park", "something to drop later")
    r = cli("dispatch", "drop")
    assert r.code == 4
    assert "1. **something-to-drop-later**" in r.out
    assert r.out.rstrip().endswith("→ /session drop <slug or #N>")


def test_dispatch_dump_prints_the_brief(project: Path, cli: RunCli, store_dir: Path) -> None:
    r = cli("dispatch", "--session-id", "abc-123", "save My Plan")
    assert r.code == 0, r
    assert r.out.startswith("# Handover brief — slug `my-plan`\n")
    assert "session-skill dump 'My Plan' --session-id abc-123 --file - <<'SESSION_DOC'" in r.out
    assert not (store_dir / "my-plan.md").exists()
    r = cli("dispatch", "dump --nope")
    assert r.code == 4 and "`--nope`" in r.out


def test_the_brief_names_the_slug_the_write_gets_and_keeps_the_flags(
    project: Path, cli: RunCli, store_dir: Path
) -> None:
    """`/session dump plan --replace` printed a write command without `--replace` (a second
    doc `plan-2` was written, the old one left), and a brief for a name taken said the slug
    `plan` where the write gives `plan-2`."""
    body = "## Goal\nv1\n\n## Next step\nN\n"
    assert cli("dump", "plan", "--file", "-", input=body).code == 0
    r = cli("dispatch", "--session-id", "S1", "dump plan --replace --force")
    assert r.out.startswith("# Handover brief — slug `plan`\n")
    assert "session-skill dump plan --session-id S1 --replace --force --file - <<" in r.out
    r = cli("dispatch", "--session-id", "S1", "dump plan")
    assert r.out.startswith("# Handover brief — slug `plan-2`\n")
    assert "session-skill dump plan --session-id S1 --file - <<" in r.out
    assert cli("dump", "plan", "--file", "-", input=body).out.startswith(
        "→ .claude/state/session/plan-2.md"
    )


def test_dispatch_park_without_payload_runs_sweep(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.commands import sweep as transcripts

    calls: list[dict[str, object]] = []

    def fake_sweep(store: object, **kw: object) -> Output:
        calls.append(kw)
        return Output("## Unlanded — 0 items")

    monkeypatch.setattr(transcripts, "sweep_command", fake_sweep, raising=False)
    r = cli("dispatch", "--session-id", "sid-1", "park")
    assert (r.code, r.out) == (0, "## Unlanded — 0 items\n")
    assert calls and calls[0]["session_id"] == "sid-1" and calls[0]["park"] is None
    r = cli("dispatch", "sweep --park 1,2 --json")
    assert r.code == 0
    assert calls[1]["park"] == "1,2" and calls[1]["as_json"] is True


def test_dispatch_recall_flags(project: Path, cli: RunCli, store_dir: Path) -> None:
    from tests.conftest import write_doc

    write_doc(store_dir, "plan-x")
    (store_dir / "LATEST").write_text("plan-x\n")
    r = cli("dispatch", "recall --peek")
    assert r.code == 0 and "Ship it." in r.out
    assert (store_dir / "LATEST").exists()
    r = cli("dispatch", "load")
    assert r.code == 0 and not (store_dir / "LATEST").exists()


def test_dispatch_knows_every_dump_flag(
    project: Path, cli: RunCli, store_dir: Path, tmp_path: Path
) -> None:
    r = cli("dispatch", "dump --brief --session-id s-9 plan")
    assert r.code == 0, r
    assert "session-skill dump plan --session-id s-9 --file - <<'SESSION_DOC'" in r.out
    doc = tmp_path / "doc.md"
    doc.write_text("## Goal\ng\n\n## Next step\nn\n")
    r = cli("dispatch", f"save plan --file {doc}")
    assert r.code == 0, r
    assert r.out.startswith("→ .claude/state/session/plan.md (")
    r = cli("dispatch", f"dump --file {tmp_path / 'missing.md'}")
    assert (r.code, r.err) == (1, f"error: no such file: {tmp_path / 'missing.md'}\n")


def test_dispatch_sweep_session_id_flag(
    project: Path, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from session_skill.commands import sweep as transcripts

    seen: list[object] = []

    def fake_sweep(store: object, **kw: object) -> Output:
        seen.append(kw["session_id"])
        return Output("ok")

    monkeypatch.setattr(transcripts, "sweep_command", fake_sweep, raising=False)
    assert cli("dispatch", "--session-id", "outer", "sweep --session-id inner").code == 0
    assert cli("dispatch", "--session-id", "outer", "sweep").code == 0
    assert seen == ["inner", "outer"]


# -- search and history (issue 15) ---------------------------------------------------------
def test_dispatch_recall_by_words_the_body_holds(project: Path, cli: RunCli) -> None:
    from tests.conftest import STORE_REL, write_doc

    body = (
        "## Goal\nMake the cache survive restarts.\n\n## Decisions\n"
        "- keep the redis fallback behind the breaker — why: timeouts\n\n## Next step\nx\n"
    )
    write_doc(project / STORE_REL, "cache-restarts", body=body)
    write_doc(project / STORE_REL, "csv-export", body="## Goal\nShip CSV.\n\n## Next step\nx\n")
    r = cli("dispatch", "recall the redis fallback work")
    assert r.code == 0, r
    assert r.out.startswith("Handover `cache-restarts` · ")
    r = cli("dispatch", "search redis fallback --limit 1")
    assert r.code == 0, r
    assert r.out.splitlines()[1] == "1. `cache-restarts` · <1 min · main · consumed"


def test_dispatch_search_and_history_flags(project: Path, cli: RunCli) -> None:
    r = cli("dispatch", "search redis --verbose")
    assert r.code == 4, r
    assert r.out.startswith("! Unknown flag(s): `--verbose`.")
    r = cli("dispatch", "history --json")
    assert (r.code, r.err) == (1, "error: no stored handovers\n")

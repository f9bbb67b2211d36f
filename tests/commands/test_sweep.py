"""sweep (SPEC §7.7) through the CLI: which transcript it reads, what `--park N` parks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from session_skill.store.store import Store
from session_skill.transcripts.discovery import project_key
from tests.conftest import RunCli

pytestmark = pytest.mark.usefixtures("pinned_now")
FIXTURES = Path(__file__).parent.parent / "fixtures" / "transcripts"
LOOSE = FIXTURES / "claude_loose_ends.jsonl"
LONG_IDEA = (
    "We could also move the whole retry policy into a small declarative table keyed by "
    "endpoint, so that every client shares one place where the limits live, and then "
    "adjust the backoff per endpoint from configuration instead of code."
)


def _record(kind: str, text: str, n: int, session: str = "s-long") -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": text}
    if kind == "assistant":
        message = {"id": f"msg_{n}", "role": kind, "content": [{"type": "text", "text": text}]}
    return {
        "type": kind,
        "sessionId": session,
        "cwd": "/home/dev/app",
        "isSidechain": False,
        "timestamp": f"2026-11-29T14:0{n}:00.000Z",
        "message": message,
    }


def _transcript(path: Path, *texts: tuple[str, str], session: str = "s-long") -> Path:
    lines = [json.dumps(_record(k, t, n, session)) for n, (k, t) in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _parked(project: Path) -> list[str]:
    return [it.line for it in Store(project).read_parked().items]


def _numbers(out: str) -> list[int]:
    return [int(ln.split("|")[1]) for ln in out.splitlines() if ln[:2] == "| " and ln[2].isdigit()]


# -- #4: the whole candidate is parked, with ". " before "Why:" --------------------------------
def test_park_keeps_the_whole_candidate_text(project: Path, tmp_path: Path, cli: RunCli) -> None:
    t = _transcript(
        tmp_path / "long.jsonl",
        ("user", "Add retries to the HTTP client."),
        ("assistant", f"Done with the retries. {LONG_IDEA}"),
    )
    r = cli("sweep", "--transcript", str(t))
    assert r.code == 0, r
    assert "…" in r.out  # the table clips the long idea
    r = cli("sweep", "--transcript", str(t), "--park", "1")
    assert r.code == 0, r
    [line] = _parked(project)
    assert LONG_IDEA.rstrip(".") in line
    assert "adjust the backoff per endpoint from configuration instead of code. Why: " in line


# -- #6: numbers do not shift after an earlier --park; the hint carries the inputs ---------------
def test_park_after_park_parks_the_candidate_that_was_shown(project: Path, cli: RunCli) -> None:
    first = cli("sweep", "--transcript", str(LOOSE))
    assert first.code == 0, first
    rows = [ln for ln in first.out.splitlines() if ln[:2] == "| " and ln[2].isdigit()]
    shown = {int(ln.split("|")[1]): ln.split("|")[2].strip() for ln in rows}
    assert len(shown) == 3
    assert cli("sweep", "--transcript", str(LOOSE), "--park", "1").code == 0
    r = cli("sweep", "--transcript", str(LOOSE), "--park", "3")
    assert r.code == 0, r
    parked = _parked(project)
    assert len(parked) == 2
    assert shown[3][:40] in parked[1], (shown, parked)
    again = cli("sweep", "--transcript", str(LOOSE))
    assert _numbers(again.out) == [2]  # the parked ones are left out, the others keep theirs


def test_parking_a_number_already_parked_says_so(project: Path, cli: RunCli) -> None:
    assert cli("sweep", "--transcript", str(LOOSE), "--park", "2").code == 0
    r = cli("sweep", "--transcript", str(LOOSE), "--park", "2")
    assert r.code == 0, r
    assert "#2 is already parked" in r.out
    assert len(_parked(project)) == 1


def test_the_hint_carries_the_transcript_and_the_real_numbers(
    project: Path, tmp_path: Path, cli: RunCli
) -> None:
    r = cli("sweep", "--transcript", str(LOOSE), "--session-id", "abc")
    assert f"→ session-skill sweep --transcript {LOOSE} --session-id abc --park 1,2 " in r.out
    one = _transcript(tmp_path / "one.jsonl", ("user", "Fix it."), ("assistant", LONG_IDEA))
    r = cli("sweep", "--transcript", str(one))
    assert f"→ session-skill sweep --transcript {one} --park 1 to park it" in r.out
    assert "1,3" not in r.out


def test_park_with_no_candidates_says_there_are_none(
    project: Path, tmp_path: Path, cli: RunCli
) -> None:
    t = _transcript(tmp_path / "quiet.jsonl", ("user", "Hi."), ("assistant", "Hello."))
    r = cli("sweep", "--transcript", str(t), "--park", "1")
    assert (r.code, r.err) == (1, "error: --park: this sweep found no candidates to park\n")
    assert "from 1 to 0" not in r.err


# -- #11: an explicit session id never falls back; the transcript is always named ----------------
def _in_projects(home: Path, project: Path, name: str) -> Path:
    folder = home / ".claude" / "projects" / project_key(project)
    folder.mkdir(parents=True, exist_ok=True)
    return _transcript(folder / f"{name}.jsonl", ("user", "Hi."), ("assistant", LONG_IDEA))


def test_an_unknown_session_id_is_not_another_sessions_transcript(
    project: Path, isolated_home: Path, cli: RunCli
) -> None:
    other = _in_projects(isolated_home, project, "other-session")
    r = cli("sweep", "--session-id", "not-this-one")
    assert r.code == 0, r
    assert "No transcript found for session `not-this-one`" in r.out
    assert "Unlanded" not in r.out and str(other) not in r.out
    data = json.loads(cli("sweep", "--session-id", "not-this-one", "--json").out)
    assert data == {"transcript": None, "candidates": []}
    # Without an id, the newest transcript of the project is still the fallback, named.
    r = cli("sweep")
    assert f"Transcript: {other}" in r.out


def test_sweep_names_the_transcript_it_read(
    project: Path, isolated_home: Path, cli: RunCli
) -> None:
    mine = _in_projects(isolated_home, project, "my-session")
    r = cli("sweep", "--session-id", "my-session")
    assert r.code == 0, r
    assert r.out.rstrip().endswith(f"Transcript: {mine}")


# -- #12: a file that is not a transcript ----------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n", None),
        (bytes(range(256)) * 8, None),
        (b"# A README\n\nSome text.\n", None),
        (b'{"name": "pkg", "version": "1.0"}\n{"name": "other"}\n',
         "none of its 2 lines is a Claude Code or Codex record"),
        (b"", "it is empty"),
        (b"# A README\n", "its one line is not a Claude Code or Codex record"),
    ],
)  # fmt: skip
def test_sweep_of_a_file_that_is_not_a_transcript(
    project: Path, tmp_path: Path, cli: RunCli, content: bytes, said: str | None
) -> None:
    path = tmp_path / "not-a-transcript"
    path.write_bytes(content)
    r = cli("sweep", "--transcript", str(path))
    assert r.code == 1, r
    assert r.out == ""
    assert r.err.startswith(f"error: {path} is not a transcript: ")
    assert len(r.err.splitlines()) == 1
    if said is not None:
        assert r.err == f"error: {path} is not a transcript: {said}\n"
    assert not Store(project).exists()


def test_sweep_of_a_path_that_is_no_file(tmp_path: Path, cli: RunCli) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # as `--transcript <(…)` gives: read once, it could not be read again
    r = cli("sweep", "--transcript", str(fifo))
    assert (r.code, r.err) == (1, f"error: {fifo} is not a file: give the transcript's path\n")
    r = cli("sweep", "--transcript", str(tmp_path / "nope.jsonl"))
    assert (r.code, r.err) == (1, f"error: no such transcript: {tmp_path / 'nope.jsonl'}\n")


def test_sweep_reports_unreadable_lines(project: Path, tmp_path: Path, cli: RunCli) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(LOOSE.read_bytes() + b"not json\n\x00\xff garbage\n")
    r = cli("sweep", "--transcript", str(path))
    assert r.code == 0, r
    assert f"Transcript: {path} (2 unreadable lines skipped)" in r.out
    assert json.loads(cli("sweep", "--transcript", str(path), "--json").out)["unreadable"] == 2


# -- sweep --drop: close what the user says is done or not wanted, without parking it ----------
def _dropped(project: Path) -> list[dict[str, Any]]:
    path = project / ".claude" / "state" / "session" / "dropped.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_drop_closes_a_candidate_without_parking_it(project: Path, cli: RunCli) -> None:
    first = cli("sweep", "--transcript", str(LOOSE))
    rows = [ln for ln in first.out.splitlines() if ln[:2] == "| " and ln[2].isdigit()]
    shown = {int(ln.split("|")[1]): ln.split("|")[2].strip() for ln in rows}
    r = cli("sweep", "--transcript", str(LOOSE), "--drop", "2")
    assert r.code == 0, r
    assert "(#2, never parked; not listed or handed over again)" in r.out
    assert _parked(project) == []
    [logged] = _dropped(project)
    assert logged["summary"].startswith(shown[2].rstrip("…")[:40]), (logged, shown)
    assert (logged["action"], logged["query"], logged["line"]) == (
        "dropped",
        "sweep --drop 2",
        None,
    )
    assert _numbers(cli("sweep", "--transcript", str(LOOSE)).out) == [1, 3]
    again = cli("sweep", "--transcript", str(LOOSE), "--drop", "2")
    assert again.code == 0 and "#2 is already parked (or was dropped): not dropped" in again.out
    assert len(_dropped(project)) == 1
    data = json.loads(cli("sweep", "--transcript", str(LOOSE), "--drop", "3", "--json").out)
    assert data["dropped"][0].startswith("Dropped: ") and data["parked"] == []


def test_a_number_both_parked_and_dropped_is_refused(project: Path, cli: RunCli) -> None:
    r = cli("sweep", "--transcript", str(LOOSE), "--park", "1,2", "--drop", "2")
    assert (r.code, r.err) == (1, "error: #2 is in both --park and --drop: park it, or drop it\n")
    assert _parked(project) == [] and _dropped(project) == []
    r = cli("sweep", "--transcript", str(LOOSE), "--drop", "9")
    assert (r.code, r.err) == (1, "error: --drop takes candidate numbers from 1 to 3; got '9'\n")


# -- a number is the candidate shown, though the session went on since ----------------------
SWEEP_TYPED = (
    "<command-message>session</command-message>\n<command-name>/session</command-name>\n"
    "<command-args>sweep</command-args>"
)


def _typed_reply(tmp_path: Path, *more: tuple[str, str]) -> Path:
    return _transcript(
        tmp_path / "replied.jsonl",
        ("user", "Add a retry with backoff to the HTTP client."),
        (
            "assistant",
            "Done. We could also add jitter to the backoff later. "
            "Should I also add a circuit breaker?",
        ),
        ("user", SWEEP_TYPED),
        *more,
    )


def test_a_number_is_the_candidate_shown_though_the_session_went_on(
    project: Path, tmp_path: Path, cli: RunCli
) -> None:
    """The user answers the table in words of their own where the skill asks with
    AskUserQuestion: the transcript ends on that message now, the sweep reads it as a
    request, and the candidates are numbered otherwise. `--drop 1` is still the one the
    user saw as #1, never the request it reads now. (A bare pick, "drop 1", goes on with
    our command's turn: no request.)"""
    t = _typed_reply(tmp_path)
    first = cli("sweep", "--transcript", str(t))
    rows = [ln for ln in first.out.splitlines() if ln[:2] == "| " and ln[2].isdigit()]
    shown = {int(ln.split("|")[1]): ln.split("|")[2].strip() for ln in rows}
    assert shown[1] == "Should I also add a circuit breaker?"
    table = "1. Should I also add a circuit breaker? 2. … jitter … Park, drop, or leave them?"
    reply = "drop the first, the breaker went in with the last PR"
    _typed_reply(tmp_path, ("assistant", table), ("user", reply))
    r = cli("sweep", "--transcript", str(t), "--drop", "1")
    assert r.code == 0, r
    [logged] = _dropped(project)
    assert logged["summary"] == shown[1], (logged, shown)
    # …and what it shows then is what the next number means.
    assert reply in r.out.splitlines()[3]
    assert cli("sweep", "--transcript", str(t), "--park", "1").code == 0
    [line] = _parked(project)
    assert reply in line


def test_a_number_whose_candidate_the_session_no_longer_leaves_is_asked(
    project: Path, tmp_path: Path, cli: RunCli
) -> None:
    t = _typed_reply(tmp_path)
    assert cli("sweep", "--transcript", str(t)).code == 0
    # Rewritten: the question is gone from the reply (a transcript compacted, say).
    _transcript(t, ("user", "Add a retry with backoff."), ("assistant", "Done, nothing left."))
    r = cli("sweep", "--transcript", str(t), "--park", "1")
    assert r.code == 4, r
    assert "no candidate says that now; nothing parked or dropped" in r.err
    assert _parked(project) == [] and _dropped(project) == []

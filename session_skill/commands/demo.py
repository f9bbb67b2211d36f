"""`session-skill demo`: the whole cycle in a scratch project, each step printed."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "_demo" / "sample_transcript.jsonl"

DOC = """\
## Goal
Reject expired auth tokens in `validate_token`, with tests.

## Decisions
- Check `exp` inside `validate_token`, not in the middleware — why: the refresh endpoint reuses it.

## Verified
- Expired tokens raise `Expired` — `pytest tests/test_token.py` passes.

## Files touched
| File | Change | State | Ref |
| --- | --- | --- | --- |
| `src/auth/token.py` | expiry check with TOKEN_LEEWAY | done | |
| `tests/test_token.py` | expired-token test | done | |

## Outstanding
- **leeway-default** — 30 s or 60 s leeway? Why: asked, never answered. Next: ask the user.

## Next step
Document TOKEN_LEEWAY in the README, then ask which leeway default to ship.
"""


def _say(text: str) -> None:
    print(f"\n\033[1m# {text}\033[0m" if sys.stdout.isatty() else f"\n# {text}")


def _run(args: list[str], *, cwd: Path, stdin: str | None = None, show: str | None = None) -> str:
    shown = show or "session-skill " + " ".join(shlex.quote(a) for a in args)
    print(f"$ {shown}")
    proc = subprocess.run(
        [sys.executable, "-m", "session_skill", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = proc.stdout.rstrip("\n")
    if out:
        print(textwrap.indent(out, "  "))
    if proc.stderr.strip():
        print(textwrap.indent(proc.stderr.rstrip("\n"), "  "))
    if proc.returncode not in (0, 4):
        raise RuntimeError(f"step failed with exit {proc.returncode}: {shown}")
    return proc.stdout


def _git(proj: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-C",
            str(proj),
            "-c",
            "user.name=demo",
            "-c",
            "user.email=demo@example.com",
            *args,
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )


def _make_project(proj: Path) -> None:
    (proj / "src" / "auth").mkdir(parents=True)
    (proj / "src" / "auth" / "token.py").write_text(
        "def validate_token(tok):\n    return decode(tok)\n"
    )
    (proj / "README.md").write_text("# app\n")
    _git(proj, "init", "-q", "-b", "main")
    _git(proj, "add", ".")
    _git(proj, "commit", "-q", "-m", "initial")
    # The session's work, as the sample transcript describes it.
    (proj / "src" / "auth" / "token.py").write_text(
        "import time\n\nTOKEN_LEEWAY = 30\n\n\ndef validate_token(tok, now=None):\n"
        "    claims = decode(tok)\n    if claims['exp'] + TOKEN_LEEWAY < (now or time.time()):\n"
        "        raise Expired()\n    return claims\n"
    )
    (proj / "tests").mkdir()
    (proj / "tests" / "test_token.py").write_text("def test_expired():\n    ...\n")


def run() -> int:
    with tempfile.TemporaryDirectory(prefix="session-skill-demo-") as tmp:
        proj = Path(tmp) / "app"
        proj.mkdir()
        _make_project(proj)
        transcript = Path(tmp) / "transcript.jsonl"
        transcript.write_text(SAMPLE.read_text().replace("{cwd}", str(proj)))
        t = str(transcript)
        print(f"Scratch project: {proj} (a git repo with two changed files)")
        print(f"Sample transcript: {t}")

        _say("1. /session dump auth-expiry → the model gets a brief (one CLI call)")
        _run(["dispatch", "--project", str(proj), f"dump auth-expiry --transcript {t}"], cwd=proj)

        _say("2. The model composes the doc by the brief and writes it (second and last call)")
        print(textwrap.indent(DOC.rstrip(), "  | ", lambda _line: True))
        _run(
            ["dump", "auth-expiry", "--project", str(proj), "--transcript", t, "--file", "-"],
            cwd=proj,
            stdin=DOC,
            show="session-skill dump auth-expiry --file - <<'SESSION_DOC' … SESSION_DOC",
        )

        _say(
            "3. /clear → Claude Code runs the SessionStart hook; this is what the fresh "
            "session receives"
        )
        payload = {
            "session_id": "demo-after-clear",
            "cwd": str(proj),
            "hook_event_name": "SessionStart",
            "source": "clear",
            "transcript_path": t,
        }
        out = _run(
            ["hook", "session-start"],
            cwd=proj,
            stdin=json.dumps(payload),
            show="session-skill hook session-start  (payload: source=clear)",
        )
        try:
            ctx = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            print("  additionalContext, as the model sees it:")
            print(textwrap.indent(ctx.rstrip(), "  > ", lambda _line: True))
        except (ValueError, KeyError, TypeError):
            print("  (the hook injected nothing)")

        _say("4. A second /clear injects nothing: the handover was consumed once")
        _run(
            ["hook", "session-start"],
            cwd=proj,
            stdin=json.dumps(payload),
            show="session-skill hook session-start  (payload: source=clear)",
        )

        _say("5. /session park <idea> — twice, one with shell-hostile text")
        _run(
            ["dispatch", "--project", str(proj)],
            cwd=proj,
            stdin='park retry budget for the refresh endpoint -- maybe "later"\n',
            show="session-skill dispatch <<'SESSION_ARGS'\npark retry budget for the refresh"
            ' endpoint -- maybe "later"\nSESSION_ARGS',
        )
        _run(["park", "--project", str(proj), "cache decoded claims per request"], cwd=proj)

        _say("6. /session list")
        _run(["list", "--project", str(proj)], cwd=proj)

        _say("7. /session sweep — what the transcript shows never landed")
        _run(["sweep", "--project", str(proj), "--transcript", t], cwd=proj)

        _say("8. /session drop <item> — fuzzy, never the wrong one")
        _run(["drop", "--project", str(proj), "retry", "budget"], cwd=proj)
        _run(["list", "--project", str(proj)], cwd=proj)

        print(
            "\nDone. In a real project: `session-skill install`, then `/session dump` "
            "before `/clear`."
        )
    return 0

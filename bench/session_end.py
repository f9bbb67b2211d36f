"""The SessionEnd hook at /clear (issue 12): the user waits on it, so it is timed whole.

`hook session-end` writes the automatic handover of a 10 MB transcript, timed against the
floor in the same rounds; then its peak memory on a 200 MB transcript, which must stay flat
(the transcript is streamed, never held). The project is a git repository whose store already
holds 20 handovers and 20 parked items; each run starts without the previous run's doc, which
would otherwise be this session's own pending handover (and the hook would rightly skip).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.fixtures import Project
from bench.proc import Case, Run, measure, peak_rss_mb
from bench.synth_transcript import SESSION_ID, write_synthetic

MB = 1_000_000
END_MAX = 10.0  # x floor, 10 MB transcript
END_RSS_MAX = 80.0  # MiB, 200 MB transcript


def payload(root: Path, transcript: Path) -> bytes:
    return json.dumps(
        {
            "session_id": SESSION_ID,
            "transcript_path": str(transcript),
            "cwd": str(root),
            "hook_event_name": "SessionEnd",
            "reason": "clear",
        }
    ).encode()


def rows(
    tmp: Path,
    env: dict[str, str],
    runs: int,
    log: Callable[[str], None],
    *,
    row: Callable[..., Any],
    floor_argv: list[str],
    argv: list[str],
) -> list[Any]:
    """The rows, built with `row(group, name, case, base=None)` (bench.__main__.Row)."""
    proj = Project(tmp / "session-end", docs=20, parked=20)
    before = {p.name for p in proj.store.iterdir()}

    def fresh() -> None:
        for p in proj.store.iterdir():
            if p.name not in before:
                p.unlink()

    def wrote_a_doc(run: Run) -> str | None:
        out = run.stdout.decode("utf-8", "replace")
        new = [p.name for p in proj.store.glob("*.md") if p.name not in before]
        if "systemMessage" in out and len(new) == 1 and (proj.store / "LATEST").is_file():
            return None
        err = run.stderr.decode("utf-8", "replace")
        return f"no automatic handover: docs {new}, stdout {out[:200]!r}, stderr {err[:300]!r}"

    def case(size: int) -> tuple[Case, Path]:
        path = tmp / f"session-end-{size // MB}MB.jsonl"
        log(f"session-end: writing a {size // MB} MB synthetic transcript")
        write_synthetic(path, size)
        return Case(f"hook session-end, {size // MB} MB transcript", argv,
                    stdin=payload(proj.root, path), env=env, cwd=str(proj.root), setup=fresh,
                    expect=wrote_a_doc), path  # fmt: skip

    floor = Case("floor", floor_argv, env=env, cwd=str(tmp))
    hook, path = case(10 * MB)
    log(f"session-end: 2 commands x {runs} runs, interleaved")
    measure([floor, hook], runs=runs, progress=lambda m: log(f"session-end: {m}"))
    timed = row("session-end", hook.name, hook, floor)
    rss = peak_rss_mb(hook)
    timed.extra.update(bytes=path.stat().st_size, peak_rss_mib=round(rss, 1))
    ratio = timed.ratio or 0.0
    out = [
        row("session-end", "floor: python -I -c 'import json'", floor),
        timed.judge(f"≤ {END_MAX:g}x floor", ratio <= END_MAX, f"RSS {rss:.0f} MiB"),
    ]
    path.unlink()

    heavy, path = case(200 * MB)
    log("session-end: 200 MB, once for the time, once for the peak memory")
    measure([heavy], runs=1, warmup=1)
    rss = peak_rss_mb(heavy)
    flat = row("session-end", heavy.name, heavy)
    flat.extra.update(bytes=path.stat().st_size, peak_rss_mib=round(rss, 1))
    target = f"RSS ≤ {END_RSS_MAX:g} MiB"
    out.append(flat.judge(target, rss <= END_RSS_MAX, f"RSS {rss:.0f} MiB"))
    path.unlink()
    fresh()
    return out

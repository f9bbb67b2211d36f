"""The hooks that capture a session at its boundaries (issue 20), timed as whole processes.

`hook session-end` (at /clear: the user waits on it) and `hook pre-compact` (before a
compaction) each write the automatic handover of a synthetic transcript of 10, 60 and
200 MB, with the floor in the same rounds. These rows run the capture inline
(`SESSION_SKILL_DETACH=0`), so their time is the capture's whole cost, not the hook's wait
for a detached child; the 10 MB row is judged against the floor, the bigger ones in
seconds (as the 10,000-item rows are), and the 200 MB one also on its peak memory, which
must stay flat (the middle of a big transcript is scanned in fixed-size chunks, never held).

One more row runs the 200 MB SessionEnd as a user gets it, the capture detached (the
default): the hook's own process time is what /clear waits on, and the doc must be in the
store within a few seconds of its exit — each run waits for it (outside the timed region),
so no capture is left running into the next command.

Each project is a git repository whose store already holds 20 handovers and 20 parked
items; every run starts without the previous run's doc (for SessionEnd it would be this
session's own capture, and the hook would rightly skip), and every run is checked to have
written its doc.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.fixtures import Project
from bench.proc import Case, CaseFailed, measure, peak_rss_mb
from bench.synth_transcript import SESSION_ID, write_synthetic

MB = 1_000_000
SIZES = (10, 60, 200)  # MB
FLOOR_MAX = 10.0  # x floor, 10 MB transcript
SECONDS_MAX = {60: 0.4, 200: 1.0}  # seconds, whole process
RSS_MAX = 80.0  # MiB, 200 MB transcript
DETACHED_MAX = 1.5  # seconds the 200 MB SessionEnd hook keeps /clear waiting
DOC_AFTER_MAX = 5.0  # seconds after the hook's exit by which the detached capture's doc is in
DOC_WAIT = 30.0  # seconds a run waits for it before the row fails
MARKER = ".capture-"  # hooks.capture.MARKER: stands while a capture runs

SESSION_END = "session-end"
PRE_COMPACT = "pre-compact"
Log = Callable[[str], None]


class Transcripts:
    """The synthetic transcripts of each size, written once for both hooks' groups."""

    def __init__(self, folder: Path, log: Log) -> None:
        self.folder = folder
        self.log = log
        self.paths: dict[int, Path] = {}

    def get(self, mb: int) -> Path:
        if mb not in self.paths:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f"capture-{mb}MB.jsonl"
            self.log(f"capture: writing a {mb} MB synthetic transcript")
            write_synthetic(path, mb * MB)
            self.paths[mb] = path
        return self.paths[mb]

    def remove(self) -> None:
        for path in self.paths.values():
            path.unlink(missing_ok=True)
        self.paths.clear()


def payload(event: str, root: Path, transcript: Path) -> bytes:
    common = {"session_id": SESSION_ID, "transcript_path": str(transcript), "cwd": str(root)}
    if event == SESSION_END:
        return json.dumps({**common, "hook_event_name": "SessionEnd", "reason": "clear"}).encode()
    return json.dumps(
        {
            **common,
            "hook_event_name": "PreCompact",
            "trigger": "manual",
            "custom_instructions": None,
        }
    ).encode()


class Store:
    """A project's store, put back to how it was before each run, and what a run wrote."""

    def __init__(self, proj: Project, event: str) -> None:
        self.proj = proj
        self.event = event
        self.before = {p.name for p in proj.store.iterdir()}

    def new(self) -> list[str]:
        return [p.name for p in self.proj.store.iterdir() if p.name not in self.before]

    def fresh(self) -> None:
        for name in self.new():
            (self.proj.store / name).unlink(missing_ok=True)

    def problem(self) -> str | None:
        """What is wrong with what the run left: None when its doc is there, whole."""
        new = self.new()
        docs = [n for n in new if n.endswith(".md")]
        running = [n for n in new if n.startswith(MARKER)]
        if len(docs) != 1 or running:
            return f"expected one new doc and no capture running, found {sorted(new)}"
        head = (self.proj.store / docs[0]).read_text(encoding="utf-8").split("\n---\n", 1)[0]
        trigger = "compact" if self.event == PRE_COMPACT else "session-end"
        if f"\ntrigger: {trigger}\n" not in head + "\n":
            return f"{docs[0]} is not a `trigger: {trigger}` doc: {head[:300]!r}"
        if self.event == SESSION_END and "LATEST" not in new:
            return f"LATEST does not name the capture: {sorted(new)}"
        return None

    def wrote_the_doc(self, name: str) -> Callable[[], None]:
        def after() -> None:
            problem = self.problem()
            if problem:
                raise CaseFailed(f"{name}: {problem}")

        return after


def _output(event: str) -> Callable[[Any], str | None]:
    """The first run's stdout: SessionEnd says what it saved; PreCompact (Claude Code) asks
    the compaction's summary to keep the state."""
    needle = "systemMessage" if event == SESSION_END else "Keep in the summary"

    def check(run: Any) -> str | None:
        out = run.stdout.decode("utf-8", "replace")
        if needle in out:
            return None
        err = run.stderr.decode("utf-8", "replace")
        return f"{needle!r} not in stdout {out[:200]!r}, stderr {err[:300]!r}"

    return check


def rows(
    tmp: Path,
    env: dict[str, str],
    runs: int,
    log: Log,
    *,
    row: Callable[..., Any],
    floor_argv: list[str],
    argv: list[str],
    transcripts: Transcripts,
    event: str = SESSION_END,
) -> list[Any]:
    """The rows of `event`'s group (`argv` runs its hook), built with
    `row(group, name, case, base=None)` (bench.__main__.Row)."""
    proj = Project(tmp / event, docs=20, parked=20)
    store = Store(proj, event)
    inline = {**env, "SESSION_SKILL_DETACH": "0", "SESSION_SKILL_AGENT": "claude-code"}
    hooks: list[tuple[int, Case]] = []
    for mb in SIZES:
        name = f"hook {event}, {mb} MB transcript"
        data = payload(event, proj.root, transcripts.get(mb))
        case = Case(name, argv, stdin=data, env=inline, cwd=str(proj.root), setup=store.fresh,
                    after=store.wrote_the_doc(name), expect=_output(event))  # fmt: skip
        hooks.append((mb, case))
    floor = Case("floor", floor_argv, env=env, cwd=str(tmp))
    cases = [floor, *(c for _, c in hooks)]
    detached = None
    if event == SESSION_END:
        detached = _detached(tmp, env, argv, transcripts.get(max(SIZES)))
        cases.append(detached.case)
    log(f"{event}: {len(cases)} commands x {runs} runs, interleaved")
    measure(cases, runs=runs, progress=lambda m: log(f"{event}: {m}"))
    out = [row(event, "floor: python -I -c 'import json'", floor)]
    for mb, case in hooks:
        rss = peak_rss_mb(case)
        r = row(event, case.name, case, floor)
        r.extra.update(bytes=transcripts.get(mb).stat().st_size, peak_rss_mib=round(rss, 1))
        value = f"{r.median:.3f} s; RSS {rss:.0f} MiB"
        if mb in SECONDS_MAX:
            target, ok = f"≤ {SECONDS_MAX[mb]:g} s", r.median <= SECONDS_MAX[mb]
        else:
            target, ok = f"≤ {FLOOR_MAX:g}x floor", (r.ratio or 0.0) <= FLOOR_MAX
        if mb == max(SIZES):
            target += f", RSS ≤ {RSS_MAX:g} MiB"
            ok = ok and rss <= RSS_MAX
        out.append(r.judge(target, ok, value))
    if detached is not None:
        out.append(detached.row(row, floor))
    store.fresh()
    return out


class _Detached:
    """The 200 MB SessionEnd with the capture detached, and how long its doc took to come."""

    def __init__(self, proj: Project, case: Case, store: Store) -> None:
        self.proj = proj
        self.case = case
        self.store = store
        self.late: list[float] = []  # seconds from the hook's exit to the doc, per run

    def settle(self) -> None:
        """Before a run: no capture of an earlier one still running, the store as it was.
        (`after` waited for it already; this covers a run that failed before it.)"""
        deadline = time.perf_counter() + DOC_WAIT
        while any(n.startswith(MARKER) for n in self.store.new()):
            if time.perf_counter() > deadline:
                raise CaseFailed(f"{self.case.name}: a capture still runs {DOC_WAIT:g} s on")
            time.sleep(0.01)
        self.store.fresh()

    def wait(self, limit: float) -> float | None:
        """Seconds until the capture is done (its marker gone, its doc there), or None."""
        start = time.perf_counter()
        while True:
            if self.store.problem() is None:
                return time.perf_counter() - start
            if time.perf_counter() - start > limit:
                return None
            time.sleep(0.01)

    def after(self) -> None:
        took = self.wait(DOC_WAIT)
        if took is None:
            raise CaseFailed(f"{self.case.name}: no doc {DOC_WAIT:g} s after the hook's exit: "
                             f"{self.store.problem()}")  # fmt: skip
        self.late.append(took)

    def row(self, row: Callable[..., Any], floor: Case) -> Any:
        r = row(SESSION_END, self.case.name, self.case, floor)
        timed = self.late[-len(self.case.times) :]  # the timed runs' (not the warm-up's)
        in_time = sum(1 for t in timed if t < 0.05)
        worst = max(timed)
        r.extra.update(
            doc_after_exit_s=[round(t, 3) for t in timed],
            doc_at_exit_runs=in_time,
        )
        value = f"{r.median:.3f} s; doc at exit in {in_time}/{len(timed)}"
        if in_time < len(timed):
            value += f", else ≤ {worst:.2f} s after"
        ok = r.median <= DETACHED_MAX and worst <= DOC_AFTER_MAX
        return r.judge(f"≤ {DETACHED_MAX:g} s, doc ≤ {DOC_AFTER_MAX:g} s after", ok, value)


def _detached(tmp: Path, env: dict[str, str], argv: list[str], transcript: Path) -> _Detached:
    proj = Project(tmp / f"{SESSION_END}-detached", docs=20, parked=20)
    store = Store(proj, SESSION_END)
    detaching = {k: v for k, v in env.items() if k != "SESSION_SKILL_DETACH"}
    case = Case(
        f"hook {SESSION_END}, {transcript.stat().st_size // MB} MB, capture detached",
        argv,
        stdin=payload(SESSION_END, proj.root, transcript),
        env=detaching,
        cwd=str(proj.root),
    )
    d = _Detached(proj, case, store)
    case.setup, case.after = d.settle, d.after
    return d

"""Timing whole processes, runs interleaved, and the peak memory of one process.

Wall time is taken around start and exit of the child; the child is reaped with
`os.wait4`, which also gives its CPU time. Peak RSS is not taken from those runs: a child
that Python starts with vfork/posix_spawn reports (in `ru_maxrss`) the parent's high-water
mark too, and the parent here may be large. `peak_rss` runs the command under a small
fork-and-exec wrapper instead, whose own few megabytes are all that can leak in.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class Run:
    seconds: float
    cpu: float  # user + system seconds of the child
    code: int
    stdout: bytes = b""
    stderr: bytes = b""


@dataclass
class Case:
    """One command to time. `setup` runs before every run and `after` after it, both outside
    the timed region (`after` may wait for what the command left running, or check what it
    wrote, and raise CaseFailed)."""

    name: str
    argv: Sequence[str]
    stdin: bytes | None = None
    env: dict[str, str] | None = None
    cwd: str | None = None
    setup: Callable[[], None] | None = None
    after: Callable[[], None] | None = None
    expect_code: int = 0
    # A check of the first run's output, so a command that fails fast is never timed.
    expect: Callable[[Run], str | None] | None = None
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu)


class CaseFailed(RuntimeError):
    pass


def run_once(case: Case, *, capture: bool = False) -> Run:
    if case.setup is not None:
        case.setup()
    out_f = tempfile.TemporaryFile() if capture else None
    err_f = tempfile.TemporaryFile() if capture else None
    stdin_r = None
    if case.stdin is not None:
        # A pipe filled before the start: the child never waits on the parent.
        if len(case.stdin) > 60_000:
            raise ValueError("stdin payloads over a pipe buffer are not supported")
        stdin_r, stdin_w = os.pipe()
        os.write(stdin_w, case.stdin)
        os.close(stdin_w)
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(case.argv),
            stdin=stdin_r if stdin_r is not None else subprocess.DEVNULL,
            stdout=out_f if out_f is not None else subprocess.DEVNULL,
            stderr=err_f if err_f is not None else subprocess.DEVNULL,
            env=case.env,
            cwd=case.cwd,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
    finally:
        if stdin_r is not None:
            os.close(stdin_r)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if case.after is not None:
        case.after()
    stdout = stderr = b""
    if out_f is not None and err_f is not None:
        out_f.seek(0)
        err_f.seek(0)
        stdout, stderr = out_f.read(), err_f.read()
        out_f.close()
        err_f.close()
    return Run(elapsed, usage.ru_utime + usage.ru_stime, proc.returncode, stdout, stderr)


def check(case: Case) -> Run:
    """Run the case once and make sure it does what it is timed for."""
    first = run_once(case, capture=True)
    if first.code != case.expect_code:
        err = first.stderr.decode("utf-8", "replace").strip()[-400:]
        raise CaseFailed(f"{case.name}: exit {first.code}, expected {case.expect_code}: {err}")
    problem = case.expect(first) if case.expect is not None else None
    if problem:
        raise CaseFailed(f"{case.name}: {problem}")
    return first


def measure(
    cases: Sequence[Case],
    *,
    runs: int,
    warmup: int = 2,
    progress: Callable[[str], None] | None = None,
) -> None:
    """Check and warm up each case, then time each `runs` times, one run of each per round.

    Interleaving puts the baseline and the subjects through the same machine state
    (other processes, CPU frequency, page cache), so their ratio holds even when the
    absolute numbers drift.
    """
    for case in cases:
        check(case)
        for _ in range(warmup - 1):
            run_once(case)
    for n in range(runs):
        if progress is not None:
            progress(f"round {n + 1}/{runs}")
        for case in cases:
            r = run_once(case)
            if r.code != case.expect_code:
                raise CaseFailed(f"{case.name}: exit {r.code}, expected {case.expect_code}")
            case.times.append(r.seconds)
            case.cpu.append(r.cpu)


# Forks (a real fork: the child starts from this small process's memory, not the bench's),
# execs the command, and prints the child's ru_maxrss in KiB.
_RSS_WRAPPER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def peak_rss_mb(case: Case) -> float:
    """Peak resident memory of one run of the case, in MiB."""
    if case.setup is not None:
        case.setup()
    wrapper = [sys.executable, "-I", "-S", "-c", _RSS_WRAPPER, *case.argv]
    proc = subprocess.run(
        wrapper,
        input=case.stdin,
        stdin=None if case.stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=case.env,
        cwd=case.cwd,
        check=True,
    )
    # The command's own output comes first; the wrapper's line is the last one.
    if case.after is not None:
        case.after()
    kib, code = proc.stdout.decode().strip().splitlines()[-1].split()
    if int(code) != case.expect_code:
        raise CaseFailed(f"{case.name}: exit {code} under the RSS wrapper")
    return int(kib) / 1024

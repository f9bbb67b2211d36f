"""The Claude Code plugin (issue 14): what `bin/session-skill` adds, and the context it costs.

- The shim's own cost: park, list, drop and the SessionStart hook run through
  `bin/session-skill` against the very command it execs (`<venv>/bin/python -I -X
  pycache_prefix=… -c <boot> <root> …`), in the same rounds. The venv is made ready the cheap
  way (`venv --without-pip` plus a .pth onto this interpreter's site-packages, stamped ready),
  so only the hot path is timed, never the one-time install.
- The plugin's context cost, from `claude plugin details` after installing this checkout
  from its own marketplace into a scratch HOME: always-on and on-invoke tokens, as the client
  projects them. Measured when a claude binary is found (SESSION_SKILL_E2E_CLAUDE, or the
  e2e cache), else shown as not measured.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.fixtures import Project
from bench.proc import Case, Run, measure

ROOT = Path(__file__).resolve().parent.parent
SHIM = ROOT / "bin" / "session-skill"
HOOK_MAX, CLI_MAX = 1.5, 6.0  # x floor: the startup group's targets, to hold through the shim
SHIM_ALONE_MAX = 0.25  # x floor: the shim exec'ing /bin/true (its own cost, plus true's)
ON_INVOKE_MAX = 1000  # tokens
PARK_IDEA = "benchmark the queue depth against the retry budget before the next release"
CLAUDE_VERSION = os.environ.get("SESSION_SKILL_E2E_CLAUDE_VERSION", "2.1.328")


def ready_venv(data: Path) -> Path:
    """A venv in `data` that the shim takes as ready for this checkout, on this
    interpreter's packages."""
    venv = data / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    (Path(site) / "bench_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (venv / "requirements.txt").write_text("")
    (venv / "ready").write_text(f"{ROOT}\n")
    return venv


def boot() -> str:
    """The Python code the shim passes with -c (read from the shim, so both stay one)."""
    text = SHIM.read_text(encoding="utf-8")
    m = re.search(r"^boot='(.*?)'$", text, re.S | re.M)
    if m is None:
        raise RuntimeError(f"no boot='…' line in {SHIM}")
    return m.group(1)


def _expect(needle: str) -> Callable[[Run], str | None]:
    def check(run: Run) -> str | None:
        out = run.stdout.decode("utf-8", "replace")
        if run.stderr:  # the hot path prints nothing of its own
            return f"stderr: {run.stderr.decode('utf-8', 'replace')[:300]!r}"
        return None if needle in out else f"{needle!r} not in stdout: {out[:300]!r}"

    return check


def alone(tmp: Path) -> tuple[Path, Path]:
    """A data folder whose ready venv's `python` is `true`: the shim's cost and nothing else."""
    true = Path("/bin/true") if Path("/bin/true").exists() else Path("/usr/bin/true")
    data = tmp / "plugin-data-true"
    (data / "venv" / "bin").mkdir(parents=True)
    (data / "venv" / "bin" / "python").symlink_to(true)
    (data / "venv" / "ready").write_text(f"{ROOT}\n")
    return data, true


def _silent(run: Run) -> str | None:
    return None if not (run.stdout + run.stderr).strip() else f"output: {run.stdout[:200]!r}"


def shim_rows(
    tmp: Path,
    env: dict[str, str],
    runs: int,
    log: Callable[[str], None],
    row: Callable[..., Any],
    floor_argv: list[str],
) -> list[Any]:
    log("plugin: a ready plugin venv and a store of 500 handovers, 1,000 parked items")
    data = tmp / "plugin-data"
    venv = ready_venv(data)
    proj = Project(tmp / "plugin-proj", docs=500, parked=1000)
    root = str(proj.root)
    env = {**env, "SESSION_SKILL_PLUGIN_DATA": str(data), "SESSION_SKILL_VIA": "plugin"}
    direct = [str(venv / "bin" / "python"), "-I", "-X", f"pycache_prefix={data}/pycache"]
    direct += ["-c", boot(), str(ROOT)]
    payload = (
        '{"hook_event_name": "SessionStart", "source": "clear", "session_id": "bench", '
        f'"cwd": "{root}"}}'
    ).encode()
    commands: list[tuple[str, list[str], dict[str, Any]]] = [
        ("park <idea>", ["park", PARK_IDEA, "--project", root],
         {"setup": proj.reset_parked, "expect": _expect("Parked: ")}),
        ("list", ["list", "--project", root], {"expect": _expect("### Parked (100")}),
        ("drop <words>", ["drop", *proj.parked.drop_query.split(), "--project", root],
         {"setup": proj.reset_parked, "expect": _expect("Dropped: ")}),
        ("hook session-start, nothing pending", ["hook", "session-start"],
         {"setup": proj.clear_pending, "stdin": payload, "expect": _silent}),
    ]  # fmt: skip
    pairs = []
    for name, args, kw in commands:
        base = Case(f"direct: {name}", [*direct, *args], env=env, cwd=root, **kw)
        via = Case(f"shim: {name}", [str(SHIM), *args], env=env, cwd=root, **kw)
        pairs.append((base, via))
    floor = Case("floor", floor_argv, env=env, cwd=str(tmp))
    true_data, true = alone(tmp)
    true_env = {**env, "SESSION_SKILL_PLUGIN_DATA": str(true_data)}
    bare = Case("true", [str(true)], env=true_env, cwd=root)
    shim_true = Case("shim alone: exec true", [str(SHIM), "list"], env=true_env, cwd=root)
    cases = [floor, bare, shim_true, *(c for pair in pairs for c in pair)]
    log(f"plugin: {len(cases)} commands x {runs} runs, interleaved")
    measure(cases, runs=runs, progress=lambda m: log(f"plugin: {m}"))
    own_ms = (shim_true.median - bare.median) * 1000
    own = row("plugin", shim_true.name, shim_true, floor)  # judged on the whole shim + exec
    own.extra.update(shim_ms=round(own_ms, 2), true_median_s=round(bare.median, 5))
    share = own.ratio or 0.0
    out = [
        row("plugin", "floor: python -I -c 'import json'", floor),
        own.judge(f"≤ {SHIM_ALONE_MAX:g}x floor", share <= SHIM_ALONE_MAX,
                  f"{own_ms:+.1f} ms over exec true"),
    ]  # fmt: skip
    for base, via in pairs:
        out.append(row("plugin", base.name, base, floor))
        r = row("plugin", via.name, via, floor)
        extra_ms = (via.median - base.median) * 1000
        vs_direct = via.median / base.median
        r.extra.update(shim_ms=round(extra_ms, 2), vs_direct=round(vs_direct, 3))
        limit = HOOK_MAX if via.name.startswith("shim: hook") else CLI_MAX
        ok = (r.ratio or 0.0) <= limit
        value = f"{extra_ms:+.1f} ms = {vs_direct:.2f}x direct"
        out.append(r.judge(f"≤ {limit:g}x floor", ok, value))
    return out


# -- context cost ----------------------------------------------------------------------------


def find_claude() -> Path | None:
    given = os.environ.get("SESSION_SKILL_E2E_CLAUDE")
    if given:
        return Path(given) if os.access(given, os.X_OK) else None
    cache = Path(
        os.environ.get("SESSION_SKILL_E2E_CACHE") or Path.home() / ".cache" / "session-skill-e2e"
    )
    modules = cache / f"claude-code-{CLAUDE_VERSION}" / "node_modules" / "@anthropic-ai"
    for c in sorted(modules.glob("claude-code-*/claude")):
        if os.access(c, os.X_OK):
            return c
    return None


def parse_details(text: str) -> dict[str, int]:
    """Always-on and on-invoke tokens from `claude plugin details` (v2.1.328 layout:
    `Always-on:   ~89 tok`, then a per-component table `session  ~90  ~700`)."""
    always = re.search(r"Always-on:\s*~?([\d,]+)\s*tok", text)
    comp = re.search(r"^\s*session\s+~?([\d,]+)\s+~?([\d,]+)\s*$", text, re.M)
    if always is None or comp is None:
        raise ValueError(f"unexpected `claude plugin details` output:\n{text[:1500]}")

    def num(s: str) -> int:
        return int(s.replace(",", ""))

    return {
        "always_on_tokens": num(always.group(1)),
        "skill_always_on_tokens": num(comp.group(1)),
        "on_invoke_tokens": num(comp.group(2)),
    }


def context_rows(tmp: Path, log: Callable[[str], None], row: Callable[..., Any]) -> list[Any]:
    claude = find_claude()
    if claude is None:
        log("plugin: no claude binary (run .ci/e2e-setup.sh): context cost not measured")
        return []
    home = tmp / "claude-home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())["name"]
    plugin = f"session-skill@{market}"
    for args in (["marketplace", "add", str(ROOT)], ["install", plugin]):
        subprocess.run([str(claude), "plugin", *args], env=env, cwd=home, check=True,
                       capture_output=True, timeout=120)  # fmt: skip
    figures: dict[str, int] = {}

    def parsed(run: Run) -> str | None:
        try:
            figures.update(parse_details(run.stdout.decode("utf-8", "replace")))
        except ValueError as e:
            return str(e)
        return None

    case = Case("claude plugin details: context tokens", [str(claude), "plugin", "details",
                plugin], env=env, cwd=str(home), expect=parsed)  # fmt: skip
    log("plugin: claude plugin details")
    measure([case], runs=1, warmup=1)
    r = row("plugin", case.name, case)
    r.extra.update(figures)
    on_invoke = figures["on_invoke_tokens"]
    value = f"always-on ~{figures['always_on_tokens']}, on invoke ~{on_invoke}"
    return [r.judge(f"on invoke ≤ {ON_INVOKE_MAX:,}", on_invoke <= ON_INVOKE_MAX, value)]


def rows(
    tmp: Path,
    env: dict[str, str],
    runs: int,
    log: Callable[[str], None],
    *,
    row: Callable[..., Any],
    floor_argv: list[str],
) -> list[Any]:
    """The rows, built with `row(group, name, case, base=None)` (bench.__main__.Row)."""
    return shim_rows(tmp, env, runs, log, row, floor_argv) + context_rows(tmp, log, row)

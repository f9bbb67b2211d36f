"""The sweep's work counted in instructions, this tree against another revision.

The timed rows of `python -m bench` are ratios against a loop measured in the same rounds,
and still move by more than most single changes on a shared 2-core VM: the `json.loads`
loop itself runs in a fast and a slow state (docs/performance.md). An instruction count
does not move with the machine. This runs the sweep under valgrind's cachegrind (no cache
simulation: the count only), on one core (`taskset -c 0`: no forked helper, so one process
does the whole pass and the tail's reading), with a fixed hash seed, for this tree and for
`--base`, and prints both counts and their change:

    python -m bench.instructions                # against HEAD
    python -m bench.instructions --base a6d2ede --mb 30

The workloads: Python with the sweep's modules imported (what every count includes), the
synthetic conversation of `--mb` MB (`synth_transcript.write_conversation`), and the
corpus's real sessions in one process (`../shared`, left out when absent). Counts repeat
to within about 0.05% run to run. Fewer instructions is not the same as less time —
Python's interpreter and `json`'s C code do different work per instruction — but between
two versions of the same Python code it is what changed. It needs `valgrind` and
`taskset`, and takes a minute or two: a developer's measure, not a target.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MB = 1_000_000
# What each counted process runs: the sweep's reading of each file, the helper's part too.
SCRIPT = (
    "import sys\n"
    "from pathlib import Path\n"
    "from session_skill.transcripts.scan import analyze\n"
    "for name in sys.argv[1:]:\n"
    "    analyze(Path(name))\n"
)
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


class Unavailable(Exception):
    """A tool this needs is missing, or the revision cannot be read."""


def count(tree: Path, files: list[str], scratch: Path, core: int = 0) -> int:
    """Instructions the sweep of `files` takes with the package at `tree` (none: imports),
    run on `core` alone."""
    # Its bytecode and its compiled patterns (`recache`) kept apart, as a user's are.
    kept = scratch / "kept" / tree.name
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0",
               PYTHONPYCACHEPREFIX=str(kept / "pycache"), XDG_CACHE_HOME=str(kept))  # fmt: skip
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Once outside valgrind: what a second run finds written is not counted as work.
    warm = subprocess.run([sys.executable, "-c", SCRIPT, *files], env=env, cwd=scratch,
                          capture_output=True, text=True)  # fmt: skip
    if warm.returncode != 0:
        tail = warm.stderr.strip().splitlines()[-1:]
        raise Unavailable(f"the sweep of {tree} failed (exit {warm.returncode}): {' '.join(tail)}")
    argv = ["taskset", "-c", str(core), "valgrind", "--tool=cachegrind", "--cache-sim=no",
            "--cachegrind-out-file=/dev/null", sys.executable, "-c", SCRIPT, *files]  # fmt: skip
    done = subprocess.run(argv, env=env, cwd=scratch, capture_output=True, text=True)
    found = _REFS.findall(done.stderr)
    if done.returncode != 0 or len(found) != 1:
        tail = done.stderr.strip().splitlines()[-3:]
        raise Unavailable(f"the counted run failed (exit {done.returncode}): {' / '.join(tail)}")
    return int(found[0].replace(",", ""))


def checkout(rev: str, into: Path) -> Path:
    """The package as it is at `rev`, extracted under `into`."""
    archive = subprocess.run(["git", "archive", rev, "session_skill"], cwd=REPO,
                             capture_output=True)  # fmt: skip
    if archive.returncode != 0:
        raise Unavailable(f"cannot read {rev}: {archive.stderr.decode(errors='replace').strip()}")
    tree = into / "base"
    tree.mkdir()
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def workloads(scratch: Path, mb: int) -> list[tuple[str, list[str]]]:
    from bench.fidelity.keys import corpus_files
    from bench.synth_transcript import write_conversation

    conversation = scratch / "conversation.jsonl"
    write_conversation(conversation, mb * MB)
    found = [("imports only", []), (f"{mb} MB conversation", [str(conversation)])]
    corpus = corpus_files()
    if corpus:
        found.append((f"the corpus's {len(corpus)} real sessions", corpus))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.instructions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--base", default="HEAD", help="the revision to compare with")
    parser.add_argument("--mb", type=int, default=30, help="the conversation's size")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("valgrind", "taskset") if shutil.which(tool) is None]
    if missing:
        print(f"error: needs {' and '.join(missing)} (apt-get install valgrind)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as tmp:
        scratch = Path(tmp)
        try:
            base = checkout(args.base, scratch)
            print(f"{'workload':<36} {args.base:>16} {'this tree':>16}  change")
            # The two trees side by side, each on a core of its own (the count is the same).
            allowed = sorted(os.sched_getaffinity(0))
            trees = ((base, allowed[0]), (REPO, allowed[-1]))
            with ThreadPoolExecutor(2) as pool:
                for name, files in workloads(scratch, args.mb):
                    runs = [pool.submit(count, tree, files, scratch, core) for tree, core in trees]
                    before, after = (run.result() for run in runs)
                    change = f"{(after - before) / before:+.1%}"
                    print(f"{name:<36} {before:>16,} {after:>16,}  {change}", flush=True)
        except Unavailable as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

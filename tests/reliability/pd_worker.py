"""One of the processes of the interleaved park/drop test (test_concurrency.py).

`python pd_worker.py ROOT WORKER SEED OPS LOG`: runs OPS park/drop operations against the
store of ROOT through the real CLI entry point (`session_skill.__main__.main`, in this
process, so 8 workers × 50 operations do not cost 400 interpreter start-ups), and writes
one JSON line per operation to LOG: what was asked, the exit code and what was printed.
"""

from __future__ import annotations

import io
import json
import random
import re
import sys
from contextlib import redirect_stderr, redirect_stdout

from session_skill.__main__ import main

_CONS, _VOW = "bdfgklmnprstvz", "aeiou"


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    sys.argv = ["session-skill", *args]
    with redirect_stdout(out), redirect_stderr(err):
        code = main()
    return code, out.getvalue(), err.getvalue()


def word(rng: random.Random) -> str:
    return "".join(rng.choice(_CONS) + rng.choice(_VOW) for _ in range(4))


def worker(root: str, wid: int, seed: int, ops: int, log_path: str) -> None:
    rng = random.Random(seed)
    mine: list[str] = []  # slugs this worker parked and has not seen dropped
    with open(log_path, "w", encoding="utf-8") as log:
        for k in range(ops):
            rec: dict[str, object]
            if mine and rng.random() < 0.45:
                slug = rng.choice(mine)
                arg = slug
                if rng.random() < 0.25:
                    # `#N` as `list` numbers the items now; another worker may drop an earlier
                    # item before our drop runs, so #N can name someone else's item then.
                    code, out, _ = run(["--project", root, "list", "--json"])
                    if code == 0:
                        numbers = {p["slug"]: p["n"] for p in json.loads(out)["parked"]}
                        if slug in numbers:
                            arg = f"#{numbers[slug]}"
                code, out, err = run(["--project", root, "drop", arg])
                rec = {"op": "drop", "arg": arg, "code": code, "out": out, "err": err}
                m = re.match(r"^Dropped: (\S+) \(\d+ open\)$", out.strip().split("\n", 1)[0])
                if code == 0 and m and m.group(1) in mine:
                    mine.remove(m.group(1))
                elif code != 0 and slug in mine:
                    mine.remove(slug)  # someone's #N took it: stop asking for it
            else:
                # Words no other worker uses: the near-duplicate rule must not merge them.
                text = f"w{wid} op{k} " + " ".join(word(rng) for _ in range(3))
                code, out, err = run(["--project", root, "park", text])
                rec = {"op": "park", "arg": text, "code": code, "out": out, "err": err}
                m = re.match(r"^Parked: (\S+) \(\d+ open\)$", out.strip())
                if code == 0 and m:
                    mine.append(m.group(1))
            log.write(json.dumps(rec) + "\n")
            log.flush()


if __name__ == "__main__":
    worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])

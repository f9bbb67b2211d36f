"""The sweep scenario shared by the Codex e2e test and the kept rollout fixture.

``python tests/e2e/codex_fixture.py`` runs the scenario against the pinned Codex and
(re)writes ``tests/fixtures/transcripts/codex_0171_rollout.jsonl``: the rollout Codex
wrote, with the scratch folder renamed to ``/home/dev/e2e`` and every long text (the
base instructions, developer messages, the skill body Codex pasted in, the world state's
skill list) cut to a short head, so the fixture stays small and holds no machine paths.
Record order, types, ids, timestamps and ordinals are kept as Codex wrote them.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codex_harness import relay, run_skill  # noqa: E402
from codex_mock import Step, update_plan  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "transcripts" / "codex_0171_rollout.jsonl"
FAKE_ROOT = "/home/dev/e2e"

SWEEP_PROMPT = "Plan the token-expiry work in two steps, then $session sweep"
OPEN_STEP = "Add the expiry check to login()"
DONE_STEP = "Write the failing test"
KEEP = 240  # characters of a long text kept in the fixture
LONG = 400  # texts longer than this are cut
TRIMMED = " […trimmed for the fixture]"
# Strings that are data for the parser, never cut.
_WHOLE_KEYS = frozenset({"arguments", "cmd", "output", "call_id", "id"})


def sweep_script() -> list[Step]:
    """The model's turns: set a plan (one step done, one pending), then follow the skill
    for `$session sweep`, then relay the sweep's output."""
    plan = [(DONE_STEP, "completed"), (OPEN_STEP, "pending")]
    return [update_plan(plan, "Expiry work"), run_skill(), relay()]


def _trim(value: Any, key: str = "") -> Any:
    if isinstance(value, str):
        if key in _WHOLE_KEYS or len(value) <= LONG:
            return value
        return value[:KEEP] + TRIMMED
    if isinstance(value, list):
        return [_trim(v, key) for v in value]
    if isinstance(value, dict):
        return {k: _trim(v, k) for k, v in value.items()}
    return value


def trim_rollout(text: str, root: Path) -> str:
    """The fixture's text for a rollout written under the scratch folder ``root``."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        record = json.loads(line.replace(str(root), FAKE_ROOT))
        out.append(json.dumps(_trim(record), ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"


def main() -> int:
    from codex_harness import find_codex, make_world
    from e2e_harness import find_venv_bin

    with tempfile.TemporaryDirectory(prefix="codex-fixture-") as tmp:
        root = Path(tmp).resolve()
        w = make_world(root, find_codex(), find_venv_bin())
        try:
            w.session_skill("install", "--agent", "codex", "--project", str(w.proj))
            w.git("add", "-A")
            w.git("commit", "-q", "-m", "install session-skill for Codex")
            w.mock.script(sweep_script())
            w.check(w.exec(SWEEP_PROMPT))
            (rollout,) = w.rollouts()
            FIXTURE.write_text(trim_rollout(rollout.read_text(encoding="utf-8"), root))
        finally:
            w.close()
    print(f"wrote {FIXTURE.relative_to(REPO)} ({FIXTURE.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""recall (SPEC §7.3, issue 11): a single candidate is not "several"; JSON is typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunCli, write_doc

pytestmark = pytest.mark.usefixtures("pinned_now")


def test_one_loose_candidate_is_asked_about_as_one(
    project: Path, store_dir: Path, cli: RunCli
) -> None:
    write_doc(store_dir, "billing-export", body="## Goal\nFix the CSV export.\n\n## Next step\nx\n")
    doc = (store_dir / "billing-export.md").read_bytes()
    r = cli("recall", "bill")
    assert r.code == 4, r
    assert r.out == (
        "One handover is close to 'bill'; is it this one?\n"
        "1. `billing-export` — Fix the CSV export.\n"
        "→ /session recall billing-export\n"
    )
    assert r.err == "error: 'bill' is only a loose match for one handover\n"
    assert (store_dir / "billing-export.md").read_bytes() == doc  # not consumed


def test_recall_json_is_typed_like_list_json(project: Path, store_dir: Path, cli: RunCli) -> None:
    write_doc(
        store_dir,
        "plan-x",
        extra="dirty: 3\ntokens: 157\nover_cap: false\ncommit: 0123456\ncustom: 12\n",
    )
    data = json.loads(cli("recall", "--json", "--peek", "plan-x").out)
    meta = data["meta"]
    assert meta["consumed"] is False and meta["over_cap"] is False
    assert meta["dirty"] == 3 and meta["tokens"] == 157
    assert meta["commit"] == "0123456"  # a string, even when it is all digits
    assert meta["custom"] == "12"  # unknown keys stay as written
    listed = json.loads(cli("list", "--json").out)["handovers"][0]
    assert type(listed["consumed"]) is type(meta["consumed"])
    consumed = json.loads(cli("recall", "--json", "plan-x").out)
    assert consumed["consumed_now"] is True and consumed["drift"] in (True, False)

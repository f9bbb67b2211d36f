"""A handover whose `created` lies in the future (issue 11 #8): a wrong clock or a hand edit.

Decision: past the restore hook's skew allowance (2 min, SPEC §8 step 2) such a `created` is
not believed. The doc is dated by its file's mtime instead — it sorts and expires by that,
its age is the file's — and `list` says plainly that its `created` is in the future.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from session_skill.store import docs
from session_skill.store.store import Store
from tests.conftest import RunCli, write_doc

pytestmark = pytest.mark.usefixtures("pinned_now")
NOW = datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)


def _stamp(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _mtime(path: Path, dt: datetime) -> None:
    os.utime(path, (dt.timestamp(), dt.timestamp()))


def test_list_dates_a_future_doc_by_its_mtime(store_dir: Path, cli: RunCli) -> None:
    future = write_doc(store_dir, "from-the-future", created="2030-01-01T00:00:00Z")
    _mtime(future, NOW - timedelta(hours=3))
    recent = write_doc(store_dir, "recent", created=_stamp(NOW - timedelta(minutes=10)))
    _mtime(recent, NOW - timedelta(minutes=10))
    r = cli("list")
    assert r.code == 0, r
    rows = [ln for ln in r.out.splitlines() if ln.startswith("| `")]
    assert rows == [
        "| `recent` | 10 min | main | no |",
        "| `from-the-future` | 3 h (created in the future) | main | no |",
    ]
    data = json.loads(cli("list", "--json").out)
    assert [h["slug"] for h in data["handovers"]] == ["recent", "from-the-future"]


def test_a_future_doc_expires_by_its_mtime(store_dir: Path, cli: RunCli) -> None:
    old = write_doc(store_dir, "old-future", created="2099-01-01T00:00:00Z")
    _mtime(old, NOW - timedelta(days=31))
    fresh = write_doc(store_dir, "fresh-future", created="2099-01-01T00:00:00Z")
    _mtime(fresh, NOW - timedelta(days=1))
    r = cli("list")
    assert r.out.startswith("Swept 1 expired handover: old-future\n"), r
    assert not old.exists() and fresh.exists()


def test_within_the_skew_allowance_created_is_believed(store_dir: Path) -> None:
    path = write_doc(store_dir, "skewed", created=_stamp(NOW + timedelta(seconds=90)))
    _mtime(path, NOW - timedelta(days=3))
    (d,) = docs.all_docs(Store(store_dir.parents[2]), now=NOW)
    assert not d.future and d.when == NOW + timedelta(seconds=90)
    (d,) = docs.all_docs(Store(store_dir.parents[2]), now=NOW - timedelta(minutes=5))
    assert d.future and d.when == NOW - timedelta(days=3)

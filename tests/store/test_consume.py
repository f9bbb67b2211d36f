"""store.consume: the one consume-once step the hook and recall share."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_skill.store.consume import consume
from session_skill.store.lock import LockTimeout, file_lock
from tests.conftest import write_doc


def _store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    write_doc(store, "plan")
    (store / "LATEST").write_text("plan\n")
    return store


def test_consumes_once_and_clears_latest(tmp_path: Path) -> None:
    store = _store(tmp_path)
    text = consume(str(store), "plan", by="hook", stamp="2026-11-29T18:31:00Z", timeout=1)
    assert text is not None and "consumed: false" in text  # the doc as it was
    doc = (store / "plan.md").read_text()
    assert "consumed: true" in doc and "consumed_by: hook" in doc
    assert "consumed_at: 2026-11-29T18:31:00Z" in doc
    assert not (store / "LATEST").exists()
    assert consume(str(store), "plan", by="recall", stamp="x", timeout=1) is None


def test_already_consumed_still_clears_a_latest_naming_it(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_doc(store, "plan", consumed=True)
    (store / "LATEST").write_text("plan\n")
    assert consume(str(store), "plan", by="hook", stamp="x", timeout=1) is None
    assert not (store / "LATEST").exists()


def test_the_gate_refuses_and_nothing_changes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    before = (store / "plan.md").read_bytes()
    assert (
        consume(str(store), "plan", by="hook", stamp="x", timeout=1, gate=lambda t: False) is None
    )
    assert (store / "plan.md").read_bytes() == before
    assert (store / "LATEST").exists()


def test_a_missing_or_symlinked_doc_is_not_consumed(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert consume(str(store), "gone", by="hook", stamp="x", timeout=1) is None
    (store / "plan.md").rename(store / "real.md")
    (store / "plan.md").symlink_to(store / "real.md")
    assert consume(str(store), "plan", by="hook", stamp="x", timeout=1) is None
    assert "consumed: false" in (store / "real.md").read_text()


def test_a_held_lock_times_out(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with file_lock(store / ".lock"):
        with pytest.raises(LockTimeout):
            consume(str(store), "plan", by="hook", stamp="x", timeout=0.05)
    assert "consumed: false" in (store / "plan.md").read_text()

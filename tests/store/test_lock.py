"""The writer lock: exclusive, with a deadline."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_skill.store import lock


def test_file_lock_times_out_while_another_holder_has_it(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    with lock.file_lock(path):
        with pytest.raises(lock.LockTimeout):
            with lock.file_lock(path, timeout=0.05):
                pass
    with lock.file_lock(path, timeout=0.05):
        pass  # released: taken at once

"""The store's writer lock: one exclusive `flock`, with a deadline.

Standard library only, cheap modules only: the hooks take it too.
"""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


class LockTimeout(Exception):
    pass


@contextmanager
def file_lock(lock_path: str | Path, timeout: float | None = None) -> Iterator[None]:
    """Exclusive flock on `lock_path`; `timeout` None waits forever."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        if timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(str(lock_path)) from None
                    time.sleep(0.005)
        yield
    finally:
        os.close(fd)

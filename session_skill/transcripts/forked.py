"""Work done by a forked process on the machine's other core, its result marshalled back.

The capture reads the later half of a big transcript's middle this way (`quick`), and the
sweep the tail of a very long conversation, or the loose ends of all of it past its first
requests (`scan`). Whatever goes wrong — no fork, a child that dies or says nothing
readable — the result is None and the caller does the work itself: a helper only ever
saves time, and what it returns is what the caller would have computed (plain data that
`marshal` carries: tuples, lists, strings, numbers, None).
"""

from __future__ import annotations

import marshal
import os
import signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class Forked:
    """`work()` run in a forked child while this process goes on; `result()` waits for it."""

    __slots__ = ("pid", "fd")

    def __init__(self, work: Callable[[], object]) -> None:
        self.pid = 0
        self.fd = -1
        if not hasattr(os, "fork"):
            return
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return
        if pid == 0:  # the helper: work, send, and go — no exit handler, no flush of ours
            code = 1
            try:
                os.close(read_end)
                data = marshal.dumps(work())  # type: ignore[arg-type]
                with open(write_end, "wb") as out:
                    out.write(data)
                code = 0
                _keep_compiled()
            finally:
                os._exit(code)
        os.close(write_end)
        self.pid, self.fd = pid, read_end

    def result(self) -> object | None:
        """What `work()` returned; None when the helper could not say."""
        if self.fd == -1:
            return None
        chunks: list[bytes] = []
        try:
            while chunk := os.read(self.fd, 1 << 20):
                chunks.append(chunk)
        except OSError:
            return None
        if self._reaped() != 0:
            return None
        try:
            return marshal.loads(b"".join(chunks))  # type: ignore[no-any-return]
        except (ValueError, EOFError, TypeError):
            return None

    def _reaped(self) -> int:
        pid, self.pid = self.pid, 0
        if not pid:
            return -1
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return -1
        return os.waitstatus_to_exitcode(status)

    def close(self) -> None:
        """Stop a helper whose result is not wanted (or already read), and reap it."""
        if self.fd != -1:
            os.close(self.fd)
            self.fd = -1
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            self._reaped()


def _keep_compiled() -> None:
    """Keep the patterns the helper compiled (`recache`) for the next run's helper: no exit
    handler saves them here. Only a run that compiled one writes; later runs load them."""
    import sys

    recache = sys.modules.get("session_skill.recache")
    if recache is not None:
        recache.save()

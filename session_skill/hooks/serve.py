"""The step every hook process shares: read the payload, answer it, print, exit 0.

Standard library only, and only cheap modules: this runs at every session start. A hook
never breaks a session: whatever happens it exits 0, and a failure is one line on stderr
(`warner`), or — where the client shows nothing of stderr — in the answer itself.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_PAYLOAD = 1 << 20  # a hook payload is a few hundred bytes
READ_TIMEOUT = 3.0  # seconds to wait for stdin to reach EOF


def read_stdin() -> bytes | None:
    """The payload, or None: no stdin, a terminal, over MAX_PAYLOAD, or no EOF in time."""
    import select
    import time

    stream = sys.stdin
    if stream is None:
        return None
    try:
        fd = stream.fileno()
        if os.isatty(fd):
            return None
    except (OSError, ValueError):
        return None
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + READ_TIMEOUT
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_PAYLOAD:
            return None
        chunks.append(chunk)


def payload_dict(payload: bytes, event: str) -> dict[str, object] | None:
    """The payload as a dict when it is JSON naming `event`; None for anything else."""
    if len(payload) > MAX_PAYLOAD:
        return None
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):  # RecursionError: `[[[[…` nested 100,000 deep
        return None
    if not isinstance(data, dict) or data.get("hook_event_name") != event:
        return None
    return data


def text_field(data: dict[str, object], key: str) -> str | None:
    """A payload's string field: non-empty, no NUL; None otherwise."""
    value = data.get(key)
    return value if isinstance(value, str) and value and "\0" not in value else None


def context_output(event: str, context: str, message: str) -> str:
    """The hook's JSON: the model's context, and one line shown to the user."""
    out: dict[str, object] = {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": context},
        "systemMessage": " ".join(message.split()),
    }
    return json.dumps(out, ensure_ascii=False) + "\n"


def message_output(message: str) -> str:
    """The hook's JSON when only the user is told something."""
    return json.dumps({"systemMessage": " ".join(message.split())}, ensure_ascii=False) + "\n"


# The warnings of the hook `serve` runs, said as one line when it ends: a read-only store
# fails its every write, and the user is promised one line (docs/hooks.md).
_held: list[tuple[str, str]] | None = None


def warner(prefix: str) -> Callable[[str], None]:
    """A `warn(message)` writing one line `<prefix><message>` to stderr, never raising;
    inside `serve`, at its end, with the hook's other warnings."""

    def warn(message: str) -> None:
        said = " ".join(message.split())[:500]
        if _held is not None:
            _held.append((prefix, said))
        else:
            _write(prefix + said)

    return warn


def _write(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def serve(
    answer: Callable[..., str],
    warn: Callable[[str], None],
    expected: tuple[type[BaseException], ...] = (),
) -> int:
    """A hook process: the payload from stdin, `answer(payload, env=…)` to stdout, exit 0.

    Whatever happens, the session goes on: an `expected` failure is warned about by its
    message, anything else by its type too — one line with the warnings before it.
    """
    global _held
    _held = []
    try:
        payload = read_stdin()
        out = answer(payload, env=os.environ) if payload else ""
        if out:
            sys.stdout.buffer.write(out.encode("utf-8"))
            sys.stdout.flush()
    except expected as exc:
        warn(str(exc))
    except BaseException as exc:
        warn(f"{type(exc).__name__}: {exc}")
    finally:
        said, _held = _held, None
        if said:
            _write(said[0][0] + "; ".join(message for _, message in said))
    return 0

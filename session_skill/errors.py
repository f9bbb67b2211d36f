"""One error family, and the one place that maps errors to exit codes (SPEC §7)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # the hook imports this module: no runtime import for annotations
if TYPE_CHECKING:
    from collections.abc import Callable

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_OVER_CAP = 3
EXIT_CHOICE = 4
EXIT_INTERRUPTED = 130


class SessionError(Exception):
    """An expected failure: printed as one `error: …` line on stderr, exit 1."""

    exit_code = EXIT_FAIL

    def __init__(self, message: str, *, stdout: str = "") -> None:
        super().__init__(message)
        self.message = message
        # Extra text for stdout (e.g. the list shown when nothing matched).
        self.stdout = stdout


class UsageError(SessionError):
    exit_code = EXIT_USAGE


class OverCapError(SessionError):
    """The handover is over the token cap; stdout carries the per-section counts."""

    exit_code = EXIT_OVER_CAP


class ChoiceNeeded(SessionError):
    """A choice is needed (ambiguous match, unknown flags, no mode): stdout lists the options."""

    exit_code = EXIT_CHOICE


class StoreError(SessionError):
    """The store cannot be used safely (symlink out, not UTF-8, read-only…)."""


def run_command(call: Callable[[], object]) -> int:
    """Run one CLI command and return its exit code; an error becomes what the user sees.

    Shared by the Typer CLI and the fast path (`fastpath.py`), so both answer alike: an
    expected failure is its stdout and one `error: …` line; a bug is one line pointing at
    a log with the traceback, never the traceback itself.
    """
    try:
        code = call()
    except SessionError as exc:
        if exc.stdout:
            print(exc.stdout)
        print(f"error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except SystemExit as exc:
        status = exc.code
        return status if isinstance(status, int) else (0 if status is None else 1)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the file system said no (read-only, full, permissions)
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAIL
    except Exception as exc:  # a bug: one line for the user, the traceback to a log
        log = _log_traceback()
        print(f"error: unexpected {type(exc).__name__}: {exc} (details: {log})", file=sys.stderr)
        return EXIT_FAIL
    return code if isinstance(code, int) else EXIT_OK


def _log_traceback() -> str:
    """The traceback in a new file of the temp folder, made for it (O_EXCL, mode 0600): a
    fixed name there (`session-skill-error.log`) was written through a link another user of
    the machine put in its place, or could not be written when another user's stood there."""
    import os
    import tempfile
    import traceback

    try:
        fd, path = tempfile.mkstemp(prefix="session-skill-error-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(traceback.format_exc())
    except OSError:
        return "no log written"
    return path

"""One error family; `cli.run` maps each to its exit code (SPEC §7)."""

from __future__ import annotations

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

"""Transcript lines as the clients write them: compact JSON, no space after ',' or ':'.

The reader's fast paths take only such lines (`transcripts.claude.ClaudeParser.quick`);
lines written with `json.dumps`' default spacing go through the full parse, and a test
written so would not see what a fast path does — a successful Edit's result skipped
unparsed once left the sweep counting no file written, and no spaced test showed it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def line(record: Any) -> str:
    """One record as a transcript line (no newline)."""
    return json.dumps(record, separators=(",", ":"))


def write(path: Path, records: list[Any]) -> Path:
    """The records as a transcript file; a str among them is written as it is."""
    path.write_text(
        "".join((r if isinstance(r, str) else line(r)) + "\n" for r in records), "utf-8"
    )
    return path

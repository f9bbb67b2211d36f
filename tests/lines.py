"""Transcript lines as the clients write them: compact JSON, no space after ',' or ':', and
text as UTF-8 — only a lone surrogate escaped (`\\ud800`), as Node's `JSON.stringify` does.

The reader's fast paths take only such lines (`transcripts.claude.ClaudeParser.quick`);
lines written with `json.dumps`' default spacing go through the full parse, and a test
written so would not see what a fast path does — a successful Edit's result skipped
unparsed once left the sweep counting no file written, and no spaced test showed it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def line(record: Any) -> str:
    """One record as a transcript line (no newline)."""
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write(path: Path, records: list[Any]) -> Path:
    """The records as a transcript file; a str among them is written as it is."""
    path.write_text(
        "".join((r if isinstance(r, str) else line(r)) + "\n" for r in records), "utf-8"
    )
    return path

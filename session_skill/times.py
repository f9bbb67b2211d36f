"""Clock and age formatting shared by the commands."""

from __future__ import annotations

import os
from datetime import datetime, timezone


def utcnow() -> datetime:
    """Now in UTC; `SESSION_SKILL_NOW` (ISO) pins it for tests and the demo."""
    pinned = os.environ.get("SESSION_SKILL_NOW")
    if pinned:
        from session_skill.handover.doc import parse_time

        dt = parse_time(pinned)
        if dt is not None:
            return dt
    return datetime.now(timezone.utc).replace(microsecond=0)


def age(seconds: float) -> str:
    """`<1 min`, `N min`, `N h`, `N d` (SPEC §7.4)."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return "<1 min"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} d"

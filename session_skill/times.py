"""Time, in one place: the clock, the stored format, parsing, ages (SPEC §4.1, §7.4).

The hooks import this at every session start, so `datetime` is imported only inside the
functions that return one: `epoch` reads the stored `YYYY-MM-DDTHH:MM:SSZ` by arithmetic
(`datetime` with its helpers costs the hook a sixth of Python's start-up) and falls back
to `parse_time` for anything else. tests/test_times.py checks that the two agree.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

TIME_FMT = "%Y-%m-%dT%H:%M:%SZ"


def utcnow() -> datetime:
    """Now in UTC; `SESSION_SKILL_NOW` (ISO) pins it for tests and the demo."""
    from datetime import datetime, timezone

    pinned = parse_time(os.environ.get("SESSION_SKILL_NOW"))
    if pinned is not None:
        return pinned
    return datetime.now(timezone.utc).replace(microsecond=0)


def now_epoch(env: Mapping[str, str] | None = None) -> float:
    """`utcnow()` as seconds since the epoch, without `datetime` in the common case."""
    pinned = epoch((os.environ if env is None else env).get("SESSION_SKILL_NOW"))
    return time.time() if pinned is None else pinned


def format_time(dt: datetime) -> str:
    """The stored form: `YYYY-MM-DDTHH:MM:SSZ`, UTC."""
    from datetime import timezone

    return dt.astimezone(timezone.utc).strftime(TIME_FMT)


def format_epoch(seconds: float) -> str:
    """`format_time` for seconds since the epoch."""
    return time.strftime(TIME_FMT, time.gmtime(seconds))


def parse_time(value: str | None) -> datetime | None:
    """`YYYY-MM-DDTHH:MM:SSZ` (and ISO variants people hand-write) as aware UTC."""
    if not value:
        return None
    from datetime import datetime, timezone

    v = value.strip().strip("'\"")
    if v.endswith("Z"):
        v = v[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(v.replace(" ", "T", 1) if "T" not in v else v)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    try:
        return dt.astimezone(timezone.utc)
    except OverflowError:  # `0001-01-01T00:00:00+05:00` is before year 1 in UTC
        return None


def epoch(value: str | None) -> float | None:
    """`parse_time(value)` as seconds since the epoch, the stored form read by arithmetic."""
    if not value:
        return None
    v = value
    canonical = (
        len(v) == 20 and v.isascii() and v[4] + v[7] + v[10] + v[13] + v[16] + v[19] == "--T::Z"
    )
    digits = v[:4] + v[5:7] + v[8:10] + v[11:13] + v[14:16] + v[17:19] if canonical else ""
    if digits.isdigit():  # YYYY-MM-DDTHH:MM:SSZ, ASCII digits (a string compare, no regex)
        year, month, day = int(digits[:4]), int(digits[4:6]), int(digits[6:8])
        hour, minute, second = int(digits[8:10]), int(digits[10:12]), int(digits[12:14])
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        month_days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
        if year >= 1 and 1 <= month <= 12 and 1 <= day <= month_days[month - 1]:
            if hour < 24 and minute < 60 and second < 60:
                days = _days_from_civil(year, month, day)
                return float(days * 86400 + hour * 3600 + minute * 60 + second)
    dt = parse_time(value)
    return None if dt is None else dt.timestamp()


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


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

"""times: one clock, one stored format; the hook's arithmetic parser agrees with parse_time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill import times


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-29T18:30:00Z", datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)),
        ("2026-11-29T19:30:00+01:00", datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)),
        ("2026-11-29 18:30:00", datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)),
        ("'2026-11-29T18:30:00Z'", datetime(2026, 11, 29, 18, 30, tzinfo=timezone.utc)),
        ("2026-11-29", datetime(2026, 11, 29, tzinfo=timezone.utc)),
        ("yesterday", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_time(value: str | None, expected: datetime | None) -> None:
    assert times.parse_time(value) == expected


def test_format_time() -> None:
    dt = datetime(2026, 11, 29, 18, 30, 5, 123, tzinfo=timezone.utc)
    assert times.format_time(dt) == "2026-11-29T18:30:05Z"
    assert times.parse_time(times.format_time(dt)) == dt.replace(microsecond=0)


@given(
    st.datetimes(
        min_value=datetime(1000, 1, 1),
        max_value=datetime(9999, 12, 30),
        timezones=st.just(timezone.utc),
    )
)
def test_epoch_agrees_with_parse_time_on_the_stored_form(dt: datetime) -> None:
    text = times.format_time(dt)
    parsed = times.parse_time(text)
    assert parsed is not None
    assert times.epoch(text) == parsed.timestamp()


@given(st.text(max_size=30))
def test_epoch_agrees_with_parse_time_on_anything(text: str) -> None:
    parsed = times.parse_time(text)
    assert times.epoch(text) == (None if parsed is None else parsed.timestamp())


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-29T00:00:00Z",  # not a leap year
        "2024-02-29T23:59:59Z",
        "2026-13-01T00:00:00Z",
        "2026-11-29T24:00:00Z",
        "２０２６-11-29T18:30:00Z",  # non-ASCII digits
        "2026-11-29T18:30:00+01:00",
    ],
)
def test_epoch_edge_cases_match(text: str) -> None:
    parsed = times.parse_time(text)
    assert times.epoch(text) == (None if parsed is None else parsed.timestamp())


def test_format_epoch_is_format_time() -> None:
    dt = datetime(2026, 11, 29, 18, 30, 5, tzinfo=timezone.utc)
    assert times.format_epoch(dt.timestamp()) == times.format_time(dt)


def test_now_epoch_follows_the_pinned_clock() -> None:
    pinned = datetime(2026, 11, 29, 18, 0, tzinfo=timezone.utc)
    env = {"SESSION_SKILL_NOW": times.format_time(pinned)}
    assert times.now_epoch(env) == pinned.timestamp()
    assert abs(times.now_epoch({}) - datetime.now(timezone.utc).timestamp()) < 5


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-5, "<1 min"),
        (59, "<1 min"),
        (60, "1 min"),
        (3599, "59 min"),
        (3600, "1 h"),
        (timedelta(days=3).total_seconds(), "3 d"),
    ],
)
def test_age(seconds: float, shown: str) -> None:
    assert times.age(seconds) == shown

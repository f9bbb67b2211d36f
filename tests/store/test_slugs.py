"""Slugs (SPEC §5): names, auto slugs, numbering, parked-item slugs."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from session_skill.errors import SessionError
from session_skill.store.slugs import auto_slug, item_slug, name_slug, numbered, slugify, stamp
from session_skill.store.store import valid_slug

NOW = datetime(2026, 11, 29, 18, 30, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Plan X", "plan-x"),
        ("feat: Auth Tokens!", "feat-auth-tokens"),
        ("Café déjà", "cafe-deja"),
        ("v1.2 release", "v1-2-release"),
        ("a" * 80, "a" * 60),
        ("word " * 30, ("word-" * 12)[:-1]),
    ],
)
def test_name_slug(name: str, slug: str) -> None:
    got = name_slug(name)
    assert got == slug
    assert len(got) <= 60 and valid_slug(got)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("a/b", "may not contain"),
        ("..", "may not contain"),
        ("x..y", "may not contain"),
        ("a\\b", "may not contain"),
        ("!!!", "no letters or digits"),
        ("   ", "no letters or digits"),
        ("Latest", "reserved"),
        ("PARKED", "reserved"),
        ("dropped", "reserved"),
        ("a\nb", "control characters"),
        ("a\0b", "control characters"),
    ],
)
def test_name_slug_refusals_say_why(name: str, why: str) -> None:
    with pytest.raises(SessionError) as info:
        name_slug(name)
    assert why in info.value.message
    assert info.value.message.startswith("refused name")


def test_slugify_is_lowercase_and_bounded() -> None:
    assert slugify("Hello World") == "hello-world"
    assert len(slugify("x" * 200)) == 60


@pytest.mark.parametrize(
    ("branch", "slug"),
    [
        ("main", "main-2026-11-29T18-30-00Z"),
        ("feat/auth", "feat-auth-2026-11-29T18-30-00Z"),
        ("feat/ünïcode branch", "feat--n-code-branch-2026-11-29T18-30-00Z"),
        ("detached", "detached-2026-11-29T18-30-00Z"),
        (None, "session-2026-11-29T18-30-00Z"),
        ("/", "session-2026-11-29T18-30-00Z"),
        ("x" * 200, "x" * 90 + "-2026-11-29T18-30-00Z"),
    ],
)
def test_auto_slug(branch: str | None, slug: str) -> None:
    got = auto_slug(branch, NOW)
    assert got == slug
    assert valid_slug(got)


def test_stamp() -> None:
    assert stamp(NOW) == "2026-11-29T18-30-00Z"


def test_numbered_stays_within_the_limit() -> None:
    assert numbered("plan", 1) == "plan"
    assert numbered("plan", 2) == "plan-2"
    long = "a" * 120
    assert numbered(long, 12) == "a" * 117 + "-12"
    assert valid_slug(numbered(long, 999))


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("retry backoff revisit exponential vs linear", "retry-backoff-revisit-exponential-vs"),
        ("**bold** `code` _em_", "bold-code-em"),
        ('weird -- "quoted" $HOME `tick` idea', "weird-quoted-home-tick-idea"),
        ("!!!", "item"),
    ],
)
def test_item_slug(text: str, slug: str) -> None:
    got = item_slug(text)
    assert got == slug
    assert len(got) <= 40

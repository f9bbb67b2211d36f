"""A method wrapped to note something after each call, the call itself unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


def after_each(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str, seen: Callable[[Any, Any], T]
) -> list[T]:
    """Wrap `owner.name`: after each call, `seen(first argument, result)` is appended to the
    list returned (the first argument of a method is its instance)."""
    noted: list[T] = []
    original = getattr(owner, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        noted.append(seen(args[0] if args else None, result))
        return result

    monkeypatch.setattr(owner, name, spy)
    return noted

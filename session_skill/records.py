"""Value classes for the commands the model runs in its loop, without `dataclasses`.

`dataclasses` imports `inspect` (and with it ast, dis, tokenize…): about half of Python's
own start-up, paid by every `list`, `park` or `drop` for a handful of small classes. A
`Record` subclass names its fields in `__slots__` and gets what those classes used from
`@dataclass`: equality field by field within the class, a dataclass-style repr, and for
`FrozenRecord` immutability, a hash and `replace`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs more to import than this module
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _F = TypeVar("_F", bound="FrozenRecord")


class Record:
    __slots__: tuple[str, ...] = ()

    def _set(self, *values: object) -> None:
        """For `__init__`: store the fields, in `__slots__` order (said once, not a line
        a field; a class made by the thousand sets its fields itself, which is quicker)."""
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined, no-any-return]

    __hash__ = None  # type: ignore[assignment]  # mutable, like a plain dataclass

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"


class FrozenRecord(Record):
    __slots__: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._fields())

    def replace(self: _F, **changes: Any) -> _F:
        """A copy with some fields changed (dataclasses.replace)."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return type(self)(**values)

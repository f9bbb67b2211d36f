"""Value classes for the commands the model runs in its loop, without `dataclasses`.

`dataclasses` imports `inspect` (and with it ast, dis, tokenize…): about half of Python's
own start-up, paid by every `list`, `park` or `drop` for a handful of small classes. A
`Record` subclass names its fields in `__slots__` and gets what those classes used from
`@dataclass`: equality field by field within the class, a dataclass-style repr, and for
`FrozenRecord` immutability, a hash and `replace`.

`@record` is the same for classes with many fields and defaults (the transcript's events,
the sweep's facts): a decorator like `@dataclass`, read by mypy as one (`dataclass_transform`).
The hooks build twenty such classes on every capture at a session boundary.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs more to import than this module
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _F = TypeVar("_F", bound="FrozenRecord")
    _R = TypeVar("_R")


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
        return replace(self, **changes)


# ---------------------------------------------------------------- @record: a dataclass, cheaper

_MISSING = object()


class _Field:
    __slots__ = ("default", "factory", "compare", "repr")

    def __init__(self, default: object, factory: object, compare: bool, repr: bool) -> None:
        self.default = default
        self.factory = factory
        self.compare = compare
        self.repr = repr


def field(
    *,
    default: Any = _MISSING,
    default_factory: Any = _MISSING,
    compare: bool = True,
    repr: bool = True,
) -> Any:
    """dataclasses.field, for `@record`: a default or a factory, and whether the field is
    compared (`==`, the hash) and shown (`repr`)."""
    return _Field(default, default_factory, compare, repr)


if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: object) -> Any:
        return lambda decorator: decorator


@dataclass_transform(field_specifiers=(field,))
def record(cls: Any = None, /, *, frozen: bool = False) -> Any:
    """`@dataclass(slots=True)` (or `frozen=True`) for the classes the hooks build, at a
    fraction of its cost: importing `dataclasses` (with `inspect`) and building a class with
    it cost the capture at /clear ~45 ms for its twenty classes; this builds each with one
    small `exec` (its `__init__`, `__eq__` and, frozen, `__hash__`).

    What it gives is what those classes used: fields from the annotations, in order, with
    defaults or `field(...)`; slots; equality over the compared fields within the class; a
    dataclass-style repr; frozen: no assignment, a hash. `replace()` copies with changes."""

    def wrap(cls: Any) -> Any:
        return _build(cls, frozen)

    return wrap if cls is None else wrap(cls)


def replace(obj: _R, **changes: Any) -> _R:
    """dataclasses.replace, for a `@record` class."""
    values = {name: getattr(obj, name) for name in obj.__slots__}  # type: ignore[attr-defined]
    values.update(changes)
    return type(obj)(**values)


def _build(cls: Any, frozen: bool) -> Any:
    body = dict(cls.__dict__)
    names: list[str] = []
    params: list[str] = []
    sets: list[str] = []
    env: dict[str, object] = {"_MISSING": _MISSING, "_set": object.__setattr__}
    compared: list[str] = []
    shown: list[str] = []
    for name, note in body.get("__annotations__", {}).items():
        if "ClassVar" in str(note):
            continue
        value = body.pop(name, _MISSING)
        spec = value if isinstance(value, _Field) else _Field(value, _MISSING, True, True)
        names.append(name)
        if spec.compare:
            compared.append(name)
        if spec.repr:
            shown.append(name)
        if spec.factory is not _MISSING:
            env[f"_f_{name}"] = spec.factory
            params.append(f"{name}=_MISSING")
            value_src = f"_f_{name}() if {name} is _MISSING else {name}"
        elif spec.default is not _MISSING:
            env[f"_d_{name}"] = spec.default
            params.append(f"{name}=_d_{name}")
            value_src = name
        else:
            if params and "=" in params[-1]:
                raise TypeError(f"{cls.__name__}: non-default field {name!r} after a default")
            params.append(name)
            value_src = name
        sets.append(
            f"    _set(self, {name!r}, {value_src})" if frozen else f"    self.{name} = {value_src}"
        )
    own = ", ".join(f"self.{n}" for n in compared) + ("," if len(compared) == 1 else "")
    other = ", ".join(f"other.{n}" for n in compared) + ("," if len(compared) == 1 else "")
    src = [
        f"def __init__(self, {', '.join(params)}):" if params else "def __init__(self):",
        *(sets or ["    pass"]),
        "def __eq__(self, other):",
        "    if other.__class__ is not self.__class__:",
        "        return NotImplemented",
        f"    return ({own}) == ({other})",
    ]
    if frozen:
        src += ["def __hash__(self):", f"    return hash(({own}))"]
    from session_skill import recache

    exec(recache.code("\n".join(src)), env)  # noqa: S102 - the source is built above
    for key in ("__dict__", "__weakref__"):
        body.pop(key, None)
    body.update(
        __slots__=tuple(names),
        __init__=env["__init__"],
        __eq__=env["__eq__"],
        __hash__=env["__hash__"] if frozen else None,
        __repr__=_repr,
        _shown=tuple(shown),
    )
    if frozen:
        # FrozenRecord's refusals: one wording for every frozen class.
        body.update(
            __setattr__=FrozenRecord.__setattr__,
            __delattr__=FrozenRecord.__delattr__,
            __setstate__=_frozen_state,
        )
    new = type(cls)(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    for function in (new.__init__, new.__eq__):
        function.__qualname__ = f"{cls.__qualname__}.{function.__name__}"
    return new


def _repr(self: Any) -> str:
    fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
    return f"{type(self).__qualname__}({fields})"


def _frozen_state(self: Any, state: tuple[None, dict[str, object]]) -> None:
    for name, value in state[1].items():  # what pickle gives a slotted class back
        object.__setattr__(self, name, value)

"""`records.record`: what the hooks' classes took from `@dataclass`, without importing it."""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys

import pytest

from session_skill.records import field, record, replace


@record
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", compare=False, repr=False)


@record(frozen=True)
class Key:
    name: str
    line: int | None = field(default=None, compare=False)


@dataclasses.dataclass
class PointDC:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)
    note: str = dataclasses.field(default="", compare=False, repr=False)


def test_init_defaults_and_a_fresh_factory_value_each_time() -> None:
    a, b = Point(1), Point(x=2, y=3, tags=["t"])
    assert (a.x, a.y, a.tags, a.note) == (1, 0, [], "")
    assert (b.x, b.y, b.tags) == (2, 3, ["t"])
    a.tags.append("mine")
    assert Point(1).tags == []
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, [], "n", "extra")  # type: ignore[call-arg]


def test_equality_repr_and_hash_as_a_dataclass_has_them() -> None:
    assert Point(1, 2, note="a") == Point(1, 2, note="b")  # `note` is not compared
    assert Point(1, 2) != Point(1, 3)
    assert Point(1) != PointDC(1)  # another class, even with the same fields
    assert repr(Point(1, 2, ["t"], "hidden")).replace("Point", "PointDC") == repr(
        PointDC(1, 2, ["t"], "hidden")
    ).replace("test_equality_repr_and_hash_as_a_dataclass_has_them.<locals>.", "")
    with pytest.raises(TypeError):
        hash(Point(1))  # mutable: unhashable, like a plain dataclass
    assert hash(Key("a", 1)) == hash(Key("a", 2)) and Key("a", 1) == Key("a", 2)
    assert {Key("a"), Key("a", 5), Key("b")} == {Key("a"), Key("b")}


def test_frozen_refuses_assignment_and_replace_copies() -> None:
    key = Key("a", 3)
    with pytest.raises(AttributeError):
        key.name = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del key.name  # type: ignore[misc]
    moved = replace(key, line=None)
    assert (moved.name, moved.line, key.line) == ("a", None, 3)
    point = replace(Point(1, tags=["t"]), y=9)
    assert (point.x, point.y, point.tags) == (1, 9, ["t"])


def test_slotted_and_picklable() -> None:
    point = Point(1)
    with pytest.raises(AttributeError):
        point.z = 1  # type: ignore[attr-defined]
    assert not hasattr(point, "__dict__")
    assert pickle.loads(pickle.dumps(Key("a", 3))) == Key("a", 3)
    assert pickle.loads(pickle.dumps(point)) == point


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="non-default field 'b'"):

        @record
        class Bad:
            a: int = 0
            b: int


def test_the_capture_path_imports_neither_dataclasses_nor_typing() -> None:
    """What the SessionEnd and PreCompact captures load: the records save them
    `dataclasses` (with `inspect`), `typing` and ~1.5 ms a class."""
    code = (
        "import sys\n"
        "import session_skill.hooks.session_end, session_skill.hooks.pre_compact\n"
        "import session_skill.commands.dump, session_skill.commands.observe\n"
        "import session_skill.commands.sweep, session_skill.transcripts.quick\n"
        "import session_skill.git.info, session_skill.handover.tokens\n"
        "print(sorted(m for m in ('dataclasses', 'inspect', 'typing') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""fileio: atomic writes, exclusive create, whole-line appends, strict UTF-8, the lock."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from session_skill.errors import StoreError
from session_skill.store import fileio


def _leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if fileio.is_tmp_name(p.name)]


def test_atomic_write_creates_and_replaces_without_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "PARKED.md"
    fileio.atomic_write(target, b"one\n")
    assert target.read_bytes() == b"one\n"
    fileio.atomic_write(target, b"two\r\n")
    assert target.read_bytes() == b"two\r\n"
    assert _leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["PARKED.md"]


def test_original_survives_a_failed_replace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "PARKED.md"
    target.write_bytes(b"original\n")

    def boom(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        fileio.atomic_write(target, b"new content\n")
    assert target.read_bytes() == b"original\n"
    assert _leftovers(tmp_path) == []


def test_atomic_write_replaces_a_symlink_instead_of_writing_through_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep me\n")
    store = tmp_path / "store"
    store.mkdir()
    link = store / "LATEST"
    link.symlink_to(outside)
    fileio.atomic_write(link, b"slug\n")
    assert outside.read_bytes() == b"keep me\n"
    assert not link.is_symlink()
    assert link.read_bytes() == b"slug\n"


def test_create_exclusive_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "doc.md"
    assert fileio.create_exclusive(target, b"first\n") is True
    assert fileio.create_exclusive(target, b"second\n") is False
    assert target.read_bytes() == b"first\n"
    assert _leftovers(tmp_path) == []


def test_create_exclusive_without_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    def no_links(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "doc.md"
    assert fileio.create_exclusive(target, b"first\n") is True
    assert fileio.create_exclusive(target, b"second\n") is False
    assert target.read_bytes() == b"first\n"
    assert _leftovers(tmp_path) == []


def test_append_line_writes_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "dropped.jsonl"
    fileio.append_line(log, '{"a": 1}')
    fileio.append_line(log, '{"b": 2}\n')
    assert log.read_text() == '{"a": 1}\n{"b": 2}\n'


def test_append_line_starts_fresh_after_a_partial_line(tmp_path: Path) -> None:
    log = tmp_path / "dropped.jsonl"
    log.write_bytes(b'{"a": 1}\n{"trunc')
    fileio.append_line(log, '{"b": 2}')
    assert log.read_bytes() == b'{"a": 1}\n{"trunc\n{"b": 2}\n'


def test_append_line_refuses_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("x\n")
    link = tmp_path / "dropped.jsonl"
    link.symlink_to(outside)
    with pytest.raises(OSError):
        fileio.append_line(link, "{}")
    assert outside.read_text() == "x\n"


def test_read_text_keeps_crlf_and_drops_a_bom(tmp_path: Path) -> None:
    p = tmp_path / "f.md"
    p.write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    assert fileio.read_text(p) == "a\r\nb\r\n"


def test_read_text_refuses_non_utf8_naming_the_file(tmp_path: Path) -> None:
    p = tmp_path / "PARKED.md"
    p.write_bytes(b"- caf\xe9\n")
    with pytest.raises(StoreError) as info:
        fileio.read_text(p)
    assert str(p) in info.value.message
    assert "UTF-8" in info.value.message


@pytest.mark.parametrize(
    ("text", "newline"),
    [("a\nb\n", "\n"), ("a\r\nb\r\n", "\r\n"), ("no ending", "\n"), ("\nx", "\n"), ("", "\n")],
)
def test_newline_of(text: str, newline: str) -> None:
    assert fileio.newline_of(text) == newline


def test_tmp_names_are_recognised(tmp_path: Path) -> None:
    name = fileio.tmp_name(tmp_path / "PARKED.md").name
    assert fileio.is_tmp_name(name)
    assert not fileio.is_tmp_name("PARKED.md")
    assert not fileio.is_tmp_name(".gitignore")

"""settings_file: settings files read with a refusal naming them, written back in their style."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from session_skill.errors import SessionError
from session_skill.install import settings_file as jsonfile


@pytest.mark.parametrize(
    "raw",
    [
        b'{\n  "a": 1,\n  "b": [\n    2\n  ]\n}\n',
        b'\xef\xbb\xbf{\r\n\t"a": 1,\r\n\t"b": [\r\n\t\t2\r\n\t]\r\n}',
        b'{"a":1,"b":[2]}',
        b'{"a": 1, "b": [2]}\n',
    ],
)
def test_a_rewrite_keeps_the_files_style(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(raw)
    data = jsonfile.read_json(path, "settings.json")
    assert data == {"a": 1, "b": [2]}
    style = jsonfile.style_of(jsonfile.read_bytes(path, "settings.json"))
    assert jsonfile.dump_json(data, style) == raw
    assert jsonfile.edit_json(raw, data) == raw  # nothing changed: not a byte
    # What an edit adds takes the file's style (BOM, line breaks, indent, separators): the
    # same bytes as the whole file written out in that style.
    new = dict(data, c={"d": [3]})
    assert jsonfile.edit_json(raw, new) == jsonfile.dump_json(new, style)


def test_a_missing_file_is_empty_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    assert jsonfile.read_bytes(tmp_path / "none.json", "none.json") is None
    assert jsonfile.read_json(tmp_path / "none.json", "none.json") == {}
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]\n")
    with pytest.raises(SessionError, match="bad.json does not hold a JSON object"):
        jsonfile.read_json(bad, "bad.json")
    bad.write_text('{"a": \n')
    with pytest.raises(SessionError, match=r"bad.json is not valid JSON \(line 2\)"):
        jsonfile.read_json(bad, "bad.json")


def test_an_edit_keeps_the_text_of_what_it_did_not_change() -> None:
    raw = b'{\n    "a": [1, 2],\n    "b": {"x": 1.0, "y": "caf\\u00e9"},\n    "c": 1e3\n}'
    old = json.loads(raw)
    new = dict(old, d={"e": [3]}, a=[1, 2, 4])
    assert jsonfile.edit_json(raw, new) == (
        b'{\n    "a": [1, 2, 4],\n    "b": {"x": 1.0, "y": "caf\\u00e9"},\n    "c": 1e3,\n'
        b'    "d": {\n        "e": [\n            3\n        ]\n    }\n}'
    )
    assert jsonfile.edit_json(jsonfile.edit_json(raw, new), old) == raw
    assert jsonfile.edit_json(None, {"a": 1}) == b'{\n  "a": 1\n}\n'
    assert jsonfile.edit_json(b"{}", {"a": 1}) == b'{\n  "a": 1\n}'

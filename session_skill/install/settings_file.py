"""JSON settings files edited in place (Claude Code's settings.json, Codex's hooks.json):
read with a refusal naming the file, written back in the style they had.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from session_skill.errors import SessionError


def read_bytes(path: Path, shown: str) -> bytes | None:
    """The file's bytes; None when it is not there (`shown`: its name in messages)."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise SessionError(f"{shown} is a directory: not touching it") from None
    except OSError as exc:
        raise SessionError(f"cannot read {shown}: {exc.strerror}") from None


def read_json(path: Path, shown: str) -> dict[str, Any]:
    raw = read_bytes(path, shown)
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8-sig"), parse_constant=_not_json)
    except UnicodeDecodeError:
        raise SessionError(f"{shown} is not UTF-8 text: not touching it") from None
    except json.JSONDecodeError as exc:
        raise SessionError(
            f"{shown} is not valid JSON (line {exc.lineno}): not touching it"
        ) from None
    if not isinstance(data, dict):
        raise SessionError(f"{shown} does not hold a JSON object: not touching it")
    if not os.access(path, os.W_OK) or not os.stat(path).st_mode & stat.S_IWUSR:
        # Read-only on purpose (root may write it all the same): it is the user's to change.
        raise SessionError(f"{shown} is read-only: not touching it")
    return data


def _not_json(word: str) -> Any:
    """`NaN`, `Infinity`: Python reads them, the clients' JSON parsers do not."""
    raise json.JSONDecodeError(f"{word} is not JSON", word, 0)


class JsonStyle:
    """How a settings file is written, so a rewrite keeps it: a BOM, CRLF, its indentation
    (None: all on one line), `"key":value` without a space, a final line break."""

    def __init__(
        self,
        bom: bool = False,
        newline: str = "\n",
        indent: str | None = "  ",
        compact: bool = False,
        final_newline: bool = True,
    ) -> None:
        self.bom = bom
        self.newline = newline
        self.indent = indent
        self.compact = compact
        self.final_newline = final_newline


def json_style(path: Path, shown: str) -> JsonStyle:
    raw = read_bytes(path, shown)
    if raw is None or not raw.strip():
        return JsonStyle()
    bom = raw.startswith(b"\xef\xbb\xbf")
    text = raw.decode("utf-8-sig", "replace")
    body = text.strip()
    indent: str | None = None
    if "\n" in body:
        found = re.search(r"\n([ \t]+)\S", body)
        indent = found.group(1) if found else "  "
    return JsonStyle(
        bom=bom,
        newline="\r\n" if "\r\n" in text else "\n",
        indent=indent,
        compact=re.search(r'"\s*:\s', body) is None,
        final_newline=text.endswith("\n"),
    )


def dump_json(data: dict[str, Any], style: JsonStyle | None = None) -> bytes:
    style = style or JsonStyle()
    if style.indent is None:
        separators = (",", ":") if style.compact else (", ", ": ")
    else:
        separators = (",", ":" if style.compact else ": ")
    text = json.dumps(data, indent=style.indent, separators=separators, ensure_ascii=False)
    if style.final_newline:
        text += "\n"
    text = text.replace("\n", style.newline)  # JSON strings hold `\n` escaped: structure only
    return (b"\xef\xbb\xbf" if style.bom else b"") + text.encode("utf-8")

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


def style_of(raw: bytes | None) -> JsonStyle:
    """The style of a settings file's bytes; ours (two spaces) when it shows none: missing,
    blank, or an empty object (`{}` says nothing about how the user lays a file out)."""
    if raw is None or not raw.strip():
        return JsonStyle()
    bom = raw.startswith(b"\xef\xbb\xbf")
    text = raw.decode("utf-8-sig", "replace")
    body = text.strip()
    newline = "\r\n" if "\r\n" in text else "\n"
    final_newline = text.endswith("\n")
    if re.fullmatch(r"\{\s*\}", body):
        return JsonStyle(bom=bom, newline=newline, final_newline=final_newline)
    indent: str | None = None
    if "\n" in body:
        found = re.search(r"\n([ \t]+)\S", body)
        indent = found.group(1) if found else "  "
    return JsonStyle(
        bom=bom,
        newline=newline,
        indent=indent,
        compact=re.search(r'"\s*:\s', body) is None,
        final_newline=final_newline,
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


def edit_json(raw: bytes | None, new: dict[str, Any]) -> bytes:
    """`new` written over a file whose bytes were `raw` (None: there was none), changing
    only what changed: a value equal to the one it replaces keeps its text as the user wrote
    it (a one-line array, a spacing, `1.0`, a `\\u00e9`); what is new takes the file's style
    (its indent, its separators; a container the user kept on one line stays on one); and
    what came before and after the top-level object (a final line break, or none) stays."""
    style = style_of(raw)
    text = raw.decode("utf-8-sig") if raw is not None and raw.strip() else ""
    root = _parse(text) if text else None
    if root is None:
        return dump_json(new, style)
    old = json.loads(text)  # `_parse` found it JSON (and read_json, the clients' JSON)
    body = _render(new, old, root, text, style, 0, False)
    out = (text[: root.start] + body + text[root.end :]).encode("utf-8")
    return (b"\xef\xbb\xbf" if style.bom else b"") + out


class _Span:
    """Where a JSON value is in the text; an object's members or an array's items too."""

    def __init__(self, start: int, end: int, inner: dict[str, _Span] | list[_Span] | None):
        self.start = start
        self.end = end
        self.inner = inner


_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = json.JSONDecoder()


def _skip(text: str, i: int) -> int:
    """The index of the first character at or after `i` that is not whitespace."""
    found = _WS.match(text, i)
    return found.end() if found else i


def _parse(text: str) -> _Span | None:
    """The spans of a document `json.loads` has already accepted; None if it cannot tell."""
    try:
        span, end = _value(text, _skip(text, 0))
    except (ValueError, IndexError, KeyError, AttributeError):
        return None
    return span if not text[end:].strip() else None


def _value(text: str, i: int) -> tuple[_Span, int]:
    start = i
    if text[i] in "{[":
        members: dict[str, _Span] = {}
        items: list[_Span] = []
        close = "}" if text[i] == "{" else "]"
        i = _skip(text, i + 1)
        while text[i] != close:
            if close == "}":
                key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
                i = _skip(text, i)
                if text[i] != ":":
                    raise ValueError("no colon")
                span, i = _value(text, _skip(text, i + 1))
                members[key] = span  # a repeated key: the last one, as json.loads keeps
            else:
                span, i = _value(text, i)
                items.append(span)
            i = _skip(text, i)
            if text[i] == ",":
                i = _skip(text, i + 1)
            elif text[i] != close:
                raise ValueError("no comma")
        return _Span(start, i + 1, members if close == "}" else items), i + 1
    _, end = _SCALAR.raw_decode(text, i)
    return _Span(start, end, None), end


_NONE = object()  # no old value at this place


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text, not as Python values: `true` is not `1`, nor `1` `1.0`, and a
    reordered object is not the same text."""
    return b is not _NONE and _text(a) == _text(b)


def _render(
    value: Any, old: Any, span: _Span | None, text: str, style: JsonStyle, depth: int, inline: bool
) -> str:
    source = text[span.start : span.end] if span is not None else ""
    if span is not None and _same(value, old):
        return source
    if not isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    inner = span.inner if span is not None else None
    colon = ":" if style.compact else ": "
    parts: list[str] = []
    if isinstance(value, dict):
        members = inner if isinstance(inner, dict) and isinstance(old, dict) else {}
        # The user keeps this one on one line: so does its rewrite, and all in it.
        inline = inline or style.indent is None or bool(members and "\n" not in source)
        for key, item in value.items():
            was = old.get(key, _NONE) if members else _NONE
            rendered = _render(item, was, members.get(key), text, style, depth + 1, inline)
            parts.append(json.dumps(key, ensure_ascii=False) + colon + rendered)
        opening, closing = "{", "}"
    else:
        spans = inner if isinstance(inner, list) and isinstance(old, list) else []
        olds: list[Any] = old if spans else []
        inline = inline or style.indent is None or bool(spans and "\n" not in source)
        was_text = [_text(o) for o in olds]
        used: set[int] = set()
        for n, item in enumerate(value):
            # An item kept as it was (wherever it moved) keeps its text; one changed in place
            # keeps the text of what in it did not change.
            now = _text(item)
            same = (j for j, o in enumerate(was_text) if j not in used and o == now)
            j = next(same, n if n < len(olds) else None)
            if j is None:
                parts.append(_render(item, _NONE, None, text, style, depth + 1, inline))
                continue
            if was_text[j] == now:
                used.add(j)
            parts.append(_render(item, olds[j], spans[j], text, style, depth + 1, inline))
        opening, closing = "[", "]"
    if inline:
        return opening + ("," if style.compact else ", ").join(parts) + closing
    step = style.indent or "  "
    line = style.newline + step * (depth + 1)
    return opening + line + ("," + line).join(parts) + style.newline + step * depth + closing

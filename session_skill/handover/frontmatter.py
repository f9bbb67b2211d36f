"""Flat YAML frontmatter: split, read, render and the consumed flip.

Handover frontmatter is flat `key: scalar` lines. This reader is standard library only
(the hook and `list` read many docs and must not pay for a YAML parser); lines it does
not understand are kept verbatim, never dropped.
"""

from __future__ import annotations

import json
import re

from session_skill.records import Record

# `key: value`; group 2 keeps trailing blanks (unquote strips them): a lazy group that
# left them out would retry the rest of the pattern at every character of the value.
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*))?$")
_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9/._][A-Za-z0-9 /._+@~,()=:-]*$")
# A line closing the frontmatter: `---` or `...`, then only whitespace ("\n" ends lines).
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[^\S\n]*$", re.MULTILINE)
_RESERVED_PLAIN = frozenset({"", "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n"})


class Split(Record):
    __slots__ = ("has_frontmatter", "head", "lines", "body")

    def __init__(self, has_frontmatter: bool, head: str, lines: list[str], body: str) -> None:
        self.has_frontmatter = has_frontmatter
        self.head = head  # the frontmatter block, delimiters and line endings included ("" if none)
        self.lines = lines  # frontmatter lines between the delimiters, endings stripped
        self.body = body  # everything after the closing delimiter, byte for byte


def split(text: str) -> Split:
    """Split `---` frontmatter from the body. No frontmatter: the whole text is body."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].rstrip("\r").rstrip() != "---":
        return Split(False, "", [], text)
    pos = first_end + 1
    # One regex search, not a loop over lines: `list` splits the head of every doc.
    close = _CLOSE_RE.search(text, pos)
    if close is None:
        return Split(False, "", [], text)
    line_end = min(close.end() + 1, len(text))  # past the closing line's "\n", if any
    block = text[pos : close.start()]  # whole lines, each ending in "\n"
    lines = [line.rstrip("\r") for line in block[:-1].split("\n")] if block else []
    return Split(True, text[:line_end], lines, text[line_end:])


def unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            loaded = json.loads(value)
            return loaded if isinstance(loaded, str) else value
        except ValueError:
            return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    # An unquoted trailing comment is not part of the value.
    hash_at = value.find(" #")
    return value[:hash_at].rstrip() if hash_at >= 0 else value


def parse(lines: list[str]) -> dict[str, str]:
    """Top-level `key: value` pairs as strings; nested or odd lines are skipped."""
    out: dict[str, str] = {}
    for line in lines:
        m = _KEY_RE.match(line)
        if m:
            value = (m.group(2) or "").strip()
            # Most values are plain: unquote only when a quote or a ` #` comment may be there.
            plain = value[:1] not in ("'", '"') and " #" not in value
            out[m.group(1)] = value if plain else unquote(value)
    return out


def read_meta(text: str) -> dict[str, str] | None:
    """The frontmatter of a doc as flat strings, or None when it has none."""
    s = split(text)
    return parse(s.lines) if s.has_frontmatter else None


def format_value(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    plain = (
        _PLAIN_SAFE.match(text)
        and ": " not in text
        and not text.endswith((":", " "))
        and text.lower() not in _RESERVED_PLAIN
        and not _looks_numeric(text)
    )
    if plain:
        return text
    return json.dumps(text, ensure_ascii=False)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def render(pairs: list[tuple[str, object]], newline: str = "\n") -> str:
    body = newline.join(f"{k}: {format_value(v)}" for k, v in pairs)
    return f"---{newline}{body}{newline}---{newline}"


def is_false(value: str | None) -> bool:
    return value is not None and value.strip().lower() == "false"


def flip_consumed(text: str, by: str, at: str) -> str | None:
    """Flip `consumed: false` to true in the frontmatter only, adding consumed_at/by.

    Returns None when the doc is not an unconsumed doc. The body's bytes are untouched.
    """
    s = split(text)
    if not s.has_frontmatter:
        return None
    newline = "\r\n" if "\r\n" in s.head else "\n"
    out: list[str] = []
    flipped = False
    for line in s.lines:
        m = _KEY_RE.match(line)
        if m and m.group(1) in ("consumed_at", "consumed_by"):
            continue
        if m and m.group(1) == "consumed":
            if not is_false(unquote(m.group(2) or "")):
                return None
            out.append("consumed: true")
            out.append(f"consumed_at: {at}")
            out.append(f"consumed_by: {by}")
            flipped = True
            continue
        out.append(line)
    if not flipped:
        return None
    head = "---" + newline + "".join(line + newline for line in out) + "---" + newline
    prefix = "\ufeff" if text.startswith("\ufeff") else ""
    return prefix + head + s.body


def set_key(text: str, key: str, value: str) -> str | None:
    """`key: value` in the frontmatter (replacing that key's line, else appended to it).

    Returns None when the text has no frontmatter. The body's bytes are untouched.
    """
    s = split(text)
    if not s.has_frontmatter:
        return None
    newline = "\r\n" if "\r\n" in s.head else "\n"
    out = [line for line in s.lines if not ((m := _KEY_RE.match(line)) and m.group(1) == key)]
    out.append(f"{key}: {format_value(value)}")
    head = "---" + newline + "".join(line + newline for line in out) + "---" + newline
    prefix = "\ufeff" if text.startswith("\ufeff") else ""
    return prefix + head + s.body

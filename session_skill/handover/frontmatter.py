"""Flat YAML frontmatter: split, read, render and the consumed flip.

Handover frontmatter is flat `key: scalar` lines. This reader is standard library only
(the hook and `list` read many docs and must not pay for a YAML parser); lines it does
not understand are kept verbatim, never dropped.
"""

from __future__ import annotations

import json
import re

from session_skill.records import Record

# A frontmatter key (`parse`); the text before a line's first ":" that was checked, and
# the key it is ("" when it is none), so 10,000 docs' `slug:` lines match the pattern once.
_KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_KEYS: dict[str, str] = {}
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9/._][A-Za-z0-9 /._+@~,()=:-]*")  # fullmatch: `$` allows a "\n"
# A line closing the frontmatter: `---` or `...`, then only whitespace.
_CLOSERS = ("---", "...")
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
    found = _head_lines(text)
    if found is None:
        return Split(False, "", [], text)
    lines, line_end = found
    return Split(True, text[:line_end], lines, text[line_end:])


def _head_lines(text: str) -> tuple[list[str], int] | None:
    """(the frontmatter's lines, "\r" stripped; where the body starts), or None.

    The frontmatter opens with a `---` line and closes at the first line that is `---` or
    `...` and then only whitespace. Lines are found with `str.find`, not a regex: `list`
    reads the head of every doc (tests/handover hold the regex rules as the oracle).
    """
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].rstrip("\r").rstrip() != "---":
        return None
    size = len(text)
    search = first_end  # each candidate is the "\n" before a line starting `---` or `...`
    while True:
        at = text.find("\n---", search)
        dots = text.find("\n...", search, at if at >= 0 else size)  # rare: search no further
        if dots >= 0:
            at = dots
        if at < 0:
            return None
        eol = text.find("\n", at + 4)
        if not text[at + 4 : eol if eol >= 0 else size].strip():
            break
        search = at + 1
    lines = text[first_end + 1 : at].split("\n") if at > first_end else []
    if "\r" in text[first_end:at]:
        lines = [line.rstrip("\r") for line in lines]
    return lines, (size if eol < 0 else eol + 1)


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


def pair(line: str) -> tuple[str, str] | None:
    """(key, value with blanks stripped) when `line` is a top-level `key: value` line.

    That is `key`, optional blanks, `:`, then nothing or blanks and the value. The line is
    taken apart with `partition`, not a regex (`list` reads every doc's lines), and each
    distinct key text is checked against the key pattern once.
    """
    raw, colon, rest = line.partition(":")
    if not colon or (rest and rest[0] not in " \t"):
        return None
    key = _KEYS.get(raw)
    if key is None:
        key = raw.rstrip(" \t")
        key = key if _KEY_NAME.fullmatch(key) else ""
        if len(_KEYS) < 256:
            _KEYS[raw] = key
    return (key, rest.strip()) if key else None


def parse(lines: list[str]) -> dict[str, str]:
    """Top-level `key: value` pairs as strings; nested or odd lines are skipped."""
    out: dict[str, str] = {}
    keys = _KEYS
    for line in lines:
        # `pair(line)`, inlined for keys already seen: `list` parses every doc's head.
        raw, colon, rest = line.partition(":")
        if not colon or (rest and rest[0] not in " \t"):
            continue
        key = keys.get(raw)
        if key is None:
            kv = pair(line)
            key = kv[0] if kv else ""
        if key:
            value = rest.strip()
            # Most values are plain: unquote only when a quote or a ` #` comment may be there.
            plain = value[:1] not in ("'", '"') and " #" not in value
            out[key] = value if plain else unquote(value)
    return out


def read_meta(text: str) -> dict[str, str] | None:
    """The frontmatter of a doc as flat strings, or None when it has none."""
    found = head_lines(text)
    return None if found is None else parse(found)


def head_lines(text: str) -> list[str] | None:
    """The frontmatter's lines ("\r" stripped), or None when it has none."""
    found = _head_lines(text[1:] if text.startswith("\ufeff") else text)
    return None if found is None else found[0]


_UNPRINTABLE = "[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def parses(lines: list[str]) -> bool:
    """The frontmatter is YAML a loader reads as a mapping (SPEC §3). `parse` takes the
    flat keys of one that is not (a hand edit gone wrong stays readable); only a doc
    that parses is ever deleted (`store.docs.parses`: asked of an expired doc alone, so
    PyYAML is loaded only by a `list` that has one to delete).
    """
    import yaml

    # Characters YAML refuses to read are a byte-level matter (`list` shows them escaped),
    # not the structure judged here: they stand as spaces. (Compiled here, not on import:
    # the hooks read frontmatter on their common path.)
    text = re.sub(_UNPRINTABLE, " ", "\n".join(lines))
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return False
    return node is None or isinstance(node, yaml.MappingNode)


def format_value(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    plain = (
        _PLAIN_SAFE.fullmatch(text)
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


def render(
    pairs: list[tuple[str, object]], newline: str = "\n", verbatim: list[str] | None = None
) -> str:
    """The frontmatter block: `pairs` formatted, then the `verbatim` lines as they are."""
    lines = [f"{k}: {format_value(v)}" for k, v in pairs] + (verbatim or [])
    body = newline.join(lines)
    return f"---{newline}{body}{newline}---{newline}"


def blocks(lines: list[str], leave: set[str] | frozenset[str]) -> list[str]:
    """The frontmatter `lines` of every top-level key not in `leave`, each with the lines
    under it (a nested list or map, a folded string), exactly as written; a comment before
    the first key is kept too."""
    kept: list[str] = []
    keeping = True  # a comment before the first key is the model's too
    for line in lines:
        key = pair(line) if line[:1] not in (" ", "\t", "-", "#", "") else None
        if key is not None:
            keeping = key[0] not in leave
        if keeping:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


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
        kv = pair(line)
        if kv and kv[0] in ("consumed_at", "consumed_by"):
            continue
        if kv and kv[0] == "consumed":
            if not is_false(unquote(kv[1])):
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
    """`key: value` in the frontmatter: its line, if any, removed, and the key written at
    the end (a key rewritten is the one changed last).

    Returns None when the text has no frontmatter. The body's bytes are untouched.
    """
    s = split(text)
    if not s.has_frontmatter:
        return None
    newline = "\r\n" if "\r\n" in s.head else "\n"
    out = [line for line in s.lines if not ((kv := pair(line)) and kv[0] == key)]
    out.append(f"{key}: {format_value(value)}")
    head = "---" + newline + "".join(line + newline for line in out) + "---" + newline
    prefix = "\ufeff" if text.startswith("\ufeff") else ""
    return prefix + head + s.body

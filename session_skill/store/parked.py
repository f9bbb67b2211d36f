"""PARKED.md (SPEC §6): items are bullet lines; every other byte is kept as it is.

Not items: bullets inside a closed ``` or ~~~ fence (a code sample stays a code sample),
done checkboxes (`- [x]`), a bare `- ` with nothing after it, and indented lines. The
indented lines right under an item are its notes: `remove` takes them with it.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from session_skill.handover.fences import FENCE_OPEN, closes_fence
from session_skill.records import FrozenRecord

HEADING = "# Parked items"
_init = object.__setattr__  # Item is frozen: its __init__ sets fields past __setattr__
_BULLET = re.compile(r"^(?:[-*] \[[ xX]\] |[-*] )(.*)$")
_DONE = re.compile(r"^[-*] \[[xX]\](?: |$)")
_PARTS = re.compile(r"\b(Why|Next):\s*", re.IGNORECASE)
_SLUG = re.compile(r"^\*\*([^*\n]{1,120})\*\*\s*(?:[—–:-]+\s*)?(.*)$")
_RAISED = re.compile(r"\bRaised:\s*(\d{4}-\d{2}-\d{2})\b\.?")
# The tool's own date ends the idea: the end of the line, or a `Why:` / `Next:` part, comes
# next. One with the idea's words after it is the user's ("the outage Raised: 2025-03-01 by
# ops …"), kept as they wrote it.
_RAISED_END = re.compile(r"\bRaised:\s*(\d{4}-\d{2}-\d{2})\b\.?(?=\s*(?:$|(?i:why|next)\s*:))")
_NON_WORD = re.compile(r"[^a-z0-9]+")


class Item(FrozenRecord):
    __slots__ = ("line_no", "line", "slug", "summary", "raised", "explicit_slug")
    line_no: int  # index into Parked.lines
    line: str  # the bullet, line ending stripped
    slug: str
    summary: str  # the text after the slug, Raised date removed
    raised: date | None
    explicit_slug: bool

    def __init__(
        self,
        line_no: int,
        line: str,
        slug: str,
        summary: str,
        raised: date | None,
        explicit_slug: bool,
    ) -> None:
        # One call per field, not FrozenRecord._set: PARKED.md may hold 10,000 of these.
        _init(self, "line_no", line_no)
        _init(self, "line", line)
        _init(self, "slug", slug)
        _init(self, "summary", summary)
        _init(self, "raised", raised)
        _init(self, "explicit_slug", explicit_slug)

    @property
    def display(self) -> str:
        """The bullet without its marker, as `list` shows it."""
        m = _BULLET.match(self.line)
        return (m.group(1) if m else self.line).strip()


def derive_slug(text: str, max_length: int = 40) -> str:
    """A stable slug from an item's first words, without importing slugify (used on reads)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = _NON_WORD.sub(" ", ascii_text.lower()).split()[:6]
    slug = ""
    for w in words:
        cand = f"{slug}-{w}" if slug else w
        if len(cand) > max_length:
            break
        slug = cand
    return slug or (words[0][:max_length] if words else "item")


def strip_raised(text: str) -> str:
    """The text without the `Raised: YYYY-MM-DD` that ends its idea: the tool owns that
    field. A date the idea's own words follow is the user's, and stays."""
    return _RAISED_END.sub("", text) if "Raised:" in text else text


def parse_item(line_no: int, line: str) -> Item | None:
    m = _BULLET.match(line)
    if not m or _DONE.match(line):
        return None
    rest = m.group(1).strip()
    if not rest:
        return None  # a bare `- ` (or `- [ ] `): no text, no item
    raised = None
    # The regex starts where the literal is: str.find is far cheaper than a \b scan. The
    # date that ends the idea is the item's (the tool writes it so); a hand-written item
    # may have put its date anywhere.
    at = rest.find("Raised:")
    rm = (_RAISED_END.search(rest, at) or _RAISED.search(rest, at)) if at >= 0 else None
    if rm:
        try:
            raised = date.fromisoformat(rm.group(1))
        except ValueError:
            raised = None
    sm = _SLUG.match(rest)
    if sm and sm.group(1).strip():
        slug, summary, explicit = sm.group(1).strip(), sm.group(2), True
        start = sm.start(2)
    else:
        slug, summary, explicit = "", rest, False
        start = 0
    if rm and rm.start() >= start:
        # The summary is the tail of `rest`: the date is cut out of it; any other is words.
        summary = rest[start : rm.start()] + rest[rm.end() :]
    # Runs of whitespace as one space; split/join is re.sub(r"\s+", " ") on stripped text,
    # at a tenth of the cost (PARKED.md is parsed on every park, drop and list).
    summary = " ".join(summary.split()).rstrip(" .")
    if not slug:
        slug = derive_slug(summary)
    return Item(line_no, line, slug, summary, raised, explicit)


def fenced_lines(parts: list[str]) -> set[int]:
    """Indexes of the lines inside closed fences, the fence lines included.

    A fence left open at the end of the file is not a fence: CommonMark would run it to
    the end, but then an item appended after it would never be listed.
    """
    inside: set[int] = set()
    opened: tuple[int, str] | None = None
    for i, part in enumerate(parts):
        line = part.rstrip("\r")
        if opened is None:
            m = FENCE_OPEN.match(line)
            if m:
                opened = (i, m.group(1))
        else:
            start, fence = opened
            if closes_fence(line, fence):
                inside.update(range(start, i + 1))
                opened = None
    return inside


class Parked:
    """The file as lines (endings kept) plus the items found in them."""

    def __init__(self, text: str) -> None:
        # A BOM is no part of the first line: kept aside, and written back by `render`.
        self.bom = "\ufeff" if text.startswith("\ufeff") else ""
        text = text[len(self.bom) :]
        # Lines end at "\n" only: `splitlines` also cuts at a lone "\r", "\x0c", "\u2028"…,
        # and `drop` then removed only the first piece of a hand-edited bullet.
        parts = text.split("\n")
        self.lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        self.newline = "\r\n" if text.find("\r\n") >= 0 else "\n"
        # Fences are rare: one substring search spares the line-by-line scan.
        self.fenced = fenced_lines(parts) if ("```" in text or "~~~" in text) else set()
        # _scan, on the parts: each is its line without the "\n" (an empty last part is
        # no line, and no item either).
        fenced = self.fenced
        self.items = [
            item
            for i, part in enumerate(parts)
            if (not fenced or i not in fenced)
            and (item := parse_item(i, part.rstrip("\r"))) is not None
        ]

    def _scan(self) -> list[Item]:
        parts = [raw.rstrip("\n") for raw in self.lines]
        text_has_fence = any("```" in p or "~~~" in p for p in parts)
        self.fenced = fenced_lines(parts) if text_has_fence else set()
        items = []
        for i, part in enumerate(parts):
            if i in self.fenced:
                continue
            item = parse_item(i, part.rstrip("\r"))
            if item is not None:
                items.append(item)
        return items

    def render(self) -> str:
        return self.bom + "".join(self.lines)

    def find_slug(self, slug: str) -> Item | None:
        want = slug.lower()
        return next((it for it in self.items if it.slug.lower() == want), None)

    def with_slug(self, slug: str) -> list[int]:
        """The indexes (into `items`) of every item of this slug, case aside: two
        hand-written items may derive the same one."""
        want = slug.lower()
        return [i for i, it in enumerate(self.items) if it.slug.lower() == want]

    def append(self, bullet: str) -> None:
        if self.lines and not self.lines[-1].endswith("\n"):
            self.lines[-1] += self.newline
        if not self.lines:
            self.lines = [HEADING + self.newline, self.newline]
        self.lines.append(bullet + self.newline)
        # Only the new line needs parsing: the others kept their text and their index.
        item = parse_item(len(self.lines) - 1, self.lines[-1].rstrip("\r\n"))
        if item is not None:
            self.items.append(item)

    def replace(self, item: Item, bullet: str) -> None:
        old = self.lines[item.line_no]
        ending = old[len(old.rstrip("\r\n")) :]
        self.lines[item.line_no] = bullet + ending
        self.items = self._scan()

    def notes(self, item: Item) -> list[str]:
        """The indented lines right under an item (endings stripped): its sub-notes.

        They run to the first blank or unindented line; a fenced block among them is
        taken whole, blank lines and all.
        """
        out: list[str] = []
        i = item.line_no + 1
        while i < len(self.lines):
            line = self.lines[i].rstrip("\r\n")
            in_block = i in self.fenced and (i - 1) in self.fenced and bool(out)
            if not in_block and not (line[:1] in (" ", "\t") and line.strip()):
                break
            out.append(line)
            i += 1
        return out

    def remove(self, item: Item) -> list[str]:
        """Remove the item's line and its notes (`notes`); returns the notes removed."""
        notes = self.notes(item)
        gone, count = item.line_no, 1 + len(notes)
        del self.lines[gone : gone + count]
        if self.fenced:
            self.fenced = {
                i if i < gone else i - count for i in self.fenced if not gone <= i < gone + count
            }
        # The lines after them moved up; none changed, so none is parsed again.
        self.items = [
            it
            if it.line_no < gone
            else Item(it.line_no - count, it.line, it.slug, it.summary, it.raised, it.explicit_slug)
            for it in self.items
            if it.line_no != gone
        ]
        return notes


def split_parts(summary: str) -> tuple[str, dict[str, str]]:
    """An item's text as its idea and its `Why:` / `Next:` parts (keys `Why`, `Next`)."""
    pieces = _PARTS.split(summary)
    idea = pieces[0].strip().rstrip(" .;")
    parts: dict[str, str] = {}
    for label, value in zip(pieces[1::2], pieces[2::2], strict=True):
        key = label.capitalize()
        text = value.strip().rstrip(" .;")
        parts[key] = "; ".join(t for t in (parts.get(key, ""), text) if t)
    return idea, parts


def join_parts(idea: str, parts: dict[str, str]) -> str:
    """`split_parts` put back together: `<idea>. Why: <why>. Next: <next>`."""
    out = idea.strip().rstrip(" .")
    for key in ("Why", "Next"):
        if parts.get(key):
            out += f"{'. ' if out else ''}{key}: {parts[key]}"
    return out


def bullet(slug: str, summary: str, raised: date | str) -> str:
    summary = summary.strip()
    sep = " " if summary.endswith((".", "!", "?")) else ". "
    return f"- **{slug}** — {summary}{sep}Raised: {raised}."

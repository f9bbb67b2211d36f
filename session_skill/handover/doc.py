"""The handover doc (SPEC §4): sections, parse, render.

Standard library only: the hook shares `split_sections` and `parse_doc`.
"""

from __future__ import annotations

import re

from session_skill.handover import frontmatter
from session_skill.handover.fences import FENCE_OPEN, closes_fence
from session_skill.records import Record
from session_skill.times import parse_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

SECTION_ORDER = (
    "Goal",
    "Plan",
    "Decisions",
    "Didn't work",
    "Verified",
    "Lessons / corrections",
    "Standing instructions",
    "Files touched",
    "Outstanding",
    "Artifacts",
    "Where it stopped",
    "Next step",
)
REQUIRED = ("Goal", "Next step")
# Sections only the extractive doc writes (from the transcript): not in the model's template.
TOOL_SECTIONS = ("Plan", "Where it stopped")
# Keys the tool owns: whatever the model wrote for them is ignored. Those the hooks read
# (`trigger`, `noticed_at`, `restored_in`, …) decide what a restore does, so a model's
# "trigger: session-end" must not turn its own dump into an automatic handover.
TOOL_KEYS = (
    *("slug", "created", "consumed", "branch", "commit", "dirty", "cwd", "session_id"),
    *("agent", "capture", "trigger", "skipped", "follows", "tokens", "token_method"),
    *("over_cap", "consumed_at", "consumed_by", "noticed_at", "restored_in", "plan_file"),
    *("compaction", "transcript_bytes"),
)
# How much of the session's transcript a doc was made from: the SessionEnd hook saves what
# the session said after it (hooks/capture.py reads the key by this name).
TRANSCRIPT_BYTES = "transcript_bytes"


class Section(Record):
    __slots__ = ("title", "text")

    def __init__(self, title: str | None, text: str) -> None:
        self.title = title  # None for text before the first `## ` heading
        self.text = text  # heading line included, line endings as in the source

    @property
    def content(self) -> str:
        if self.title is None:
            return self.text
        nl = self.text.find("\n")
        return "" if nl < 0 else self.text[nl + 1 :]


def split_sections(body: str) -> list[Section]:
    """Cut a body at `## ` headings (outside code fences); joining the texts gives the body.
    A fence closes only on its own character, at least as long (a ~~~ line inside a ```
    block is code); one left open runs to the end."""
    sections: list[Section] = []
    title: str | None = None
    buf: list[str] = []
    fence = ""  # the open fence, or ""
    for line in body.splitlines(keepends=True):
        if not fence:
            opened = FENCE_OPEN.match(line) if line.lstrip(" \t")[:1] in ("`", "~") else None
            if opened:
                fence = opened.group(1)
        else:
            if closes_fence(line, fence):
                fence = ""
            buf.append(line)
            continue
        if not fence and line.startswith("## "):
            if buf or title is not None:
                sections.append(Section(title, "".join(buf)))
            title = line[3:].strip().rstrip("#").strip()
            buf = [line]
        else:
            buf.append(line)
    if buf or title is not None:
        sections.append(Section(title, "".join(buf)))
    return sections


def _norm(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()


def find_section(sections: list[Section], title: str) -> Section | None:
    want = _norm(title)
    for s in sections:
        if s.title is not None and _norm(s.title) == want:
            return s
    return None


def section_content(body: str, title: str) -> str:
    s = find_section(split_sections(body), title)
    return s.content.strip() if s else ""


class Doc(Record):
    __slots__ = ("meta", "body", "text")

    def __init__(self, meta: dict[str, str], body: str, text: str = "") -> None:
        self.meta = meta
        self.body = body
        self.text = text

    @property
    def slug(self) -> str:
        return self.meta.get("slug", "")

    @property
    def consumed(self) -> bool:
        return self.meta.get("consumed", "").strip().lower() == "true"

    @property
    def created(self) -> datetime | None:
        return parse_time(self.meta.get("created"))

    @property
    def goal(self) -> str:
        return section_content(self.body, "Goal")


def parse_doc(text: str) -> Doc | None:
    """A handover doc: frontmatter that parses and has `created` or `slug`; else None."""
    s = frontmatter.split(text)
    if not s.has_frontmatter:
        return None
    meta = frontmatter.parse(s.lines)
    if "created" not in meta and "slug" not in meta:
        return None
    return Doc(meta, s.body, text)


def render_doc(meta: list[tuple[str, object]], body: str, verbatim: list[str] | None = None) -> str:
    """Frontmatter (`meta`, then the model's own `verbatim` lines) + body. The body keeps
    its own line endings."""
    newline = "\r\n" if "\r\n" in body else "\n"
    if body and not body.endswith("\n"):
        body += newline
    return frontmatter.render(meta, newline, verbatim) + body


def missing_required(body: str) -> list[str]:
    sections = split_sections(body)
    missing = []
    for title in REQUIRED:
        s = find_section(sections, title)
        if s is None or not s.content.strip():
            missing.append(title)
    return missing


def replace_section(body: str, title: str, content: str) -> str:
    """Put `content` under `## title`: in place if present, else by the canonical order."""
    sections = split_sections(body)
    newline = "\r\n" if "\r\n" in body else "\n"
    content = content.replace("\r\n", "\n").strip("\n")
    if newline == "\r\n":
        content = content.replace("\n", "\r\n")
    block = f"## {title}{newline}{content}{newline}{newline}"
    existing = find_section(sections, title)
    if existing is not None:
        existing.text = block
        return "".join(s.text for s in sections)
    rank = SECTION_ORDER.index(title) if title in SECTION_ORDER else len(SECTION_ORDER)
    for i, s in enumerate(sections):
        if s.title is None:
            continue
        canon = next((t for t in SECTION_ORDER if _norm(t) == _norm(s.title)), None)
        if canon is not None and SECTION_ORDER.index(canon) > rank:
            if i > 0 and not sections[i - 1].text.endswith(newline + newline):
                sections[i - 1].text = sections[i - 1].text.rstrip("\r\n") + newline + newline
            sections.insert(i, Section(title, block))
            return "".join(s.text for s in sections)
    tail = "".join(s.text for s in sections).rstrip("\r\n")
    return (tail + newline + newline if tail else "") + block

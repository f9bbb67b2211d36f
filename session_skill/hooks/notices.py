"""What the SessionStart hook says: a restored handover (banner and body, or its head
when too long), a notice about an automatic one, the user's one line. Standard library
only; the doc's modules load when a doc is there."""

from __future__ import annotations

from session_skill.hooks.pending import Pending
from session_skill.store import paths as storepaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

FULL_LIMIT = 8_000  # above this, inject the head only
HARD_LIMIT = 9_500  # Claude Code files away values over 10,000 characters
HEAD_SECTIONS = ("Goal", "Files touched", "Next step")
NOTICE_LIMIT = 600  # characters: a notice costs every request of the session


def notice(
    pending: Pending, current: str | None = None, env: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(the model's notice, ≤ NOTICE_LIMIT characters; the user's line) for an automatic
    handover left pending; `current` names the branch checked out when it differs. The
    recall hint comes first: a long branch or Goal is clipped, never the hint (issue 21)."""
    from session_skill import agent
    from session_skill.handover.doc import section_content

    slug, dump = pending.slug, agent.hint("dump", env)
    recall = agent.hint(f"recall {slug}", env)
    files, items = captured(pending.body)
    what = f"{_count(files, 'file')} and {_count(items, 'open item')}"
    if pending.plan:
        # Claude Code carries the approved plan into this session itself: no second copy.
        head = (
            f"`{recall}` loads the automatic handover `{slug}` that session-skill saved "
            f"{_ago(pending.age)}, when the plan approval cleared the context: the conversation "
            f"before it ({what}; the plan itself is above, from Claude Code). "
        )
        message = (
            f"session-skill: the plan approval cleared the context; the conversation before it "
            f"was saved as `{slug}` ({what}) — `{recall}` loads it"
        )
        return _fit(head, "", "", pending), message
    moved = (
        f" It was written on branch `{pending.branch}`; `{current}` is checked out now."
        if current
        else ""
    )
    head = (
        f"`{recall}` loads the automatic handover `{slug}`: no {dump} ran before /clear, so "
        f"session-skill saved the previous conversation {_ago(pending.age)}, from its "
        f"transcript and git (extractive, no model); it holds {what} and was not loaded "
        f"here.{moved} Goal: "
    )
    goal = " ".join(section_content(pending.body, "Goal").split()) or "(none recorded)"
    message = (
        f"session-skill: no {dump} before /clear; the conversation was saved as `{slug}` "
        f"({what}), not loaded — `{recall}` loads it"
    )
    return _fit(head, goal, "", pending), message


def stale_notice(pending: Pending, env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """A dump too old to restore after /clear (over 30 min): said to be there, once."""
    from session_skill import agent

    recall = agent.hint(f"recall {pending.slug}", env)
    text = (
        f"`{recall}` loads the session handover `{pending.slug}` dumped {_ago(pending.age)}, "
        f"which is pending; it was not loaded here because it is more than 30 minutes old."
    )
    message = (
        f"session-skill: handover `{pending.slug}` ({_old(pending.age)}) is pending, too old to "
        f"restore by itself — `{recall}` loads it"
    )
    return text[:NOTICE_LIMIT], message


def _fit(head: str, goal: str, tail: str, pending: Pending) -> str:
    room = NOTICE_LIMIT - len(head) - len(tail)
    if len(goal) > room:
        goal = goal[: max(room - 1, 0)].rstrip() + "…" if room > 1 else ""
    return (head + goal + tail)[:NOTICE_LIMIT]


def captured(body: str) -> tuple[int, int]:
    """(files in the Files touched table, bullets under Outstanding) of a doc's body."""
    import re

    from session_skill.handover.doc import section_content

    rows = [
        line
        for line in section_content(body, "Files touched").splitlines()
        if line.lstrip().startswith("|")
    ][2:]  # the header and its separator
    files = 0
    for row in rows:
        grouped = re.search(r"\((\d+) files\)", row.split("|")[1] if "|" in row else "")
        files += int(grouped.group(1)) if grouped else 1
    items = sum(
        1
        for line in section_content(body, "Outstanding").splitlines()
        if line.lstrip().startswith(("- ", "* "))
    )
    return files, items


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def skipped_note(pending: Pending) -> str:
    """The " (note: …)" for the user's line when the capture left something out."""
    skipped = " ".join(pending.meta.get("skipped", "").strip().strip('"').split())
    return f" (note: {skipped[:200]})" if skipped else ""


def restored_line(pending: Pending) -> str:
    """The user's line for an injected handover: slug, tokens, age."""
    tokens = pending.meta.get("tokens", "").strip()
    if tokens.isdigit():
        approx = "~" if pending.meta.get("token_method") else ""
        tokens = f"{approx}{tokens} tokens, "
    else:
        tokens = ""
    kind = "the automatic handover" if pending.automatic else "handover"
    return f"session-skill: restored {kind} `{pending.slug}` ({tokens}{_old(pending.age)})"


def render(pending: Pending, env: Mapping[str, str] | None = None) -> str:
    """Banner and body; over FULL_LIMIT the head only, always under HARD_LIMIT."""
    from session_skill import agent

    slug = pending.slug
    recall = agent.hint("recall", env)
    where = f" on branch `{pending.branch}`" if pending.branch else ""
    rel = "/".join((*storepaths.STORE_PARTS, f"{slug}.md"))
    if pending.automatic:
        banner = (
            f"Automatic session handover `{slug}`, restored after /clear: saved "
            f"{_ago(pending.age)}{where}, stored at {rel}. No {agent.hint('dump', env)} ran "
            f"before /clear, so session-skill built this handover earlier in this project from "
            f"the previous conversation's transcript and git (extractive, no model): its Goal "
            f"is the first request, the rest what the transcript shows was left open. It is "
            f"now marked consumed; `{recall} {slug}` prints it again."
        )
    else:
        banner = (
            f"Session handover `{slug}`, restored after /clear: dumped {_ago(pending.age)}"
            f"{where}, stored at {rel}. This is a handover written earlier in this project "
            f"with {agent.hint('dump', env)}: the state of the work when the context was "
            f"cleared. It is now marked consumed; `{recall} {slug}` prints it again."
        )
    body = pending.body.replace("\r\n", "\n").strip("\n")
    full = f"{banner}\n\n{body}\n"
    if len(full) <= FULL_LIMIT:
        return full
    return _head_only(banner, body, slug, recall)


def _head_only(banner: str, body: str, slug: str, recall: str) -> str:
    from session_skill.handover.doc import find_section, split_sections

    sections = split_sections(body)
    parts = {t: find_section(sections, t) for t in HEAD_SECTIONS}
    left_out = [s.title for s in sections if s.title and all(s is not p for p in parts.values())]
    note = f"→ {recall} {slug} for the full document"
    if left_out:
        note += f" (left out here, too long to inject: {', '.join(left_out)})"

    def assemble(files_text: str | None) -> str:
        chunks = [banner]
        for title in HEAD_SECTIONS:
            section = parts[title]
            if title == "Files touched" and files_text is not None:
                chunks.append(files_text)
            elif section is not None:
                chunks.append(section.text.strip("\n"))
        chunks.append(note)
        return "\n\n".join(chunks) + "\n"

    text = assemble(None)
    files = parts["Files touched"]
    if len(text) >= HARD_LIMIT and files is not None:
        lines = files.text.strip("\n").split("\n")
        rows = {i for i, line in enumerate(lines) if line.lstrip().startswith("|")}
        rows -= set(sorted(rows)[:2])  # the header and its separator stay
        fixed = [line for i, line in enumerate(lines) if i not in rows]
        cut_note = f"({len(rows)} table rows cut here; {recall} has them)"
        budget = HARD_LIMIT - len(assemble("\n".join([*fixed, cut_note])))
        keep: set[int] = set()
        for i in sorted(rows):  # the first rows, as many as fit
            if len(lines[i]) + 1 >= budget:
                break
            budget -= len(lines[i]) + 1
            keep.add(i)
        kept = [line for i, line in enumerate(lines) if i not in rows or i in keep]
        cut_note = f"({len(rows) - len(keep)} table rows cut here; {recall} has them)"
        text = assemble("\n".join([*kept, cut_note]))
    if len(text) >= HARD_LIMIT:  # an oversized Goal or Next step: cut the text itself
        tail = f"\n… (cut here, too long to inject) {note}\n"
        text = text[: HARD_LIMIT - len(tail) - 1] + tail
    return text


def _span(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 1:
        return "<1 min"
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    return f"{hours} h" if hours < 48 else f"{hours // 24} d"


def _ago(seconds: float) -> str:
    return f"{_span(seconds)} ago"


def _old(seconds: float) -> str:
    return f"{_span(seconds)} old"

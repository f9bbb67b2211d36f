"""The SessionStart restore hook (SPEC §8): re-inject a pending handover after /clear.

It runs at every session start, so it imports only cheap standard-library modules, starts
no process and never touches the network. Most session starts have nothing pending and stop
at the `LATEST` gate; the modules only a pending doc needs are imported after that gate.
Whatever happens, it exits 0: a failure is one line on stderr, never a broken session.

An automatic handover (`trigger: session-end`, written by the SessionEnd hook when /clear came
without a dump, SPEC §8.1) is handled as the `auto` setting says: `notice` (default) tells
the model it exists, once (`noticed_at`), and leaves it pending for `recall`; `inject` injects
it like a dumped doc, labelled automatic; `off` says nothing. Whatever the hook gives, it
also tells the user in one line (`systemMessage`).
"""

from __future__ import annotations

import os

from session_skill.hooks.serve import MAX_PAYLOAD as MAX_PAYLOAD
from session_skill.hooks.serve import READ_TIMEOUT as READ_TIMEOUT
from session_skill.hooks.serve import context_output, payload_dict, serve, text_field, warner

# Paths are plain strings here (store.paths): importing pathlib would cost more than the rest
# of the hook, and so would datetime (see times.epoch).
from session_skill.store import paths as storepaths

# `typing` costs more to import than this whole module; type checkers read this name as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

DOC_LIMIT = 1 << 20  # a capped handover is ~6 KB; anything this big is not one (store.consume)
MAX_AGE = 30 * 60  # seconds
MAX_FUTURE = 2 * 60  # seconds of clock skew tolerated
FULL_LIMIT = 8_000  # above this, inject the head only
HARD_LIMIT = 9_500  # Claude Code files away values over 10,000 characters
LOCK_WAIT = 0.5
HEAD_SECTIONS = ("Goal", "Files touched", "Next step")
DETACHED = frozenset({"detached", "head", "(detached)", "detached head"})
AUTOMATIC = "session-end"  # the `trigger` of a doc the SessionEnd hook wrote
NOTICE_LIMIT = 600  # characters: a notice costs every request of the session


class _Pending:
    """A doc that passed every read-only gate."""

    __slots__ = ("slug", "path", "branch", "age", "body", "meta")

    def __init__(
        self,
        slug: str,
        path: str,
        branch: str,
        age: float,
        body: str,
        meta: dict[str, str] | None = None,
    ) -> None:
        self.slug = slug
        self.path = path
        self.branch = branch
        self.age = age  # seconds since `created`; negative within the skew allowance
        self.body = body
        self.meta = {} if meta is None else meta  # the frontmatter

    @property
    def automatic(self) -> bool:
        return self.meta.get("trigger", "").strip() == AUTOMATIC


def run(payload: bytes, *, env: Mapping[str, str], now: datetime | None = None) -> str:
    """The hook's stdout for one SessionStart payload; "" means stay silent."""
    source = _source(payload)
    if source is None:
        return ""
    root = storepaths.project_root(env=env, cwd=source[1])
    store = storepaths.store_dir(root)
    if not storepaths.store_exists(store):  # never create the store here
        return ""
    slug = storepaths.read_latest(store)
    if slug is None:
        return ""

    # Something is pending: only now pay for the modules a doc needs.
    from session_skill import agent, times
    from session_skill.git import head as githead

    # SESSION_SKILL_NOW pins the clock for the demo and tests, as for every command.
    now_ts = now.timestamp() if now is not None else times.now_epoch(env)
    doc_path = os.path.join(store, f"{slug}.md")
    pending = _pending(slug, doc_path, _read_doc(doc_path), now_ts)
    if pending is None:
        return ""

    current = githead.current_branch(root)
    if pending.automatic:
        return _automatic(source[0], pending, root, store, current, now_ts, env)
    if _branch_differs(pending.branch, current):
        return _output(
            f"A session handover `{slug}` from {_ago(pending.age)} was written on branch "
            f"`{pending.branch}`, but `{current}` is checked out now, so it was not loaded; "
            f"`{agent.hint('recall ' + slug, env)}` loads it.",
            f"session-skill: handover `{slug}` not loaded: it was written on "
            f"`{pending.branch}` and `{current}` is checked out; "
            f"`{agent.hint('recall ' + slug, env)}` loads it",
        )
    if source[0] == "startup":
        return _output(
            f"A session handover from {_ago(pending.age)} is pending in this project "
            f"(`{slug}`); `{agent.hint('recall', env)}` loads it.",
            f"session-skill: handover `{slug}` ({_old(pending.age)}) is pending; "
            f"`{agent.hint('recall', env)}` loads it",
        )
    consumed = _consume(store, slug, doc_path, now_ts, env)
    if consumed is None:
        return ""  # another process consumed it first, or the store was busy
    return _output(render(consumed, env), _restored(consumed))


def _automatic(
    source: str,
    pending: _Pending,
    root: str,
    store: str,
    current: str | None,
    now: float,
    env: Mapping[str, str],
) -> str:
    """An automatic handover: inject it, or say once that it exists, as `auto` says."""
    from session_skill.store import settings

    auto = settings.effective(settings.AUTO, root, env)
    for problem in auto.problems:
        _warn(problem)
    if auto.value == settings.OFF:
        return ""
    moved = _branch_differs(pending.branch, current)
    if auto.value == settings.INJECT and source == "clear" and not moved:
        consumed = _consume(store, pending.slug, pending.path, now, env)
        if consumed is None:
            return ""
        return _output(render(consumed, env), _restored(consumed))
    noticed = _consume(store, pending.slug, pending.path, now, env, notice=True)
    if noticed is None:
        return ""  # told already (another session got there first), or the store was busy
    return _output(*notice(noticed, current if moved else None, env))


def notice(
    pending: _Pending, current: str | None = None, env: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(the model's notice, ≤ NOTICE_LIMIT characters; the user's line) for an automatic
    handover left pending; `current` names the branch checked out when it differs."""
    from session_skill import agent
    from session_skill.handover.doc import section_content

    slug, recall, dump = pending.slug, agent.hint("recall", env), agent.hint("dump", env)
    files, items = captured(pending.body)
    what = f"{_count(files, 'file')} and {_count(items, 'open item')}"
    moved = (
        f" It was written on branch `{pending.branch}`; `{current}` is checked out now."
        if current
        else ""
    )
    head = (
        f"No {dump} ran before /clear, so session-skill saved the previous conversation as an "
        f"automatic handover `{slug}` {_ago(pending.age)}, built from its transcript and git "
        f"(extractive, no model). Goal: "
    )
    tail = f". It holds {what}; it was not loaded here.{moved} `{recall}` loads it."
    goal = " ".join(section_content(pending.body, "Goal").split()) or "(none recorded)"
    room = NOTICE_LIMIT - len(head) - len(tail)
    if len(goal) > room:
        goal = goal[: max(room - 1, 0)].rstrip() + "…"
    if goal.endswith((".", "!", "?")):
        tail = tail[1:]  # "Goal: List the files. It holds…", not "files.. It holds"
    message = (
        f"session-skill: no {dump} before /clear; the conversation was saved as `{slug}` "
        f"({what}), not loaded — `{recall}` loads it"
    )
    return (head + goal + tail)[:NOTICE_LIMIT], message


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


def _restored(pending: _Pending) -> str:
    """The user's line for an injected handover: slug, tokens, age."""
    tokens = pending.meta.get("tokens", "").strip()
    if tokens.isdigit():
        approx = "~" if pending.meta.get("token_method") else ""
        tokens = f"{approx}{tokens} tokens, "
    else:
        tokens = ""
    kind = "the automatic handover" if pending.automatic else "handover"
    return f"session-skill: restored {kind} `{pending.slug}` ({tokens}{_old(pending.age)})"


def _source(payload: bytes) -> tuple[str, str | None] | None:
    """(`clear`|`startup`, payload cwd) for a SessionStart we act on; None otherwise."""
    data = payload_dict(payload, "SessionStart")
    if data is None:
        return None
    source = data.get("source")
    if source is None:
        source = "clear"  # SPEC §8: a payload without a source counts as /clear
    if source not in ("clear", "startup"):
        return None
    return source, text_field(data, "cwd")


def _read_doc(path: str) -> str | None:
    from session_skill.store import fileio

    data = fileio.read_regular_bytes(path, DOC_LIMIT)
    if data is None:
        return None  # missing, a symlink, not a regular file, oversized: passed over silently
    try:
        # The BOM is kept: frontmatter handles it, and a rewrite keeps it.
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # Not restored, and not silently: stdout stays empty, stderr names the file.
        _warn(f"{path} is not UTF-8 text: the pending handover was not restored")
        return None


def _pending(slug: str, path: str, text: str | None, now: float) -> _Pending | None:
    """The frontmatter gates: `consumed: false`, `created` parses, 30 min old at most."""
    if text is None:
        return None
    from session_skill.handover import frontmatter

    split = frontmatter.split(text)
    if not split.has_frontmatter:
        return None
    meta = frontmatter.parse(split.lines)
    if not frontmatter.is_false(meta.get("consumed")):
        return None
    from session_skill.store.consume import NOTICED

    if meta.get(NOTICED):  # an automatic handover the hook told about already
        return None
    from session_skill.times import epoch

    created = epoch(meta.get("created"))
    if created is None:
        return None
    age = now - created
    if age > MAX_AGE or age < -MAX_FUTURE:
        return None
    return _Pending(slug, path, meta.get("branch", "").strip(), age, split.body, meta)


def _branch_differs(doc_branch: str, current: str | None) -> bool:
    if not doc_branch or not current:
        return False  # nothing to compare: no git now, or a doc without a branch
    if doc_branch.lower() in DETACHED and current.lower() in DETACHED:
        return False
    return doc_branch != current


def _consume(
    store: str, slug: str, path: str, now: float, env: Mapping[str, str], *, notice: bool = False
) -> _Pending | None:
    """Consume it (`notice`: mark it noticed) under the lock, its gates checked again;
    None if someone else got there first, or the store was busy."""
    from session_skill import agent
    from session_skill.store import consume as step
    from session_skill.store.lock import LockTimeout
    from session_skill.times import format_epoch

    stamp = format_epoch(now)

    def gate(text: str) -> bool:
        return _pending(slug, path, text, now) is not None

    try:
        if notice:
            text = step.notice_once(store, slug, stamp=stamp, timeout=LOCK_WAIT, gate=gate)
        else:
            text = step.consume(store, slug, by="hook", stamp=stamp, timeout=LOCK_WAIT, gate=gate)
    except LockTimeout:
        lock = os.path.join(store, storepaths.LOCK)
        _warn(f"the store is busy ({lock}); `{agent.hint('recall ' + slug, env)}` loads it")
        return None
    return None if text is None else _pending(slug, path, text, now)


def render(pending: _Pending, env: Mapping[str, str] | None = None) -> str:
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


def _ago(seconds: float) -> str:
    minutes = int(seconds // 60)
    return "<1 min ago" if minutes < 1 else f"{minutes} min ago"


def _old(seconds: float) -> str:
    minutes = int(seconds // 60)
    return "<1 min old" if minutes < 1 else f"{minutes} min old"


def main() -> int:
    """`session-skill hook session-start`: always exit 0."""
    return serve(run, _warn)


def _output(context: str, message: str) -> str:
    return context_output("SessionStart", context, message)


_warn = warner("session-skill hook: ")

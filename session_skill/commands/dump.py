"""dump (SPEC §7.2): the brief for the model, writing a doc, the extractive doc."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from session_skill import agent
from session_skill.commands.brief import brief as the_brief
from session_skill.commands.observe import Observed, observe, slug_for
from session_skill.commands.output import Output
from session_skill.commands.sweep import check_transcript
from session_skill.errors import OverCapError, SessionError
from session_skill.handover import doc as handover
from session_skill.handover import filestable, frontmatter
from session_skill.records import Record
from session_skill.store import fileio
from session_skill.store.docs import all_docs
from session_skill.store.store import STORE_REL, Store
from session_skill.times import format_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from session_skill.handover.tokens import Counter

TOKEN_CAP = 1500
GOAL_CHARS = 300  # the extractive Goal: 1–3 lines


def _rel(store: Store) -> str:
    return STORE_REL.as_posix()


# -- the request -----------------------------------------------------------------
class DumpRequest(Record):
    """What one dump was asked to do, said once: every mode (the brief, a doc written, the
    extractive doc, the hooks' automatic one) reads it from here."""

    __slots__ = (
        "name", "force", "replace", "transcript", "session_id", "as_json", "now",
        "trigger", "token_counter", "lock_timeout", "latest", "meta",
    )  # fmt: skip
    name: str | None
    force: bool
    replace: bool
    transcript: str | None
    session_id: str | None
    as_json: bool
    now: datetime
    # Set by the hooks, for a doc no one asked for (SPEC §8.1, §8.2):
    trigger: str | None  # what wrote it: `session-end`, `plan-approval`, `compact`
    token_counter: Counter | None  # instead of cl100k_base, which a hook cannot wait for
    lock_timeout: float | None
    latest: bool  # point LATEST at it (not for a compaction's doc: the session goes on)
    meta: tuple[tuple[str, object], ...]  # more frontmatter (`compaction: auto`, …)

    def __init__(
        self,
        name: str | None = None,
        *,
        force: bool = False,
        replace: bool = False,
        transcript: str | None = None,
        session_id: str | None = None,
        as_json: bool = False,
        now: datetime,
        trigger: str | None = None,
        token_counter: Counter | None = None,
        lock_timeout: float | None = 30.0,
        latest: bool = True,
        meta: tuple[tuple[str, object], ...] = (),
    ) -> None:
        self._set(name, force, replace, transcript, session_id, as_json, now, trigger,
                  token_counter, lock_timeout, latest, meta)  # fmt: skip


# -- the mode choice --------------------------------------------------------------
def run(
    store: Store,
    req: DumpRequest,
    *,
    file: str | None,
    brief: bool,
    extractive: bool,
    stdin: Callable[[], str | None],
) -> Output:
    """`dump`, however it was reached: --brief, else --extractive, else the doc from --file
    (or `-`, stdin), else a doc piped on stdin, else — nothing given — the brief."""
    if brief:
        return _brief(store, req)
    if extractive:
        return extractive_doc(store, req)
    if file is not None:
        text = _read_doc_file(file, stdin)
    else:
        text = stdin() or ""
        if not text.strip():
            return _brief(store, req)
    return write(store, req, text)


def _brief(store: Store, req: DumpRequest) -> Output:
    return the_brief(store, req.name, transcript=req.transcript, session_id=req.session_id,
                     as_json=req.as_json, now=req.now, replace=req.replace,
                     force=req.force)  # fmt: skip


def _read_doc_file(path: str, stdin: Callable[[], str | None]) -> str:
    if path == "-":
        text = stdin()
        if text is None:
            raise SessionError("--file - reads the doc from stdin, but stdin is a terminal")
        return text
    try:
        return fileio.read_text(Path(path).expanduser())
    except FileNotFoundError:
        raise SessionError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise SessionError(f"{path} is a directory") from None


# -- write ----------------------------------------------------------------------
def write(
    store: Store,
    req: DumpRequest,
    text: str,
    *,
    capture: str = "summarized",
    observed: Observed | None = None,
) -> Output:
    """Write a doc. A hook's request (`req.trigger`) counts tokens its own way
    (`req.token_counter`), and the doc then says how (`token_method`)."""
    from session_skill.handover.tokens import ENCODING_NAME, counter

    name, force, replace, now = req.name, req.force, req.replace, req.now
    if replace and not name:
        raise SessionError("--replace needs the NAME of the doc to overwrite")
    src = frontmatter.split(text)
    body = src.body.lstrip("\r\n")
    if not body.strip():
        raise SessionError("the handover is empty: write the doc on stdin or with --file")
    missing = handover.missing_required(body)
    if missing:
        names = " and ".join(f"`## {m}`" for m in missing)
        raise SessionError(f"the handover has no {names} section (or it is empty)")
    slug_name = name or None
    obs = observed or observe(
        store, transcript=req.transcript, session_id=req.session_id, with_sweep=False
    )
    slug = slug_for(store, slug_name, obs.git, now)

    body, n_files = _merge_files(body, obs, store.root)
    count = req.token_counter or counter()
    tokens = count.count(body)
    over = tokens > TOKEN_CAP
    if over and not force:
        raise OverCapError(
            f"the handover is {tokens} tokens; the cap is {TOKEN_CAP} ({count.method})",
            stdout=_section_counts(body, tokens, count.count, count.method),
        )

    meta: list[tuple[str, object]] = [
        ("slug", slug),
        ("created", format_time(now)),
        ("consumed", False),
    ]
    g = obs.git
    if g.available:
        meta += [("branch", g.branch or "detached"), ("commit", g.commit or ""), ("dirty", g.dirty)]
    meta += [("cwd", str(store.root))]
    if obs.session_id:
        meta.append(("session_id", obs.session_id))
    if obs.transcript is not None and handover.TRANSCRIPT_BYTES not in dict(req.meta):
        try:  # what the session says after this doc is saved at its /clear (SessionEnd)
            meta.append((handover.TRANSCRIPT_BYTES, Path(obs.transcript).stat().st_size))
        except OSError:
            pass
    # The client whose transcript this is; without one, the client this runs in.
    read_as = obs.stats.format if obs.stats is not None else None
    meta += [("agent", read_as or agent.agent()), ("capture", capture)]
    if req.trigger:
        meta.append(("trigger", req.trigger))
    if obs.skipped:  # what the capture left out, said again to the user at SessionStart
        meta.append(("skipped", "; ".join(obs.skipped)[:400]))
    meta += list(req.meta)
    # The model's own keys, exactly as it wrote them (a nested list, a quoted number).
    written = {m[0] for m in meta}
    keep = frontmatter.blocks(src.lines, {*handover.TOOL_KEYS, *written})
    store.ensure()
    with store.lock(req.lock_timeout):
        follows = _previous_of_branch(
            store, g.branch if g.available else None, exclude=slug if replace else None
        )
        extra: list[tuple[str, object]] = []
        if follows:
            extra.append(("follows", follows))
        extra.append(("tokens", tokens))
        if count.method != ENCODING_NAME:
            extra.append(("token_method", count.method))
        if over:
            extra.append(("over_cap", True))
        if req.latest:
            store.check_latest()  # before the doc: nothing half-done, no `-2` on the retry
        slug = _create(store, slug, meta, extra, body, keep, replace=replace)
        try:
            if req.latest:
                store.write_latest(slug)
        except BaseException:
            if not replace:
                store.discard_doc(slug)
            raise
    decisions = _bullets(body, "Decisions")
    outstanding = _bullets(body, "Outstanding")
    rel = f"{_rel(store)}/{slug}.md"
    if req.as_json:
        return Output(
            json.dumps(
                {
                    "slug": slug,
                    "path": str(store.doc_path(slug)),
                    "files": n_files,
                    "decisions": decisions,
                    "outstanding": outstanding,
                    "tokens": tokens,
                    "token_method": count.method,
                    "over_cap": over,
                    "capture": capture,
                },
                indent=2,
            )
        )
    warn = (
        f"\n⚠ over the {TOKEN_CAP}-token cap: written with --force (over_cap: true)" if over else ""
    )
    bad = obs.stats.malformed if obs.stats is not None and capture == "extractive" else 0
    if bad:
        warn += f"\n⚠ {_count(bad, 'unreadable line')} of {obs.transcript} were skipped"
    return Output(
        f"→ {rel} ({_count(n_files, 'file')}, {_count(decisions, 'decision')}, "
        f"{outstanding} outstanding, {tokens} tokens){warn}\n"
        "Next: send /clear — the restore hook re-injects this handover in the fresh session.\n"
        "\n/clear"
    )


def _create(
    store: Store,
    slug: str,
    meta: list[tuple[str, object]],
    extra: list[tuple[str, object]],
    body: str,
    verbatim: list[str],
    *,
    replace: bool,
) -> str:
    if replace:
        _replaceable(store, slug)
        store.replace_doc(slug, handover.render_doc(meta + extra, body, verbatim))
        return slug
    return store.create_doc(
        slug,
        lambda cand: handover.render_doc([("slug", cand), *meta[1:]] + extra, body, verbatim),
    )


def _replaceable(store: Store, slug: str) -> None:
    """`--replace` overwrites a handover, never another file of the store that has its name
    (your notes, an editor's backup), nor one that is not UTF-8 (SPEC §3)."""
    from session_skill.store.docs import info as docinfo

    path = store.doc_path(slug)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return  # nothing there yet: written as new
    except OSError as exc:
        raise SessionError(f"cannot read {path}: {exc.strerror}; not replacing it") from None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(f"{path} is not UTF-8: it is never rewritten") from None
    if docinfo(path) is None:
        raise SessionError(
            f"{path} is not a handover (no frontmatter with `created` or `slug`): not "
            "replacing it — give the doc another name"
        )


def _previous_of_branch(store: Store, branch: str | None, exclude: str | None = None) -> str | None:
    """The newest doc of `branch`; `exclude` is the doc being replaced, which keeps the link
    it had: its place in the chain does not change (a link to a doc newer than it would
    close a loop, `aaa` → `bbb` → `aaa`), and it never links to itself."""
    if not branch:
        return None
    docs = all_docs(store)  # newest first
    if exclude is not None:
        replaced = next((d for d in docs if d.slug == exclude), None)
        if replaced is not None:
            kept = replaced.meta.get("follows", "").strip().strip("\"'")
            return kept if kept and kept != exclude else None
    for d in docs:
        if d.branch == branch and d.slug != exclude:
            return d.slug
    return None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _bullets(body: str, title: str) -> int:
    """The items of a section: its bullets, and the items an extractive doc's "… and N more"
    line stands for (not one item: the handover notice said 16 where 21 were open)."""
    content = handover.section_content(body, title)
    n = 0
    for line in content.splitlines():
        if re.match(r"^\s*[-*] ", line):
            more = _MORE.match(line)
            n += int(more[1]) if more else 1
    return n


def _merge_files(body: str, obs: Observed, root: Path) -> tuple[str, int]:
    section = handover.find_section(handover.split_sections(body), "Files touched")
    model_rows, notes = filestable.parse_rows(section.content) if section else ([], [])
    rows = filestable.merge(model_rows, obs.git.refs, obs.written, root)
    if not rows:
        return body, 0
    n_files = sum(len(r.leaves()) for r in rows)
    rows, note = filestable.group(rows, weights=filestable.weights_of(obs.weights, root))
    table = filestable.render(rows, note)
    if notes:
        table += "\n" + "\n".join(notes)
    return handover.replace_section(body, "Files touched", table), n_files


def _section_counts(body: str, total: int, count: object, method: str) -> str:
    fn = count if callable(count) else None
    lines = [
        f"Over the cap: {total} tokens (cap {TOKEN_CAP}, counted with {method}).",
        "| Section | Tokens |",
        "| --- | --- |",
    ]
    for s in handover.split_sections(body):
        if fn is not None and s.text.strip():
            lines.append(f"| {s.title or '(before the first section)'} | {fn(s.text)} |")
    lines.append(
        "Compress the prose (never drop a decision) and write it again, "
        "or pass --force to write it anyway."
    )
    return "\n".join(lines)


# -- extractive -----------------------------------------------------------------
# (outstanding items — None: every one —, characters of the plan, of each "Where it stopped"
# line): the first that fits the cap; the last fits any session (its Goal and files table
# are capped too).
# (outstanding items kept, plan characters, characters of where it stopped), tried in order
# until the doc fits; the last for text in scripts that cost more tokens a character (a
# Chinese session's long items and requests).
_FIT = (
    (None, 3000, 400),
    (15, 3000, 400),
    (10, 2000, 300),
    (6, 1200, 200),
    (3, 600, 120),
    (1, 300, 60),
)
_MORE = re.compile(r"^- … and (\d+) more: ")


def extractive_doc(store: Store, req: DumpRequest, observed: Observed | None = None) -> Output:
    """The doc built from the transcript and git; `observed` when the caller has looked
    already (the SessionEnd hook checks for a user request first)."""
    session_id = req.session_id
    obs = observed or observe(
        store, transcript=req.transcript, session_id=session_id, with_sweep=True
    )
    if obs.transcript is None:
        which = f" for session `{session_id}`" if session_id else ""
        raise SessionError(
            f"no transcript found{which} for --extractive: pass --transcript PATH or "
            "--session-id ID"
        )
    check_transcript(obs.transcript, obs.stats)
    from session_skill.handover.tokens import counter

    # Nobody is there to compress it: the doc is made to fit the cap, keeping less of what
    # is longest — the outstanding items, the plan, where it stopped — step by step.
    count = req.token_counter or counter()
    goal = _carried_goal(obs) or obs.first_request
    for fit in _FIT:
        body = _extractive_body(obs, goal, *fit)
        if count.count(_merge_files(body, obs, store.root)[0]) <= TOKEN_CAP:
            break
    return write(store, req, body, capture="extractive", observed=obs)


# What the Goal of a doc says after the work: this session's commits, where it came from.
_GOAL_AFTER = re.compile(r"\s+(?:— committed: .*|\(carried over from `[^`]*`\))\s*\Z", re.DOTALL)


def _carried_goal(obs: Observed) -> str | None:
    """The Goal of the handover restored into this session (`restored_in`), when nothing
    the session said named its work ("continue where we left off", then "good, now
    payout"): the session carried that work on."""
    if not obs.goal_guessed or obs.restored is None:
        return None
    slug, body = obs.restored
    goal = _GOAL_AFTER.sub("", handover.section_content(body, "Goal"))
    after = f" (carried over from `{slug}`)"
    return _clip(goal, GOAL_CHARS - len(after)) + after if goal else None


def _since(candidate: dict[str, str]) -> str:
    """ ", left open in `<slug>`" for an item carried on from an older handover: how long it
    has waited shows, and the next session that carries it on keeps where it began."""
    from session_skill.commands.sweep import CARRIED_FROM

    found = CARRIED_FROM.match(candidate.get("why") or "")
    return f", left open in `{found[1]}`" if found else ""


def _extractive_body(
    obs: Observed, goal: str, items: int | None, plan_chars: int, stopped_chars: int
) -> str:
    # The goal as the sweep reads it: the first request, or the opening slash command's
    # arguments or purpose; a lone @file mention completed by what the assistant took on;
    # or the handover's the session carried on.
    goal = _clip(goal or "(no user request found in the transcript)", GOAL_CHARS)
    plan = obs.plan
    if plan is not None:
        # Approved with "clear context": the plan is the work (issue 20), kept inside the cap.
        where = f" (`{plan.path}`)" if plan.path else ""
        goal = _clip(f"Carry out the approved plan “{plan.title}”{where}.", GOAL_CHARS)
    parts = ["## Goal", _as_line(goal), ""]
    if plan is not None:
        parts += ["## Plan", _as_block(_clip_block(plan.text, plan_chars)), ""]
    listed = obs.candidates if items is None else obs.candidates[:items]
    outstanding = [f"- {c['text']} ({c['type']}{_since(c)})" for c in listed]
    more = len(obs.candidates) - len(listed)
    if more > 0:
        # A command the next session can run: its own sweep reads its own transcript.
        sweep = "session-skill sweep"
        if obs.transcript is not None:
            import shlex  # only here: the hooks' capture imports this module

            sweep += f" --transcript {shlex.quote(str(obs.transcript))}"
        outstanding.append(f"- … and {more} more: `{sweep}` lists them all")
    if outstanding:
        parts += ["## Outstanding", *outstanding, ""]
    # Where it stopped, verbatim: what extraction misses is still in front of the next session.
    stopped = []
    if obs.last_request:
        stopped.append(f"- Last request: “{_clip(obs.last_request, stopped_chars)}”")
    if obs.last_reply:
        stopped.append(f"- Last reply: “{_clip(obs.last_reply, stopped_chars)}”")
    if obs.recap:  # the user stepped away after it: the state as the client's model put it
        stopped.append(f"- Claude Code's recap since: “{_clip(obs.recap, stopped_chars)}”")
    if stopped:
        parts += ["## Where it stopped", *stopped, ""]
    # The work in hand (a task in progress, the last request left unfinished), else the
    # outstanding items — never that line when there are none.
    if plan is not None:
        nxt = f"Implement the approved plan “{plan.title}”, step by step"
    elif obs.pending_tasks:
        nxt = obs.pending_tasks[0]
    elif outstanding:
        nxt = "Review the outstanding items"
    elif stopped:
        # The sweep finds what the rules read, not all that is open: no claim that nothing is.
        nxt = (
            "No open item was found: read Where it stopped, confirm the goal is met, then take "
            "the next request"
        )
    else:
        nxt = "No open item was found: confirm the goal is met, then take the next request"
    parts += ["## Next step", _as_line(_clip(nxt, 300)), ""]
    return "\n".join(parts)


# What opens a Markdown block at the start of a line: a heading, a code fence.
_BLOCK_START = re.compile(r"^[ \t]*(?:#|`{3}|~{3})")
_HEADING = re.compile(r"^(#{1,6})(?=[ \t]|$)")


def _as_line(text: str) -> str:
    """The user's words on a line of their own, kept as text: a request pasted from an issue
    ("## Describe the bug …") or opening on a fence ("~~~ error: …") made the doc's Goal a
    heading, or a fence hiding the sections after it, and the doc was refused."""
    return "\\" + text.lstrip(" \t") if _BLOCK_START.match(text) else text


def _as_block(text: str) -> str:
    """A plan kept inside its section: its headings two levels down (its own "## Files
    touched" is no section of the doc), and a fence the clip left open closed."""
    from session_skill.handover.fences import FENCE_OPEN, closes_fence

    lines = []
    fence = ""
    for line in text.splitlines():
        if fence:
            fence = "" if closes_fence(line, fence) else fence
        elif (opened := FENCE_OPEN.match(line)) is not None:
            fence = opened.group(1)
        else:
            line = _HEADING.sub(r"##\1", line)
        lines.append(line)
    if fence:  # closed before the clip's note, when there is one
        at = len(lines) - 1 if lines and lines[-1] == _PLAN_CUT else len(lines)
        lines.insert(at, fence)
    return "\n".join(lines)


_PLAN_CUT = "… (the rest of the plan is in its file)"


def _clip_block(text: str, n: int) -> str:
    """Markdown kept as lines, cut at a line boundary — or, when that would keep less than
    half of `n` (a plan of one long paragraph), inside the line at a word boundary."""
    if len(text) <= n:
        return text.strip()
    cut = text[:n].rsplit("\n", 1)[0].rstrip()
    if len(cut) < n // 2:
        cut = _at_word(text[:n])
    return f"{cut}\n{_PLAN_CUT}"


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else _at_word(text[: n - 1]) + "…"


def _at_word(text: str) -> str:
    """`text` (cut short) without the word it cuts in two, when a space is near its end."""
    head, space, _ = text.rpartition(" ")
    return (head if space and len(head) >= len(text) * 3 // 4 else text).rstrip()


# -- automatic ------------------------------------------------------------------------
AUTOMATIC_TRIGGER = "session-end"


def automatic(store: Store, observed: Observed, req: DumpRequest) -> Output:
    """The handover no one asked for (the hooks): the extractive doc, marked with its
    `trigger`, written even over the cap (nobody is there to compress it). JSON output, as
    `dump --extractive --json` prints it."""
    transcript = str(observed.transcript) if observed.transcript else None
    hooked = DumpRequest(
        None,
        force=True,
        transcript=transcript,
        session_id=observed.session_id,
        as_json=True,
        now=req.now,
        trigger=req.trigger or AUTOMATIC_TRIGGER,
        token_counter=req.token_counter,
        lock_timeout=req.lock_timeout,
        latest=req.latest,
        meta=req.meta,
    )
    return extractive_doc(store, hooked, observed)

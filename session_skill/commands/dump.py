"""dump (SPEC §7.2): the brief for the model, writing a doc, the extractive doc."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from session_skill import agent
from session_skill.commands.core import Output, _read_parked
from session_skill.errors import OverCapError, SessionError
from session_skill.git.info import GitState
from session_skill.handover import doc as handover
from session_skill.handover import filestable, frontmatter
from session_skill.store import fileio
from session_skill.store.docs import all_docs
from session_skill.store.store import STORE_REL, Store

TOKEN_CAP = 1500
AGENT = "claude-code"


@dataclass
class Observed:
    """What the session left behind, from git and (when found) its transcript."""

    git: GitState
    written: list[str] = field(default_factory=list)
    candidates: list[dict[str, str]] = field(default_factory=list)  # sweep candidates
    pending_tasks: list[str] = field(default_factory=list)
    first_request: str = ""
    transcript: Path | None = None
    session_id: str | None = None
    started: datetime | None = None


def observe(
    store: Store, *, transcript: str | None, session_id: str | None, with_sweep: bool
) -> Observed:
    from session_skill.commands.sweep import facts_for
    from session_skill.git import info as gitinfo

    session_id = session_id or None

    facts = facts_for(store, transcript=transcript, session_id=session_id, filtered=with_sweep)
    git = gitinfo.state(store.root, since=facts.started if facts else None)
    if facts is None:
        return Observed(git, session_id=session_id)
    return Observed(
        git,
        written=facts.written,
        candidates=facts.candidates,
        pending_tasks=facts.pending_tasks,
        first_request=facts.first_request,
        transcript=facts.path,
        session_id=facts.session_id or session_id,
        started=facts.started,
    )


def _slug_for(store: Store, name: str | None, git: GitState, now: datetime) -> str:
    from session_skill.store.slugs import auto_slug, name_slug

    if name:
        return name_slug(name)
    return auto_slug(git.branch if git.available else None, now)


def _rel(store: Store) -> str:
    return STORE_REL.as_posix()


# -- brief ----------------------------------------------------------------------
BRIEF_RULES = """\
Rules: 1,500 tokens at most (~75 lines). Facts, not narrative: no diffs, code, command
output or exploration story; only the decision that settled an approach survives.
`## Goal` (1–3 lines) and `## Next step` (one concrete action) are required; omit empty
sections. Decisions keep their why; a decision is never dropped to save space — compress
prose instead. Files touched: keep every row below, fill Change and State
(done | wip | needs-test | reverted); Ref is computed by the tool."""

TEMPLATE = """\
## Goal
## Decisions
- <decision> — why: <reason>
## Didn't work
- <approach> — why it failed
## Verified
- <claim> — <evidence: the command that showed it>
## Lessons / corrections
- <correction received> — rule going forward: <rule>
## Standing instructions
- <directive that must keep applying>
## Files touched
## Outstanding
- **<slug>** — <summary>. Why: <reason>. Next: <action>.
## Artifacts
| Path | Kind | Note |
## Next step"""


def brief(
    store: Store,
    name: str | None,
    *,
    transcript: str | None,
    session_id: str | None,
    as_json: bool,
    now: datetime,
) -> Output:
    obs = observe(store, transcript=transcript, session_id=session_id, with_sweep=True)
    slug = _slug_for(store, name, obs.git, now)
    rows = filestable.merge([], obs.git.refs, obs.written, store.root)
    rows, note = filestable.group(rows)
    parked = _read_parked(store).items if store.exists() else []
    cmd = "session-skill dump"
    if name:
        cmd += f" {_shell_word(name)}"
    if obs.session_id:
        cmd += f" --session-id {_shell_word(obs.session_id)}"
    cmd += " --file - <<'SESSION_DOC'\n<the doc>\nSESSION_DOC"
    if as_json:
        return Output(
            json.dumps(
                {
                    "slug": slug,
                    "git": {
                        "branch": obs.git.branch,
                        "commit": obs.git.commit,
                        "dirty": obs.git.dirty,
                    },
                    "files": [{"file": r.file, "ref": r.ref} for r in rows],
                    "candidates": obs.candidates,
                    "pending_tasks": obs.pending_tasks,
                    "parked": [{"slug": it.slug, "summary": it.summary} for it in parked],
                    "transcript": str(obs.transcript) if obs.transcript else None,
                    "command": cmd,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    g = obs.git
    git_line = (
        f"{g.branch} · {g.commit or 'no commits'} · {g.dirty} uncommitted path"
        f"{'s' if g.dirty != 1 else ''}"
        if g.available
        else "not a git repository"
    )
    out = [
        f"# Handover brief — slug `{slug}`",
        f"Git: {git_line}",
        f"Transcript: {obs.transcript}"
        if obs.transcript
        else "Transcript: none found (compose from the conversation alone)",
        "",
        "Compose the handover from this conversation and write it with the command at the "
        "end. Use this section order:",
        "",
        TEMPLATE,
        "",
        BRIEF_RULES,
        "",
        "### Files touched (observed; keep these rows, fill Change and State)",
        filestable.render(rows, note) if rows else "(no changed or written files observed)",
        "",
    ]
    if obs.pending_tasks:
        out += ["### Open tasks (triage before dumping: finish, mark done, or carry over)"]
        out += [f"- {t}" for t in obs.pending_tasks] + [""]
    out += ["### Outstanding candidates (carry the ones still open into ## Outstanding)"]
    # Unfinished tasks are listed above under "Open tasks"; don't show them twice.
    cands = [
        f"- {c['text']} ({c['type']})" for c in obs.candidates if c["type"] != "Unfinished task"
    ]
    cands += [f"- **{it.slug}** — {it.summary} (parked)" for it in parked]
    out += cands or ["(none observed)"]
    out += [
        "",
        "### Write it (body on stdin; the tool adds the frontmatter)",
        "```bash",
        cmd,
        "```",
        "Then end your reply with `/clear` as its last line.",
    ]
    return Output("\n".join(out))


def _shell_word(word: str) -> str:
    import shlex

    return shlex.quote(word)


# -- write ----------------------------------------------------------------------
def write(
    store: Store,
    name: str | None,
    text: str,
    *,
    force: bool,
    replace: bool,
    transcript: str | None,
    session_id: str | None,
    as_json: bool,
    now: datetime,
    capture: str = "summarized",
    observed: Observed | None = None,
) -> Output:
    from session_skill.handover.tokens import counter

    if replace and not name:
        raise SessionError("--replace needs the NAME of the doc to overwrite")
    src = frontmatter.split(text)
    model_meta = frontmatter.parse(src.lines) if src.has_frontmatter else {}
    body = src.body.lstrip("\r\n")
    if not body.strip():
        raise SessionError("the handover is empty: write the doc on stdin or with --file")
    missing = handover.missing_required(body)
    if missing:
        names = " and ".join(f"`## {m}`" for m in missing)
        raise SessionError(f"the handover has no {names} section (or it is empty)")
    slug_name = name or None
    obs = observed or observe(store, transcript=transcript, session_id=session_id, with_sweep=False)
    slug = _slug_for(store, slug_name, obs.git, now)

    body, n_files = _merge_files(body, obs, store.root)
    count = counter()
    tokens = count.count(body)
    over = tokens > TOKEN_CAP
    if over and not force:
        raise OverCapError(
            f"the handover is {tokens} tokens; the cap is {TOKEN_CAP} ({count.method})",
            stdout=_section_counts(body, tokens, count.count, count.method),
        )

    meta: list[tuple[str, object]] = [
        ("slug", slug),
        ("created", handover.format_time(now)),
        ("consumed", False),
    ]
    g = obs.git
    if g.available:
        meta += [("branch", g.branch or "detached"), ("commit", g.commit or ""), ("dirty", g.dirty)]
    meta += [("cwd", str(store.root))]
    if obs.session_id:
        meta.append(("session_id", obs.session_id))
    meta += [("agent", agent.agent()), ("capture", capture)]
    keep = {
        k: v
        for k, v in model_meta.items()
        if k not in handover.TOOL_KEYS
        and k not in {m[0] for m in meta}
        and k not in ("follows", "tokens", "over_cap", "consumed_at", "consumed_by")
    }
    store.ensure()
    with store.lock():
        follows = _previous_of_branch(
            store, g.branch if g.available else None, exclude=slug if replace else None
        )
        extra: list[tuple[str, object]] = []
        if follows:
            extra.append(("follows", follows))
        extra.append(("tokens", tokens))
        if over:
            extra.append(("over_cap", True))
        extra += list(keep.items())
        slug = _create(store, slug, meta, extra, body, replace=replace)
        store.write_latest(slug)
    decisions = _bullets(body, "Decisions")
    outstanding = _bullets(body, "Outstanding")
    rel = f"{_rel(store)}/{slug}.md"
    if as_json:
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
    return Output(
        f"→ {rel} ({n_files} files, {decisions} decisions, {outstanding} outstanding, "
        f"{tokens} tokens){warn}\n"
        "Next: send /clear — the restore hook re-injects this handover in the fresh session.\n"
        "\n/clear"
    )


def _create(
    store: Store,
    slug: str,
    meta: list[tuple[str, object]],
    extra: list[tuple[str, object]],
    body: str,
    *,
    replace: bool,
) -> str:
    from session_skill.store.slugs import numbered

    if replace:
        text = handover.render_doc(meta + extra, body)
        path = store.doc_path(slug)
        if path.is_symlink():
            raise SessionError(f"{path} is a symlink; not replacing it")
        fileio.atomic_write(path, text.encode("utf-8"))
        return slug
    for n in range(1, 1000):
        cand = numbered(slug, n)
        meta_n = [("slug", cand), *meta[1:]]
        text = handover.render_doc(meta_n + extra, body)
        path = store.doc_path(cand)
        if os.path.lexists(path):
            continue
        if fileio.create_exclusive(path, text.encode("utf-8")):
            return cand
    raise SessionError(f"too many handovers named {slug}")


def _previous_of_branch(store: Store, branch: str | None, exclude: str | None = None) -> str | None:
    """The newest doc of `branch`; `exclude` is the doc being replaced (never its own link)."""
    if not branch:
        return None
    for d in all_docs(store):  # newest first
        if d.branch == branch and d.slug != exclude:
            return d.slug
    return None


def _bullets(body: str, title: str) -> int:
    content = handover.section_content(body, title)
    return sum(1 for line in content.splitlines() if re.match(r"^\s*[-*] ", line))


def _merge_files(body: str, obs: Observed, root: Path) -> tuple[str, int]:
    section = handover.find_section(handover.split_sections(body), "Files touched")
    model_rows, notes = filestable.parse_rows(section.content) if section else ([], [])
    rows = filestable.merge(model_rows, obs.git.refs, obs.written, root)
    if not rows:
        return body, 0
    n_files = sum(len(r.leaves()) for r in rows)
    rows, note = filestable.group(rows)
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
def extractive(
    store: Store,
    name: str | None,
    *,
    force: bool,
    replace: bool,
    transcript: str | None,
    session_id: str | None,
    as_json: bool,
    now: datetime,
) -> Output:
    obs = observe(store, transcript=transcript, session_id=session_id, with_sweep=True)
    if obs.transcript is None:
        raise SessionError(
            "no transcript found for --extractive: pass --transcript PATH or --session-id ID"
        )
    goal = _clip(obs.first_request or "(no user request found in the transcript)", 300)
    parts = ["## Goal", goal, ""]
    outstanding = [f"- {c['text']} ({c['type']})" for c in obs.candidates[:15]]
    if outstanding:
        parts += ["## Outstanding", *outstanding, ""]
    nxt = obs.pending_tasks[0] if obs.pending_tasks else "Review the outstanding items"
    parts += ["## Next step", _clip(nxt, 300), ""]
    return write(
        store,
        name,
        "\n".join(parts),
        force=force,
        replace=replace,
        transcript=transcript,
        session_id=session_id,
        as_json=as_json,
        now=now,
        capture="extractive",
        observed=obs,
    )


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"

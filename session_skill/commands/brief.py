"""The dump brief (SPEC §7.2): what the model needs to compose a handover, and the exact
command that writes it."""

from __future__ import annotations

import json
from datetime import datetime

from session_skill.commands.observe import observe, slug_for
from session_skill.commands.output import Output
from session_skill.commands.sweep import transcript_line
from session_skill.handover import filestable
from session_skill.store.store import Store

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
    replace: bool = False,
    force: bool = False,
) -> Output:
    obs = observe(store, transcript=transcript, session_id=session_id, with_sweep=True)
    slug = slug_for(store, name, obs.git, now)
    if not replace:
        slug = next(store.free_slugs(slug), slug)  # the slug the write will get
    rows = filestable.merge([], obs.git.refs, obs.written, store.root)
    rows, note = filestable.group(rows, weights=filestable.weights_of(obs.weights, store.root))
    parked = store.read_parked().items if store.exists() else []
    cmd = "session-skill dump"
    if name:
        cmd += f" {_shell_word(name)}"
    # The inputs of this brief, so the doc gets the Refs shown here: the transcript named,
    # or the one found without a session id to find it by again.
    read = transcript or (str(obs.transcript) if obs.transcript and not session_id else None)
    if read:
        cmd += f" --transcript {_shell_word(read)}"
    if obs.session_id:
        cmd += f" --session-id {_shell_word(obs.session_id)}"
    # The flags given with the mode go on to the command that writes the doc (SPEC §7.1).
    cmd += " --replace" * replace + " --force" * force
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
    if g.available:
        git_line = (
            f"{g.branch} · {g.commit or 'no commits'} · {g.dirty} uncommitted path"
            f"{'s' if g.dirty != 1 else ''}"
        )
    elif g.missing:
        git_line = "git was not found (branch, commit and Refs are unknown)"
    else:
        git_line = "not a git repository"
    which = f" for session `{session_id}`" if session_id else ""
    out = [
        f"# Handover brief — slug `{slug}`",
        f"Git: {git_line}",
        transcript_line(obs.transcript, obs.stats)
        if obs.transcript
        else f"Transcript: none found{which} (compose from the conversation alone)",
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
    # The task list's items and the unfinished request are listed above under "Open
    # tasks"; not twice. (A step left unticked, a check of the plan never run, are not.)
    shown = [c for c in obs.candidates if int(c["n"]) not in obs.in_tasks]
    cands = [f"- {c['text']} ({c['type']})" for c in shown]
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

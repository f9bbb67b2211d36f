"""What the skill costs the model's context: SKILL.md's size, and CLI calls per mode."""

from __future__ import annotations

from pathlib import Path

SKILL = Path(__file__).resolve().parent.parent / "skills" / "session" / "SKILL.md"
MAX_SKILL_CHARS = 4000

# The Bash calls the model makes for one /session <mode>, as SKILL.md tells it to.
CALLS = [
    ("dump", 2, "`dispatch` prints the brief; `dump --file -` writes the doc"),
    ("recall", 1, "`dispatch`"),
    ("list", 1, "`dispatch`"),
    ("park", 1, "`dispatch`"),
    ("drop", 1, "`dispatch` (a 2nd only after the user picks from an exit-4 list)"),
    ("sweep", 1, "`dispatch` (a 2nd, `sweep --park N,…`, only if the user parks some)"),
    ("search", 1, "`dispatch`"),
    ("history", 1, "`dispatch`"),
]


def skill_stats() -> dict[str, object]:
    from session_skill.handover.frontmatter import split
    from session_skill.handover.tokens import counter

    text = SKILL.read_text(encoding="utf-8")
    body = split(text).body
    count = counter()
    problems = []
    # The call counts above hold only while SKILL.md still routes modes this way.
    for needle in ("session-skill dispatch", "--file -"):
        if needle not in text:
            problems.append(f"SKILL.md no longer mentions {needle!r}: recount CALLS")
    return {
        "path": str(SKILL.relative_to(SKILL.parents[2])),
        "chars": len(text),
        "body_chars": len(body),
        "tokens": count.count(text),
        "body_tokens": count.count(body),
        "token_method": count.method,
        "max_chars": MAX_SKILL_CHARS,
        "ok": len(text) <= MAX_SKILL_CHARS and not problems,
        "problems": problems,
        "calls": [{"mode": m, "calls": n, "which": w} for m, n, w in CALLS],
    }

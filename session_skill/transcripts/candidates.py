"""Loose-end candidates: their types, how near-duplicates fold, and how the sweep shows them.

Kept apart from the streaming pass (`sweep`) because these run once per sweep on its small
result, and they are the only place the fuzzy matcher is needed (imported lazily).
"""

from __future__ import annotations

from collections.abc import Iterable

from session_skill import recache
from session_skill.records import field, record

TYPE_CHECKING = False  # `typing` costs a hook ~7 ms to import
if TYPE_CHECKING:
    from typing import Any

UNFINISHED = "Unfinished task"
UNANSWERED = "Unanswered question"
DEFERRED = "Deferred exploration"
DIVERGING = "Diverging idea"
CANDIDATE_TYPES = (UNFINISHED, UNANSWERED, DEFERRED, DIVERGING)
# Lower is stronger: when two candidates say the same thing, the stronger type is kept.
PRIORITY = {kind: rank for rank, kind in enumerate(CANDIDATE_TYPES)}


@record(frozen=True)
class Candidate:
    text: str  # as shown: clipped to one short line
    type: str
    why: str
    ts: str | None = None
    # The whole (redacted) text, when `text` is a clip of it: what `sweep --park` stores.
    full: str = field(default="", compare=False, repr=False)
    # The transcript line it came from (1-based), and the rule that took it.
    line: int | None = field(default=None, compare=False)
    rule: str = field(default="", compare=False, repr=False)


def merge_near_duplicates(candidates: list[Candidate]) -> list[Candidate]:
    """Fold candidates saying the same thing (token_set_ratio ≥ 90); keep the stronger type."""
    from session_skill.matching.fuzzy import fuzz, utils

    kept: list[Candidate] = []
    processed: list[tuple[str, int]] = []  # (processed text, its word count)
    for cand in candidates:
        text = utils.default_process(cand.text)
        size = len(text.split())
        for i, (other, other_size) in enumerate(processed):
            # `_near`'s length conditions first: they rule out most pairs unscored.
            short, long = (size, other_size) if size <= other_size else (other_size, size)
            if text != other and (short < 3 or short < 0.5 * long):
                continue
            if _near(text, other, fuzz.token_set_ratio(text, other), 90, min_share=0.5):
                if PRIORITY[cand.type] < PRIORITY[kept[i].type]:
                    kept[i] = cand
                break
        else:
            kept.append(cand)
            processed.append((text, size))
    return kept


def _near(a: str, b: str, score: float, threshold: float, min_share: float = 0.0) -> bool:
    # token_set_ratio is 100 whenever one side's words are a subset of the other's, so a
    # very short text ("tests") would swallow everything mentioning it: require three words,
    # and (for merging) that the shorter text is not a mere fragment of the longer one.
    if a == b:
        return True
    short, long = sorted((len(a.split()), len(b.split())))
    return score >= threshold and short >= 3 and short >= min_share * long


_ITEM_NOISE = recache.compile(r"\*\*|Raised:\s*\d{4}-\d{2}-\d{2}\.?|^\s*(?:[-*]\s+(?:\[ \]\s+)?)")


def filter_known(candidates: Iterable[Candidate], known: Iterable[str]) -> list[Candidate]:
    """Drop candidates matching an open parked item's or a dropped item's text (fuzzy ≥ 88)."""
    from session_skill.matching.fuzzy import fuzz, utils

    known_texts = [utils.default_process(_ITEM_NOISE.sub(" ", k).replace("-", " ")) for k in known]
    known_texts = [k for k in known_texts if k]
    kept = []
    for cand in candidates:
        text = utils.default_process(cand.text)
        if not any(
            _near(text, k, max(fuzz.token_set_ratio(text, k), fuzz.ratio(text, k)), 88)
            for k in known_texts
        ):
            kept.append(cand)
    return kept


def render_table(candidates: list[Candidate], numbers: list[int] | None = None) -> str:
    """The markdown table of SPEC §7.7, or one line saying nothing was found.

    `numbers` are the candidates' own numbers (what `sweep --park N` takes) when some were
    left out of the table; by default they count from 1."""
    if not candidates:
        return "No unlanded items: no open tasks, unanswered questions, deferrals or side ideas."
    noun = "item" if len(candidates) == 1 else "items"
    lines = [
        f"## Unlanded — {len(candidates)} {noun}",
        "| # | Item | Type | Why it did not land |",
        "| --- | --- | --- | --- |",
    ]
    for number, cand in zip(numbers or range(1, len(candidates) + 1), candidates, strict=True):
        lines.append(f"| {number} | {_cell(cand.text)} | {cand.type} | {_cell(cand.why)} |")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def to_json(candidates: list[Candidate], numbers: list[int] | None = None) -> list[dict[str, Any]]:
    return [
        {"n": number, "text": c.text, "type": c.type, "why": c.why, "ts": c.ts, "line": c.line}
        for number, c in zip(numbers or range(1, len(candidates) + 1), candidates, strict=True)
    ]

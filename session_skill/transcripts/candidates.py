"""Loose-end candidates: their types, how near-duplicates fold, and how the sweep shows them.

Kept apart from the streaming pass (`scan`) because these run once per sweep on its small
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
    """Fold candidates saying the same thing (token_set_ratio ≥ 90); keep the stronger type.
    Items the author set apart are never folded, however alike their words: two entries of
    the task list, two items of one message's list ("Move the invoices handler…", "Move the
    refunds handler…"). One message read by two rules is one row, though, when one says a
    sentence of the other (`_repeats`)."""
    near = _Scorer(len(candidates) <= PURE_MAX)
    kept: list[Candidate] = []
    processed: list[str] = []
    for cand in candidates:
        text = near.process(cand.text)
        for i, other in enumerate(processed):
            if text == other or _repeats(cand, kept[i]):
                pass
            elif _set_apart(cand, kept[i]) or not _near(text, other, near, 90, min_share=0.5):
                continue
            if PRIORITY[cand.type] < PRIORITY[kept[i].type]:
                kept[i] = cand
            break
        else:
            kept.append(cand)
            processed.append(text)
    return kept


def _set_apart(a: Candidate, b: Candidate) -> bool:
    """Did the author list these two as separate items (so they are not one said twice)?"""
    if a.rule == "task-list" and b.rule == "task-list":
        return True
    return a.line is not None and a.line == b.line


_SENTENCE_END = recache.compile(r"(?<=[.!?:])\s+")


def _repeats(a: Candidate, b: Candidate) -> bool:
    """Is one of two rows from one message a sentence of the other, said again — a caveat
    quoting the list it leads ("Still open in TODO.md: error messages …" and "error messages
    …"), or the step the user took on in their last request, which is the whole of it? The
    whole request beside what it puts off is two rows: the work asked, and the work not."""
    if a.line is None or a.line != b.line or a.rule == b.rule:
        return False
    if "unfinished" in (a.rule, b.rule) and "user-deferral" in (a.rule, b.rule):
        return a.text == b.text
    short, long = sorted((a.text.lower(), b.text.lower()), key=len)
    return any(
        len(part.split()) >= 4 and part.rstrip(".") in long for part in _SENTENCE_END.split(short)
    )


def _near(a: str, b: str, near: _Scorer, threshold: float, min_share: float = 0.0,
          plain: bool = False) -> bool:  # fmt: skip
    # token_set_ratio is 100 whenever one side's words are a subset of the other's, so a
    # very short text ("tests") would swallow everything mentioning it: require three words,
    # and (for merging) that the shorter text is not a mere fragment of the longer one.
    # These come first: they rule out most pairs unscored.
    if a == b:
        return True
    short, long = sorted((len(a.split()), len(b.split())))
    if short < 3 or short < min_share * long:
        return False
    return near.reaches(a, b, threshold, plain)


# Candidates (or candidate x known-item pairs / 10) up to which the scores are computed in
# pure Python (`matching.setratio`); beyond, rapidfuzz is worth its import.
PURE_MAX = 24


class _Scorer:
    """rapidfuzz's default_process and scores: from `matching.setratio` where it covers the
    text, when `pure` (few pairs: the capture at a boundary is spared rapidfuzz's import);
    else from rapidfuzz (`matching.fuzzy`, imported on first need). The same answers."""

    __slots__ = ("pure", "_fuzz", "_utils", "_mapped")

    def __init__(self, pure: bool) -> None:
        self.pure = pure
        self._fuzz: Any = None
        self._utils: Any = None
        self._mapped: set[str] = set()  # texts processed here: scored here too

    def _load(self) -> None:
        if self._fuzz is None:
            from session_skill.matching.fuzzy import fuzz, utils

            self._fuzz, self._utils = fuzz, utils

    def process(self, text: str) -> str:
        if self.pure:
            from session_skill.matching.setratio import process

            done = process(text)
            if done is not None:
                self._mapped.add(done)
                return done
        self._load()
        return self._utils.default_process(text)  # type: ignore[no-any-return]

    def reaches(self, a: str, b: str, threshold: float, plain: bool) -> bool:
        """token_set_ratio(a, b) — `plain`: or ratio — at least `threshold`?"""
        if self.pure and a in self._mapped and b in self._mapped:
            from session_skill.matching.setratio import reaches

            verdict = reaches(a, b, threshold, plain=plain)
            if verdict is not None:
                return verdict
        self._load()
        score = self._fuzz.token_set_ratio(a, b)
        if plain:
            score = max(score, self._fuzz.ratio(a, b))
        return score >= threshold  # type: ignore[no-any-return]


_ITEM_NOISE = recache.compile(r"\*\*|Raised:\s*\d{4}-\d{2}-\d{2}\.?|^\s*(?:[-*]\s+(?:\[ \]\s+)?)")


def filter_known(candidates: Iterable[Candidate], known: Iterable[str]) -> list[Candidate]:
    """Drop candidates matching an open parked item's or a dropped item's text (fuzzy ≥ 88),
    one of the two naming all the other does: "The /coupon endpoint is left for next time" is
    not the dropped "The /payout endpoint is left for next time", however alike the rest."""
    from session_skill.transcripts.landed import content_stems

    candidates = list(candidates)
    known = list(known)
    near = _Scorer(len(candidates) * len(known) <= PURE_MAX * 10)
    known_texts = [(near.process(_ITEM_NOISE.sub(" ", k).replace("-", " ")), k) for k in known]
    known_texts = [(p, k) for p, k in known_texts if p]
    stems: dict[str, set[str]] = {}  # a known text's, stemmed once however many it matches
    kept = []
    for cand in candidates:
        text = near.process(cand.text)
        hits = [k for p, k in known_texts if _near(text, p, near, 88, plain=True)]
        if hits:
            own = content_stems(cand.text.replace("-", " "))  # read as the known texts are
            for k in hits:
                if k not in stems:
                    stems[k] = content_stems(k.replace("-", " "))
            # the same item said shorter or longer: one of the two names all the other does
            if any(own <= stems[k] or stems[k] <= own for k in hits):
                continue
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

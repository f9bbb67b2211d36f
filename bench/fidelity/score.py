"""Scoring what extraction found in one session against its key (tests/fidelity/README.md).

Pure functions over plain values: `Found` is what the tool produced for a session, `Key` what
the labeller read in it; `score` says which candidate matched which labelled item, and the
totals add up per split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bench.fidelity.keys import Item, Key

_STOP = frozenset(
    "the and for with that this you your are was were have has had not but can could would "
    "should will its it's into from then than when what which who how all any now also just "
    "only very let let's i'll we'll i'm we're our out about there here them they their these "
    "those been being did does doing done one two get got make made want need".split()
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@dataclass
class Candidate:
    text: str  # the whole text the sweep kept (not the clipped one)
    type: str
    line: int | None = None  # the transcript line it came from, when the tool says
    rule: str = ""  # which of the tool's rules took it


@dataclass
class Found:
    candidates: list[Candidate]
    goal: str
    files: list[str]  # observed files, as the table names them (relative to the project)
    table_rows: list[str] = field(default_factory=list)  # the Files touched rows as shown
    # The doc's "Where it stopped": the last request and the last reply, clipped as shown.
    stopped: list[str] = field(default_factory=list)
    # The lines of the user's messages (not slash commands): how long ago an item was said.
    user_lines: list[int] = field(default_factory=list)


def norm(text: str) -> str:
    return " ".join(re.sub(r"[*`_#>|]", " ", text).lower().split())


def _tokens(text: str) -> set[str]:
    return {w for w in re.findall(r"[\w'-]+", text.lower()) if len(w) >= 3 and w not in _STOP}


def _bigrams(text: str) -> set[str]:
    s = re.sub(r"\s+", "", text.lower())
    return {s[i : i + 2] for i in range(len(s) - 1)}


def text_matches(candidate: str, quote: str) -> bool:
    """Do these two texts say the same thing: one holds the other, or most of the words of
    the shorter are in the longer (characters pairs for Chinese, Japanese, Korean)?"""
    c, q = norm(candidate).rstrip("…").strip(), norm(quote).rstrip("…").strip()
    if not c or not q:
        return False
    short, long = (c, q) if len(c) <= len(q) else (q, c)
    if len(short) >= 12 and short[:120] in long:
        return True
    if _CJK.search(c) or _CJK.search(q):
        a, b = _bigrams(c), _bigrams(q)
        if not a or not b:
            return False
        return len(a & b) >= 0.6 * min(len(a), len(b)) and len(a & b) >= 4
    a, b = _tokens(c), _tokens(q)
    shared = a & b
    return len(shared) >= 3 and len(shared) >= 0.6 * min(len(a), len(b))


def shows(text: str, quote: str) -> bool:
    """Can a reader of `text` (a clipped verbatim excerpt) see `quote` in it: its opening is
    there word for word, or nearly all its words are (character pairs for Chinese, Japanese,
    Korean)? Stricter than `text_matches`: a long excerpt shares some words with anything."""
    t, q = norm(text), norm(quote).rstrip("…").strip()
    if not t or not q:
        return False
    if q[:60] in t:
        return True
    if _CJK.search(q):
        want = _bigrams(q)
        return len(want) >= 4 and len(want & _bigrams(t)) >= 0.8 * len(want)
    want = _tokens(q)
    return len(want) >= 3 and len(want & _tokens(t)) >= 0.8 * len(want)


def matches(candidate: Candidate, item: Item, unlike: tuple[Item, ...] = ()) -> bool:
    """Does the candidate name the item: its text says it, or it came from a line the item
    was said on — unless its text says one of `unlike` (a look-alike or an answered
    question of the key): a line is a whole message, and the sentence the candidate took
    from it is the one the key judged."""
    if text_matches(candidate.text, item.quote):
        return True
    if candidate.line is None or candidate.line not in item.lines:
        return False
    return not any(text_matches(candidate.text, other.quote) for other in unlike)


def worded(candidate: Candidate, item: Item, unlike: tuple[Item, ...] = ()) -> bool:
    """`matches`, but a match by transcript line needs a word in common: a line is a whole
    message, and another sentence of it ("Treat market making as post-MVP …") does not tell
    the reader of an item it lists ("Probe regions, deploy, …")."""
    if text_matches(candidate.text, item.quote):
        return True
    return matches(candidate, item, unlike) and not _tokens(candidate.text).isdisjoint(
        _tokens(item.quote)
    )


@dataclass
class SessionScore:
    file: str
    split: str
    tasks: int = 0
    tasks_found: int = 0
    questions: int = 0
    questions_found: int = 0
    candidates: int = 0  # not matching a borderline item only
    candidates_right: int = 0
    # The same three counts by `worded`: no credit for a transcript line alone.
    tasks_worded: int = 0
    questions_worded: int = 0
    candidates_right_worded: int = 0
    answered_reported_open: int = 0
    # Open tasks and questions the next session is shown: listed, or legible in the doc's
    # "Where it stopped" (which carries what extraction misses at the end).
    open_shown: int = 0
    # Open tasks and questions by how many user messages came after the line they were
    # said on (`AGES`): [found, labelled].
    by_age: dict[str, list[int]] = field(default_factory=dict)
    goal_right: bool = False
    files_key: int = 0
    files_found: int = 0
    files_right: int = 0
    root_row: bool = False  # the table folded files into one row for the project root
    by_type: dict[str, list[int]] = field(default_factory=dict)  # type -> [right, all]
    by_rule_worded: dict[str, list[int]] = field(default_factory=dict)  # by `worded`
    detail: list[str] = field(default_factory=list)  # for the report of a train session


def score(key: Key, found: Found, split: str) -> SessionScore:
    s = SessionScore(key.file, split)
    tasks, questions = key.items["open_tasks"], key.items["open_questions"]
    answered, borderline = key.items["answered_questions"], key.items["borderline"]
    lookalikes = key.items["lookalikes"]
    unlike = (*answered, *lookalikes, *borderline)
    s.tasks, s.questions = len(tasks), len(questions)
    for what, items in (("task", tasks), ("question", questions)):
        for item in items:
            hit = any(matches(c, item, unlike) for c in found.candidates)
            said = hit and any(worded(c, item, unlike) for c in found.candidates)
            # Missed by extraction, but in front of the next session all the same?
            shown = hit or any(shows(text, item.quote) for text in found.stopped)
            if what == "task":
                s.tasks_found += hit
                s.tasks_worded += said
            else:
                s.questions_found += hit
                s.questions_worded += said
            s.open_shown += shown
            tally = s.by_age.setdefault(age(item, found.user_lines), [0, 0])
            tally[0] += hit
            tally[1] += 1
            mark = "✓" if hit else "MISSED (in Where it stopped)" if shown else "MISSED"
            label = f"task [{item.kind}]" if what == "task" else "question"
            s.detail.append(f"  {mark} {label} {item.quote[:110]}")
    for c in found.candidates:
        right = any(matches(c, item, unlike) for item in (*tasks, *questions))
        # What the key calls it instead: what its text says first, then its line.
        judged = (("answered", answered), ("lookalike", lookalikes))
        said_as = [n for n, items in judged if any(text_matches(c.text, i.quote) for i in items)]
        on_line = [n for n, items in judged if any(c.line in i.lines for i in items)]
        wrong_as = next(iter(said_as + on_line), None)
        if not right and any(matches(c, item) for item in borderline):
            s.detail.append(f"  ~ borderline [{c.type}] {c.text[:110]}")
            continue
        said = right and any(worded(c, item, unlike) for item in (*tasks, *questions))
        s.candidates += 1
        s.candidates_right += right
        s.candidates_right_worded += said
        for name in (c.type, f"rule {c.rule or '?'}"):
            tally = s.by_type.setdefault(name, [0, 0])
            tally[0] += right
            tally[1] += 1
        tally = s.by_rule_worded.setdefault(c.rule or "?", [0, 0])
        tally[0] += said
        tally[1] += 1
        if right and not said:
            s.detail.append(f"  ≈ candidate [{c.type}/{c.rule}] {c.text[:100]} (by line alone)")
        if not right and wrong_as == "answered":
            s.answered_reported_open += 1
        if not right:
            why = f" (matches a labelled {wrong_as})" if wrong_as else ""
            s.detail.append(f"  ✗ candidate [{c.type}/{c.rule}] {c.text[:110]}{why}")
    s.goal_right = any(all(w in found.goal.lower() for w in group) for group in key.goal_keywords)
    s.detail.insert(0, f"  Goal {'✓' if s.goal_right else '✗'}: {found.goal[:160]}")
    wanted = {_path_key(f) for f in key.files_written}
    got = {_path_key(f) for f in found.files}
    s.files_key, s.files_found, s.files_right = len(wanted), len(got), len(wanted & got)
    s.root_row = any(r.startswith("./") or r == "." for r in found.table_rows)
    for f in sorted(wanted - got):
        s.detail.append(f"  MISSED file {f}")
    for f in sorted(got - wanted):
        s.detail.append(f"  ✗ file {f}")
    return s


# How long before the end an open item was said: user messages after it.
AGES = ("last turn", "1 back", "2-3 back", "4-9 back", "10+ back")


def age(item: Item, user_lines: list[int]) -> str:
    """The `AGES` bucket of an item: how many of the user's messages came after its first
    line (an item with no line is taken as said at the end)."""
    first = min(item.lines) if item.lines else 1 << 62
    after = sum(1 for line in user_lines if line > first)
    return AGES[sum(after > bound for bound in (0, 1, 3, 9))]


def _path_key(path: str) -> str:
    return path.replace("\\", "/").rstrip("/")


@dataclass
class Totals:
    sessions: int = 0
    tasks: int = 0
    tasks_found: int = 0
    questions: int = 0
    questions_found: int = 0
    candidates: int = 0
    candidates_right: int = 0
    tasks_worded: int = 0
    questions_worded: int = 0
    candidates_right_worded: int = 0
    answered_reported_open: int = 0
    open_shown: int = 0
    by_age: dict[str, list[int]] = field(default_factory=dict)
    goals_right: int = 0
    files_key: int = 0
    files_found: int = 0
    files_right: int = 0
    root_rows: int = 0
    by_type: dict[str, list[int]] = field(default_factory=dict)
    by_rule_worded: dict[str, list[int]] = field(default_factory=dict)

    def add(self, s: SessionScore) -> None:
        self.sessions += 1
        for name in (
            "tasks", "tasks_found", "questions", "questions_found", "candidates",
            "candidates_right", "tasks_worded", "questions_worded", "candidates_right_worded",
            "answered_reported_open", "open_shown", "files_key", "files_found", "files_right",
        ):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(s, name))
        self.goals_right += s.goal_right
        self.root_rows += s.root_row
        for mine, theirs in (
            (self.by_type, s.by_type),
            (self.by_age, s.by_age),
            (self.by_rule_worded, s.by_rule_worded),
        ):
            for kind, (right, n) in theirs.items():
                tally = mine.setdefault(kind, [0, 0])
                tally[0] += right
                tally[1] += n

    def as_dict(self) -> dict[str, object]:
        def rate(a: int, b: int) -> float | None:
            return round(a / b, 3) if b else None

        return {
            "sessions": self.sessions,
            "open_tasks_recall": rate(self.tasks_found, self.tasks),
            "open_tasks": [self.tasks_found, self.tasks],
            "open_questions_recall": rate(self.questions_found, self.questions),
            "open_questions": [self.questions_found, self.questions],
            "candidate_precision": rate(self.candidates_right, self.candidates),
            "candidates": [self.candidates_right, self.candidates],
            "worded": {  # by `worded`: a transcript line alone is no match
                "open_tasks": [self.tasks_worded, self.tasks],
                "open_questions": [self.questions_worded, self.questions],
                "candidates": [self.candidates_right_worded, self.candidates],
            },
            "answered_reported_open_per_10": rate(10 * self.answered_reported_open, self.sessions),
            "open_shown": [self.open_shown, self.tasks + self.questions],
            "goal_right": rate(self.goals_right, self.sessions),
            "files_recall": rate(self.files_right, self.files_key),
            "files_precision": rate(self.files_right, self.files_found),
            "root_rows": self.root_rows,
            "precision_by_type": {k: rate(r, n) for k, (r, n) in sorted(self.by_type.items())},
            "counts_by_type": dict(sorted(self.by_type.items())),
            "counts_by_rule_worded": dict(sorted(self.by_rule_worded.items())),
            "open_by_age": {a: self.by_age[a] for a in AGES if a in self.by_age},
        }


# How sure a split's rates are: its sessions resampled with replacement (items of one session
# go together — they are not independent draws), the middle 95% of the rates so obtained.
RESAMPLES = 2000
_SEED = 19  # fixed: the same scores print the same interval


def intervals(scores: list[SessionScore]) -> dict[str, tuple[float, float] | None]:
    """The 95% interval of each headline rate over `scores`' sessions resampled (a
    percentile bootstrap by session); None for a rate with nothing to count."""
    import random

    rates: dict[str, list[float]] = {n: [] for n in ("tasks", "questions", "precision", "goal")}
    if not scores:
        return dict.fromkeys(rates)
    rng = random.Random(_SEED)
    for _ in range(RESAMPLES):
        pick = [scores[rng.randrange(len(scores))] for _ in scores]
        for name, (hit, n) in {
            "tasks": (sum(s.tasks_found for s in pick), sum(s.tasks for s in pick)),
            "questions": (sum(s.questions_found for s in pick), sum(s.questions for s in pick)),
            "precision": (sum(s.candidates_right for s in pick), sum(s.candidates for s in pick)),
            "goal": (sum(s.goal_right for s in pick), len(pick)),
        }.items():
            if n:
                rates[name].append(hit / n)
    out: dict[str, tuple[float, float] | None] = {}
    for name, got in rates.items():
        got.sort()
        # A draw with nothing to count has no rate: the interval is over the others.
        out[name] = (got[int(0.025 * len(got))], got[int(0.975 * len(got)) - 1]) if got else None
    return out

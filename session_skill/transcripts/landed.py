"""Did a loose end land later? Word stems, a loose end's subject, and the evidence ledger.

A deferral, a side idea or an open question is settled when the session later does the
thing: the assistant reports it done ("Added jitter to the retry backoff"), a commit or a
completed task names it, or the user takes it up ("fix the underscore path bug"). The test
compares stems, not exact words ("manual"/"manually", "fix"/"fixing"), of the loose end's
subject — its content words without the marker that made it a loose end.

The ledger is kept small and fast because it is consulted on every message: an index from
stem to the loose ends using it, and the surface words (as `str.split` leaves them, with
their punctuation) already known to map to an indexed stem, so that most messages cost one
set intersection.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from session_skill import recache

# A word as the heuristics count them: "spotter-4te.5" and "export.py" stay whole.
WORD = recache.compile(r"[a-z0-9](?:[a-z0-9_'-]|\.(?=[a-z0-9]))+")
PUNCT = ".,;:!?()[]{}\"'`*_<>#|~=+"

STOPWORDS = frozenset(
    "all and any are but for get got had her him his its let new now off one our out own "
    "per put say see she the too two via was who why yes you "
    "about after again also another been before being both but can could did does doing "
    "done down each even ever every first from had has have having here how into its "
    "it's just last let let's lets like make more most much must need next not now off once only "
    "other our out over own please same should since some still such sure than that the "
    "their them then there these they this those through too under until upon use used very "
    "want was way well were what when where which while who why will with would yes yet you "
    "your yours shall might may i'll i'm i've we'll we're we've you'll you're don't doesn't "
    "didn't isn't aren't won't can't okay ok also maybe perhaps probably really actually "
    # pointers that name nothing, typed with the apostrophe or without
    "thats whats theres heres that's what's there's here's".split()
)
# Words that make a sentence a loose end, or frame a question, but say nothing about what.
_FRAMING = frozenset(
    "later for now follow-up follow-ups followup follow revisit revisiting come back circle "
    "scope future time today tomorrow week someday eventually down road line point park "
    "parking parked defer deferring deferred postpone postponing postponed punt punting "
    "shelve shelving hold skip skipped skipping leave left leaving stub stubbed stubbing "
    "keep kept save remind forget owe backlog todo heads-up caveat note known issue "
    "limitation alternatively alternative option approach idea worth trying exploring "
    "would could like want prefer proceed shall should also instead another separate "
    "pass step task work thing things stuff part bit something anything everything "
    "question questions around got never wait thanks thank thx".split()
)
# Common enough that sharing only these says nothing; they count, but not alone.
_GENERIC = frozenset(
    "add fix handle implement make update change create write run check look test tests "
    "file files code function method class module error value line lines case version data "
    "name type list item items feature bug problem new old current".split()
)

_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("izations", "iz"),
    ("ization", "iz"),
    ("isations", "iz"),
    ("isation", "iz"),
    ("ations", ""),
    ("ation", ""),
    ("ating", ""),
    ("ated", ""),
    ("ates", ""),
    ("ate", ""),
    ("ingly", ""),
    ("ings", ""),
    ("ing", ""),
    ("edly", ""),
    ("ied", "y"),
    ("ies", "y"),
    ("ed", ""),
    ("ers", ""),
    ("er", ""),
    ("ly", ""),
    ("es", ""),
    ("s", ""),
)
# …by their last letter: a word is tried against the suffixes it can end with, in order.
_SUFFIXES_BY_LAST: dict[str, tuple[tuple[str, str], ...]] = {
    last: tuple(x for x in _SUFFIXES if x[0][-1] == last) for last in {x[0][-1] for x in _SUFFIXES}
}
_MEMO_MAX = 200_000
_SHARED_MAX = 4
_memo: dict[str, str] = {}


def stem(word: str) -> str:
    """A light stem of a lowercased word: "manually" → "manual", "fixing" → "fix"."""
    found = _memo.get(word)
    if found is not None:
        return found
    if len(_memo) >= _MEMO_MAX:
        _memo.clear()
    bare = word.strip(PUNCT)
    result = _stem(bare)
    if result in _FRAMING_STEMS and bare.endswith(("er", "ers")) and bare.isalpha():
        # "worker", "pointer", "holder": a thing of its own, not the framing "work",
        # "point", "hold" a loose end's subject leaves out.
        result = bare.removesuffix("s")
    _memo[word] = result
    return result


# Irregular past forms, to the verb a loose end names: "Write the output to …" is done by
# "wrote `data/out.csv`", "Rebuild the index" by "rebuilt it".
IRREGULAR = {
    past: verb
    for verb, forms in (
        ("write", "wrote written"), ("rewrite", "rewrote rewritten"), ("run", "ran"),
        ("rerun", "reran"), ("make", "made"), ("build", "built"), ("rebuild", "rebuilt"),
        ("take", "took taken"), ("get", "got gotten"), ("find", "found"), ("send", "sent"),
        ("give", "gave given"), ("choose", "chose chosen"), ("break", "broke broken"),
        ("bring", "brought"), ("catch", "caught"), ("think", "thought"), ("tell", "told"),
        ("hide", "hid hidden"), ("throw", "threw thrown"), ("undo", "undid undone"),
        ("redo", "redid redone"), ("override", "overrode overridden"),
        ("freeze", "froze frozen"), ("lose", "lost"), ("mean", "meant"), ("pay", "paid"),
        ("begin", "began begun"), ("draw", "drew drawn"), ("stick", "stuck"),
        ("feed", "fed"), ("bind", "bound"), ("lead", "led"), ("drive", "drove driven"),
    )
    for past in forms.split()
}  # fmt: skip


def _stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    word = IRREGULAR.get(word, word)
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES_BY_LAST.get(word[-1], ()):
        if not word.endswith(suffix):
            continue
        base = word[: -len(suffix)] + replacement
        if suffix in ("s", "es") and word.endswith(("ss", "us", "is")):
            break
        if suffix == "es" and not base.endswith(("ch", "sh", "x", "z", "ss")):
            base = word[:-1]  # "updates" → "update" (→ "updat" below), not "updat" + "es"
        if len(base) < 3 or (suffix in ("ly", "er", "ers") and len(base) < 4):
            continue
        word = base
        # "committed" → "commit", "stubbing" → "stub"; not "fill" → "fil".
        if suffix in ("ed", "ing", "er", "ers") and len(word) > 3 and word[-1] == word[-2]:
            if word[-1] not in "lsz":
                word = word[:-1]
        break
    # "update" / "updated" / "updating" all reach "updat".
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


def content_stems(text: str) -> set[str]:
    """Stems of the words in `text` that carry meaning (three letters or more, no stopwords)."""
    return {
        stem(w)
        for w in WORD.findall(text.lower())
        if len(w) >= 3 and w not in STOPWORDS and not w.isdigit()
    }


def subject(text: str, words: list[str] | None = None) -> dict[str, str]:
    """What a loose end is about: its content stems (each with a word that has it), without
    the marker that made it a loose end and the framing of a question.

    `words` are `WORD.findall(text.lower())`, when the caller has them already.
    """
    found: dict[str, str] = {}
    for w in words if words is not None else WORD.findall(text.lower()):
        if len(w) >= 3 and w not in STOPWORDS and w not in _FRAMING and not w.isdigit():
            s = stem(w)
            if s not in _FRAMING_STEMS:
                found.setdefault(s, w)
    return found


def might_settle(wanted: frozenset[str], stems: set[str]) -> bool:
    """`settles`' first test alone: are a message's stems enough for one of its sentences
    to settle the loose end? The sentence decides; a message's other sentences do not count
    against it."""
    shared = wanted & stems
    return len(shared) >= min(2, len(wanted)) and not shared <= _GENERIC_STEMS


def settles(wanted: frozenset[str], stems: set[str]) -> bool:
    """Is a sentence with these stems about the loose end whose subject is `wanted`?

    It must share two of the subject's stems (one, for a one-word subject), not only generic
    ones, and the shared part must be most of the subject or most of the sentence: "fix the
    underscore path normalization bug" is about "Sprint 0: fix underscore normalization",
    "renamed the tenant option in the parser config" is not about "precompute the tenant
    table when the parser starts".
    """
    if not might_settle(wanted, stems):
        return False
    shared = len(wanted & stems)
    return shared >= 0.6 * len(wanted) or shared >= 0.6 * len(stems)


class Ledger:
    """The open loose ends, indexed by the distinctive stems of their subjects.

    Distinctive: not generic, and not among the session's common words (those in one
    message in twenty or more, counted on a sample of the messages) — "tenant" in a
    multi-tenant codebase says nothing; "eviction" does. Each indexed stem brings the
    surface forms a message can spell it with ("eviction", "evictions,", "(evicted"), so a
    message is tested with one set intersection of its split words, unstemmed.
    """

    def __init__(self) -> None:
        self.subjects: dict[str, frozenset[str]] = {}
        self.indexed: dict[str, int] = {}  # how many of a subject's stems are indexed
        self.index: dict[str, set[str]] = {}  # stem -> keys
        self.forms: dict[str, str] = {}  # surface form -> its indexed stem
        self.spelled: dict[str, tuple[str, ...]] = {}  # indexed stem -> its forms
        self.word: dict[str, str] = {}  # indexed stem -> the word it was indexed for
        self.messages = 0
        self.sampled = 0
        self.frequency: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self.subjects)

    def observe(self, tokens: list[str] | set[str]) -> None:
        """Count a message's words (one message in eight: the rates are what matter)."""
        self.messages += 1
        if not self.messages & 7:
            self.sample(tokens)

    def sample(self, tokens: list[str] | set[str]) -> None:
        if len(self.frequency) > _MEMO_MAX:
            self.frequency.clear()
            self.sampled = 0
        self.sampled += 1
        self.frequency.update(tokens)

    def common(self, word: str) -> bool:
        return self.frequency.get(word, 0) >= max(2, self.sampled / 20)

    def watch(self, key: str, words: dict[str, str]) -> None:
        if not words or key in self.subjects:
            return
        self.subjects[key] = frozenset(words)
        frequency, limit = self.frequency, max(2, self.sampled / 20)
        distinctive = [
            (s, w)
            for s, w in words.items()
            if s not in _GENERIC_STEMS and frequency.get(w, 0) < limit
        ]
        self.indexed[key] = len(distinctive)
        for s, word in distinctive:
            users = self.index.get(s)
            if users is None:
                self.index[s] = {key}
                self.word[s] = word
                self.spelled[s] = forms = surface_forms(s, word)
                # A form spells one stem only (`stem` maps it back), so none is taken over.
                self.forms.update(dict.fromkeys(forms, s))
            else:
                users.add(key)

    def forget(self, key: str) -> None:
        self.indexed.pop(key, None)
        for s in self.subjects.pop(key, ()):
            users = self.index.get(s)
            if users is None:
                continue
            users.discard(key)
            if not users:
                self._unindex(s)

    def _unindex(self, s: str) -> None:
        self.index.pop(s, None)
        self.word.pop(s, None)
        forms = self.forms
        for form in self.spelled.pop(s, ()):
            forms.pop(form, None)

    def hits(self, tokens: set[str], parts: set[str] | None = None) -> set[str]:
        """The loose ends this message names one distinctive stem of (the caller then
        weighs all their stems, generic ones too: "implement the enhanced export"); `parts`,
        the words of the paths it spells whole ("`data/customers_dedup.csv`"), too."""
        found = self.forms.keys() & tokens
        if parts:
            found |= self.forms.keys() & parts
        if not found:
            return set()
        count: dict[str, int] = {}
        limit = max(2, self.sampled / 20)
        for s in {self.forms[form] for form in found}:
            users = self.index.get(s, ())
            if len(users) > _SHARED_MAX:
                continue  # a word many loose ends share tells none of them apart
            if self.frequency.get(self.word[s], 0) >= limit:
                # Become common since it was indexed: it tells nothing apart any more.
                self._unindex(s)
                continue
            for key in users:
                count[key] = count.get(key, 0) + 1
        return set(count)


_ENDINGS = ("", "e", "s", "es", "d", "ed", "ing", "er", "ly", "ation", "ations")
_HEADS = ("", "(")
_TAILS = ("", ".", ",", ")", "?")


@lru_cache(maxsize=4096)
def surface_forms(s: str, word: str) -> tuple[str, ...]:
    """The split tokens a message may spell stem `s` with: the inflections of it that
    `stem` maps back to `s`, bare or with the punctuation that sticks to a word most."""
    bases = {word, s}
    if word.endswith("e"):
        bases.add(word[:-1])  # migrate: migrated, migrating
    if s.endswith("y"):
        bases.add(s[:-1] + "i")  # policy: policies, policied
    if s.endswith("iz"):
        bases.update((s + "e", s[:-2] + "is"))  # normaliz: normalize, normalisation
    candidates = {b + e for b in bases for e in _ENDINGS}
    candidates |= {s + s[-1] + e for e in ("ed", "ing", "er")}  # commit: committed
    candidates |= {past for past, verb in IRREGULAR.items() if verb in bases}  # build: built
    words = [c for c in candidates if stem(c) == s]
    return tuple(h + w + t for w in words for h in _HEADS for t in _TAILS)


GENERIC_STEMS = _GENERIC_STEMS = frozenset(_stem(w) for w in _GENERIC)
_FRAMING_STEMS = frozenset(_stem(w) for w in _FRAMING)

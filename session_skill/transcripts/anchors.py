"""The words a message is tested for before any regex runs: the anchors of the phrasing
classes (`phrasing.RULES`), each with the phrases that confirm it, and the words of a report
that work is done (`phrasing.DONE`). One set intersection against a message's tokens decides
whether the classes run on it at all."""

from __future__ import annotations

from collections.abc import Set as AbstractSet


def _lead_in(word: str) -> tuple[str, ...]:
    """A word leading a caveat the way the caveat rule takes it: "note:", "note —", "note -"."""
    return tuple(f"{word}{gap}{mark}" for mark in ":—–-" for gap in ("", " "))


_LEAVE_FOR = (
    "the next",
    "next",
    "a later",
    "later",
    "another",
    "a future",
    "a follow",
    "a separate",
)

# Words at least one class needs, each with the phrases that confirm it in the lowered
# text (none: the word alone is enough to run the classes).
_ANCHOR_PHRASES: dict[str, tuple[str, ...]] = {
    "later": (),
    "back": ("back to", "back on"),
    "follow": ("follow up",),
    "follow-up": (),
    "follow-ups": (),
    "followup": (),
    "next": (
        *("next time", "next step", "next sprint", "next release", "next iteration"),
        *("next milestone", "next version", "next cycle", "next phase", "next week"),
        *("next major", "next minor", "next patch"),
    ),
    "scope": ("of scope", "in scope"),
    "part": ("part of this", "part of the"),
    "included": ("included in this", "included in the"),
    "park": (),
    "revisit": (),
    "revisiting": (),
    "future": (),
    "road": ("the road",),
    "line": ("the line",),
    "point": ("some point",),
    "wait": ("can wait", "could wait"),
    "now": ("not now", "right now", "for now"),
    "moment": ("for the moment",),
    "being": ("time being",),
    "yet": (),
    "still": (),
    "never": ("never got",),
    "around": ("around to",),
    "chance": ("a chance to",),
    "time": (
        "out of time",
        "another time",
        "other time",
        "later time",
        "future time",
        "different time",
        "had time to",
        "this time",
    ),
    "separate": ("a separate",),
    "subsequent": (),
    "today": ("not today", "for today"),
    "pin": ("a pin in",),
    "table": (
        "let's table",
        "lets table",
        "let us table",
        "can table",
        "could table",
        "should table",
        "just table",
    ),
    "deprioritize": (),
    "deprioritise": (),
    "de-prioritize": (),
    "deprioritized": (),
    "deprioritised": (),
    "priority": (
        "a priority",
        "the priority",
        "high priority",
        "top priority",
        "big priority",
        "low priority",
        "lower priority",
        "low-priority",
        "lower-priority",
        "not priority",
    ),
    "nice-to-have": (),
    "holding": ("holding off",),
    "left": ("left to do", "out of this", "out of the"),
    **dict.fromkeys(("leaving", "kept", "keeping"), ("out of this", "out of the")),
    # …and "leave it for the next run", "leave that for another day"
    "leave": ("out of this", "out of the", *(f" for {w}" for w in _LEAVE_FOR)),
    "open": ("open items", "open questions", "open issues", "open tasks"),
    "pending": ("pending tasks", "pending work", "pending items", "pending steps"),
    "limitations": (),
    "caveats": (),
    "eventually": (),
    "someday": (),
    "day": ("some day", "one day", "another day", "other day", "different day"),
    "postponing": (),
    "postponed": (),
    "postpone": (),
    "deferring": (),
    "deferred": (),
    "defer": (),
    "punt": (),
    "punting": (),
    "punted": (),
    "parking": (),
    "parked": (),
    "shelving": (),
    "shelved": (),
    "shelve": (),
    "hold": ("on hold", "hold off", "until"),
    "touching": ("not touching",),
    **{w: (f"this {w}",) for w in ("release", "sprint", "pr", "iteration", "milestone", "version")},
    "round": ("this round",),
    "phase": ("phase 2", "phase two", "phase ii", "phase2"),
    "v2": (),
    "post-launch": (),
    "postlaunch": (),
    "post-mvp": (),
    "post-release": (),
    "lunch": ("after lunch",),
    "launch": ("after the launch", "after launch"),
    "demo": ("after the demo",),
    "holidays": ("after the holidays",),
    "break": ("after the break",),
    "freeze": ("after the freeze",),
    "heads-up": (),
    "heads": ("heads up",),
    "caveat": (),
    "known": ("known issue", "known limitation", "known problem", "known bug"),
    "limitation": (),
    "note": _lead_in("note"),
    "warning": _lead_in("warning"),
    "fyi": (),
    "important": _lead_in("important"),
    "nb": (),
    "forget": (),
    "remind": (),
    "owe": (),
    "backlog": (),
    "roadmap": (),
    "todo": (),
    "todos": (),
    "to-do": (),
    "remaining": (),
    "outstanding": (),
    "also": ("could also",),
    "another": (
        *("another option", "another approach", "another idea", "another way"),
        *(f"another {what}" for what in "pr pull change commit issue ticket".split()),
        *("another session", "another task", "another patch", "another iteration"),
    ),
    "other": ("other option", "other approach", "other idea", "other way"),
    "alternative": (),
    "alternatively": (),
    "worth": (),
    "recommend": (),
    "tomorrow": (),
    "week": ("next week",),
    "monday": ("on monday",),
    "weekend": ("the weekend",),
    "suggest": (),
    "consider": (),
    "if": ("what if we",),
    "nice": ("would be nice",),
    "good": ("would be good",),
    "cool": ("would be cool",),
    "interesting": ("would be interesting",),
    "want": ("might want", "may want", "might also want", "may also want"),
    "idea": ("idea is", "idea would"),
    "instead": ("instead we could",),
    "explore": (),
    "experiment": (),
}
_WRAP: tuple[str, ...] = ("", "(", "*", "**", '"', "`")
_TAIL: tuple[str, ...] = ("", ".", ",", ";", ":", "!", "?", ")", "**", '"', "`", ").", "),")
_TAIL += ("...", ":**", "**:")
# Every surface form a word takes as `str.split` leaves it, mapped to the word.
ANCHORS: dict[str, str] = {
    head + word + tail: word for word in _ANCHOR_PHRASES for head in _WRAP for tail in _TAIL
}


def confirmed(low: str, words: AbstractSet[str]) -> bool:
    """Does any anchor word found in `low` have its confirming phrase there too?"""
    for form in words:
        phrases = _ANCHOR_PHRASES[ANCHORS[form]]
        if not phrases or any(phrase in low for phrase in phrases):
            return True
    return False


# The words of DONE, as `str.split` leaves them: the cheap test before the regex.
DONE_WORDS = frozenset(
    word + tail
    for word in (
        "added fixed implemented committed wired hooked handled resolved updated removed "
        "created wrote written rewrote rewritten finished complete completed done addressed "
        "ported migrated refactored renamed moved deleted cleaned configured rotated merged "
        "pushed landed shipped enabled replaced switched converted documented extracted "
        "introduced normalised normalized restored reverted upgraded installed deployed "
        "released generated built set covered tested precomputed cached split made changed "
        "passes passing works working succeeded place ✅"
    ).split()
    for tail in ("", ".", ",", ":", ";", "!", ")")
)

ANCHOR_FORMS = frozenset(ANCHORS)
# The words a message is tested for first, in one set intersection.
TRIGGERS = ANCHOR_FORMS | DONE_WORDS

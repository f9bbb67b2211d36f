"""The prose heuristics of the sweep: which sentences defer, diverge or ask something open.

They favour precision: a table full of chit-chat teaches the user to ignore the sweep, so a
sentence is only taken when it carries an explicit marker. Kept apart from the streaming
pass (`sweep`) because they work on one message's text and know nothing of transcripts.
"""

from __future__ import annotations

import re

from session_skill.transcripts.candidates import DEFERRED, DIVERGING
from session_skill.transcripts.redact import redact

CLIP_CHARS = 160
# Only the head of a long message is scanned: a pasted log is not where ideas live, and
# regexes over megabytes would dominate the pass.
_SCAN_CHARS = 16_000

_FENCE = re.compile(r"(```|~~~).*?(?:\1|\Z)", re.DOTALL)
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|\[[ xX]\])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[*_`A-Z0-9])")
_DEFERRED = re.compile(
    r"""\b(?:
        (?:come|get|circle|go)\s+back\s+to
      | follow[- ]?up\b(?!\s+questions?)
      | next\s+time\b
      | out\s+of\s+scope
      | park\s+(?:this|that|it|these|those)\b
      | (?:for|until)\s+later\b
      | (?:handle|do|tackle|address|fix|add|implement|revisit|look\s+(?:at|into)|deal\s+with
         |clean\s+up|optimi[sz]e|refactor|investigate|check|test|finish|wire\s+up)\b
        [^.?!\n]{0,40}?\blater\b(?!\s+(?:in|version|versions|release|releases)\b)
      | revisit\b
      | (?:in|as|for)\s+a\s+(?:later|future|follow[- ]?up|separate|subsequent)\s+
        (?:step|pr|pull\s+request|pass|change|iteration|commit|issue|ticket|session|task|phase)
      | future\s+work | down\s+the\s+road
      | at\s+some\s+point\s+(?:we|you|i)\b
      | (?:defer|postpone|punt)(?:red|ed|ing|s)?\s+(?:on\s+)?(?:this|that|it)\b
      | not\s+(?:right\s+)?now\b
      | (?:skip|leave|ignore|stub|hard-?code|punt\s+on|keep|disable|bypass|comment\s+out)\b
        [^.?!\n]{0,60}?\bfor\s+now\b
      | for\s+now,?\s+(?:let\s+me|let's|i'll|we'll|i\s+will|we\s+will)\s+
        (?:just\s+)?(?:try\s+(?:to\s+)?)?
        (?:skip|leav|ignor|stub|hard-?cod|disabl|bypass|comment(?:ing)?\s+out|work(?:ing)?\s+around)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# TODO is a marker only in capitals and as a note ("TODO:", "left a TODO"), never "TODO app".
_TODO = re.compile(
    r"\bTODO\s*[:(]|\b(?:left|leave|leaving|add|added|adding)\s+(?:an?\s+)?TODOs?\b"
    r"(?!\s+(?:apps?|lists?|items?|application|component|manager)\b)"
)
_DIVERGING = re.compile(
    r"""\b(?:
        we\s+could\s+also | could\s+also\s+(?:add|use|try|consider|make|switch|support|cache)
      | (?:another|one\s+other|an\s+alternative)\s+(?:option|approach|idea|way)
      | alternatively
      | worth\s+(?:trying|exploring|considering|a\s+try|looking\s+into|investigating)
      | (?:might|may|could)\s+be\s+worth
      | what\s+if\s+we
      | it\s+would\s+be\s+(?:nice|good|cool|interesting)\s+to
      | we\s+(?:might|may)\s+(?:also\s+)?want\s+to
      | (?:one|an)\s+idea\s+(?:is|would\s+be)
      | instead\s+we\s+could
      | (?:could|might)\s+(?:also\s+)?(?:explore|experiment\s+with)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_ANSWER_START = re.compile(
    r"^\s*(?:yes|yeah|yep|yup|no|nope|nah|sure|ok|okay|go\s+ahead|go\s+for\s+it|do\s+it"
    r"|don'?t|please|proceed|continue|sounds|agreed?|correct|right|exactly|absolutely"
    r"|definitely|both|neither|either|option|the\s+(?:first|second|third|former|latter)"
    r"|lgtm|approved?)(?!\w)|^\s*(?:\d+|[a-d])[).:]",
    re.IGNORECASE,
)
# Closing pleasantries end many turns with a question that asks for nothing in particular.
_GENERIC_QUESTION = re.compile(
    r"\b(?:anything\s+else|what(?:'s|\s+is)\s+next|how\s+can\s+i\s+help"
    r"|what\s+(?:would|do|should)\s+(?:you|we)\s+(?:like|want)\s+(?:me\s+)?to\s+"
    r"(?:do|work\s+on|tackle|look\s+at|focus\s+on|try)"
    r"|what\s+should\s+(?:i|we)\s+(?:do|work\s+on|tackle|look\s+at)\s+next"
    r"|(?:does|did)\s+(?:this|that)\s+(?:help|work\s+for\s+you)|any\s+(?:other\s+)?questions)\b",
    re.IGNORECASE,
)
# A word as the heuristics count them; the sweep keys its pool of loose ends on these too.
WORD = re.compile(r"[a-z0-9][a-z0-9_'-]+")
_STOPWORDS = frozenset(
    "about after also before being could does doing from have into just like make more "
    "need only other should some than that their them then there these they this those "
    "want what when where which while will with would your you yours shall might".split()
)


def _units(text: str) -> list[tuple[str, bool]]:
    """Sentences of the prose in `text` (code blocks dropped), each flagged as a list item."""
    text = _FENCE.sub("\n", text[:_SCAN_CHARS])
    units: list[tuple[str, bool]] = []
    for line in text.splitlines():
        is_item = _LIST_MARK.match(line) is not None
        # Indented lines are code, unless they are nested list items; tables, headings and
        # markup are not sentences.
        if not line.strip() or (line.startswith(("    ", "\t")) and not is_item):
            continue
        if line.lstrip().startswith(("|", "#", "<")):
            continue
        line = _LIST_MARK.sub("", line.lstrip("> ")).replace("**", "").replace("__", "").strip()
        for sentence in _SENTENCE_END.split(line):
            sentence = sentence.strip()
            if sentence:
                units.append((sentence, is_item))
    return units


_NOT_PLAIN = re.compile(r"[^\w ]|[\d_]")


def _is_prose(sentence: str) -> bool:
    """Four words or more, mostly letters: not a log line, a path list or code."""
    if len(sentence.split()) < 4:
        return False
    return len(_NOT_PLAIN.sub("", sentence)) >= 0.75 * len(sentence)


def clip(text: str, limit: int = CLIP_CHARS) -> str:
    """One line of at most `limit` characters, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


# Words one of the markers above needs; a text holding none of them is not scanned further
# (plain substring tests are far cheaper than the marker regexes).
_MARKER_WORDS = tuple(
    "back to|follow|next time|of scope|park|later|revisit|future|the road|some point|defer|"
    "postpon|punt|not now|right now|for now|could also|other option|other approach|"
    "other idea|other way|alternative|worth|what if|would be|want to|idea|instead|explor|"
    "experiment".split("|")
)


def marked_sentences(text: str) -> list[tuple[str, str]]:
    """(type, sentence) for each prose sentence of `text` that defers or diverges."""
    head = text[:_SCAN_CHARS]
    lowered = head.lower()
    if not any(map(lowered.__contains__, _MARKER_WORDS)) and "TODO" not in head:
        return []
    if not (_DEFERRED.search(head) or _DIVERGING.search(head) or _TODO.search(head)):
        return []
    found: list[tuple[str, str]] = []
    for sentence, _ in _units(redact(head)):
        if not _is_prose(sentence):
            continue
        if _DEFERRED.search(sentence) or _TODO.search(sentence):
            found.append((DEFERRED, sentence))
        elif _DIVERGING.search(sentence):
            found.append((DIVERGING, sentence))
    return found


def final_question(text: str) -> tuple[str, list[str]] | None:
    """The question a turn's last text ends on, with the options listed after it, if any."""
    if "?" not in text[-_SCAN_CHARS:]:
        return None
    units = _units(text[-_SCAN_CHARS:])
    if not units:
        return None
    index = len(units) - 1
    if not _ends_question(units[index][0]):
        while index >= 0 and units[index][1] and len(units) - index <= 8:
            index -= 1
        if index < 0 or index == len(units) - 1 or not _ends_question(units[index][0]):
            return None
    question = units[index][0]
    if len(question.split()) < 3 or _GENERIC_QUESTION.search(question):
        return None
    return question, [unit for unit, _ in units[index + 1 :]]


def _ends_question(sentence: str) -> bool:
    return sentence.rstrip(" *_)\"'`").endswith("?")


def _content_words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if len(w) >= 4 and w not in _STOPWORDS}


def answers(question: str, options: list[str], reply: str) -> bool:
    """Does `reply` take up the question, or move on to something else?"""
    if len(reply.split()) <= 4 or _ANSWER_START.match(reply):
        return True
    said = _content_words(reply)
    asked = _content_words(question)
    shared = asked & said
    if len(shared) >= 2 or (bool(shared) and len(shared) >= 0.3 * len(asked)):
        return True
    return any(_content_words(option) & said for option in options)

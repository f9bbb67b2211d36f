"""The prose heuristics of the sweep: which sentences defer, diverge or ask something open.

They favour precision: a table full of chit-chat teaches the user to ignore the sweep, so a
sentence is only taken when it carries an explicit marker (the phrasing classes live in
`phrasing`). Kept apart from the streaming pass (`scan`) because they work on one message's
text and know nothing of transcripts.

Every message of a session passes through here, so the common case is made cheap: the
message's words are intersected with the words a marker needs, and only the few messages
that share one are split into sentences and tried against the classes.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from session_skill import recache
from session_skill.transcripts.abroad import CJK, DONE_FOR_NOW, puts_off
from session_skill.transcripts.anchors import ANCHORS, confirmed
from session_skill.transcripts.candidates import DEFERRED, UNANSWERED
from session_skill.transcripts.landed import WORD
from session_skill.transcripts.lazyre import Lazy
from session_skill.transcripts.phrasing import (
    _BEFORE,
    ATTEMPT,
    LEAD_IN,
    NEXT_LIST,
    RULES,
    STILL_OPEN,
    Rule,
)
from session_skill.transcripts.redact import redact as _redact

redact = _redact  # a text no secret pattern can match is returned unscanned (redact.py)


__all__ = [
    "CLIP_CHARS",
    "WORD",
    "anchor_words",
    "classify",
    "direct_reply",
    "clip",
    "listed_items",
    "marked_sentences",
    "redact",
    "still_open",
]

CLIP_CHARS = 160
# Only 16,000 characters of a long message are scanned — its head, or the tail of a closing
# text: a pasted log is not where ideas live, and regexes over megabytes would dominate.
_SCAN_CHARS = 16_000
_LIST_ITEMS_MAX = 8

_FENCE = recache.compile(r"(```|~~~).*?(?:\1|\Z)", re.DOTALL)
_LIST_MARK = recache.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|\[[ xX]\])\s+")
_SENTENCE_END = recache.compile(r"(?<=[.!?])\s+(?=[\"'(\[*_`A-Z0-9])")
# …or after the bracket that closes a parenthesis ending in one ("… gone too.) Done."): twice
# the cost per line, so only for a line that holds such an end.
_SENTENCE_END_BRACKET = recache.compile(r"(?:(?<=[.!?])|(?<=[.!?]\)))\s+(?=[\"'(\[*_`A-Z0-9])")
# A line that is not all ASCII may be of another script: a sentence may open on a capital of
# Latin-1, Greek or Cyrillic ("… проходят. Обновить …"), on "¿" or "¡", and Chinese and
# Japanese end one on "。", "！" or "？" with no space after.
_WIDE_CAPS = "¿¡À-ÖØ-ÞΑ-ΩЁА-Я"
_SENTENCE_END_WIDE = recache.compile(
    rf"(?:(?<=[.!?])|(?<=[.!?]\)))\s+(?=[\"'(\[*_`A-Z0-9{_WIDE_CAPS}])|(?<=[。！？])\s*(?=\S)"
)
_DONE_ITEM = Lazy(r"^\s*(?:[-*+]\s+)?(?:\[[xX]\]|~~|✅|✓|✔)|\((?:done|fixed)\)", re.I)

# The words a question opens on ("why …", "what's …", "does …"): shared by the request that
# asks to be told (`turns._TO_KNOW`) and the reply that asks back (`asks._ASKS_BACK`).
QUESTION_WORDS = r"why|what|what's|whats|how|where|which|who|when|is|are|was|were|does|do|did"

_ANSWER_START = Lazy(
    r"^\s*(?:yes|yeah|yep|yup|no|nope|nah|sure|ok|okay|go\s+ahead|go\s+for\s+it|do\s+it"
    r"|don'?t|please|proceed|continue|sounds|agreed?|correct|right|exactly|absolutely"
    r"|definitely|both|neither|either|option|the\s+(?:first|second|third|former|latter)"
    r"|lgtm|approved?|not\s+(?:(?:right\s+)?now|yet|today|for\s+now)|maybe\s+later)(?!\w)"
    r"|^\s*(?:\d+|[a-d])[).:]",
    re.IGNORECASE,
)
# Thanks, praise and a goodbye, as alternatives of a pattern: what `turns._ACK` (a message
# that closes the work in hand) and `asks._THANKS_ONLY` (one that answers no question) share.
# Thanks as people say it in their own language.
THANKS_ABROAD = (
    r"danke(?:\s+(?:sch(?:ö|oe)n|dir|euch|sehr))?|vielen\s+dank|merci(?:\s+(?:beaucoup|bien))?"
    r"|(?:muchas\s+|mil\s+)?gracias|grazie(?:\s+mille)?|obrigad[oa]|valeu|vlw|bedankt|tack"
    r"|dzi(?:ę|e)kuj(?:ę|e)|dzi(?:ę|e)ki|teşekkürler|sağ\s*ol|спасибо|спасибки|спс|благодарю"
    r"|дякую|谢谢(?:你|您)?|谢了|多谢|感谢|ありがとう(?:ございます|ございました)?|どうも|サンキュー"
    r"|감사합니다|감사해요|고마워요?|고맙습니다"
)
THANKS = (
    r"thanks?|thank\s+you|thx|ty|nice|cool|awesome|sweet|so\s+much|a\s+lot|very\s+much"
    rf"|{THANKS_ABROAD}|{DONE_FOR_NOW}"
    r"|well\s+done|cheers|(?:good)?bye|good\s*night|see\s+(?:you|ya)(?:\s+(?:later|tomorrow))?"
    r"|(?:that's|that\s+is|that'll\s+be)\s+(?:all|it|enough)(?:\s+for\s+(?:now|today|tonight))?"
    r"|(?:good\s+enough|done)\s+for\s+(?:now|today|tonight)|calling\s+it\s+a\s+day"
)
# A counter-proposal answers a question as surely as a yes: the user chose another way.
_COUNTER_START = Lazy(
    r"^\s*(?:how\s+about|what\s+about|what\s+if|why\s+(?:don'?t|not)\b|instead\b|rather\b"
    r"|actually\b|i'?d\s+(?:rather|prefer)|i\s+(?:would\s+)?(?:rather|prefer)"
    r"|let'?s\s+(?:first|rather|instead)\b|first\b|before\s+that\b)",
    re.IGNORECASE,
)
_COUNTER = Lazy(
    r"\b(?:can|could|shall|should)\s+(?:we|you|i)\b[^?.!]{0,80}?"
    r"\b(?:first|instead|rather|before\s+(?:that|this|we|you))\b",
    re.IGNORECASE,
)
_OR = Lazy(r",?\s+or\s+(?!not\b)", re.IGNORECASE)
# Closing pleasantries end many turns with a question that asks for nothing in particular.
_GENERIC_QUESTION = Lazy(
    r"\b(?:anything\s+else|what(?:'s|\s+is)\s+next|how\s+can\s+i\s+help"
    r"|what\s+(?:would|do|should)\s+(?:you|we)\s+(?:like|want)\s+(?:me\s+)?to\s+"
    r"(?:do|work\s+on|tackle|look\s+at|focus\s+on|try)"
    r"|what\s+should\s+(?:i|we)\s+(?:do|work\s+on|tackle|look\s+at)\s+next"
    r"|(?:does|did)\s+(?:this|that)\s+(?:help|work\s+for\s+you)|any\s+(?:other\s+)?questions"
    # The sign-off said without a question mark: "Let me know if anything else comes up",
    # "… if you'd like any changes", "… if you run into any issues".
    r"|if\s+(?:anything|something)\s+(?:else\s+)?(?:comes\s+up|needs)"
    r"|if\s+(?:there(?:'s|\s+is)\s+)?anything\s+else"
    r"|if\s+you\s+(?:have|run\s+into|hit|see|encounter|notice|find)\s+any\s+(?:other\s+|more\s+"
    r"|further\s+)?(?:issues|problems|questions|errors|bugs|trouble)"
    r"|if\s+you(?:'d|\s+would)?\s+(?:like|want|need)\s+(?:any|some)\s+(?:other\s+|more\s+"
    r"|further\s+)?(?:changes|adjustments|tweaks|modifications|help|edits)"
    r"|if\s+you(?:'d|\s+would)?\s+(?:like|want)\s+(?:me\s+to\s+)?(?:change|adjust|tweak"
    r"|modify)\s+anything"
    # "… if you want any of the wording tweaked", "… if you'd like anything changed"
    r"|if\s+you(?:'d|\s+would)?\s+(?:like|want|need)\s+(?:any|anything)\s+(?:of\s+(?:the|it"
    r"|this|that)\s+)?(?:[\w-]+\s+){0,2}?(?:tweaked|changed|adjusted|modified|reworded"
    r"|polished)"
    r"|if\s+you\s+need\s+anything)\b",
    re.IGNORECASE,
)


def sign_off(sentence: str) -> bool:
    """Is `sentence` a closing pleasantry that asks for nothing in particular ("Anything
    else?", "Let me know if you'd like any changes")?"""
    gated = _GENERIC_GATE.search(sentence) is not None
    return gated and _GENERIC_QUESTION.search(sentence) is not None


# The last text split and its units: a closing text is split for its questions (`asks`)
# and again for its caveats (`ending`), one right after the other.
_UNITS_MEMO: list[object] = [None, ()]


def _units(text: str) -> tuple[tuple[str, bool], ...]:
    """Sentences of the prose in `text` (code blocks dropped), each flagged as a list item."""
    memo = _UNITS_MEMO
    if text is memo[0]:
        return memo[1]  # type: ignore[return-value]
    given = text
    text = text[:_SCAN_CHARS]
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("\n", text)
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
        if not line.isascii():
            splitter = _SENTENCE_END_WIDE
        elif ".) " in line or "?) " in line or "!) " in line:
            splitter = _SENTENCE_END_BRACKET
        else:
            splitter = _SENTENCE_END
        for sentence in splitter.split(line):
            sentence = _balanced(sentence.strip())
            if sentence:
                units.append((sentence, is_item))
    memo[0], memo[1] = given, tuple(units)
    return memo[1]  # type: ignore[return-value]


def _balanced(sentence: str) -> str:
    """A sentence without the bracket it only closes or only opens: the last sentence of a
    parenthesis ("… Let me know if you want either of those gone too.)") or its first; and
    without the emphasis around it all ("_Should I also update the changelog?_")."""
    if len(sentence) > 2 and sentence[0] == sentence[-1] and sentence[0] in "_*":
        sentence = sentence[1:-1].strip()
    if sentence.endswith(")") and sentence.count(")") > sentence.count("("):
        sentence = sentence[:-1].rstrip()
    if sentence.startswith("(") and sentence.count("(") > sentence.count(")"):
        sentence = sentence[1:].lstrip()
    return sentence


_NOT_PLAIN = recache.compile(r"[^\w ]|[\d_]")
_ASCII_PLAIN = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz "


def _is_prose(sentence: str) -> bool:
    """Four words or more, mostly letters: not a log line, a path list or code."""
    if len(sentence.split()) < 4 and not (len(sentence) >= 8 and CJK.search(sentence)):
        return False  # (Chinese and Japanese put no spaces between words)
    if sentence.isascii():
        # What _NOT_PLAIN keeps, counted without a regex (most sentences, every closing
        # text of a long conversation): letters and spaces.
        raw = sentence.encode()
        plain = len(raw) - len(raw.translate(None, _ASCII_PLAIN))
    else:
        plain = len(_NOT_PLAIN.sub("", sentence))
    return plain >= 0.75 * len(sentence)


def clip(text: str, limit: int = CLIP_CHARS) -> str:
    """One line of at most `limit` characters, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


def classify(sentence: str, low: str | None = None) -> tuple[str, str] | None:
    """(class name, candidate type) of the first phrasing rule `sentence` matches; `low`
    is the sentence lowercased, when the caller has it."""
    low = sentence.lower() if low is None else low
    words = {ANCHORS[w] for w in ANCHORS.keys() & low.split()}
    if not words:
        if puts_off(low):  # said in another language: "давай это на потом"
            return "explicit", DEFERRED
        return None
    for rule in RULES:
        if words.isdisjoint(rule.words):
            continue
        found = _match(rule, sentence)
        if found is None:
            continue
        if "for now" in found.group(0).lower() and ATTEMPT.search(sentence):
            continue  # "for now, let me try skipping …" is an attempt, told as it happens
        return rule.name, rule.kind
    return None


def _match(rule: Rule, sentence: str) -> re.Match[str] | None:
    if rule.before is None:
        return rule.pattern.search(sentence)
    for found in rule.pattern.finditer(sentence):
        start = found.start()
        if rule.before.search(sentence[max(0, start - _BEFORE) : start]):
            return found
    return None


def anchor_words(tokens: list[str] | set[str]) -> set[str]:
    """The anchor words among a message's split tokens (usually none)."""
    return ANCHORS.keys() & tokens


# Where a user's run-on sentence turns to something else: "park the pagination idea, fix
# the crash first", "let's not worry about X for now — also add a retry", "… in another PR.
# fix the crash" (typed without a capital, so one sentence to the splitter).
_CLAUSE_BREAK = Lazy(r"\s*(?:[,;]|\s[—–-]\s|\.+\s)\s*|\s+(?=(?:but|also|then|and\s+then)\s)")


# A clause that only says when: what it puts off is the clause it leads ("If needed later,
# add an optional buffering mode").
_CONDITION = Lazy(r"^\W*(?:if|when|once|unless|until|in\s+case)\b", re.IGNORECASE)


def deferred_clause(sentence: str) -> str:
    """The clause of `sentence` that puts work off, when the sentence goes on to something
    else ("park the pagination idea, fix the crash first" → "park the pagination idea");
    the sentence when no clause, or more than one, says it, or the one that does only says
    when ("If needed later, add …")."""
    parts = [p for p in _CLAUSE_BREAK.split(sentence) if p and p.strip()]
    if len(parts) < 2:
        return sentence
    deferring = [
        part
        for part in parts
        if len(part.split()) >= 2 and (hit := classify(part)) is not None and hit[1] == DEFERRED
    ]
    # Two clauses that put it off are one thought ("later, it is out of scope for this fix").
    if len(deferring) != 1 or _CONDITION.match(deferring[0]):
        return sentence
    return deferring[0].strip().rstrip(".,;:")


def with_next_clause(sentence: str, clause: str) -> str | None:
    """`clause`, which opens `sentence`, with the clause after it ("Let's shelve this for
    now, make a TODO note about the pagination"); None when none follows, or the next turns
    from it ("maybe later..but my idea is …")."""
    parts = [p for p in _CLAUSE_BREAK.split(sentence) if p and p.strip()]
    if len(parts) < 2 or not sentence.startswith(parts[0]) or not clause.startswith(parts[0]):
        return None
    if _CONTRAST.match(parts[1]):
        return None
    end = sentence.find(parts[1], len(parts[0])) + len(parts[1])
    return sentence[:end].rstrip(".,;: ")


# What follows a clause and turns from it: "maybe we do that later..but my idea is …".
_CONTRAST = Lazy(r"\W*(?:but|though|however|although|yet|except)\b", re.IGNORECASE)


def marked_sentences(
    text: str, words: AbstractSet[str] | None = None, low: str | None = None
) -> list[tuple[str, str]]:
    """(type, sentence) for each prose sentence of `text` that defers or diverges.

    `words` are `anchor_words` of the head of `text`, and `low` that head lowercased, when
    the caller has them already.
    """
    head = text[:_SCAN_CHARS]
    if low is None:
        low = head.lower()
    if words is None:
        words = anchor_words(low.split())
    if not words or not confirmed(low, words):
        return []
    # Only the sentences holding one of the message's anchor words are tried: a plain
    # substring test (a word a sentence holds is a substring of it) before the split.
    bare = {_bare(w) for w in words}
    found: list[tuple[str, str]] = []
    for sentence, _ in _units(head):
        lowered = sentence.lower()
        if not any(w in lowered for w in bare):
            continue
        hit = classify(sentence)
        if hit is not None:
            sentence = redact(sentence)
            if _is_prose(sentence):
                found.append((hit[1], sentence))
    return found


def _bare(form: str) -> str:
    """The anchor word of a surface form ("later." → "later"), as it stands in the text."""
    return ANCHORS[form]


def still_open(text: str) -> list[str]:
    """Sentences of a turn's closing text saying something is still broken."""
    head = text[-_SCAN_CHARS:]
    if "still" not in head:
        return []
    return [s for s, _ in _units(redact(head)) if _is_prose(s) and STILL_OPEN.search(s)]


def listed_items(
    text: str, words: AbstractSet[str] | None = None, low: str | None = None
) -> list[tuple[str, str, str]]:
    """(type, item, heading) for the items listed under a "Next steps"-like heading."""
    head = text[:_SCAN_CHARS]
    if "\n" not in head.strip():
        return []  # a heading and its list take several lines
    if words is not None and not any(ANCHORS[w] in _LIST_ANCHORS for w in words):
        return []
    if low is None:
        low = head.lower()
    if not any(word in low for word in _LIST_WORDS):
        return []
    lines = _FENCE.sub("\n", head).splitlines()
    found: list[tuple[str, str, str]] = []
    n = 0
    while n < len(lines):
        line = lines[n].strip()
        n += 1
        heading = NEXT_LIST.match(line) or LEAD_IN.match(line)
        if heading is None or _LIST_MARK.match(line):
            continue
        title = lead_text(line.strip("#*_: ").rstrip(":")) or "Next steps"
        while n < len(lines) and (not lines[n].strip() or LEAD_IN.match(lines[n].strip())):
            n += 1
        items, n = list_under(lines, n, _LIST_ITEMS_MAX)
        for item in items:
            kind = UNANSWERED if item.rstrip().endswith("?") else DEFERRED
            found.append((kind, item, redact(title)))
    return found


def list_under(lines: list[str], n: int, most: int) -> tuple[list[str], int]:
    """The items of the list at `lines[n]` (blank lines ahead of it passed over): the first
    `most` not marked done — of three words or more, or of plain words — bare and redacted;
    and where it ends. A list goes on past a blank line when an item follows it (a "loose"
    list, each item a paragraph) and past an item's indented continuation lines."""
    while n < len(lines) and not lines[n].strip():
        n += 1
    items: list[str] = []
    while n < len(lines) and _LIST_MARK.match(lines[n]) and len(items) < most:
        item = lines[n]
        n += 1
        while (
            n < len(lines)
            and lines[n].startswith((" ", "\t"))
            and lines[n].strip()
            and (not _LIST_MARK.match(lines[n]))
        ):
            n += 1  # the item's text wrapped onto an indented line
        ahead = n
        while ahead < len(lines) and not lines[ahead].strip():
            ahead += 1
        if ahead > n and ahead < len(lines) and _LIST_MARK.match(lines[ahead]):
            n = ahead  # a blank line, then the next item
        if _DONE_ITEM.search(item):
            continue
        bare = _LIST_MARK.sub("", item).replace("**", "")
        words = bare.split()
        # Three words or more; or fewer, of plain words ("- pagination", "2. Changelog
        # entry"), not a path or a command in backticks
        if len(words) >= 3 or (words and all(_PLAIN_WORD.match(w) for w in words)):
            items.append(item_text(bare))
    return items, n


def item_text(text: str) -> str:
    """A listed item as it is shown: without bold and code marks, redacted."""
    return redact(text.replace("**", "").replace("`", "").strip())


def lead_text(line: str) -> str:
    """The lead a list was under, as "Why it did not land" quotes it: the line's last
    sentence ("What's left from earlier", not "Now let me continue with …. What's left …"),
    without its marks."""
    return item_text(_SENTENCE_END.split(line)[-1])


_PLAIN_WORD = Lazy(r"[^\W\d_][\w'-]*[.,;:!]?\Z")


_LIST_ANCHORS = frozenset(
    "next remaining still left todo todos to-do yet open outstanding follow follow-up "
    "follow-ups followup future known pending".split()
)
_LIST_WORDS = (
    "next step",
    "remaining",
    "still to do",
    "left to do",
    "todo",
    "to-do",
    "not yet",
    "open items",
    "open questions",
    "open issues",
    "open tasks",
    "outstanding",
    "follow-up",
    "follow up",
    "future work",
    "known issues",
    "known limitations",
    "known gaps",
    "pending",
)


# Each closing pleasantry holds one of these: the cheap test before the regex.
_GENERIC_GATE = recache.compile(
    r"else|next|help|like|want|need|question|work\s+for|comes\s+up|any\s", re.IGNORECASE
)


def direct_reply(reply: str) -> bool:
    """A reply that takes up whatever was asked: short, opening like an answer ("yes", "go
    with B"), or a counter-proposal ("first fix the tests", "rather X")."""
    if len(reply.split()) <= 4 or _ANSWER_START.match(reply) or _COUNTER_START.match(reply):
        return True
    low = reply.lower()
    return any(w in low for w in _COUNTER_WORDS) and _COUNTER.search(reply) is not None


_COUNTER_WORDS = ("first", "instead", "rather", "before")


# A message that is mostly pasted output: a log, an error, a type checker's report.
_PASTE_LINE = Lazy(
    r"^\s*(?:[$#>❯%]\s|[\w./\\-]+\.\w+[:(]\d+|(?:error|warning|fatal|traceback|at\s)\b|[|+\-=]{3}"
    r"|\s{4}|\d+\s*\||\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d|\w+=\S+\s+\w+=)",
    re.IGNORECASE,
)


def is_pasted_line(line: str) -> bool:
    """A line of pasted output: a shell prompt, a log or error line, a table rule."""
    return _PASTE_LINE.match(line) is not None


# One line of a compiler's or a runtime's report, alone — where and what failed, in the
# tool's own form: "src/app.ts(12,5): error TS2345: …", "KeyError: 'id'", "fatal: not a git
# repository". Not "TypeError when I click save, fix it": typed words.
_ERROR_REPORT = Lazy(
    r"""^\s*(?:[\w./\\-]+(?:\(\d+,\d+\)|:\d+(?::\d+)?):\s*\S
      | [\w.]*(?:Error|Exception):\s | error(?:\[\w+\])?(?:\s+TS\d+)?:\s | (?:panic|fatal):\s)""",
    re.VERBOSE,
)


def mostly_pasted(text: str) -> bool:
    """Is this message mostly output the user pasted (a log, an error report)? One line is
    when it is an error report in its tool's form."""
    lines = [ln for ln in text.splitlines() if ln.strip()][:40]
    if len(lines) == 1:
        return _ERROR_REPORT.match(lines[0]) is not None
    pasted = sum(1 for ln in lines if _PASTE_LINE.match(ln))
    return bool(lines) and pasted >= max(2, len(lines) // 2)


# What only a terminal's output has: a line led by a glyph a client prints before a reply or
# a tool's result (Claude Code's ● ⏺ ⎿, a box's │), or padded out to the terminal's width.
_GLYPHS = frozenset("●⏺⎿│✻")
_PADDING = 8
# Between two paragraphs: a line with nothing but blanks on it.
PARAGRAPH_BREAK = recache.compile(r"\n\s*\n")


def _output_line(line: str) -> bool:
    """Surely output: a client's glyph or padding, or a shell prompt, log or error line
    (not a Markdown heading or quote, which a user types too)."""
    bare = line.lstrip()
    if bare[:1] in _GLYPHS or len(line) - len(line.rstrip(" ")) >= _PADDING:
        return True
    return bare[:1] not in ("#", ">") and _PASTE_LINE.match(bare) is not None


def without_pastes(text: str) -> str:
    """What the user typed around what they pasted, each pasted paragraph or fenced block
    made "[…]" ("it reports this: […] The level was saved in CPM, but reported in CPS. Can
    you correct that?") — or, when a line of it names an error, "[… ModuleNotFoundError: No
    module named 'yaml']"; the text itself when nothing was pasted.

    A paragraph is pasted when most of its lines are surely output, when it opens on such a
    line (a paste starts its paragraph; the user's own words come in one of theirs), or when
    it is indented like copied output and holds such a line or follows a pasted paragraph:
    an indented list the user typed ("  - docs/memo.md") stays.
    """
    if "\n" not in text:
        return text
    # A fenced block is code or output pasted whole: "[…]" too.
    fenced = _FENCE.sub(_fence_mark, text) if "```" in text or "~~~" in text else text
    kept: list[str] = []
    pasted = False
    for para in PARAGRAPH_BREAK.split(fenced):
        lines = [ln for ln in para.splitlines() if ln.strip()]
        if not lines:
            continue
        output = sum(1 for ln in lines if _output_line(ln))
        indented = lines[0][:2].isspace() or _output_line(lines[0])
        pasted = output * 2 > len(lines) or (indented and (output > 0 or pasted))
        if not pasted and not (para.strip() == "[…]" and kept and kept[-1] == "[…]"):
            kept.append(para.strip())
        elif pasted and kept and not kept[-1].startswith("[…"):
            kept.append("[…]")
        if pasted and kept and kept[-1] == "[…]":
            error = _headline(lines)
            if error:
                kept[-1] = f"[… {error}]"  # what the paste reports: the work's name
    if not kept or all(k.startswith("[…") for k in kept):
        return text
    return "\n\n".join(kept)


# The line of pasted output that names the failure: "ModuleNotFoundError: No module named
# 'yaml'", "error TS2345: Argument of type …", "error[E0382]: borrow of moved value",
# "panic: runtime error: …", "FAILED tests/test_x.py::test_y - AssertionError".
_ERROR_LINE = Lazy(
    r"""^\s*(?:[\w./\\-]+(?:\(\d+,\d+\)|:\d+(?::\d+)?):\s*)?  # where: "src/a.ts(3,5): "
      (?:[\w.]*(?:Error|Exception)\b|error(?:\[\w+\])?(?:\s+TS\d+)?:|fatal:|panic:|FAILED\s)""",
    re.VERBOSE,
)
_HEADLINE_CHARS = 120


def _fence_mark(block: re.Match[str]) -> str:
    error = _headline(block.group().splitlines())
    return f"\n\n[… {error}]\n\n" if error else "\n\n[…]\n\n"


def _headline(lines: list[str]) -> str | None:
    """The line of a paste that names its failure: a Python traceback's last such line,
    else the first; clipped."""
    found = [ln.strip() for ln in lines if _ERROR_LINE.match(ln)]
    if not found:
        return None
    pick = found[-1] if any(ln.startswith("Traceback") for ln in lines) else found[0]
    return clip(pick, _HEADLINE_CHARS)


def only_pasted(text: str) -> bool:
    """A message that is a pasted run and nothing the user typed before it: it opens on
    pasted output (a shell prompt, a test's report) and is mostly that."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    return bool(first) and _PASTE_LINE.match(first) is not None and mostly_pasted(text)

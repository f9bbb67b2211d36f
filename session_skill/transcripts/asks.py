"""Questions put to the user, and whether the user's next message answers them.

A turn's closing text may ask several things, anywhere in it, not only at its end: "Want me
to also update the changelog?" in the middle of a summary is as open as the last line. An
*ask* is a sentence ending in "?" that is put to the user (not a rhetorical "Why does it
fail? Because …"), or an offer said without one ("If you want, I can add …", "Say the word
and I'll …", "Let me know if you'd like …").

A question is answered when the user's next message replies to it or gives the next
instruction — any reply does, to a plain question and to an offer about the work in hand
(measured on the labelled sessions: reading more into the reply reported many answered
offers open; issue 19 defines it so too — and a reply that opens on "also", "also need a
dash sound" after "Should projectiles pass through?", is such an instruction: read as
leaving the question open, it reported answered questions open on the test split). An
offer of extra work — one that says "also", "too", "as well", "separately", "a follow-up"
("Want me to also add a note to the docs?") — is different: the user can take the next
step without taking it up, so it stays open when the reply says nothing of it — not short,
not opening like an answer or a counter-proposal, and sharing none of what the offer is
about. An offer about nothing in particular ("Want me to also fix this?") is taken up by
whatever the user says next — unless its sentence says what "this" is first ("`weekly.py`
has the same bug — want me to fix it too?"): then the reply must say something of that.
Any offer needs a reply in words: a reply that is only a pasted run (a shell prompt and its
output, a log) shows what happened and takes up no offer, extra work or not. Nor do thanks,
praise or a goodbye alone ("nice", "thanks, that's all for today") answer anything but a
check on the work ("Does that look right?"): the user left the question as it was. A reply
that opens on a question of the user's own ("is 1 really a bug?", "what's the apk size hit
for coil?") answers nothing yet: what was asked waits for the message after the answer, and
is open if the session ends first.
"""

from __future__ import annotations

import re

from session_skill.records import record
from session_skill.transcripts.abroad import CJK, FAR_SCRIPT
from session_skill.transcripts.landed import GENERIC_STEMS, PUNCT, content_stems, stem, subject
from session_skill.transcripts.lazyre import Lazy
from session_skill.transcripts.prose import (
    _OR,
    QUESTION_WORDS,
    THANKS,
    _units,
    direct_reply,
    only_pasted,
    sign_off,
)

_SCAN_CHARS = 16_000

# An offer: the assistant would do something if the user says so.
_OFFER = Lazy(
    r"""\b(?:want\s+me\s+to|would\s+you\s+like\s+(?:me\s+)?to|do\s+you\s+want\s+(?:me\s+)?to
      |shall\s+i|should\s+i|like\s+me\s+to|happy\s+to|i\s+can\s+(?:also\s+)?|i\s+could
      |say\s+the\s+word|if\s+you(?:\s+want|'d\s+like|\s+would\s+like|\s+prefer)|let\s+me\s+know)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# An offer said without a question mark.
_PLAIN_OFFER = Lazy(
    r"""^(?:(?:and\s+)?if\s+you(?:\s+want|'d\s+like|\s+would\s+like|\s+prefer)(?:\s+it)?,?\s+
          (?:i\s+can|i\s+could|i'll|i\s+will|we\s+can)\b
      | (?:just\s+)?say\s+the\s+word\b
      | happy\s+to\b[^.!?]*\bif\s+you\b
      # "I'm happy to wire it in next.", "I can also add a flag if that would help."
      | (?:i'm|i\s+am|i'd\s+be|i\s+would\s+be)\s+(?:also\s+)?happy\s+to\b
      | (?:i\s+can|i\s+could)\s+(?:also\s+)?[^.!?]*\bif\s+(?:you(?:'d)?\s+(?:want|like|prefer
          |need)|that(?:'d|\s+would)?\s+(?:helps?|be\s+(?:useful|helpful))|(?:it's\s+|it\s+is\s+)?
          (?:needed|useful|helpful))\b
      # "… they'd disappear with `--no-merges` if you want that."
      | [^.!?]*\bif\s+you(?:'d\s+like|\s+would\s+like|\s+want|\s+prefer)(?:\s+(?:that|it|this|them
          |one|me\s+to))?\W*$
      # "Apply it and send me `kubectl top pod` for one of the new pods.": the user's to do
      | [^.!?]*\b(?:send|paste|share|post)\s+(?:me|us)\s+(?:the|your|a|an|`)
      # "If useful, I can run EXPLAIN on those two against the snapshot."
      | if\s+(?:useful|helpful|needed|wanted|that\s+helps|it\s+helps),?\s+(?:i\s+can|i\s+could|i'll
          |we\s+can)\b
      # "Not sure if you want the old parser removed; I left it in place."
      | (?:i'm\s+|i\s+am\s+)?(?:not\s+sure|unsure)\s+(?:if|whether)\s+you(?:'d)?\s+(?:want
          |like|prefer|need))
      | \b(?:let\s+me\s+know|tell\s+me)\s+(?:if|whether|which|when|what|how)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# A question put to the user: it speaks to them, or asks them to decide or check.
_TO_USER = Lazy(
    r"""\b(?:you|your|we|us|me|i)\b
      | ^(?:want|shall|should|would|could|can|do|does|did|is|are|was|will|which|any|ok|okay
          |good|sound|sounds|look|looks|ready|prefer|go|keep|proceed|ship)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_LEAD_IN = Lazy(r"[:;—–]\s+|\s-\s")
# Questions the text goes on to answer itself.
_WH = Lazy(r"^(?:why|how\s+come|how\s+does|how\s+do|what\s+does|what's|what\s+is)\b", re.I)


@record(frozen=True)
class Ask:
    text: str
    offer: bool
    options: tuple[str, ...] = ()  # the list items right after it
    # A question naming nothing ("Which would you prefer?"): what it asks about, the list
    # items right before it or else the sentence before it.
    about: tuple[str, ...] = ()


def asks(text: str) -> list[Ask]:
    """Every question or offer `text` puts to the user, in order."""
    tail = text[-_SCAN_CHARS:]
    if "?" not in tail and "？" not in tail and not _may_offer(tail):
        return []
    units = _units(tail)
    found: list[Ask] = []
    for n, (sentence, _item) in enumerate(units):
        question = sentence.rstrip(" *_)\"'`").endswith(("?", "？"))  # (Chinese, Japanese)
        if question:
            if len(sentence.split()) < 2 and not (len(sentence) >= 5 and CJK.search(sentence)):
                continue  # ("OK?"; Chinese and Japanese put no spaces between words)
            last = n == len(units) - 1
            if not last and _WH.match(sentence) and not _TO_USER.search(sentence.split(" ", 1)[-1]):
                continue  # "Why does it fail? Because …": the text answers it
            if not last and not _TO_USER.search(sentence) and not FAR_SCRIPT.search(sentence):
                # "One thing: the bucket is hard-coded — is that intended?": the question is
                # the clause after the lead-in.
                clause = _LEAD_IN.split(sentence)[-1]
                if clause == sentence or not _TO_USER.search(clause):
                    continue
        elif not _may_offer_plainly(sentence) or not _PLAIN_OFFER.search(sentence):
            continue
        if sign_off(sentence):
            continue  # "Anything else?", "Let me know if you'd like any changes."
        options = tuple(u for u, is_item in units[n + 1 : n + 9] if is_item)
        about: tuple[str, ...] = ()
        if question and not options and n and not subject(sentence):
            items = []
            for unit, is_item in reversed(units[max(0, n - 8) : n]):
                if not is_item:
                    break
                items.append(unit)
            before = units[n - 1][0]
            about = tuple(reversed(items)) or ((before,) if subject(before) else ())
        found.append(Ask(sentence, bool(_OFFER.search(sentence)), options, about))
    return found


# A word every branch of `_PLAIN_OFFER` holds, lowered: the cheap test before it, for each
# sentence of a closing text that asks something somewhere.
_PLAIN_WORDS = ("if", "word", "happy", "send", "paste", "share", "post", "know", "tell", "sure")


def _may_offer_plainly(sentence: str) -> bool:
    low = sentence.lower()
    return any(word in low for word in _PLAIN_WORDS)


# What an offer without a question mark cannot be said without (`_PLAIN_OFFER`).
_MAY_OFFER = (
    "if you", "say the word", "let me know", "tell me", "happy to", "if that", "if needed",
    "if it's needed", "if it is needed", "if useful", "if helpful", "if wanted", "whether you",
    "send me", "send us", "paste me", "share me", "post me",
)  # fmt: skip


def _may_offer(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in _MAY_OFFER)


# An offer of more work than was asked for: "Want me to also…", "… as well?", "in a follow-up".
_EXTRA = Lazy(
    r"""\b(?:also|too|as\s+well|additionally|separately|a\s+follow[- ]?up)\b""",
    re.IGNORECASE | re.VERBOSE,
)


def extra_work(ask: Ask) -> bool:
    """Does `ask` put more work than was asked for to the user ("Do you want a `--json`
    variant as well?")? The request in hand does not wait on it."""
    return _EXTRA.search(ask.text) is not None


def answers(ask: Ask, reply: str) -> bool:
    """Does the user's next message (`reply`) answer `ask`?"""
    if len(reply) <= 80 and _THANKS_ONLY.match(reply) and not _CHECK_IN.search(ask.text):
        return False  # "nice", "thanks, that's all for today": no answer to "Should …?"
    if not ask.offer:
        return True
    if only_pasted(reply):
        return False  # the user shows what a run printed: that takes up no offer
    if not _EXTRA.search(ask.text):
        return True  # a check-in on the work in hand: the next instruction answers it
    if direct_reply(reply):
        return True
    wanted = {s for s in subject(_offered(ask.text)) if s not in GENERIC_STEMS}
    if len(wanted) < 2:
        wanted |= _pointed_at(ask)
    if len(wanted) < 2:
        return True  # "Want me to fix this?": the next instruction is the answer
    said = content_stems(reply)
    if wanted & said:
        return True
    offered = ask.options + tuple(_OR.split(ask.text)[1:]) if " or " in ask.text else ask.options
    return any(content_stems(option) & said for option in offered)


# Thanks, praise or a goodbye, and nothing else: no answer to what was asked — except to a
# question that asks the user to confirm the work ("Does that look right?").
_THANKS_ONLY = Lazy(
    rf"^\W*(?:(?:{THANKS}|(?:great|nice|good)\s+(?:job|work)|[👍🙏🎉🙌])[\s!.,:)]*)+$",
    re.IGNORECASE,
)
_CHECK_IN = Lazy(
    r"""\b(?:does|do|did|is|was|are)\s+(?:that|this|it|everything|all\s+(?:of\s+)?(?:that|this))
        \s+(?:look|sound|seem|work|what|ok|okay|right|good|fine|correct|as\s+expected)
      | ^\W*(?:sounds?|looks?|seems?)\s+(?:good|ok|okay|right|fine)\b | \bmake\s+sense\b
      | \b(?:ok|okay|good|fine|happy)\s+with\s+(?:this|that|it|these|those)\b""",
    re.IGNORECASE | re.VERBOSE,
)


# A question of the user's own in reply: it asks about the work ("is 1 really a bug?",
# "what's the apk size hit for coil?", "does the changelog say …?") rather than answering.
_ASKS_BACK = Lazy(
    rf"""^\W*(?:(?:hm+|hmm+|wait|ok(?:ay)?|so|and|but)[,.!\s]+)*
      (?:{QUESTION_WORDS}|will|isn't|aren't|doesn't|didn't|won't|has|have|hasn't)\b
      [^?\n]{{0,150}}\?""",
    re.IGNORECASE | re.VERBOSE,
)


def asks_back(reply: str) -> bool:
    """Does the user's reply open on a question of their own — neither an answer, a
    counter-proposal ("what about X?") nor a request ("can you …?")? It leaves the question
    it replies to open, to be answered by the message after it."""
    return "?" in reply[:200] and _ASKS_BACK.match(reply) is not None and not direct_reply(reply)


# A bare yes or no: it answers one question, the last one put.
_BARE = Lazy(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|no|nope|nah|please|go\s+ahead|do\s+it)"
    r"(?:[\s,.!]+(?:please|thanks?|go\s+ahead|do\s+it))*\W*$",
    re.IGNORECASE,
)


def answers_one(ask: Ask, reply: str) -> bool:
    """Does a bare "yes" or "no" (`reply`) to the offer a message ends on leave `ask`, a
    question the message asked before it ("Should it stream for large tables? … Want me to
    add tests for it?"), unanswered? It answers a check on the work ("Does that look
    right?") too, and an offer; a decision asked for, no."""
    return not ask.offer and _BARE.match(reply) is not None and not _CHECK_IN.search(ask.text)


# A reply that asks for something to come first ("wait, first show me which ones", "before
# that, run the tests"): what it was asked waits for the message after that.
_FIRST = Lazy(
    r"""^\W*(?:(?:hm+|wait|hold\s+on|hang\s+on|ok(?:ay)?|sure|yes|yeah)[,.!\s]+)*(?:but\s+)?
      (?:first\b(?![,:]?\s*(?:one|option|choice|approach|way|version|variant|pick|two|three
        |item|idea|thing|of|$))
      |before\s+(?:that|this|you\s+do(?:\s+(?:that|this|it))?|(?:doing|we\s+do)\s+(?:that|this|it))
      \b)""",
    re.IGNORECASE | re.VERBOSE,
)


def puts_first(reply: str) -> bool:
    """Does the user's reply ask for something to be done before what it was asked?"""
    return _FIRST.match(reply) is not None


def waits(reply: str) -> bool:
    """Does the user's reply answer nothing yet — it asks a question of its own, or for
    something to come first? What it was asked waits for the message after the answer."""
    return asks_back(reply) or puts_first(reply)


def closing_offer(asked: list[Ask]) -> Ask | None:
    """The offer a text ends on (the last of what it asks, `asks(text)`), if it does."""
    return asked[-1] if asked and asked[-1].offer else None


def takes(ask: Ask, reply: str, offer: Ask | None) -> bool:
    """Does `reply` answer `ask`? Not when `offer`, the offer the same text ends on, is
    another, and the reply is a bare "yes": it took up the offer and answered no more."""
    if offer is not None and ask is not offer and answers_one(ask, reply):
        return False
    return answers(ask, reply)


# What an offer points back at: "… has the same bug — want me to fix it too?"
_POINTER = Lazy(r"\b(?:it|this|that|them|these|those|there|the\s+same)\b", re.IGNORECASE)


def _pointed_at(ask: Ask) -> set[str]:
    """What an offer that names nothing itself ("want me to fix it too?") is about: the
    words before it in its sentence ("I noticed `reports/weekly.py` has the same bug — …")."""
    found = _OFFER.search(ask.text)
    if found is None or found.start() == 0 or not _POINTER.search(ask.text[found.end() :]):
        return set()
    return {s for s in subject(ask.text[: found.start()]) if s not in GENERIC_STEMS}


def _offered(text: str) -> str:
    """What an offer would do: its words after the offering phrase."""
    found = _OFFER.search(text)
    return text[found.end() :] if found else text


# A reply's orders ("no do hsts now", "ok and throttle the resend"): clauses that open, past
# a word or two of assent, on a verb — any word not of the few that cannot be one — and name
# their object next, past a determiner.
_CLAUSE = Lazy(r"[,;:(]|\s[-–—]\s|\b(?:and|then|but|also)\b", re.IGNORECASE)
_ASSENT = frozenset(
    "yes yeah yep yup ok okay no nope nah sure so please pls just alright right cool great "
    "perfect nice oh hmm well now actually instead go ahead".split()
)
_NOT_A_VERB = frozenset(
    "i i'm i'll ill im i've ive i'd we we're we'll you you're u he she it its it's they this "
    "that these those there here what what's whats how why when where which who can could "
    "would should will shall may might must is are was were be been am has have had the a an "
    "my our your his her their to in on at for of with from by about not nobody nothing "
    "everything everyone all both some any if because since as than like maybe probably looks "
    "seems sounds thanks thank thx ty lgtm works".split()
)
_DETERMINER = frozenset("the a an that this those these all both our my its some any".split())
# An order for another time, or the user's own: "will run it on staging tomorrow".
_NOT_NOW = frozenset(
    "later today tomorrow tonight week someday eventually future will ill won't not".split()
)


def asked_for(sentence: str) -> set[str]:
    """The stems of what the orders of a user's sentence name first ("do the psycopg thing
    now" → psycopg; "add coyote time, 0.12s" → coyote): not a generic word ("fix the bug"),
    not an order for later, and not a question."""
    if sentence.rstrip().endswith("?"):
        return set()
    named: set[str] = set()
    for clause in _CLAUSE.split(sentence.lower()):
        words = [w for w in (t.strip(PUNCT) for t in clause.split()) if w]
        if not words or not clause.lstrip()[:1].isalpha() or not _NOT_NOW.isdisjoint(words):
            continue
        i = next((n for n, w in enumerate(words) if w not in _ASSENT), len(words))
        if i == len(words) or words[i] in _NOT_A_VERB:
            continue
        j = next((n for n in range(i + 1, len(words)) if words[n] not in _DETERMINER), None)
        if j is not None and (what := stem(words[j])) not in GENERIC_STEMS:
            named.add(what)
    return named

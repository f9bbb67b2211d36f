"""How people say that work is put off, left open or worth trying: the sweep's phrasing classes.

Each class is a regex applied to one prose sentence. They favour precision: a sentence is
only taken when it carries an explicit marker, and the ordinary senses of the marker words
("a follow-up email is sent", "the later rows", "an eventually consistent replica", "later
releases of Node") are kept out by the shape of the pattern, not by a list of exceptions.

Every rule names the words it needs (`anchors.ANCHORS` lists them with their surface forms);
`prose` tests a message's words against them first — a set intersection, far cheaper than
any regex — and runs the classes only on the few messages that pass.
"""

from __future__ import annotations

import re

from session_skill import recache
from session_skill.transcripts.candidates import DEFERRED, DIVERGING
from session_skill.transcripts.lazyre import Lazy

_I = re.IGNORECASE | re.VERBOSE

# "later" as an adverb closing its clause ("fix it later.", "later on", "later, once…"), not
# the adjective of "the later rows" or "later releases".
_LATER = r"later\b(?:(?!\s*[a-z0-9(])|\s+(?:on|today|tonight|if|when|once|after|but|and|so|then)\b)"
# Things one does to a piece of work; base forms only ("it failed later" is a story).
_DO = (
    r"(?:handle|do|tackle|address|fix|add|implement|revisit|look\s+(?:at|into)|deal\s+with"
    r"|clean\s+up|optimi[sz]e|refactor|investigate|check|test|finish|wire\s+up|come\s+back"
    r"|document|polish|tune|port|migrate|update|write|split|rename|move|remove|drop|rotate)"
)
# Leaving something undone, in every tense: "skip", "skipped", "skipping".
_LEAVE = (
    r"(?:skip(?:ped|ping)?|leave|left|leaving|ignor(?:e|ed|ing)|stub(?:bed|bing)?"
    r"|hard-?cod(?:e|ed|ing)|punt(?:ed|ing)?\s+on|keep|kept|keeping|disabl(?:e|ed|ing)"
    r"|bypass(?:ed|ing)?|comment(?:ed|ing)?\s+out|mock(?:ed|ing)?|fak(?:e|ed|ing)"
    r"|(?:not|n't)\s+(?:worry(?:ing)?\s+about|bother(?:ing)?\s+with)|forget(?:ting)?)"
)
_DONE_VERB = (
    r"(?:wired|hooked|implemented|done|added|written|tested|handled|covered|connected|migrated"
    r"|ported|documented|finished|merged|deployed|fixed|addressed|configured|cleaned"
    r"|committed|updated|enabled|integrated|built|set)"
)
_DET = r"(?:the|this|that|it|these|those|our|my|any|all)\b"
# A clause of a word or two and "later": "hsts later.", "ugh. backfill later, finance …" —
# the user's shorthand. Not "two days later", "see you later", "a bit later", "the later
# run" (an adjective after a determiner), nor what happened then: "now fails later".
_TERSE = (
    r"(?:^|[.,;:!?]\s+)\W*(?:[a-z][\w/-]*\s+)?(?!(?:you|u|ya|talk|chat|speak|much|years?"
    r"|months?|weeks?|days?|hours?|minutes?|mins?|seconds?|secs?|moments?|bit|little|time"
    r"|steps?|turns?|lines?|pages?|runs?|the|an?|this|that|these|those|its|their|our|my|your"
    r"|so|and|or|but|then|is|was|were|are|\d\w*"
    r"|fail(?:s|ed)|crash(?:es|ed)|breaks|broke|happen(?:s|ed)|error(?:s|ed)|died|dies|hangs|hung"
    r"|appear(?:s|ed)|show(?:s|ed)|start(?:s|ed)|stop(?:s|ped)|ran|pass(?:es|ed)|timed\s+out"
    r"|times\s+out)\b)[a-z][\w/-]*\s+"
)


# Who will do it, said before when: "let's do the backfill tomorrow", "we'll pay someone
# eventually".
_WE_WILL = (
    r"\b(?:let's|lets|we'll|i'll|ill|we\s+(?:can|could|should|will)|i\s+(?:can|will)"
    r"|(?:can|could)\s+we)\b[^.?!\n]{0,60}?"
)


def _rule(
    name: str, kind: str, words: str, pattern: str, flags: int = _I, before: str | None = None
) -> Rule:
    return Rule(name, kind, frozenset(words.split()), pattern, flags, before)


class Rule:
    """One shape of one phrasing class, tried only on sentences holding one of `words`.

    With `before`, `pattern` finds the marker ("later", "for now") and `before` must match
    the words just ahead of it ("handle the Windows paths " before "later"): searching for
    the verb first, at every word of the sentence, is what makes such rules slow. The
    regexes are compiled when first used: a sweep rarely needs more than a few of them,
    and compiling all is most of the cost of importing this module.
    """

    __slots__ = ("name", "kind", "words", "_source", "_compiled")

    def __init__(
        self,
        name: str,
        kind: str,
        words: frozenset[str],
        pattern: str,
        flags: int,
        before: str | None,
    ) -> None:
        self.name = name  # the class: what the tests and the quality report group by
        self.kind = kind  # the candidate type
        self.words = words  # anchor words (see anchors.ANCHORS) of which the sentence holds one
        self._source = (pattern, flags, before)
        self._compiled: tuple[re.Pattern[str], re.Pattern[str] | None] | None = None

    def _compile(self) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
        if self._compiled is None:
            pattern, flags, before = self._source
            ahead = recache.compile(before + r"\Z", _I) if before is not None else None
            self._compiled = (recache.compile(pattern, flags), ahead)
        return self._compiled

    @property
    def pattern(self) -> re.Pattern[str]:
        return self._compile()[0]

    @property
    def before(self) -> re.Pattern[str] | None:
        return self._compile()[1]


_BEFORE = 70  # characters looked at ahead of a marker


# In order: the first rule a sentence matches decides its class. Each rule is small, and
# gated by the words it needs: one large alternation costs `re` ~100 µs a sentence.
RULES: tuple[Rule, ...] = (
    # -- explicit: the marker words people use to put something off
    # "come back to it later", not "let's go back to the drawing board" (now, not later).
    _rule(
        "explicit",
        DEFERRED,
        "back",
        r"""\b(?:can|could|should|will|'ll|might|may|to)\s+(?:come|get|circle)\s+back\s+(?:to|on)\b
              (?![^.?!\n]{0,40}\bnow\b)
          | \b(?:come|get|circle)\s+back\s+(?:to|on)\b[^.?!\n]{0,60}
              \b(?:later|once|after|when|next|tomorrow|eventually|another\s+time)\b""",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "follow follow-up follow-ups followup",
        r"""\b(?:(?:in|as|for|into)\s+(?:a|an|the|its\s+own)\s+(?:separate\s+|later\s+)?
              follow[- ]?up\b
          | follow[- ]?up\s+(?:pr|pull\s+request|commit|change|issue|ticket|task|work|session
              |fix|patch|item|iteration|pass)s?\b
          | (?:i'll|we'll|i\s+will|we\s+will|let's|can|could|should)\s+follow\s+up\s+on\b
          # "2 can be a follow-up", "make that a follow-up"
          # (not "a follow-up email": a thing of its own)
          | \b(?:(?:can|could|should|will|would)\s+be|make\s+(?:it|that|this|them|those))
              \s+(?:a|its\s+own)\s+(?:separate\s+)?follow[- ]?up
              (?:\s+(?:pr|pull\s+request|change|issue|ticket|task|fix|patch|commit))?
              (?=\s*(?:[,.;:!?)—–]|\s-\s|$))
          # "Follow-up: open an issue to give each worker its own dir."
          | ^\W*follow[- ]?ups?\s*[:—–])""",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "next",
        r"""(?:\b(?:for|until|till)\s+(?:the\s+)?next\s+time\b
          | (?:^|[,;:]\s*)next\s+time,?\s+(?:we|let's|let\s+us|i'll|we'll|i\s+will|we\s+will)\b)""",
    ),
    _rule("explicit", DEFERRED, "next", r"\bnext\s+time\b", before=rf"\b{_DO}\b[^.?!\n]{{0,40}}?"),
    _rule("explicit", DEFERRED, "scope", r"\bout\s+of\s+scope\b"),
    # "not part of this PR", "not in scope for this change", "left it out of this change"
    _rule(
        "explicit",
        DEFERRED,
        "part included scope left leave leaving kept keeping",
        r"""\bnot\s+(?:part\s+of|included\s+in|in\s+scope\s+(?:of|for))\s+(?:this|the)\b
          | \b(?:left|leaving|leave|kept|keeping)\b[^.?!\n]{0,40}\bout\s+of\s+(?:this|the)\s+
            (?:pr|pull\s+request|change|commit|branch|release|patch|iteration|fix)\b""",
    ),
    _rule("explicit", DEFERRED, "park", r"\bpark\s+(?:this|that|it|these|those|the|our|my)\b"),
    # "we'll handle that in another PR"
    _rule(
        "explicit",
        DEFERRED,
        "another",
        r"""\b(?:in|into|for|as|with)\s+another\s+(?:pr|pull\s+request|change|commit|issue
            |ticket|session|task|patch|iteration)\b""",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "later",
        rf"\b{_LATER}",
        before=rf"(?:\b(?:for|until|till|maybe)\s+|\b{_DO}\b[^.?!\n]{{0,50}}?\W|{_TERSE})",
    ),
    # "revisit it after the release", not "let's revisit all of the changes" (now).
    _rule(
        "explicit",
        DEFERRED,
        "revisit revisiting",
        r"""\b(?:can|could|should|will|'ll|might|may|worth|to)\s+revisit(?:ing)?\b
              (?![^.?!\n]{0,40}\bnow\b)
          | \brevisit(?:ing)?\b[^.?!\n]{0,60}
              \b(?:later|once|after|when|if|next|tomorrow|eventually|another\s+time)\b""",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "later future separate subsequent",
        r"""\b(?:(?:in|as|for)\s+a|worth\s+a|deserves\s+a
            # "Not related; could be a separate cleanup PR."
            |(?:can|could|should|would)\s+be\s+(?:a|its\s+own))\s+(?:later|future|separate
            |subsequent)\s+(?:[\w-]+\s+)?(?:step|pr|pull\s+request|pass|change|iteration|commit
            |issue|ticket|session|task|phase|release|version)\b""",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "future road line",
        r"\bfuture\s+work\b|\bdown\s+the\s+(?:road|line)\b",
    ),
    # "at some point we should …", "… to the export path at some point."
    _rule(
        "explicit",
        DEFERRED,
        "point",
        r"\bat\s+some\s+point(?:\s+(?:we|you|i|soon)\b|\s*[,;:—–]|\s+-\s|\W*$)",
    ),
    # "let's do the backfill tomorrow", "I'll measure it next week"
    _rule(
        "explicit",
        DEFERRED,
        "tomorrow week monday weekend",
        r"\b(?:tomorrow|next\s+week|on\s+monday|after\s+the\s+weekend|over\s+the\s+weekend)\b",
        before=_WE_WILL,
    ),
    # "french we'll pay someone eventually": "eventually" closing a clause, as "later" does
    _rule(
        "explicit",
        DEFERRED,
        "eventually",
        r"\beventually\b(?!\s*[a-z0-9(])",
        before=_WE_WILL,
    ),
    # "tomorrow we add the xlsx variant": the day first, then who does it
    _rule(
        "explicit",
        DEFERRED,
        "tomorrow week monday weekend",
        r"""^\W*(?:tomorrow|next\s+week|on\s+monday|after\s+the\s+weekend),?\s+
            (?:we|i|let's|lets)\s+(?!(?:did|was|were|had|found|saw)\b)\w""",
    ),
    # "pagination we'll figure out after the launch", "the pagination work after lunch"
    _rule(
        "explicit",
        DEFERRED,
        "lunch launch demo holidays break freeze",
        r"\bafter\s+(?:lunch|the\s+launch|launch|the\s+demo|the\s+holidays|the\s+break|the\s+freeze)\b",
        before=_WE_WILL,
    ),
    _rule(
        "explicit",
        DEFERRED,
        "lunch launch demo holidays break freeze",
        r"""^\W*(?:[a-z][\w/-]*\s+){1,3}after\s+(?:lunch|the\s+launch|launch|the\s+demo
            |the\s+holidays|the\s+break|the\s+freeze)\W*$""",
    ),
    _rule("explicit", DEFERRED, "wait", r"\b(?:can|could)\s+wait\b"),
    _rule("explicit", DEFERRED, "now", r"\bnot\s+(?:right\s+)?now\b"),
    # "not today, I need to think about caching instead" (as "not now" does; "not today, but
    # …" is an aside)
    _rule(
        "explicit",
        DEFERRED,
        "today",
        r"^\W*(?:(?:no|nah|nope|hmm+|ok(?:ay)?)[,.!]?\s+)?not\s+today\b(?![,\s]+but\b)",
    ),
    # "put a pin in it", "let's table that", "we'll punt on the cache", "deprioritize it"
    _rule("explicit", DEFERRED, "pin", r"\bput\s+a\s+pin\s+in\b"),
    _rule(
        "explicit",
        DEFERRED,
        "punt defer postpone shelve",
        r"""\b(?:let's|lets|let\s+us|we(?:'ll|\s+will|\s+can|\s+could|\s+should)?|i'll|i\s+will)
            \s+(?:just\s+)?(?:punt|defer|postpone|shelve)\b(?!\s+to\b)""",  # "defer to": yield
    ),
    # "let's table that" — not "I'll table the results" (set them out in a table)
    _rule(
        "explicit",
        DEFERRED,
        "table",
        r"\b(?:let's|lets|let\s+us|we\s+(?:can|could|should))\s+(?:just\s+)?table\b",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "deprioritize deprioritise de-prioritize deprioritized deprioritised",
        r"\bde-?prioriti[sz](?:e|ed|ing)\b",
    ),
    # "pagination isn't a priority right now", "low priority — after the release"
    _rule(
        "explicit",
        DEFERRED,
        "priority",
        r"""\b(?:not|isn't|aren't)\s+(?:a\s+|the\s+)?(?:high\s+|top\s+|big\s+)?priority\b
          | \b(?:is|are|'s|as)\s+(?:a\s+)?low(?:er)?[- ]priority\b""",
    ),
    # "it can come later", "pagination is a nice-to-have"
    _rule(
        "explicit",
        DEFERRED,
        "later",
        r"\b(?:can|could|will|'ll|should)\s+(?:come|happen|go\s+in|wait\s+until)\s+later\b",
    ),
    # "pagination is phase 2", "that's a v2 thing", "post-launch"
    _rule(
        "explicit",
        DEFERRED,
        "phase v2 post-launch postlaunch post-mvp post-release",
        r"""\b(?:is|are|'s|as)\s+(?:a\s+|an\s+)?(?:phase\s*(?:2|two|ii)|v2|post-?(?:launch|mvp|release))
            (?:\s+(?:thing|item|feature|work|task|problem|concern))?\W*$""",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "nice-to-have",
        r"\b(?:is|are|'s|as)\s+(?:a\s+|an\s+|just\s+a\s+|more\s+of\s+a\s+)?nice[- ]to[- ]have\b",
    ),
    # "we'll do pagination next sprint", "in the next release"
    _rule(
        "explicit",
        DEFERRED,
        "next",
        r"""\b(?:in|for|until|till|during)\s+(?:the\s+)?next\s+(?:(?:major|minor|patch)\s+)?
            (?:sprint|release|iteration|milestone|version|cycle|phase)\b""",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "next",
        r"\bnext\s+(?:sprint|release|iteration|milestone|week|cycle)\b",
        before=rf"\b{_DO}\b[^.?!\n]{{0,40}}?",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "now moment being today release sprint pr iteration milestone version round",
        r"""\bfor\s+(?:now|the\s+moment|the\s+time\s+being|today|this\s+(?:release|sprint|pr
            |iteration|milestone|version|round))\b""",
        before=rf"\b{_LEAVE}\b[^.?!\n]{{0,60}}?\W",
    ),
    _rule(
        "explicit",
        DEFERRED,
        "now",
        r"""\bfor\s+now,?\s+(?:let\s+me|let's|i'll|we'll|i\s+will|we\s+will|i've|we've|i|we)
            \s+(?:just\s+)?(?:skip|leav|left|ignor|stub|hard-?cod|disabl|bypass
            |comment(?:ing|ed)?\s+out|work(?:ing)?\s+around|mock|fak)""",
    ),
    # -- not-done: completion negated, or never reached
    _rule(
        "not-done",
        DEFERRED,
        "yet",
        # "n't" is inside its word ("isn't"): no word boundary before it.
        rf"""(?:(?:\bnot|n't|\bnever)\s+(?:been\s+|be\s+)?{_DONE_VERB}(?:\s+up)?\b[^.?!\n]{{0,40}}?\byet\b
          | (?:\bnot|n't)\s+yet\s+(?:been\s+)?(?:{_DONE_VERB}|supported)\b
          | \byet\s+to\s+be\s+[a-z]+ed\b)""",
    ),
    _rule(
        "not-done",
        DEFERRED,
        "still",
        rf"""\b(?:(?:is|are)\s+still\s+(?:a\s+)?(?:stub|stubbed|todo|missing|unimplemented
            |unhandled|untested|hard-?coded|pending|unresolved|to\s+do)\b
          | still\s+needs?\s+to\s+be\s+{_DONE_VERB}\b)""",
    ),
    _rule(
        "not-done",
        DEFERRED,
        "never around chance time",
        r"""\b(?:never\s+got\s+(?:around\s+)?to
          | (?:didn't|did\s+not|haven't|have\s+not|hasn't|has\s+not)\s+(?:yet\s+)?
            (?:got(?:ten)?|had\s+(?:a\s+chance|time))\s+(?:around\s+)?to
          | ran\s+out\s+of\s+time\s+(?:for|to))\b""",
    ),
    # -- lead-later: a sentence that opens on the future ("Later: …", "Eventually we should …")
    _rule(
        "lead-later",
        DEFERRED,
        "later eventually someday day road line future point",
        r"""(?:^|[,;]\s*|\band\s+)(?:(?:maybe|perhaps)\s+)?
          (?:later|eventually|someday|some\s+day|one\s+day|down\s+the\s+(?:road|line)
          |in\s+(?:the\s+)?future|at\s+some\s+point)
          (?:\s*:|,?\s+(?:we|i|you|it|this|that|they|let's|let\s+us)\s+
            (?:can|could|should|will|might|may|need|must|want|would|have\s+to|ought)\b
          |,?\s+(?:we'll|i'll|you'll|it'll|let's)\b)""",
    ),
    # "Eventually the import command should use the new parser too."
    _rule(
        "lead-later",
        DEFERRED,
        "eventually",
        r"""(?:^|[,;]\s*)eventually,?\s+(?:[\w'-]+\s+){1,4}?
            (?:should|could|will|can|must|might|would|needs?\s+to|ought\s+to)\s""",
    ),
    # -- gerund and past forms of the deferring verbs ("Postponing the cleanup until …")
    _rule(
        "gerund",
        DEFERRED,
        "postponing postponed postpone deferring deferred defer punt punting punted parking "
        "parked shelving shelved shelve hold holding touching",
        rf"""(?:(?:^|[;,]\s*|\b(?:i'm|we're|i\s+am|we\s+are)\s+)
            (?:postponing|deferring|punting(?:\s+on)?|parking|shelving|holding\s+off\s+on)
            \s+{_DET}
          | \b(?:postponed|deferred|punted(?:\s+on)?|shelved|parked)\s+{_DET}
          | \b(?:postpone|defer|shelve|punt\s+on)\s+{_DET}
          | \b(?:is|are|stays?|remains?)\s+(?:parked|deferred|postponed|shelved)\b
            (?!\s+(?:in|at|on|outside|inside|near|by|behind|next\s+to)\b)
          | \bhold(?:ing)?\s+off\s+(?:on|with)\b
          | \bon\s+hold\b
          # "pagination: parked", "not touching pagination until the redesign lands", "hold
          # the export until marketing signs off"
          | [:—–]\s*(?:parked|deferred|postponed|shelved|on\s+hold)\W*$
          | \b(?:not\s+touching|hold(?!\s+(?:on|up)\b))\b[^.?!\n]{{1,50}}?\buntil\b)""",
    ),
    # -- caveat: a standing warning left open ("Heads-up: the ARM build is still red")
    _rule(
        "caveat",
        DEFERRED,
        "heads-up heads caveat caveats known limitation limitations note warning fyi important nb",
        r"""^(?:heads[- ]up|caveat|known\s+(?:issue|limitation|problem|bug)|limitation)s?
              \s*[:—–-]
          | ^(?:note|nb|warning|fyi|important)\s*[:—–-][^\n]*?
              \b(?:still|not\s+yet|yet\s+to|remains?|broken|failing|flaky|missing
              |unresolved|unfixed|doesn't\s+work|does\s+not\s+work)\b""",
    ),
    # -- aside: keeping something for another time, mostly the user's side
    _rule(
        "aside",
        DEFERRED,
        "time day",
        r"""\b(?:for|till|until|to)\s+(?:another|some\s+other|a\s+(?:later|future|different))
            \s+(?:time|day|session|sprint|release)\b
          # "we'll deal w/ old names some other time"
          | \bsome\s+other\s+(?:time|day)\b""",
    ),
    # "we'll get to pagination another day"
    _rule("aside", DEFERRED, "time day", r"\banother\s+(?:day|time)\b", before=_WE_WILL),
    _rule(
        "aside",
        DEFERRED,
        "forget",
        r"""\bdon'?t\s+(?:let\s+(?:me|us)\s+)?forget\s+(?:that|about|we|us|the)\b
          | \bdon'?t\s+(?:let\s+(?:me|us)\s+)?forget\s+to\b[^.?!\n]{0,60}?
            \b(?:later|eventually|next\s+time)\b
          | \b(?:let's|lets|let\s+us)\s+not\s+forget\b""",
    ),
    _rule(
        "aside",
        DEFERRED,
        "remind",
        r"\bremind\s+(?:me|us)\b(?:\s+(?:to|about|of|later|tomorrow|next\s+time)\b|\s*(?:[.!]|$))",
    ),
    # "leave it for the next run", "leave that for another day"
    _rule(
        "aside",
        DEFERRED,
        "leave",
        r"""\bleave\s+(?:[\w'-]+\s+){1,3}?for\s+(?:the\s+next|next
            |a\s+later|later|another|a\s+future|a\s+follow-?up|a\s+separate)\b""",
    ),
    _rule("aside", DEFERRED, "owe", r"\bwe\s+(?:still\s+)?owe\b"),
    _rule(
        "aside",
        DEFERRED,
        "yet",
        r"\b(?:don'?t|do\s+not|not|no)\b[^.?!\n]{0,40}?\bjust\s+yet\b",
    ),
    _rule(
        "aside",
        DEFERRED,
        "today now yet time",
        r"^not\s+(?:today|now|yet|this\s+time|in\s+this\s+(?:pr|change|session)),?\s+but\b",
    ),
    _rule(
        "aside",
        DEFERRED,
        "backlog roadmap parking todo",
        r"""\b(?:put|add|throw|move|log|goes|go|belongs?|stays?)\b[^.?!\n]{0,60}?\b(?:on|to|in|into)
            \s+(?:the|our|my)\s+(?:backlog|todo\s+list|roadmap|parking\s+lot)\b""",
    ),
    # -- TODO: a marker only in capitals and as a note ("TODO:", "left a TODO"), never
    # "TODO app"
    _rule(
        "todo",
        DEFERRED,
        "todo todos",
        # …not a code comment quoted ("the existing `# TODO: use multipart` comment") unless
        # the assistant left or added it ("added a `// TODO: handle CRLF`").
        r"(?<![`#/*])(?<!# )(?<!// )(?<!/\* )(?<!-- )\bTODO\s*[:(]"
        r"|\b(?:left|leave|leaving|add|added|adding)\s+(?:an?\s+)?(?:`\s*(?:#|//|/\*|--)?\s*)?"
        r"TODOs?\b(?!\s+(?:apps?|lists?|items?|application|component|manager)\b)",
        0,
    ),
    # -- diverging: a side idea, another way
    _rule(
        "diverging",
        DIVERGING,
        "also",
        r"\bwe\s+could\s+also\b|\bcould\s+also\s+(?:add|use|try|consider|make|switch|support|cache)\b",
    ),
    _rule(
        "diverging",
        DIVERGING,
        "another other alternative alternatively",
        r"\b(?:another|one\s+other|an\s+alternative)\s+(?:option|approach|idea|way)\b|\balternatively\b",
    ),
    # "I'd recommend adding a test for the CRLF case.", "Consider adding rate limiting …"
    _rule(
        "diverging",
        DIVERGING,
        "recommend suggest consider",
        r"""\b(?:i'd|i\s+would|i)\s+(?:also\s+)?(?:recommend|suggest)\s+[a-z]+ing\b
          | ^(?:you\s+(?:may|might|could)\s+(?:also\s+)?(?:want\s+to\s+)?)?(?:also\s+)?
            consider\s+[a-z]+ing\b""",
    ),
    _rule(
        "diverging",
        DIVERGING,
        "worth",
        r"\bworth\s+(?:trying|exploring|considering|a\s+try|looking\s+into|investigating)\b"
        r"|\b(?:might|may|could)\s+be\s+worth\b",
    ),
    _rule(
        "diverging",
        DIVERGING,
        "if nice good cool interesting want idea instead explore experiment",
        r"""\b(?:what\s+if\s+we
          | it\s+would\s+be\s+(?:nice|good|cool|interesting)\s+to
          | we\s+(?:might|may)\s+(?:also\s+)?want\s+to
          | (?:one|an)\s+idea\s+(?:is|would\s+be)
          | instead\s+we\s+could
          | (?:could|might)\s+(?:also\s+)?(?:explore|experiment\s+with))\b""",
    ),
)
CLASSES = tuple(dict.fromkeys(rule.name for rule in RULES))

# Only in the text that ends a turn: what the turn closed on is still broken.
STILL_OPEN = Lazy(
    r"\b(?:is|are)\s+still\s+(?:red|broken|failing|flaky|blocked|erroring|crashing|timing\s+out)\b",
    re.IGNORECASE,
)

# Attempts are not deferrals: "for now, let me try skipping the hook" is narration of what
# happens next, and its outcome is in the very next message.
ATTEMPT = Lazy(r"\b(?:let\s+me|let's|i'll|we'll)\s+(?:just\s+)?try\b", re.IGNORECASE)

# A heading or lead-in naming the open work, and the list items under it.
NEXT_LIST = Lazy(
    r"""^(?:\#{1,6}\s+|\*\*|__)?\s*(?:[^\w\s]\s*)?
      (?:next\s+steps?|remaining(?:\s+(?:tasks|work|items|steps|issues|todos?))?|still\s+to\s+do
      |left\s+to\s+do|to-?dos?|not\s+yet\s+(?:done|implemented|covered)
      |open\s+(?:items|questions|issues|tasks)|outstanding(?:\s+(?:items|work|tasks|issues))?
      |follow[- ]?ups?|future\s+work|known\s+(?:issues|limitations|gaps))\b[^\n]{0,40}$""",
    _I,
)
LEAD_IN = Lazy(
    r"^(?:the\s+)?(?:remaining|outstanding|open|pending)\s+(?:tasks|work|items|steps|issues)"
    r"\s+(?:are|is|include)\b[^\n]*:\s*$",
    re.IGNORECASE,
)

# A sentence reporting work as done ("Added jitter to the backoff", "the paths are handled
# now", "✅ Fixed the path bug"), the evidence that settles a loose end. Verbs of looking
# ("I checked", "we looked at") report no work done, and nor does "working" naming a thing or
# work in hand ("the working directory", "working on the docs").
DONE = Lazy(
    r"""\b(?:added|fixed|implemented|committed|wired|hooked\s+up|handled|resolved|updated
      |removed|created|wrote|written|rewrote|rewritten|finished|completed?|done|addressed
      |ported|migrated|refactored|renamed|moved|deleted|cleaned\s+up|configured|rotated
      |merged|pushed|landed|shipped|enabled|replaced|switched|converted|documented|extracted
      |introduced|normali[sz]ed|restored|reverted|upgraded|installed|deployed|released
      |generated|built|set\s+up|covered|tested|precomputed|cached|split|made|changed
      |passes|passing|works|succeeded|in\s+place
      |working(?!\s+(?:directory|dir|tree|copy|on|through|set|hours?|group|branch|days?|draft)\b))\b
      | ✅""",
    _I,
)
# …unless it speaks of the future, a condition, a doubt or a question.
UNDONE = Lazy(
    r"\b(?:will|going\s+to|needs?\s+to|should|could|would|let\s+me|let's|not|never|yet|later"
    r"|for\s+now|todo|still|can|might|may|if|whether|want|try|trying|until|unless|once)\b"
    r"|n't\b|'ll\b|\?",
    re.IGNORECASE,
)

"""What the text that closes a session says is left: the caveats of its summary, the lists
of what is left, whether it hands the work back to the user.

The closing text is the one place where a summary states the state of the work handed over
— "`.codex/` stays untracked, yours to decide", "the README still says Level 1", "you'll
need to redeploy the web chat" — so its sentences are read more widely than the rest of the
session's: a sentence saying something is still so, not yet done, pending, left to the
user or for later, or a check the work could not make ("I couldn't verify …"), is kept.
Elsewhere in a session such sentences are mostly narration of work about to be done, and
are not read (see `loose`).
"""

from __future__ import annotations

import re

from session_skill import recache
from session_skill.transcripts.abroad import hands_over, left_lead, puts_off
from session_skill.transcripts.anchors import ANCHOR_FORMS
from session_skill.transcripts.candidates import DEFERRED, DIVERGING
from session_skill.transcripts.lazyre import Lazy, alternation
from session_skill.transcripts.phrasing import NEXT_LIST
from session_skill.transcripts.prose import (
    _FENCE,
    _LIST_MARK,
    _SENTENCE_END,
    _is_prose,
    _units,
    classify,
    item_text,
    lead_text,
    list_under,
    redact,
    sign_off,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_SCAN_CHARS = 16_000

# Something still so, or not yet done.
_NOT_YET = Lazy(
    r"""(?:\bstill\s+(?:says|shows|has|have|points?|uses|needs?|refers|reads|references|lists
          |contains|mentions|open|pending|missing|broken|failing|red|blocked|unresolved|untested
          |unverified|uncommitted|untracked|unpushed|in\s+progress|to\s+do|todo|hangs?|empty
          |stale|out\s+of\s+date|wrong|not\b|off\b|disabled|ignores?|lacks?)
      | (?:\bnot|n't|\bnever)\s+(?:been\s+|be\s+)?(?:yet\s+)?(?:pushed|committed|merged|deployed
          |tested|verified|run|exercised|released|published|checked|confirmed|wired|implemented
          |covered|handled|supported|migrated|updated|fixed|done|finished|touched|changed
          |started|push|commit|merge|deploy|test|verify|release|publish|check|confirm|wire
          |implement|cover|handle|migrate|update|fix|finish|touch|change|start)\b[^.?!\n]{0,40}?
          \b(?:yet|so\s+far)\b
      | (?:\bnot|n't)\s+(?:been\s+|yet\s+)?(?:pushed|merged|deployed|released|published)\b
      | \b(?:didn't|did\s+not|haven't|have\s+not)\s+(?:push|merge|deploy|release|publish)\b
      | \b(?:doesn't|does\s+not|don't|do\s+not)\s+(?:cover|handle|support|include|address|have)\b
          [^.?!\n]{0,40}\byet\b
      | \bnot\s+yet\b | \byet\s+to\b
      # a part not in the work yet: "Retention isn't in yet: old snapshots are never pruned."
      | (?:\bis\s+not|\bare\s+not|\bisn't|\baren't)\s+(?:in|there|in\s+place)\s+yet\b
      # "The migration is written but not applied."
      | \bbut\s+not\s+(?:yet\s+)?(?:applied|run|pushed|merged|deployed|released|published
          |committed|tested|verified|wired|hooked\s+up|enabled|registered|installed|executed
          |migrated)\b
      | \b(?:untracked|uncommitted|unpushed|unmerged|unverified|untested|unexercised)\b
      | \b(?:remains?|stays?)\s+(?:open|pending|untracked|uncommitted|unverified|a\s+stub
          |a\s+placeholder|unresolved|to\s+be)\b | \bremains?\s+(?:a\s+)?to-?do\b
      | \bpending\s+(?:your|a|the|matching|review|approval|confirmation)\b
      | \b(?:is|are)\s+pending\b | \bawaiting\b
      | (?<!instead\sof\s)(?<!without\s)\bwaiting\s+(?:on|for)\s+(?:you|your|the|a)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# Work not done, said without "yet": "I haven't added the translations.", "Haven't tested
# Outlook", "Typing isn't covered." Of work an "I" or "we" — or no one — has not done, or a
# part the change leaves uncovered; not "I haven't changed the API" (what the change kept
# as it was), "haven't added any" (`_NONE_AFTER`), nor "I haven't added it since it
# deletes user data" (a choice, with its reason: `_BECAUSE`).
_UNDONE = Lazy(
    r"""(?:^\W*|\b(?:i|we)\s+)(?:haven't|have\s+not)\s+(?:\w+ly\s+)?(?:added|tested|run|verified
          |checked|built|implemented|written|wired|hooked|updated|migrated|documented|translated
          |handled|covered|tried|measured|benchmarked|profiled|fixed|addressed|looked\s+at|done
          |set\s+up|configured|seen|exercised|validated|confirmed|localized|localised)\b
      | \b(?:i|we)\s+(?:didn't|did\s+not)\s+(?:\w+ly\s+)?(?:chase|pursue|investigate|dig\s+into
          |look\s+into|add|test|run|verify|check|build
          |implement|write|wire|hook|update|migrate|document|translate|handle|cover|try|measure
          |benchmark|profile|fix|address|look\s+at|do|set\s+up|configure|exercise|validate
          |confirm|localize|localise)\b
      | \b(?:is|are|was|were)(?:n't|\s+not)\s+(?:(?:yet|fully|really)\s+)?(?:covered|tested
          |handled|implemented|wired|hooked\s+up|documented|translated|localized|localised
          |verified|configured|set\s+up|exercised|validated)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# What every branch of _NOT_YET holds literally, in the lowered text: the cheap test first.
# (Its branches open on a word boundary, which the engine tries at every position of the
# sentence; these open on a letter, which it skips to.) "not" and "n't" only before a space:
# "nothing", "notes" are no negation.
_NOT_YET_WORDS = recache.compile(
    r"still|n(?:o|')t\s|never|yet|un(?:track|commit|push|merg|verif|test|exercis)|remain|stay"
    r"|pending|waiting"
)
_NOT_SAID = recache.compile(r"n(?:o|')t\s")  # …and of _UNDONE
_NONE_AFTER = Lazy(r"^\s+(?:any|anything|nothing)\b", re.IGNORECASE)
_BECAUSE = Lazy(r"\b(?:since|because|as\s+it|on\s+purpose|deliberately|intentionally)\b", re.I)
# Said of nothing: "there are no uncommitted changes", "nothing is pending", "no tasks are
# pending" — the marker a word or two after a negation.
_NEGATED = Lazy(r"\b(?:no|nothing|none|zero|without)(?:\s+[\w'-]+){0,2}\s+$", re.IGNORECASE)
_CONDITION = Lazy(
    r"\b(?:when|whenever|if|whether|while|until|unless|once)\s+(?:there\s+|it\s+|they\s+)?$",
    re.IGNORECASE,
)
_EXCEPT = Lazy(r"\b(?:besides|except|other\s+than|apart\s+from|but|save\s+for)\b", re.IGNORECASE)


def _still_so(sentence: str) -> bool:
    """Does `sentence` say something is still so or not yet done (`_NOT_YET`, `_UNDONE`), of
    something it does not say is none?"""
    for found in _undone(sentence):
        before = sentence[max(0, found.start() - 40) : found.start()]
        if _CONDITION.search(before):
            continue  # "exits 2 when there are pending changes": what the code does, when
        if not _NEGATED.search(before):
            return True
        if _EXCEPT.search(sentence[found.end() :]):
            return True  # "no uncommitted changes besides login.py": login.py is
    return False


def _undone(sentence: str) -> Iterator[re.Match[str]]:
    """Where `sentence` says something is still so or not done yet."""
    low = sentence.lower()
    other = len(low) != len(sentence)  # (searched as it is: the cheap tests do not hold)
    if other or _NOT_YET_WORDS.search(low) is not None:
        yield from _NOT_YET.finditer_lowered(sentence, low)
    if not other and _NOT_SAID.search(low) is None:
        return
    for found in _UNDONE.finditer_lowered(sentence, low):
        after = sentence[found.end() :]
        if not _NONE_AFTER.match(after[:20]) and not _BECAUSE.search(after):
            yield found


# What _NOT_YET, _YOURS, _SET_ASIDE, _UNCHECKED or _LEFT_OVER cannot match without (in the
# lowered text): the cheap test first.
# Every branch of either pattern holds one of these literally ("not … yet" holds "yet").
_LEFT_WORDS = recache.compile(
    alternation(
        "still|yet|so far|untrack|uncommit|unpush|unmerg|unverif|untest|unexercis|remain|stay"
        "|pending|await|waiting|you'll|you will|you may|you might|you still|you want|you need"
        "|you also"
        "|you have|haven't|have not|i didn't|i did not|we didn't|we did not|separately"
        "|check back|report back|keep an eye|approval|sign-off|signoff|sign off"
        "|n't covered|not covered|n't tested|not tested|n't handled"
        "|not handled|n't implemented|not implemented|n't wired|not wired|n't hooked|not hooked"
        "|n't documented|not documented|n't translated|not translated|n't locali|not locali"
        "|n't verified|not verified|n't configured|not configured|n't set up|not set up"
        "|n't exercised|not exercised|n't validated|not validated"
        # …with a word between ("isn't fully covered", "isn't really tested"; "yet" is above)
        "|n't fully|not fully|n't really|not really"
        "|you should|you can now|remember to|forget to|for you to|to you|you're ready|you are ready"
        "|your call|up to you|yours to|your side|need your|needs your|from you|require|manual"
        "|pre-existing|preexisting|unrelated"
        "|couldn't|could not|can't|cannot|able to|unable|leaves|left|only|except|next"
        "|separately|stopped here|stopping here|stop here|once you|when you|after you"
        "|let me know once|let me know when|not push|n't push|not merg|n't merg|not deploy"
        "|n't deploy|not releas|n't releas|not publish|n't publish|not been push"
        # "Once Sara has regenerated the certificate, re-run the failed workflow."
        "|, re-run|, rerun|, run |, merge|, deploy|, redeploy|, push|, restart|, apply"
        "|, rebuild|, retry|, trigger|, publish|, release|, rotate|, update|, enable"
        "|, remove|fail|error|❌|⚠|temporar|stopgap|upstream|before|but not|partial|draft"
        "|wait|go-ahead|goahead".split("|")
    )
)
# What the session waits on to go on, named ("Once #42 is merged I can rebase this." — not
# "Once that's in, I can …", which points at the sentence before), at a sentence's start.
# Tested only where "once " is: the word is too common to send every text that holds it
# through the sentence-by-sentence read.
_WAITS_ON = Lazy(
    r"""(?:^|[.!?:]\s+|\n)\W*once\s+(?!(?:i|we|you|it|its|that|thats|this|they|these|those)\b)
        [^,.?!\n]{3,80}?(?:,\s*|\s+)(?:i|we)(?:\s+can\b(?!not)|'ll\b|\s+will\b|\s+could\b)""",
    re.IGNORECASE | re.VERBOSE,
)


def _leaves(low: str) -> bool:
    """Does lowered text hold a word one of the patterns of what is left needs?"""
    return (
        _LEFT_WORDS.search(low) is not None
        or ("once " in low and _WAITS_ON.search(low) is not None)
        or hands_over(low)
    )


# A check the closing text reports failing now: "⚠️ `cargo test` — 2 failures in
# tests/proxy.rs", "`cargo test` (fails: linking needs libssl-dev)", "3 tests fail on CI".
_FAILS_NOW = Lazy(
    r"""(?:^|\s)(?:❌|⚠️?)(?!\s*(?:none|no\b))
      | \(\s*(?:fails?|failed|failing|errors?)\b
      | \b(?:\d+|two|three|four|five|six|several|some|a\s+few)\s+(?:[\w`.-]+\s+){0,2}?
        (?:failures?|failing|failed(?!\s+[a-z])|errors?|fail)\b
        (?!\s+(?:before|earlier|previously)\b)
      | \b(?:fails|failing)\s*(?:[:—–(]|\s-\s|\b(?:with|on|in|because|since|at)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# …and what says it is no longer so, or never was: "fixed the 2 failures", "0 failed".
_FAILS_NOT = Lazy(
    r"""\b(?:fix(?:ed|es|ing)?|resolv(?:ed|es|ing)|address(?:ed|es|ing)|handl(?:ed|es|ing)
      |no|zero|without|were|was|used\s+to|had|before|earlier|previously|expected\s+to\s+fail
      |expected\s+failures?|should|would|will|if|when|whenever|unless)\b
      | (?:^|\s)0\s""",
    re.IGNORECASE | re.VERBOSE,
)


def _fails_now(sentence: str) -> bool:
    """Does `sentence` report a check failing as the work stands?"""
    found = _FAILS_NOW.search(sentence)
    return found is not None and not _FAILS_NOT.search(sentence)


# A failure the session saw and set aside as not its own: still broken.
_SET_ASIDE = Lazy(
    r"""\b(?:pre-?existing|unrelated\s+to\s+(?:this|our|the|my|these))\b[^.!?\n]{0,80}?
        \b(?:errors?|fail(?:s|ed|ing|ures?)?|broken|crash(?:es|ed|ing)?)\b
      | \b(?:errors?|fail(?:s|ed|ing|ures?)?|broken|crash(?:es|ed|ing)?)\b[^.!?\n]{0,80}?
        \b(?:pre-?existing|unrelated\s+to\s+(?:this|our|the|my|these))\b""",
    re.IGNORECASE | re.VERBOSE,
)
# A check the work could not make: "I couldn't verify the hover state headlessly", "Can't
# test without valid credentials", "the integration tests couldn't run here". Said of the
# work (by "I"/"we", a check, or no one), not of what the code can't do ("the planner can't
# verify upfront …").
# Not managing: "I couldn't …", "we weren't able to …"; and what to get a thing to do.
_COULD_NOT = r"couldn't|could\s+not|can't|cannot|wasn't\s+able\s+to|was\s+unable\s+to"
_TO_WORK = r"to\s+(?:pass|work|build|compile|run|start|load|succeed)\b"
_UNCHECKED = Lazy(
    rf"""(?:^\W*|\b(?:i|we)\s+|\b(?:tests?|checks?|suite)\s+)
        (?:{_COULD_NOT}|was\s+not\s+able\s+to|weren't\s+able\s+to)
        \s+(?:(?:be\s+)?(?:\w+\s+)?(?:verif(?:y|ied)|run|test(?:ed)?|reproduc(?:e|ed)|confirm(?:ed)?
        |exercis(?:e|ed)|check(?:ed)?)\b
        # what the work set out to find and did not: "I wasn't able to find where the config
        # is loaded", "a 3% regression that I couldn't explain"
        # — not "I can't find an external caller" (a finding: there is none)
        |(?:explain|figure\s+out|determine)\b
        |(?:find|locate|identify|track\s+down|pin\s+down)\s+(?:where|why|how|what|which|when
          |whether|who|the\s+(?:\w+\s+)?(?:cause|source|reason|root|culprit|origin|leak|bug))\b
        |get\s+[^.?!\n]{{1,60}}?\s+{_TO_WORK})""",
    re.IGNORECASE | re.VERBOSE,
)
# What is left, said of the work: "That leaves pagination.", "Only the export is left.",
# "Everything is done except the docs.", "Pagination is next.", "Next I'd tackle the cache.",
# "It will need to be done separately." (Not done yet — "This doesn't cover pagination
# yet", "… remains a TODO" — is `_NOT_YET`'s.)
_LEFT_OVER = Lazy(
    r"""\bthat\s+leaves\b(?!\s+(?:plenty|enough|lots|room|headroom|space|margin|a\s+(?:lot|bit)
        |(?:a\s+)?(?:comfortable|good|big|large|healthy|wide)\s+(?:margin|headroom))\b)
      | \bonly\s+(?:\w+\s+){1,3}(?:is|are)\s+(?:still\s+)?(?:left|remaining)\b
      | \bthe\s+only\s+(?:thing|piece|part|bit|step)s?\s+(?:still\s+)?(?:left|remaining)\b
      | \b(?:everything|all)\s+(?:else\s+)?(?:is\s+)?done\s+except\b
      | \blast\s+(?:piece|step)\s+left\b
      | \b(?:is|are)\s+next\W*$ | \bnext,?\s+(?:i'd|we'd|i\s+would|we\s+should|we\s+could)\b
      # the work the reply meant to do next: "I'll do those next.", "Next I'll port the digest"
      | \b(?:i'll|i\s+will|we'll|we\s+will)\s+(?:\w+\s+){1,5}?next\W*$
      | \b(?:i'll|i\s+will|we'll|we\s+will)\s+(?:\w+\s+){1,5}?next\s+(?:in\s+the\s+same\s+way
        |the\s+same\s+way|as\s+well|too|if\s+you)\b
      | \bnext,?\s+(?:i'll|we'll|i\s+will|we\s+will)\b
      | \b(?:need|needs)\s+to\s+be\s+(?:done|handled|fixed|addressed|tackled)\s+separately\b
      | \b(?:will|'ll)\s+need\s+to\s+(?:\w+\s+){1,4}?separately\b
      | \bworth\s+(?:\w+ing\s+)?(?:separately|in\s+a\s+(?:separate|follow[- ]?up)\b)
      # what the session waits on: "I'll check back when CI finishes", "it needs another
      # approval from @maria before it can merge"
      | \b(?:i'll|i\s+will|we'll|we\s+will)\s+(?:check\s+back|report\s+back|keep\s+an\s+eye)\b
      | \b(?:needs?|waiting\s+(?:on|for)|awaiting)\s+(?:an?\s+|another\s+|one\s+more\s+)?
        (?:approval|sign[- ]?off)\b
      | \bthe\s+next\s+(?:step|thing\s+to\s+(?:try|do|check))\s+(?:would\s+be|is|will\s+be
        |could\s+be)\b
      | \b(?:one|the\s+only|the\s+last)\s+remaining\s+(?:issue|problem|failure|bug|gap|step
        |item|thing|piece|blocker|error|test)s?\s*(?::|—|–|\bis\b|\bare\b)
      # a stopgap, to be undone: "a temporary workaround until the upstream fix lands"
      | \btemporary\s+(?:workaround|hack|fix|patch|pin|measure|solution)\b | \bstopgap\b
      | \buntil\s+(?:the\s+)?upstream\b
      # a step due before the next release of the work: "the migration must run before the
      # next deploy"
      | \b(?:must|needs?\s+to|has\s+to|have\s+to)\s+(?:be\s+)?(?:\w+\s+){0,2}?before\s+
        (?:the\s+next\s+|you\s+|we\s+|it\s+|this\s+)?(?:deploy|deploying|deployment|release
        |releasing|merge|merging|merges|ship|ships|shipping|goes\s+live|going\s+live|rollout
        |rolling\s+out|prod|production)\b
      # work done in part, or not ready to take in till something is: "This is a partial
      # fix: …", "Opened #57 as a draft until the screenshots are added." (A draft PR alone
      # is where the work is, not what is left: "Draft PR #1021 is open: …", `y`.)
      | \bpartial\s+(?:fix|solution|workaround|implementation|port|migration)\b
      | \bpartially\s+(?:fixed|fixes|addressed|resolved|implemented|done|migrated|ported)\b
      | \bdraft\b[^.?!\n]{0,40}?\b(?:until|till)\b
      # what the session waits on to go on: "Once #42 is merged I can rebase this.", "I'll
      # wait for your go-ahead before pushing." (Not CI still running: the written sets'
      # labellers call "CI is running" no loose end, nor "test again once the deploy
      # completes".)
      | \b(?:i'll|i\s+will|we'll|we\s+will)\s+wait\s+(?:for|on|until)\b | \byour\s+go-?ahead\b
      # (…and "Once #42 is merged I can rebase this.": `_WAITS_ON`, apart — a branch that
      # opens on "^" costs every other branch its quick scan for where to start)
      | \b(?:i've|i\s+have)\s+stopped\s+here\b | \bi'll\s+stop\s+here\b
      | \b(?:i'm|i\s+am)\s+stopping\s+here\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Left to the user.
_YOURS = Lazy(
    r"""\b(?:you(?:'ll|\s+will)?\s+(?:may\s+|might\s+|still\s+|also\s+)?(?:want|need|have)\s+to
      | you\s+should\b | you\s+can\s+now\b | remember\s+to | don't\s+forget\s+to
      | (?:ready|left)\s+for\s+you\s+to | (?:when|whenever|once)\s+you(?:'re|\s+are)?\s+ready
      # "I'll leave the README's API section to you": work handed over
      | \b(?:leave|leaving|left)\s+(?!you\b)[^.?!\n]{1,60}?\s+to\s+you\b
      | your\s+call | up\s+to\s+you | on\s+your\s+side | needs?\s+your
      # "it's yours to decide" — not "I renamed yours to `0057_invoice_lines.py`"
      | yours\s+to\s+(?:decide|do|choose|handle|make|pick|run|merge|review|own|keep|take|finish
        |call|judge|test|try)\b
      # "I need the DSN from your Sentry project to test it end to end"
      | \b(?:i|we)(?:'ll|\s+will)?\s+(?:still\s+)?need\s+
        (?:your\b|[^.?!\n]{1,60}?\bfrom\s+(?:you|your)\b)
      | requires?\s+(?:your|you\s+to|manual) | manual(?:ly)?\s+(?:step|test|check|run|verif)
      | (?:once|when|after)\s+you(?:'ve|\s+have)?\s+[^.?!\n]{1,60}?,\s*(?:i|we)\s+can\b
      # "Once Sara has regenerated the certificate, re-run the failed workflow."
      | ^\W*(?:once|when|after|before)\b[^,.?!\n]{3,80},\s*(?:re-?run|run|merge|deploy|redeploy|push
          |restart|apply|rebuild|retry|trigger|publish|release|rotate|update|enable|remove)\b
      | let\s+me\s+know\s+(?:once|when)\b
      # "If you need the old checkpoints' real val scores, re-evaluate them with the fixed loop."
      | ^\W*if\s+you\s+(?:need|want|'d\s+like)\s+(?!anything|something|more|help|me\b|to\s+know)
        [^,.!?\n]{3,80},\s*(?!i\b|i'll|i\s+can|i'd|we\b|we'll|let\s+me|just\s+(?:ask|say|let)
        |ask\b|ping\b|tell\s+me|feel\s+free|happy\b)[a-z])""",
    re.IGNORECASE | re.VERBOSE,
)
# A state the user asked for: "Not pushed, as you said.", "… wasn't applied, by your call".
_USERS_CALL = r"""as\s+you\s+(?:said|asked|requested|wanted|suggested|preferred)|as\s+requested
      |per\s+your\s+(?:request|call|instructions?|note)|by\s+your\s+(?:call|choice|request)
      |at\s+your\s+request|like\s+you\s+(?:said|asked)|as\s+(?:agreed|discussed|planned)"""
# What the user decided, said back: "Virtualization is parked, as agreed".
AS_THEY_SAID = Lazy(rf"\b(?:{_USERS_CALL})\b", re.IGNORECASE | re.VERBOSE)
_AS_DECIDED = Lazy(
    rf"""\b(?:{_USERS_CALL}
      # …or the work's own intent: "`:dev` and `a:b:c` still fail with a usage error, which
      # is intended", "… still fails, as expected", "rejected by design"
      |(?:which|that)\s+(?:is|was|'s)\s+(?:intended|expected|intentional|deliberate|by\s+design
        |on\s+purpose)|as\s+(?:intended|expected|designed)|by\s+design)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# "Still passes" is done, not open.
_STILL_DONE = Lazy(
    r"\bstill\s+(?:pass(?:es)?|passing|works?|working|green|fine|good|builds?|compiles?|clean"
    r"|correct|intact|valid|there|the\s+same|applies)\b",
    re.IGNORECASE,
)
# The closing text gives the work back to the user to try, check or finish.
_HANDBACK = Lazy(
    r"""\b(?:try\s+(?:it|again|restarting|running|reloading|now|the)|give\s+it\s+a\s+(?:try|go)
      | (?:let\s+me\s+know|tell\s+me)\s+(?:if|whether|how|what)
        # "… if you'd like me to add tests": an offer of more work, not the work handed back
        (?!\s+you(?:'d|\s+would)?\s+(?:want|like|need|prefer)\b)
      | should\s+now\s+(?:be|work|show|appear|load|pass)
      | (?:ready|left)\s+for\s+you\s+to | when\s+you're\s+ready
      | (?:re-?run|rerun)\s+(?:it|your|the)
      | take\s+a\s+look | please\s+(?:test|check|verify|try|confirm|review|run|restart))\b""",
    re.IGNORECASE | re.VERBOSE,
)
# An item of a one-line list that reports the work done ("Remaining: all done, pushed.").
_DONE = Lazy(
    r"""^(?:\W*)(?:done|pushed|committed|merged|deployed|fixed|shipped|all\s+set|that's\s+it
      |all\s+\d+\s+tests?\s+pass|all\s+tests?\s+pass|✅)\b
      | \b(?:committed\s+and\s+pushed|pushed\s+to|merged\s+into|all\s+(?:\d+\s+)?tests?\s+pass)""",
    re.IGNORECASE | re.VERBOSE | re.MULTILINE,
)


# A line introducing a list of what is left: "Two things still open from before:", "A couple
# of things you may want to handle separately:", "Untuned, flag what feels off:", "A few small
# loose ends, none urgent:".
_OPEN_LEAD = Lazy(
    r"""\b(?:still\s+open|left\s+open|open\s+from\s+before|not\s+(?:yet\s+)?done|still\s+to\s+do
      |left\s+to\s+do|handle\s+separately|(?:untuned|unverified|untested|unresolved)\b
      |parked|not\s+(?:yet\s+)?(?:implemented|wired|tested|verified|handled|addressed|covered
        |checked|tried|run|measured)
      |outstanding|remaining\s+(?:work|items|tasks|steps|issues|gaps)|pending|next\s+up
      |you\s+(?:may|might)\s+(?:want|need)\s+to|needs?\s+your|known\s+(?:issues|gaps|limitations)
      |follow[- ]?ups?\s*(?:for\s+later)?\s*:|loose\s+ends?|open\s+(?:items|threads|points)
      |what(?:'s|\s+is)\s+(?:still\s+)?left|what\s+remains|still\s+missing|deferred|out\s+of\s+scope
      |(?:need|want)\s+from\s+you|questions?\s+for\s+you|for\s+you\s+to\s+(?:confirm|decide|check)
      # steps handed over: "… so two things are on you:", "To check on your side:"
      |\b(?:is|are)\s+(?:left\s+)?(?:on|for)\s+you\b|\bon\s+your\s+(?:side|end)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# …and, in the text that closes the session, what is left said the other ordinary ways:
# "Suggested next steps:", "Up next:", "Still needed:", "Left for later:", "Blocked:", "What
# I didn't do:", "Things to verify:", "Manual steps:", "Before merging:", "Action items:",
# "You'll need to:", "Nice to have:", "Possible improvements:", "Recommendations:". Earlier
# in a session such a list is what the user answers next ("Practical next step: rerun …").
_LEFT_LEAD = Lazy(
    r"""\bnext\s+steps?\b|\bup\s+next\b|\bwhat(?:'s|\s+is|\s+comes)\s+next\b|\bto\s+do\s+next\b
      |^next$|^later$|\bstill\s+(?:todo|to-do|needed|required)\b|\bfor\s+later\b|^blocked\b
      |\bnot\s+included\b|\b(?:didn't|did\s+not|couldn't|could\s+not)\s+(?:do|get\s+to|finish
      |complete|address|cover|verify|test|run)\b|\bthings?\s+to\s+(?:verify|check|watch|test)\b
      |\bmanual(?:ly)?\s+(?:steps?|verification|testing|checks?|tests?)\b
      |\bbefore\s+(?:merging|merge|releasing|release|deploying|shipping)\b|\baction\s+items\b
      |\bfor\s+you\s+to\s+(?:do|run|try|test|review|verify)\b
      |\byou(?:'ll|\s+will)?\s+(?:still\s+)?need\s+to\b|\bnice\s+to\s+have\b
      |\b(?:possible|potential|suggested|further)\s+(?:improvements|enhancements|changes)\b
      |^(?:recommendations|suggestions|improvements|limitations)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# …unless the lead tells what was done: "Before merging, I ran:", "Next, we verified:".
_NARRATED = Lazy(r"\b(?:i|we)\s+(?:\w+ed|ran|did|made|wrote|built|got|saw|kept)\b", re.IGNORECASE)
_LIST_MAX = 8
# A lead-in that is itself a caveat of what is still so ("Still failing:", "Not yet wired:"):
# what it introduces is what is left.
_STILL_SO_LEAD = Lazy(
    r"^\W*(?:\w+\s+){0,3}?(?:still\s+(?:failing|broken|red|open|missing|unresolved|to\s+do)"
    r"|not\s+(?:yet\s+)?(?:done|fixed|wired|implemented|tested|verified|working))\b[^.!?]{0,40}:$",
    re.IGNORECASE,
)
# The line after a list that says the assistant takes it up at once.
_TAKEN_UP = Lazy(
    r"""^\W*(?:(?:ok(?:ay)?|now|so|next)[,\s]+)?(?:let\s+me|let's|i'll|i\s+will|i'm\s+going\s+to
      |going\s+to|starting\s+(?:on|with))\b[^.!?\n]{0,60}\b(?:these|them|those|all\s+of|each)\b""",
    re.IGNORECASE | re.VERBOSE,
)


def _taken_up(lines: list[str], n: int) -> bool:
    """Does the first line from `lines[n]` on that holds anything take the list up at once?"""
    after = next((ln.strip() for ln in lines[n:] if ln.strip()), "")
    return _TAKEN_UP.match(after) is not None


def _heading(line: str, bare: str) -> bool:
    """A Markdown heading of a few words ("## Still open"): a lead-in without its colon."""
    return _HEADING.match(line) is not None and 0 < len(bare.split()) <= _HEADING_WORDS


_HEADING = Lazy(r"#{1,6}\s")  # not "#123 is still open"
_HEADING_WORDS = 6


def open_lists(text: str, ended: bool = False) -> list[tuple[str, str]]:
    """(item, lead-in) for the list items under a line that introduces what is left; in
    the text that closes the session (`ended`), also under the leads of `_LEFT_LEAD` and
    their like in another language (`abroad.LEFT_LEAD`: "**Дальше**", "下一步：")."""
    head = text[:_SCAN_CHARS]
    if ":\n" not in head and ":**\n" not in head and ":*\n" not in head and "#" not in head:
        if not (ended and ("**\n" in head or "：" in head)):
            return []  # no lead-in line ending in a colon, no heading (nor one abroad's)
    lines = _FENCE.sub("\n", head).splitlines()
    found: list[tuple[str, str]] = []
    n = 0
    while n < len(lines):
        line = lines[n].strip()
        n += 1
        bare = line.strip("#*_ ").rstrip("*_ ")
        if _LIST_MARK.match(line):
            continue
        if not (bare.endswith(":") or _heading(line, bare)):
            # In another language, a lead may end on "：", or be a bold line alone
            # ("**Дальше**", "**次のステップ**"): over what is left, in the text that closes
            # the session, it leads as `_LEFT_LEAD`'s do.
            if not (
                ended
                and (bare.endswith("：") or (line.startswith("**") and line.endswith("**")))
                and left_lead(bare.rstrip("：:"))
            ):
                continue
        elif NEXT_LIST.match(line):
            continue  # NEXT_LIST headings are `prose.listed_items`' own
        else:
            said = bare.rstrip(":").strip("*_ ")
            if not (
                _OPEN_LEAD.search(bare)
                or _STILL_SO_LEAD.search(bare)
                or (ended and _LEFT_LEAD.search(said) and not _NARRATED.search(said))
                or (ended and left_lead(said))
            ):
                continue
        items, n = list_under(lines, n, _LIST_MAX)
        if _taken_up(lines, n):
            continue  # "Let me write these in parallel:": the assistant does them now
        lead = lead_text(bare.rstrip(":："))
        found += [(item, lead) for item in items]
    return found


# A lead and its items on one line: "Next up: step 6 — move the sessions table, step 7 — …",
# "**Remaining:** the Windows paths and the retry jitter." The lead is a few words.
_INLINE = Lazy(r"^[\s>*_#]*(?:[-*+•]\s+)?([^:\n]{3,48}?)[*_]*:[*_]*\s+(\S[^\n]*)$", re.MULTILINE)
_NOTHING_LEFT = Lazy(
    r"""^\W*(?:none|nothing|n/a|no\s+(?:more|further|open|remaining)|0\b|all\s+(?:done|set|clear)
      |everything\b|(?:i|we)(?:'ve|\s+have)\s+(?:done|completed|finished|covered))""",
    re.IGNORECASE | re.VERBOSE,
)


# A status line's lead that says what is left, alone: "left: …", "remaining: …", "todo: …".
_LEFT_ALONE = Lazy(r"^(?:left|remaining|to\s?-?do|not\s+done)$", re.IGNORECASE)


def inline_lists(text: str) -> list[tuple[str, str]]:
    """(items, lead-in) for each line of a closing text that lists what is left after its
    lead, on the same line: the rest of that line, as one loose end."""
    head = text[:_SCAN_CHARS]
    if ": " not in head and ":** " not in head:
        return []
    body = _FENCE.sub("\n", head)
    lines = body.splitlines()
    found: list[tuple[str, str]] = []
    for n, line in enumerate(lines):
        m = _INLINE.match(line)
        if m is None:
            continue
        lead, items = m.group(1).strip(" *_`"), m.group(2).strip()
        if len(lead.split()) > 6 or not (
            NEXT_LIST.match(lead)
            or _OPEN_LEAD.search(lead)
            or _LEFT_LEAD.search(lead)
            or _LEFT_ALONE.match(lead)
        ):
            continue
        if items.endswith("?"):
            # A question is `asks`' to read; the list before it on the line stands ("…,
            # step 8 — switch the reads. Want to continue with step 6?").
            sentences = _SENTENCE_END.split(items)
            while sentences and sentences[-1].endswith("?"):
                sentences.pop()
            items = " ".join(sentences)
        if _NOTHING_LEFT.match(items) or _DONE.search(items):
            continue  # "Next steps: none.", "Remaining: all done, pushed."
        if len(items.split()) < 3 and not (_LEFT_ALONE.match(lead) and "," in items):
            continue  # too few words to be work — unless a few named ("- left: `A.vue`, `B.vue`")
        if _taken_up(lines, n + 1):
            continue
        item = item_text(items)
        found.append((item, redact(lead)))
    return found


# A Markdown task-list item left unticked: "- [ ] Run the e2e tests" — or an empty box
# drawn as a glyph, beside "✅" ones: "5. ☐ editor File → Save/Load", "⬜ docs".
_ANY_BOX = recache.compile(r"\[ \]|[☐⬜◻□]")  # one pass for any of them
_UNTICKED = Lazy(
    r"^[ \t>]*(?:(?:[-*+]|\d{1,2}[.)])[ \t]+)?(?:\[ \]|☐|⬜|◻\ufe0f?|□)[ \t]+(\S.*)$", re.MULTILINE
)


def unticked(text: str) -> list[str]:
    """The items a closing text leaves unticked in a task list ("- [ ] …", "☐ …"): not
    done, in the list's own notation, whatever leads it (a PR's "Test plan", a checklist).
    Not inside a fenced block: that is a file's content shown."""
    if _ANY_BOX.search(text, 0, _SCAN_CHARS) is None:
        return []
    body = _unfenced(text)
    found = []
    for m in _UNTICKED.finditer(body):
        item = item_text(m.group(1))
        if item:
            found.append(item)
    return found


_TICKED = Lazy(
    r"^[ \t>]*(?:(?:[-*+]|\d{1,2}[.)])[ \t]+)?(?:\[[xX]\]|✅)[ \t]+(\S.*)$", re.MULTILINE
)


def ticked(text: str) -> list[str]:
    """The items a text ticks in a task list ("- [x] …", "✅ …"): done, in the list's own
    notation (not inside a fenced block)."""
    return [item for m in _TICKED.finditer(_unfenced(text)) if (item := item_text(m.group(1)))]


# The last text read without its fenced blocks: a closing text with a task list is read for
# its ticked items as it is read, and again, with its unticked ones, when its turn closes.
_UNFENCED_MEMO: list[str | None] = [None, None]


def _unfenced(text: str) -> str:
    memo = _UNFENCED_MEMO
    if text is not memo[0]:
        memo[0], memo[1] = text, _FENCE.sub("\n", text[:_SCAN_CHARS])
    return memo[1]  # type: ignore[return-value]


# A file git is told to ignore, said so: "the plan file `tfplan` is untracked and ignored by
# `.gitignore`", "the logs are gitignored" — out of the commit on purpose, not left behind.
_GIT_IGNORED = Lazy(
    r"""\bgit-?ignored\b | \bignored\s+(?:by|in|via)\s+(?:git\b|the\s+)?`?\.?gitignore
      | \b(?:is|are)\s+(?:already\s+)?(?:in|listed\s+in)\s+(?:the\s+)?`?\.gitignore""",
    re.IGNORECASE | re.VERBOSE,
)


def caveats(
    text: str, ideas: bool = False, low: str | None = None, tokens: set[str] | None = None
) -> list[tuple[str, str | None]]:
    """The sentences of a closing text that say something is left open (redacted), each
    with its kind: DEFERRED when it puts work off in so many words ("can go in a follow-up
    PR", "later") — those stand wherever they are said —, None for the others ("still
    says", "you'll need to", a failure set aside as "pre-existing" or "unrelated to this
    change") — the state of the work, which the caller keeps for the last closing texts only
    (`loose.CAVEAT_TURNS`); and, with `ideas` (the session's last closing text), DIVERGING
    for a side idea ("we could also …") that nothing after it took up.

    `low` and `tokens` are the text lowercased and its split tokens, when the caller has
    them (for a text of at most _SCAN_CHARS characters)."""
    found: list[tuple[str, str | None]] = []
    tail = text[-_SCAN_CHARS:]
    if low is None or tokens is None or len(text) > _SCAN_CHARS:
        low = tail.lower()
        tokens = set(low.split())
    marks = not ANCHOR_FORMS.isdisjoint(tokens) or puts_off(low)
    left = _leaves(low)
    if not marks and not left:
        return found  # most closing texts: no word any of the patterns below needs
    for sentence, _item in _units(tail):
        # (A check's result is rarely prose: "`npm test`: 112 passed, 2 failed.")
        failing = ideas and left and len(sentence.split()) >= 3 and _fails_now(sentence)
        if not failing and (
            not _is_prose(sentence) or sentence.rstrip().endswith(("?", ":", "？", "："))
        ):
            continue  # a question (`asks`), or a lead-in: what it introduces follows it
        said = sentence.lower()
        marked = classify(sentence, said) if marks else None
        kind = marked[1] if marked is not None else None
        if kind != DEFERRED:
            if (
                left
                and _leaves(said)
                and (
                    _still_so(sentence)
                    or _YOURS.search_lowered(sentence, said)
                    or _SET_ASIDE.search(sentence)
                    or _UNCHECKED.search(sentence)
                    or _LEFT_OVER.search_lowered(sentence, said)
                    or _WAITS_ON.search(said)
                    or hands_over(said)
                    or failing
                )
            ):
                if _AS_DECIDED.search(sentence):
                    continue  # "Not pushed, as you said.": the user's decision, carried out
                kind = None  # left open, whatever else it says
            elif not (kind == DIVERGING and ideas):
                continue
        if _STILL_DONE.search(sentence) and not re.search(r"\bbut\b", sentence, re.I):
            continue  # "the tests still pass": done, not open
        if (
            "ignore" in said
            and _GIT_IGNORED.search(sentence)
            and not _YOURS.search_lowered(sentence, said)
        ):
            continue  # "… untracked and ignored by `.gitignore`": kept out on purpose
        found.append((redact(sentence), kind))
    return found


def hands_back(text: str) -> bool:
    """Does the closing text give the work back to the user (to try, check, decide)?"""
    tail = text[-_SCAN_CHARS:]
    if _HANDBACK.search(tail) is None:
        return False
    # Sentence by sentence (split as `asks` just split them): "Let me know if anything else
    # comes up" closes finished work, it hands nothing back.
    return any(
        (found := _HANDBACK.search(s))
        and not sign_off(s)
        and not _OWN_OFFER.search(s[: found.start()])
        for s, _ in _units(tail)
    )


# The assistant offering to do it itself: "Do you want me to rerun the full grid search
# now?" hands nothing back (the offer is listed as a question of its own).
_OWN_OFFER = Lazy(
    r"\b(?:want\s+me\s+to|like\s+me\s+to|shall\s+i|should\s+i|(?:i|we)\s+(?:can|could)"
    r"(?:\s+also)?|happy\s+to)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)


# The reply's last sentence says what it does next, at once: "Now let me update those
# snapshots.", "I'll run the full suite next.", "Checking the ownership path now — …". A
# reply that stops there stopped before the work it announced: the transcript was cut, or
# the model ended its turn early. Not a sign-off ("Let me know …"), nor waiting on the user
# ("I'll wait for your call", "I'll leave it there", "Let's see how it does").
_ABOUT_TO = Lazy(
    r"""^\W*(?:(?:ok(?:ay)?|now|next|so|then|first|alright|great)[,\s]+)*
      (?:let\s+me\s+(?!know\b)(?:now\s+)?|let's\s+(?:now\s+)?(?!see\b|wait\b|leave\b|keep\b|stop\b
          |hope\b|discuss\b|talk\b|revisit\b|circle\b|pick\b|park\b|not\b)
      | i'll\s+(?:now\s+|next\s+|also\s+)?|i\s+will\s+now\s+|(?:i'm|i\s+am)\s+going\s+to\s+
      | (?:i'm|i\s+am)\s+now\s+
      # "When both passes are done I'll write up the table": work it waits to do
      | (?:when|once|after|as\s+soon\s+as)\s+(?!you\b|you're\b|you've\b)[^,.!?\n]{3,60}?,?\s+
          (?:i'll|i\s+will|we'll)\s+(?:then\s+)?)
      (?!wait\b|leave\b|keep\b|stop\b|hold\b|be\b|let\s+you\b|check\s+back\b|follow\s+up\b
          |come\s+back\b|look\s+into\s+it\s+later\b|revisit\b|pause\b)[a-z]
    | ^\W*(?:now\s+)?(?:(?:i'm|i\s+am|we're|we\s+are)\s+(?:now\s+)?)?(?:checking|running
        |looking|updating|fixing|adding|writing|testing|verifying|investigating|trying|moving
        |switching|starting|digging|reading|building|rebuilding|re-?running|wiring|applying
        |removing|migrating|working|pushing|deploying|compiling|generating|kicking|triggering
        |profiling|benchmarking|measuring|comparing|converting|porting|refactoring|cleaning
        |preparing|waiting|retrying|installing|downloading|uploading)\b[^.!?\n]*\bnow\b
    # "Next: a test with a fake server that returns `UNAVAILABLE` twice, …"
    | ^\W*next(?:\s+up)?\s*:\s*[a-z`]""",
    re.IGNORECASE | re.VERBOSE,
)


def announced(text: str) -> str | None:
    """The closing text's last sentence, when it announces work about to be done
    (`_ABOUT_TO`): "Now let me update those snapshots.", "When both passes are done I'll
    write up the table." — or leads in to something that never came ("Running the load test
    again to confirm:")."""
    tail = text[-2000:].rstrip()
    if not tail or tail.endswith("?"):
        return None
    units = _units(tail)
    if units and (tail.endswith(":") or _ABOUT_TO.search(units[-1][0]) is not None):
        return units[-1][0]  # …or it ends on a lead-in to what never came ("… to confirm:")
    return None


# The reply says the work asked for did not get done: it stopped, it still fails, it could
# not be finished — "Raising it drops iOS 11–12, so I stopped here rather than change it on
# my own.", "The iOS build still fails, at `pod install`:", "I couldn't get the build to
# pass." Not a check it could not make ("I couldn't verify the email flow": the work is
# done, the check is a caveat), nor a failure set aside as not the work's own ("… still
# fails; it is pre-existing").
# (Said to have given up, as against a state reported: "X still fails" may be known and
# accepted, and a "thanks" after it finishes the request — `Turns._stopped_before_thanks`.)
_GAVE_UP_WORDS = rf"""\b(?:stopped|stopping|stop)\s+(?:here|there|at\s+that\s+point)\b(?!\s+to\b)
      | \b(?:i|we)\s+(?:{_COULD_NOT})
        \s+(?:(?:finish|complete|fix|build|install)\b|get\s+[^.?!\n]{{1,40}}?\s+{_TO_WORK})"""
_GAVE_UP = Lazy(_GAVE_UP_WORDS, re.IGNORECASE | re.VERBOSE)
_STOPPED = Lazy(
    rf"""{_GAVE_UP_WORDS}
      | \bstill\s+(?:fails?|failing|broken|crash(?:es|ing)?|errors?|erroring)\b
      | \b(?:is|are)\s+still\s+(?:red|blocked)\b
      # the work begun, not done: "Started on the read routing.", "Started on it: …"
      | ^\W*(?:i(?:'ve|\s+have)\s+|we(?:'ve|\s+have)\s+)?started\s+on\b""",
    re.IGNORECASE | re.VERBOSE,
)
_STOP_WORDS = (
    "stop", "still", "couldn't", "could not", "can't", "cannot", "able to", "unable", "started on"
)  # fmt: skip


def gave_up(sentence: str) -> bool:
    """Does this sentence of `stopped`'s say the work was left off, not how it stands?"""
    return _GAVE_UP.search(sentence) is not None


# The reply says the turn changed nothing: "so I haven't changed anything", "No changes
# made.", "I left the code as it is" — not "I didn't change anything else" (it changed
# something), nor a change it spares ("I didn't touch the API").
_CHANGED_NOTHING = Lazy(
    r"""\b(?:i|we)\s+(?:haven't|have\s+not|didn't|did\s+not)\s+(?:yet\s+)?
        (?:(?:chang(?:e|ed)|touch(?:ed)?|modif(?:y|ied)|edit(?:ed)?)\s+(?:anything|any\s+(?:code|files?))
        |made\s+any\s+(?:changes|edits))\b(?!\s+else\b)
      | ^\W*no\s+(?:code\s+|file\s+)?changes\s+(?:were\s+|have\s+been\s+)?made\b
      | \b(?:i|we)(?:'ve|\s+have)?\s+left\s+the\s+code\s+(?:as\s+it\s+is|as\s+is|untouched
        |unchanged)\b""",
    re.IGNORECASE | re.VERBOSE,
)


def changed_nothing(text: str) -> str | None:
    """The sentence of a closing text saying the turn changed nothing (`_CHANGED_NOTHING`)."""
    tail = text[-_SCAN_CHARS:]
    low = tail.lower()
    if not any(w in low for w in ("chang", "touch", "modif", "edit", "left the code")):
        return None
    for sentence, _item in _units(tail):
        if _CHANGED_NOTHING.search(sentence):
            return sentence
    return None


def stopped(text: str) -> str | None:
    """The sentence of a closing text that says the work asked for stopped undone
    (`_STOPPED`), unless it sets the failure aside as not the work's own."""
    tail = text[-_SCAN_CHARS:]
    low = tail.lower()
    if not any(w in low for w in _STOP_WORDS):
        return None
    leading: str | None = None
    for sentence, _item in _units(tail):
        if len(sentence.split()) <= 3 and sentence.rstrip().endswith(":"):
            continue  # a lead-in ("Still failing:"): what it lists is the loose end
        if (
            _STOPPED.search(sentence)
            and not _SET_ASIDE.search(sentence)
            and not _AS_DECIDED.search(sentence)
        ):
            if not sentence.rstrip().endswith(":"):
                return sentence
            leading = leading or sentence  # "… still fails, at `pod install`:" — if no other
    return leading

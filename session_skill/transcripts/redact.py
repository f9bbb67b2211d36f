"""Mask secrets in text taken from transcripts (SPEC §9).

Everything sweep or an extractive dump lifts out of a transcript passes through `redact`
before it is printed or stored: a handover doc is a plain file that may be pasted, shared or
committed by mistake, so a key that scrolled past in a tool result must not travel with it.

The patterns lean towards precision on ordinary prose: "tokenizer", "max_tokens: 1024",
"sk-learn" and `password: str` stay as they are, because a redaction marker in the middle of
an idea makes the idea unreadable and teaches the user to ignore the markers.
"""

from __future__ import annotations

import re

from session_skill import recache

# PEM blocks first: their base64 body would otherwise be chewed up piecemeal. A block cut
# off by clipping (no END line) is masked to the end of the text.
_PEM = recache.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
    re.DOTALL,
)

# (kind, pattern) for tokens recognisable by their own shape, wherever they stand.
_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("aws_access_key", recache.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("anthropic_key", recache.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}")),
    # OpenAI-style `sk-…`: the tail must mix letters and digits, which keeps "sk-learn" and
    # "sk-learn-compatible-wrapper" (all letters) out.
    (
        "api_key",
        recache.compile(r"\bsk-(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{16,}"),
    ),
    ("github_token", recache.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}\b")),
    ("github_token", recache.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}")),
    ("slack_token", recache.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("gitlab_token", recache.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("npm_token", recache.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("huggingface_token", recache.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    # Stripe's secret and restricted keys (`pk_…`, the publishable key, is no secret).
    ("stripe_key", recache.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("google_api_key", recache.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ("sendgrid_key", recache.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    # A JWT is three base64url parts; the first two are JSON objects, so they start "eyJ".
    ("jwt", recache.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
    # `Authorization: Bearer <opaque token>`: the header value has no recognisable shape.
    ("bearer_token", recache.compile(r"(?<=\bBearer )[A-Za-z0-9._~+/-]{20,}=*")),
)

# The password of a URL's user part: `postgres://app:s3cret@db:5432/app`, `redis://:pw@host`,
# `https://user:token@host/…` (a connection string said in a request or printed by a run).
# The user name, the host and the rest stay; a value that is a placeholder or a reference
# (`:password@`, `:${DB_PASS}@`, `:<pw>@`) stays too, as in an assignment.
_URL_PASSWORD = recache.compile(
    r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\[\]]*:)(?P<value>[^\s/?#@]+)(?=@[^\s/?#@])"
)

# `password = value`, `DB_PASSWORD: "value"`, `"api_key": "value"`, `GITHUB_TOKEN=value`.
# The keyword must end the key (`\b` or a `_key`-style suffix), so `tokenizer = …`,
# `token_count = 3` and `max_tokens: 1024` are not assignments of a secret.
_ASSIGNMENT = recache.compile(
    r"""(?P<key>\b[A-Za-z0-9_.-]*?
            (?P<word>password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key)
            (?:[_-]?key(?:[_-]?base)?|[_-]?value)?
        )\b
        (?P<close>["']?)
        (?P<sep>\s*(?<![=!<>])[:=](?!=)\s*)
        (?P<value>"[^"\n]*"|'[^'\n]*'|[^\s,;'"`}\])]+)
    """,
    re.IGNORECASE | re.VERBOSE,
)

# Values that are not secrets: type annotations, empties, placeholders, env references.
_NOT_SECRET = frozenset(
    "none null nil true false str string bytes int bool any optional required undefined "
    "secret password token *** ... <redacted> xxx changeme".split()
)


def _kind_of(word: str) -> str:
    word = word.lower().replace("-", "_")
    if word == "passwd":
        return "password"
    if word in ("apikey", "api_key"):
        return "api_key"
    if word.startswith("access"):
        return "access_key"
    return word


def _stands_in(value: str) -> bool:
    """Is this value no secret: too short, a placeholder, a reference (`$DB_PASS`,
    `<password>`, `{{ secret }}`), a call (`session.get_token()`, `hash_password(raw)`: the
    code that makes one), or masked already?"""
    return (
        len(value) < 3
        or value.lower() in _NOT_SECRET
        or value.startswith(("$", "[REDACTED", "<", "{{", "%("))
        or _CALL.match(value) is not None
    )


_CALL = recache.compile(r"[A-Za-z_][\w.]*\(")


def _mask_assignment(match: re.Match[str]) -> str:
    value = match.group("value")
    bare = value.strip("\"'")
    if _stands_in(bare) or bare.lower().startswith(("os.environ", "process.env", "env.", "getenv")):
        return match.group(0)
    quote = value[0] if value[0] in "\"'" and value[-1] == value[0] and len(value) > 1 else ""
    masked = f"{quote}[REDACTED:{_kind_of(match.group('word'))}]{quote}"
    return match.group("key") + match.group("close") + match.group("sep") + masked


# A password said in prose rather than assigned: "the password is Tr0ub4dor", "valid
# credentials include: admin, a1d2m3i4n5", "log in as admin / s3cr3t!" ("sign in" too).
# What follows the word (one value, or two joined by a comma, a slash or "and") is masked
# only where it is shaped like a secret (`_secret_shaped`), so "the password is wrong",
# "credentials are in the vault" and the user name "admin" stay.
_PROSE_SECRET = recache.compile(
    r"""\b(?:passwords?|passwd|passcode|passphrase|pwd|pw|credentials?|logins?
          |(?:log|sign)[\s-]?in)\b
        (?P<sep>\s+(?:is|was|are|were|includes?|included|=)\s*:?\s*|\s*:\s*|\s+as\s+)
        (?P<value>[^\s,;/]+(?:\s*(?:,|/|\band\b)\s*[^\s,;/]+)?)
    """,
    re.IGNORECASE | re.VERBOSE,
)
_VALUE_PART = recache.compile(r"[^\s,;/]+")
_SYMBOLS = frozenset("!@#$%^&*+=?~")
_EMAIL = recache.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _secret_shaped(token: str) -> bool:
    """A token that reads as a password: letters with digits ("hunter2", "a1d2m3i4n5"), or
    letters with symbols ("Tr!ck$yPass"); not a word, a path, a URL, an email address or a
    placeholder."""
    bare = token.strip("\"'`.()[]<>")
    if len(bare) < 6 or bare.startswith(("REDACTED", "$", "~", "{", "%")) or "://" in bare:
        return False
    if bare.lower() in _NOT_SECRET or _EMAIL.fullmatch(bare):
        return False  # a user name: an email address is one
    letters = any(c.isalpha() for c in bare)
    return letters and (
        any(c.isdigit() for c in bare) or (len(bare) >= 8 and not _SYMBOLS.isdisjoint(bare))
    )


_URL_PLACEHOLDERS = frozenset("pass passwd pwd pw user username".split())


def _mask_url_password(match: re.Match[str]) -> str:
    value = match.group("value")
    if _stands_in(value) or value.lower() in _URL_PLACEHOLDERS or value.startswith("*"):
        return match.group(0)
    return match.group("head") + "[REDACTED:password]"


def _mask_prose(match: re.Match[str]) -> str:
    value = match.group("value")
    masked = _VALUE_PART.sub(
        lambda part: "[REDACTED:password]" if _secret_shaped(part.group(0)) else part.group(0),
        value,
    )
    if masked == value:
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + masked


# Every pattern of `redact` needs one of these (the token shapes, case and all; the
# assignment keywords, lowercased): a text holding none is returned as it is, unscanned.
_SECRET_SHAPES: tuple[str, ...] = (
    "-----BEGIN",
    "AKIA",
    "ASIA",
    "sk-",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
)
_SECRET_SHAPES += ("github_pat_", "xox", "eyJ", "Bearer ")
_SECRET_SHAPES += ("glpat-", "npm_", "hf_", "k_live_", "k_test_", "AIza", "SG.")
_SECRET_WORDS: tuple[str, ...] = ("passw", "secret", "token", "apikey", "api_key", "api-key")
_SECRET_WORDS += ("access", "passcode", "passphrase", "pwd", "pw", "credential", "login")
_SECRET_WORDS += ("log in", "log-in", "sign in", "sign-in", "signin")


def redact(text: str) -> str:
    """Return `text` with every recognised secret replaced by `[REDACTED:<kind>]`.

    Most texts hold none of the shapes a pattern needs: those are returned unscanned (the
    sweep redacts every text it keeps, and a full scan is a dozen regexes)."""
    if not text:
        return text
    if not any(shape in text for shape in _SECRET_SHAPES) and not ("://" in text and "@" in text):
        low = text.lower()
        if not any(word in low for word in _SECRET_WORDS):
            return text
    return scan(text)


def scan(text: str) -> str:
    """`redact` without the shortcut: every pattern tried."""
    text = _PEM.sub("[REDACTED:private_key]", text)
    for kind, pattern in _TOKENS:
        text = pattern.sub(f"[REDACTED:{kind}]", text)
    text = _URL_PASSWORD.sub(_mask_url_password, text)
    text = _ASSIGNMENT.sub(_mask_assignment, text)
    return _PROSE_SECRET.sub(_mask_prose, text)

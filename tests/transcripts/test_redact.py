from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.transcripts.redact import redact

# Secret-shaped values are assembled from pieces so this file never holds a literal that
# a secret scanner (or a reader) would take for a live credential. All are fake.
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_TEMP = "ASIA" + "Y34FZKBOKMUTVV7A"
ANTHROPIC = "sk-ant-" + "api03-" + "FAKE0fake1FAKE2fake3FAKE4fake5FAKE6"
OPENAI = "sk-" + "proj-" + "Fake1234Fake5678Fake9012Fake3456"
OPENAI_LEGACY = "sk-" + "0123456789abcdefFAKEfakeFAKEfake0123456789ab"
GHP = "ghp_" + "FAKEfakeFAKEfake0123456789abcdefABCD"
GHO = "gho_" + "FAKEfakeFAKEfake0123456789abcdefABCD"
GH_PAT = "github_pat_" + "11FAKE0000_fakefakefakefakefakefakefake0000"
SLACK_BOT = "xoxb-" + "000000000-FAKE-fake-not-real"
SLACK_USER = "xoxp-" + "000000000-FAKEfakeFAKE"
GITLAB = "glpat-" + "FAKEfake0123456789ab"
NPM = "npm_" + "FAKEfakeFAKEfake0123456789abcdefABCD"
HF = "hf_" + "FAKEfakeFAKEfakeFAKEfake01234567"
STRIPE = "sk_" + "live_" + "51HfakeFAKEfake0123456789abcd"
STRIPE_RESTRICTED = "rk_" + "test_" + "51HfakeFAKEfake0123456789abcd"
GOOGLE = "AIza" + "SyFAKEfakeFAKEfake0123456789abcdefg"
SENDGRID = "SG." + "FAKEfakeFAKEfake012345." + "FAKEfakeFAKEfake0123456789abcdefABCDEFGHIJK"
JWT = (
    "eyJ"
    + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJ"
    + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkZha2UifQ"
    + ".FAKEsignatureFAKEsignature0123"
)
PEM = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA7FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE\n"
    "FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE==\n"
    "-----END RSA " + "PRIVATE KEY-----"
)
OPENSSH = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"

# (text, secret that must disappear, kind in the marker)
POSITIVES = [
    (f"export AWS_ACCESS_KEY_ID={AWS}", AWS, "aws_access_key"),
    (f"temporary creds {AWS_TEMP} expire soon", AWS_TEMP, "aws_access_key"),
    (f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC, None),
    (f"the key {ANTHROPIC} leaked", ANTHROPIC, "anthropic_key"),
    (f"client = OpenAI(api_key='{OPENAI}')", OPENAI, None),
    (f"old style {OPENAI_LEGACY} key", OPENAI_LEGACY, "api_key"),
    (f"git clone https://{GHP}@github.com/o/r", GHP, "github_token"),
    (f"oauth token {GHO}", GHO, "github_token"),
    (f"GH_PAT is {GH_PAT}", GH_PAT, "github_token"),
    (f"slack: {SLACK_BOT}", SLACK_BOT, "slack_token"),
    (f"user token {SLACK_USER}.", SLACK_USER, "slack_token"),
    (f"push with {GITLAB} please", GITLAB, "gitlab_token"),
    (f"//registry.npmjs.org/:_authToken {NPM}", NPM, "npm_token"),
    (f"login with {HF} to pull the model", HF, "huggingface_token"),
    (f"the stripe key is {STRIPE}", STRIPE, "stripe_key"),
    (f"restricted: {STRIPE_RESTRICTED}", STRIPE_RESTRICTED, "stripe_key"),
    (f"maps key {GOOGLE} in the embed", GOOGLE, "google_api_key"),
    (f"SENDGRID={SENDGRID}", SENDGRID, None),
    (f"mail via {SENDGRID}", SENDGRID, "sendgrid_key"),
    (f"Authorization: Bearer {JWT}", JWT, "jwt"),
    (f"cookie session={JWT}; Path=/", JWT, "jwt"),
    (f"key file:\n{PEM}\nend", "MIIEowIBAAKCAQEA7FAKE", "private_key"),
    (f"truncated {OPENSSH}", "b3BlbnNzaC1rZXktdjEAAAAA", "private_key"),
    ("password = hunter2-not-real", "hunter2-not-real", "password"),
    ('DB_PASSWORD: "correct horse battery"', "correct horse battery", "password"),
    ("db_passwd=Tr0ub4dor", "Tr0ub4dor", "password"),
    ("client_secret: 9f8e7d6c5b4a", "9f8e7d6c5b4a", "secret"),
    ("SECRET_KEY = 'django-insecure-fake-0123'", "django-insecure-fake-0123", "secret"),
    ("GITHUB_TOKEN=abc123def456", "abc123def456", "token"),
    ('{"access_token": "ya29.FAKE-token-value"}', "ya29.FAKE-token-value", "token"),
    ("api_key: 0a1b2c3d4e5f", "0a1b2c3d4e5f", "api_key"),
    ("x-api-key=fake-0000-1111", "fake-0000-1111", "api_key"),
    ("apikey = 'zzz-fake-value'", "zzz-fake-value", "api_key"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "access_key",
    ),
    (
        "Authorization: Bearer 0123456789abcdefFAKEfake0123",
        "0123456789abcdefFAKEfake0123",
        "bearer_token",
    ),
    # said in prose, not assigned
    ("valid credentials include: admin, a1d2m3i4n5", "a1d2m3i4n5", "password"),
    ("The staging password is hunter2fake, rotate it.", "hunter2fake", "password"),
    ("my pw is Tr!ck$yFake", "Tr!ck$yFake", "password"),
    ("login: admin / s3cr3t-fake", "s3cr3t-fake", "password"),
    ("credentials: root and toor1234fake", "toor1234fake", "password"),
    ("log in as admin / s3cr3t-fake!", "s3cr3t-fake!", "password"),
    ("Sign-in as qa@example.com / Pa55w0rdFake to test it", "Pa55w0rdFake", "password"),
    # the password of a URL: a connection string in a request, a clone URL in a command
    (
        "set DATABASE_URL=postgres://admin:" + "s3cretFake@db.internal:5432/app then deploy",
        "s3cretFake",
        "password",
    ),
    ("redis://:" + "hunter2fake@cache:6379/0", "hunter2fake", "password"),
    ("git clone https://ci:" + "fakeTok3n99@git.example.com/o/r.git", "fakeTok3n99", "password"),
    ("mongodb+srv://u:" + "p%40ssFake@cluster0.example.net/db", "p%40ssFake", "password"),
]

NEGATIVES = [
    "The tokenizer splits words on whitespace.",
    "Set max_tokens: 1024 for the request.",
    "token_count = 3",
    "We use sk-learn style estimators (scikit-learn).",
    "See sk-learn-compatible-estimator-wrapper for details.",
    "The password field must be at least 12 characters long.",
    "def login(password: str) -> bool:",
    "if password == confirm: return True",
    "token = None",
    "password = os.environ['DB_PASSWORD']",
    "api_key = ${OPENAI_API_KEY}",
    "secret: $VAULT_SECRET",
    "AKIA is the prefix of AWS access key ids.",
    "Run `gh pr create` and check gho status.",
    "The Slack channel is #xox-general.",
    "Stripe's publishable key pk_live_51HfakeFAKEfake0123456789abcd goes in the page.",
    "set npm_config_cache and hf_hub_download(repo_id) before the run",
    "use sk_test_ keys in CI, never sk_live_ ones",
    "SG.send() is the sendgrid call",
    "A JWT starts with eyJ but this is just prose.",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgI\n-----END CERTIFICATE-----",
    "Bearer tokens are sent in the Authorization header.",
    "The secret to good tests is small fixtures.",
    "Rotate the token later; it is out of scope.",
    "passwords = load_passwords()",
    "Later we should replace `token = session.get_token()` with the cached lookup.",
    "password = hash_password(raw)",
    "access key rotation is scheduled for Monday",
    "already masked: password = [REDACTED:password]",
    "the password is wrong, try the reset link",
    "credentials are in the vault",
    "passwords are hashed with argon2id",
    "pwd is /Users/me/src/app",
    "login as admin to see the panel",
    "log in as the admin user to see it",
    "sign in as admin / viewer, either works",
    "Sign in with GitHub first, then log in to the dashboard.",
    "The password was reset for user42 yesterday.",
    "Login page: https://example.com/login2",
    # URLs with a user and no password, a placeholder, a reference, an @ in the path
    "ssh://git@github.com/o/r.git",
    "https://deploy@git.example.com/o/r",
    "postgres://user:password@localhost:5432/db",
    "postgres://app:pass@localhost/db",
    "postgres://app:${DB_PASSWORD}@db/app",
    "redis://:<password>@cache:6379",
    "http://localhost:8080/users/@me",
    "https://example.com/@someone and mail me@example.com",
]


@pytest.mark.parametrize(("text", "secret", "kind"), POSITIVES)
def test_secrets_are_masked(text: str, secret: str, kind: str | None) -> None:
    out = redact(text)
    assert secret not in out
    assert "[REDACTED:" in out
    if kind is not None:
        assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_text_is_untouched(text: str) -> None:
    assert redact(text) == text


def test_corpus_size() -> None:
    assert len(POSITIVES) >= 25
    assert len(NEGATIVES) >= 20


def test_an_email_as_the_user_name_is_kept() -> None:
    out = redact("Sign-in as qa@example.com / Pa55w0rdFake to test it")
    assert out == "Sign-in as qa@example.com / [REDACTED:password] to test it"


def test_a_user_name_beside_a_password_in_prose_is_kept() -> None:
    assert redact("valid credentials include: admin, a1d2m3i4n5") == (
        "valid credentials include: admin, [REDACTED:password]"
    )


def test_context_around_a_secret_is_kept() -> None:
    out = redact(f"first {GHP} then password='hunter2x' and done")
    assert out == "first [REDACTED:github_token] then password='[REDACTED:password]' and done"


def test_quoted_value_keeps_its_quotes() -> None:
    assert redact('"api_key": "abcdef123"') == '"api_key": "[REDACTED:api_key]"'


def test_a_url_keeps_its_user_and_host() -> None:
    assert redact("postgres://admin:" + "s3cretFake@db.internal:5432/app?ssl=1") == (
        "postgres://admin:[REDACTED:password]@db.internal:5432/app?ssl=1"
    )


def test_pem_block_is_one_marker() -> None:
    out = redact(f"before\n{PEM}\nafter")
    assert out == "before\n[REDACTED:private_key]\nafter"


def test_empty_text() -> None:
    assert redact("") == ""


_pieces = st.sampled_from(
    [AWS, ANTHROPIC, GHP, SLACK_BOT, JWT, PEM, "password=hunter2x", "token: abc123", " ", "\n"]
)


@given(st.lists(st.one_of(_pieces, st.text(max_size=30)), max_size=8))
def test_redact_is_idempotent_and_masks_every_secret(parts: list[str]) -> None:
    text = "".join(parts)
    once = redact(text)
    assert redact(once) == once
    for secret in (AWS, ANTHROPIC, GHP, SLACK_BOT):
        # A secret glued to other word characters is another token; check the clean ones.
        if secret in text.split():
            assert secret not in once.split()


def test_a_code_span_stays_whole() -> None:
    """The value ended at the span's closing backtick, which went with it: the rest of the
    line read as code."""
    out = redact("rename the field `secret: rotation_policy_v2` in the schema")
    assert out == "rename the field `secret: [REDACTED:secret]` in the schema"

"""Token counting (SPEC §4.3): cl100k_base from the bundled file, offline; chars/4 otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from session_skill.handover import tokens
from session_skill.handover.tokens import FALLBACK_METHOD, Counter, counter, load_encoding

REPO = Path(tokens.__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_counter() -> Iterator[None]:
    counter.cache_clear()
    yield
    counter.cache_clear()


def test_counts_with_cl100k_base() -> None:
    c = counter()
    assert c.method == "cl100k_base"
    assert c.count("hello world") == 2
    assert c.count("tiktoken is great!") == 6  # the OpenAI cookbook's example
    assert c.count("") == 0
    # Text that spells a special token is ordinary text, never an error.
    assert c.count("<|endoftext|>") == 7


@pytest.mark.parametrize(
    ("text", "ids"),
    [  # token ids from tiktoken's own test suite (tests/test_encoding.py)
        ("hello world", [15339, 1917]),
        ("rer", [38149]),
        ("'rer", [2351, 81]),
        ("today\n ", [31213, 198, 220]),
        ("today\n \n", [31213, 27907]),
        ("today\n  \n", [31213, 14211]),
        (" \x850", [220, 126, 227, 15]),
    ],
)
def test_encoding_matches_tiktoken(text: str, ids: list[int]) -> None:
    encode = load_encoding()
    assert encode is not None
    assert encode(text) == ids


def test_counter_is_cached_per_process() -> None:
    assert counter() is counter()


def test_never_calls_get_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken

    def refuse(name: str) -> None:
        raise AssertionError(f"tiktoken.get_encoding({name!r}) downloads")

    monkeypatch.setattr(tiktoken, "get_encoding", refuse)
    assert counter().method == "cl100k_base"


def test_bundled_file_is_the_published_one() -> None:
    path = tokens.bundled_bpe_path()
    assert path is not None and path.name == "cl100k_base.tiktoken"
    assert len(tokens.load_bpe_ranks(path)) == 100256


def test_fallback_counts_chars_over_four() -> None:
    c = Counter(method=FALLBACK_METHOD)
    assert [c.count(t) for t in ("", "a", "abcd", "abcde", "é" * 9)] == [0, 1, 1, 2, 3]


def _use_bpe_file(monkeypatch: pytest.MonkeyPatch, path: Path | None) -> None:
    monkeypatch.setattr(tokens, "bundled_bpe_path", lambda: path)


def test_missing_data_file_falls_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _use_bpe_file(monkeypatch, None)
    assert counter().method == FALLBACK_METHOD
    assert counter().count("hello world") == 3
    assert load_encoding(tmp_path / "absent.tiktoken") is None


@pytest.mark.parametrize("damage", ["garbage", "truncated", "one byte changed"])
def test_corrupt_data_file_falls_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, damage: str
) -> None:
    real = tokens.bundled_bpe_path()
    assert real is not None
    data = real.read_bytes()
    if damage == "garbage":
        data = b"not a bpe file\n"
    elif damage == "truncated":
        data = data[: len(data) // 2]
    else:  # still parses line by line: only the hash can tell
        data = data.replace(b"IQ== 0", b"Ig== 0", 1)
    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_bytes(data)
    with pytest.raises(ValueError, match="sha256"):
        tokens.load_bpe_ranks(bad)
    _use_bpe_file(monkeypatch, bad)
    assert counter().method == FALLBACK_METHOD
    assert counter().count("hello world") == 3


def test_tiktoken_missing_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # makes `import tiktoken` fail
    assert counter().method == FALLBACK_METHOD


def test_offline_package_missing_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert tokens.bundled_bpe_path() is None
    assert counter().method == FALLBACK_METHOD


# Runs before anything else in the child: every way out to the network raises.
_NO_NETWORK = """
import socket, sys

def _refuse(*args, **kwargs):
    raise OSError("network disabled by test")

def _audit(event, args):
    if event.startswith(("socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                         "socket.getnameinfo", "socket.sendto", "urllib.Request")):
        raise OSError(f"network disabled by test: {event}")

socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
sys.addaudithook(_audit)
"""

_CHILD = """
import json, socket, sys
sys.path.insert(0, sys.argv[1])

blocked = []
for attempt in (lambda: socket.create_connection(("127.0.0.1", 9), timeout=1),
                lambda: socket.socket().connect(("127.0.0.1", 9)),
                lambda: socket.getaddrinfo("openaipublic.blob.core.windows.net", 443)):
    try:
        attempt()
    except OSError:
        blocked.append(True)
    else:
        blocked.append(False)

from session_skill.handover.tokens import counter
c = counter()
result = {"method": c.method, "hello": c.count("hello world"),
          "great": c.count("tiktoken is great!"), "blocked": blocked}

import tiktoken
try:  # tiktoken's own way needs the network: it must fail here
    tiktoken.get_encoding("cl100k_base")
    result["get_encoding"] = "worked"
except Exception as exc:
    result["get_encoding"] = type(exc).__name__
print(json.dumps(result))
"""


def test_counts_exactly_with_the_network_unreachable(tmp_path: Path) -> None:
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TIKTOKEN_CACHE_DIR": str(cache),
        "DATA_GYM_CACHE_DIR": str(cache),
    }
    script = textwrap.dedent(_NO_NETWORK) + textwrap.dedent(_CHILD)
    run = subprocess.run(
        [sys.executable, "-c", script, str(REPO)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["blocked"] == [True, True, True]  # the sandbox really is offline
    assert result["get_encoding"] != "worked"  # and tiktoken alone cannot count here
    assert result["method"] == "cl100k_base"
    assert (result["hello"], result["great"]) == (2, 6)
    assert list(cache.iterdir()) == []  # no cache was used or written


def test_importing_is_cheap() -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import session_skill.handover.tokens; "
        "print(sorted(m for m in ('tiktoken', 'rapidfuzz') "
        "if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(REPO)], capture_output=True, text=True, check=True
    )
    assert "tiktoken" not in run.stdout

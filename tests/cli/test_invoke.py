"""invoke: every entry point's one call; what it refuses before any command runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import STORE_REL, RunCli

BAD = b"caf\xe9 idea"  # Latin-1, not UTF-8: Python hands it over as surrogate escapes


def _run(project: Path, *argv: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable.encode(), b"-m", b"session_skill", *argv],
        input=b"",
        capture_output=True,
        cwd=project,
        env=dict(os.environ),
        timeout=60,
    )


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    "argv",
    [
        (b"park", BAD),
        (b"park", b"--", b"ok", BAD),
        (b"drop", BAD),
        (b"recall", BAD),
        (b"search", BAD),
        (b"dump", BAD),
        (b"dump", BAD, b"--file", b"-"),
        (b"history", BAD),
        (b"dispatch", b"park " + BAD),
        (b"dispatch", b"list", b"--session-id", BAD),
        (b"config", b"set", b"auto", BAD),
    ],
    ids=lambda a: " ".join(w.decode("latin-1") for w in a),
)
def test_an_argument_that_is_not_utf8_is_one_error_line(
    project: Path, argv: tuple[bytes, ...]
) -> None:
    """Issue 21 #17: park crashed ("unexpected UnicodeEncodeError" and a crash log)."""
    assert _run(project, b"park", b"an idea already there").returncode == 0
    before = _files(project / STORE_REL)
    r = _run(project, *argv)
    assert r.returncode == 1, r
    assert r.stderr.startswith(b"error: an argument is not UTF-8 text: '"), r
    assert r.stderr.endswith(b"caf\\xe9 idea'\n") and r.stderr.count(b"\n") == 1, r
    assert r.stdout == b""
    assert _files(project / STORE_REL) == before


BOM = b"\xef\xbb\xbf"  # what Windows editors and PowerShell pipes put first


def test_a_bom_starting_stdin_is_not_part_of_the_words(
    project: Path, cli: RunCli, sub: RunCli
) -> None:
    """A BOM on stdin was kept inside the parked bullet (`— \\ufeffbom stdin idea`), and it
    made `dispatch` read no mode at all."""
    parked = project / STORE_REL / "PARKED.md"
    assert cli("park", input=BOM + b"bom stdin idea").code == 0
    assert sub("park", input=BOM + b"bom by a shell", cwd=project).code == 0
    r = cli("dispatch", input=BOM + b"park bom dispatch idea")
    assert r.code == 0, r
    text = parked.read_text(encoding="utf-8")
    assert "\ufeff" not in text, text
    for words in ("bom stdin idea", "bom by a shell", "bom dispatch idea"):
        assert f" — {words}. Raised: " in text
    r = cli("drop", input=BOM + b"bom stdin idea")
    assert r.code == 0 and r.out.startswith("Dropped: bom-stdin-idea"), r
    doc = BOM + b"## Goal\nbom doc\n\n## Next step\nn\n"
    assert cli("dump", "bom-doc", "--file", "-", input=doc).code == 0
    assert b"\xef\xbb\xbf" not in (project / STORE_REL / "bom-doc.md").read_bytes()
    # Only the one that starts the stream: one inside the words is the user's.
    assert cli("park", input=b"inner \xef\xbb\xbf kept").code == 0
    assert " — inner \ufeff kept. Raised: " in parked.read_text(encoding="utf-8")

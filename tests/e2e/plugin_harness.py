"""The session-skill plugin for Claude Code, installed and nothing else (issue 14).

A clone of this checkout's HEAD is a local marketplace; ``claude plugin marketplace add`` +
``claude plugin install session-skill@session-skill`` install it into a scratch HOME whose
PATH has no ``session-skill``. The ``plugin_world`` fixture (conftest.py) is
:func:`plugin_world_in` on the test's ``tmp_path``. The plugin's hooks run its own
``bin/session-skill`` (standard library only, python3 from PATH); its first command builds
a venv in the plugin data folder with pip, from the package index as for a user (pip's
cache is kept in the e2e cache folder).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from e2e_harness import CACHE, Result, World, make_project, seed_claude_json
from mock_api import MockAnthropic

REPO = Path(__file__).resolve().parents[2]
MARKET = "session-skill"  # .claude-plugin/marketplace.json
PLUGIN = f"session-skill@{MARKET}"


@dataclass
class PluginWorld(World):
    """A World whose PATH has no `session-skill`, plus settings for pip."""

    path: str = ""
    pip_env: dict[str, str] = field(default_factory=dict)

    def env(self, **extra: str) -> dict[str, str]:
        e = super().env()
        e["PATH"] = self.path
        e.update(self.pip_env)
        e.update(extra)
        return e

    def claude_cli(self, *args: str, timeout: float = 120) -> Result:
        p = subprocess.run(
            [str(self.claude), *args],
            cwd=self.proj,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Result(p.returncode, p.stdout, p.stderr)

    @property
    def data(self) -> Path:
        """The plugin data folder Claude Code gives this plugin."""
        return self.home / ".claude" / "plugins" / "data" / f"session-skill-{MARKET}"


def checkout_cli(
    proj: Path, env: dict[str, str]
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """A runner of this checkout's CLI (not a plugin's) in `proj`, with `env`: what a
    project install beside the plugin is driven with."""

    def cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:  # noqa: A002
        return subprocess.run(
            [sys.executable, "-m", "session_skill", *args],
            cwd=proj,
            env=env,
            input=input,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return cli


def path_without_session_skill() -> str:
    """This PATH minus every folder holding a `session-skill` (the test venv's bin)."""
    keep = [
        d
        for d in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
        if d and not (Path(d) / "session-skill").exists()
    ]
    return os.pathsep.join(keep)


def pip_settings() -> dict[str, str]:
    """pip as the user has it (their index, config and proxies), with a cache that outlives
    the scratch HOME, for wherever the index lets pip cache."""
    return {"PIP_CACHE_DIR": str(CACHE / "pip")}


@contextmanager
def plugin_world_in(root: Path, claude_bin: Path, tmux_bin: str | None) -> Iterator[PluginWorld]:
    """A started :class:`PluginWorld` in ``root`` with the plugin installed from a local
    marketplace (a clone of this checkout's HEAD); closed on exit."""
    home = root / "home"
    home.mkdir()
    (root / "tmp").mkdir()
    proj = root / "proj"
    make_project(proj)
    seed_claude_json(home, proj)
    market = root / "market"  # the checkout's HEAD, as `marketplace add owner/repo` clones it
    subprocess.run(
        ["git", "clone", "-q", "--no-hardlinks", str(REPO), str(market)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    path = path_without_session_skill()
    w = PluginWorld(
        root=root,
        home=home,
        proj=proj,
        mock=MockAnthropic(log_path=root / "requests.jsonl"),
        claude=claude_bin,
        venv_bin=root / "no-venv",
        tmux=tmux_bin,
        path=path,
        pip_env=pip_settings(),
    )
    w.mock.start()
    try:
        started = time.monotonic()
        added = w.claude_cli("plugin", "marketplace", "add", str(market))
        assert added.returncode == 0, added.stdout + added.stderr
        installed = w.claude_cli("plugin", "install", PLUGIN)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        print(f"\n[plugin] marketplace add + install: {time.monotonic() - started:.1f} s")
        yield w
    finally:
        w.close()

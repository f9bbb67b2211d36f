"""Which client runs us, and how its user types the skill: `/session`, `/session-skill:session`
or `$session`.

Every message that tells the user (or the model) what to type next names the skill through
`skill(env)`, so a hint is right for the install that shows it. Standard library only and
nothing but `os`: both hooks import this.

- Codex names skills `$session`; there is no slash form there. Its plugin's skill is
  `$session-skill:session` (the Codex plugin runs the same `bin/session-skill`).
- A Claude Code plugin's skill is reachable only namespaced (`/session-skill:session`);
  the plugin's `bin/session-skill` and its hooks say so with SESSION_SKILL_VIA=plugin.
- `SESSION_SKILL_AGENT` (`claude-code` or `codex`) states the client outright; the
  installed Codex hook command sets it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

CLAUDE = "claude-code"
CODEX = "codex"
PLUGIN_SKILL = "/session-skill:session"
PROJECT_SKILL = "/session"
CODEX_SKILL = "$session"
CODEX_PLUGIN_SKILL = "$session-skill:session"


def agent(env: Mapping[str, str] | None = None) -> str:
    """`codex` inside Codex, else `claude-code`."""
    env = os.environ if env is None else env
    stated = env.get("SESSION_SKILL_AGENT", "").strip().lower()
    if stated in (CLAUDE, CODEX):
        return stated
    return CODEX if _in_codex(env) else CLAUDE


def _in_codex(env: Mapping[str, str]) -> bool:
    """Whether Codex started this process.

    Seen with codex-cli 0.171.0: a shell tool call (`exec_command`) gets `CODEX_THREAD_ID`
    and `CODEX_SESSION_ID` (the thread id, new after `/clear`), `CODEX_VERSION` and more;
    the macOS sandbox adds `CODEX_SANDBOX=seatbelt`. A hook gets none of them, only the
    environment Codex itself was started with — so the installed Codex hook command sets
    `SESSION_SKILL_AGENT=codex`, and `CODEX_HOME` (a user's setting, inherited by anything
    they start) proves nothing.
    """
    return any(env.get(k) for k in ("CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_SANDBOX"))


def via_plugin(env: Mapping[str, str] | None = None) -> bool:
    """Whether a plugin started us: its `bin/session-skill` (the same for the Claude Code
    and the Codex plugin) sets SESSION_SKILL_VIA=plugin for every command and hook it runs
    (a pip-installed `session-skill` earlier on PATH does not, and then says `/session`)."""
    env = os.environ if env is None else env
    return env.get("SESSION_SKILL_VIA", "") == "plugin"


def skill(env: Mapping[str, str] | None = None) -> str:
    """How the user invokes the skill in this client: `/session`, `/session-skill:session`,
    `$session` or `$session-skill:session`."""
    env = os.environ if env is None else env
    if agent(env) == CODEX:
        return CODEX_PLUGIN_SKILL if via_plugin(env) else CODEX_SKILL
    return PLUGIN_SKILL if via_plugin(env) else PROJECT_SKILL


def hint(mode: str, env: Mapping[str, str] | None = None) -> str:
    """`/session recall <slug>` for this client: the skill form, then the mode's words."""
    return f"{skill(env)} {mode}".rstrip()

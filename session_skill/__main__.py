"""`python -m session_skill` and the `session-skill` console script.

Fast paths run before the CLI (and Typer, which alone costs several times Python's own
start-up) is imported: the hooks (SessionStart runs at every session start, SessionEnd and
PreCompact at the boundaries the user waits on), and well-formed calls of the commands the
model runs in its loop (`fastpath.py`). Everything else goes to the Typer CLI.
"""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:2] == ["hook", "session-start"]:
        from session_skill.hooks.session_start import main as hook_main

        return hook_main()
    if argv[:2] == ["hook", "session-end"]:
        from session_skill.hooks.session_end import main as hook_end_main

        return hook_end_main()
    if argv[:2] == ["hook", "pre-compact"]:
        from session_skill.hooks.pre_compact import main as pre_compact_main

        return pre_compact_main()
    from session_skill.cli.fastpath import main as fast_main

    code = fast_main(argv)
    if code is not None:
        return code
    from session_skill.cli.app import main as cli_main

    return cli_main(argv)


def _unshadow() -> None:
    """`python -m` put the working directory first on sys.path, and the installed hooks run
    there, in the user's project: its own `token.py` or `json.py` would stand in for the
    standard library's (seen: a project's token.py broke the SessionEnd hook). Unless the
    package itself is there (a checkout run in place), that entry goes."""
    import os

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if sys.path and sys.path[0] == os.getcwd() != here:
        del sys.path[0]


if __name__ == "__main__":
    _unshadow()
    sys.exit(main())

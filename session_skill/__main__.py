"""`python -m session_skill` and the `session-skill` console script.

Fast paths run before the CLI (and Typer, which alone costs several times Python's own
start-up) is imported: the SessionStart hook, which runs at every session start, the
SessionEnd hook, which the user waits on at /clear, and well-formed calls of the commands the
model runs in its loop (`fastpath.py`). Everything else goes to the Typer CLI.
"""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:2] == ["hook", "session-start"]:
        from session_skill.hook import main as hook_main

        return hook_main()
    if argv[:2] == ["hook", "session-end"]:
        from session_skill.hook_end import main as hook_end_main

        return hook_end_main()
    from session_skill.cli.fastpath import main as fast_main

    code = fast_main(argv)
    if code is not None:
        return code
    from session_skill.cli.app import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())

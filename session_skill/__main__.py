"""`python -m session_skill` and the `session-skill` console script.

The SessionStart hook is fast-pathed here, before the CLI (and typer) is imported:
it runs at every session start and must cost milliseconds.
"""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:2] == ["hook", "session-start"]:
        from session_skill.hook import main as hook_main

        return hook_main()
    from session_skill.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())

"""session-skill: carry the durable part of an AI coding session across /clear.

Keep this module empty of imports: the SessionStart hook imports the package on
every session start and must stay on the standard library.
"""

__version__ = "0.1.0"

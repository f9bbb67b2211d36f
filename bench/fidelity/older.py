"""The older shared fixtures (`../shared/fixtures/transcripts/{claude,claude-public,codex}`):
judgements made by hand before the corpus existed, kept so a change shows what it does there.

Each entry starts a candidate's text: "right" or "wrong" (and why), or "open" for a loose
end the sweep should list (MISSED when it does not).
"""

from __future__ import annotations

# file name -> [(start of the candidate's text, "right" | "wrong" | "open", why)].
# "open" marks a loose end the file holds: the sweep should list it (MISSED when not).
JUDGED: dict[str, list[tuple[str, str, str]]] = {
    "spotter_ae4a77f8_compact_TRUNCATED_prefix.jsonl": [
        ("spotter-4te.4:", "right", "listed as remaining; the file ends as the next task starts"),
        ("spotter-4te.5:", "right", "still to do at the end"),
        ("spotter-4te.6:", "right", "still to do at the end"),
        (
            "Work on bead spotter-4te. Run bd show spotter-4te",
            "right",
            "the work asked for, 'continue implementation' of it: the file ends on 'Let me "
            "check what's ready:' after .3",
        ),
    ],
    "spotter_short_v2.1.38.jsonl": [
        ("mix phx.server doesnt seem to start", "right", "interrupted, then only /model"),
    ],
    "spotter_tool_heavy_v2.1.x.jsonl": [
        ("scrolling back in xterm.js", "right", "interrupted mid-research, never resumed"),
    ],
    "cctrace_phase0_main.jsonl": [
        ("can we do a full export first", "right", "the export was running when the file ends"),
        ("Ill tell you what I have observed", "wrong", "the user telling it there and then"),
        ("Sprint 2: Implement import", "right", "never done: the user put it after the export"),
        ("Sprint 3: Implement backup/restore", "right", "never started"),
    ],
    "claudestatus_example2_TRUNCATED_652.jsonl": [
        ("Test the configurable update functionality", "right", "the todo in progress"),
        ('Please change the "update" flag', "right", "the user rejected the test run"),
    ],
    "graphmonitor_test2_TRUNCATED_410.jsonl": [
        ("Update all import paths in the code", "right", "in progress when the file is cut"),
        ("Update package.json scripts", "right", "pending"),
        ("Update configuration files", "right", "pending"),
        ("Test the restructured application", "right", "pending"),
        ("Since we no longer have 2 separate apps", "right", "cut mid-turn"),
    ],
    "ccviewer_1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": [
        (
            "The file includes placeholders",
            "open",
            "borderline: CLAUDE.md placeholders 'will need to be filled in' (no marker)",
        ),
    ],
    "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl": [
        ("Implement necessary code updates", "right", "the plan step in progress"),
        ("Run targeted checks", "right", "the plan step pending"),
        ("finish up the users work", "right", "the rollout ends after two patches, no reply"),
    ],
}

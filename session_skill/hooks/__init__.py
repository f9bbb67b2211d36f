"""The hooks: one module per client event, over one shared serve step (`serve`).

`session_start` (SessionStart: restore, notice, what a compaction dropped), `session_end`
(SessionEnd at /clear: the automatic handover), `pre_compact` (PreCompact: the state before a
compaction). Every path a hook process runs imports the standard library only.
"""

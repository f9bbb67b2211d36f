"""The installer (SPEC §10): `plan` (install and uninstall, planned before anything is
written), `skills` (the skill files and their Codex copies), `hooks` (the hook entries in a
client's settings file), `settings_file` (JSON settings edited in their own style), `steps`.
"""

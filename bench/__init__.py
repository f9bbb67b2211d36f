"""Benchmarks for session-skill: `python -m bench` (see bench/__main__.py)."""

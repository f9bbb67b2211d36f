"""Glue between the store and the transcript reader (filled in with the sweep work)."""

from __future__ import annotations

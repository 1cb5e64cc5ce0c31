"""Conversions from other frameworks' dialects into ours (SPEC §10)."""

"""Verification, export and viewing of replay files."""

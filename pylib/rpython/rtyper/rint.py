"""Checked integer operations."""

"""Provides the TUI's screens, one per module."""

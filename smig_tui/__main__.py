"""Provides `python -m smig_tui`."""

from smig_tui.cli.main import entry

raise SystemExit(entry())

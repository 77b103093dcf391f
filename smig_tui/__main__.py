"""Provides `python -m smig_tui`."""

from smig_tui.cli.main import main

raise SystemExit(main())

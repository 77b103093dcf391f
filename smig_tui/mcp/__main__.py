"""Provides `python -m smig_tui.mcp`: serve smig's tools over stdio."""

from __future__ import annotations

import sys

from smig_tui.core.errors import SmigError


def main() -> int:
    """Serve until stdin closes."""
    from smig_tui.mcp.server import run_stdio

    try:
        run_stdio()
    except SmigError as error:
        print(f"smig: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

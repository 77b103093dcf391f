"""Provides `[archive] auto = true`: after a command, archive what is new (issue 20)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.core.errors import SmigError

if TYPE_CHECKING:
    from smig_tui.cli.output import Output
    from smig_tui.services import Services

AUTO_SKIPPED = frozenset({"archive", "mcp", "tui", None})
"""Commands after which `[archive] auto` does not run: the archive itself, and long-running servers."""


def auto_archive_wanted(config: dict[str, object], where: str) -> bool:
    """`[archive] auto = true` in the config file (checked by the config schema)."""
    if "archive" not in config:
        return False  # nothing to check (the schema's patterns compile on import, after every command)
    from smig_tui.core.config_schema import table_of

    return bool(table_of(config, "archive", where).get("auto", False))


def auto_archive(command: str | None, services: Services, out: Output) -> None:
    """Archive what is new after a command when the config asks for it; a failure is one line on stderr."""
    if command in AUTO_SKIPPED:
        return
    from smig_tui.services import session_archive

    try:
        if not auto_archive_wanted(services.config, str(services.paths.config_file)):
            return
        run = session_archive(services.paths, services.env).run(services.sources, lambda _: None)
    except SmigError as error:
        out.diag(f"smig: archive not updated: {error}")
        return
    if run.touched:
        out.diag(f"smig: archived {run.touched} new or changed session files")

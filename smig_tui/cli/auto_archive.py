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
    """`[archive] auto = true` in the config file (validated: a table, and a true or false)."""
    from smig_tui.core.errors import ConfigError

    table = config.get("archive", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [archive] must be a table.")
    auto = table.get("auto", False)
    if not isinstance(auto, bool):
        raise ConfigError(f"{where}: archive.auto must be true or false, not {auto!r}.")
    return auto


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

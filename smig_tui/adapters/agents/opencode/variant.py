"""Provides `Variant`: what differs between clients that keep OpenCode's storage (OpenCode and its descendants).

A descendant of OpenCode keeps the same SQLite database under its own name, honours
its own variables and imports the same `export` document with its own command. Everything else
(the tables, the reader, the import writer, the fingerprints) is shared; the descendant's package
passes its `Variant` to them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Variant:
    """One client of OpenCode's storage: names, files and variables that are its own."""

    agent: str
    """smig's id for it (`opencode`)."""
    name: str
    """As its users write it (`OpenCode`)."""
    folder: str
    """Its folder under the XDG data and config folders (`opencode`)."""
    database_file: str
    """The database's file name in its data folder (`opencode.db`)."""
    database_env: str
    """The variable naming another database file, absolute or relative to the data folder."""
    binary: str
    """Its command (`opencode`); `SMIG_<BINARY>_BIN` names it when it is not on PATH."""
    version: str
    """The version stamped on written sessions: the one whose import and resume were tested."""
    mode: str
    """The agent its sessions are run with (`build`), written on migrated messages."""
    config_env: str
    """The variable naming its config file."""
    config_files: tuple[str, ...]
    """Its global config files in its config folder, in the order it reads them."""
    claude_code_switches: tuple[str, ...]
    """Variables that stop it reading `~/.claude/CLAUDE.md` in place of a missing global `AGENTS.md`."""
    continues_folder: bool
    """Whether `-c` continues the newest session of the current folder (else of the folder's project)."""
    legacy_tree: bool
    """Whether installs from before its database kept sessions as a JSON tree under `storage/`."""
    config_dir_env: str = ""
    """The variable moving its whole config folder ('' when none does)."""
    default_model: tuple[str, str] | None = None
    """The (provider, model) it runs with when none is configured and no session names one (None: it
    has none that works without an account, so the plan's target is named)."""
    command_env: tuple[tuple[str, str], ...] = ()
    """Variables every command smig runs it for (`import`, and `session delete` on a rollback) gets on top
    of the user's: what smig's own acts should not do (send telemetry on the user's behalf)."""

    @property
    def latest_command(self) -> str:
        """What continues the newest session in it."""
        return f"{self.binary} -c"


OPENCODE = Variant(
    agent="opencode",
    name="OpenCode",
    folder="opencode",
    database_file="opencode.db",
    database_env="OPENCODE_DB",
    binary="opencode",
    version="1.18.33",
    mode="build",
    config_env="OPENCODE_CONFIG",
    config_files=("opencode.json", "config.json"),
    claude_code_switches=("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT"),
    continues_folder=False,
    legacy_tree=True,
)
"""OpenCode 1.18.33."""

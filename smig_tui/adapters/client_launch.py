"""Provides "continue now": the receiving client started on a migrated session, in its folder, in smig's place.

A front end first checks that the client can start (`prepare`: installed, folder still there) while
smig still owns the terminal, so it can say why not; it starts the client (`start`) only once it has
given the terminal back: the TUI after Textual has left the alternate screen, the CLI after its output.
The client replaces smig's process (exec), so it gets the terminal, the signals and the exit code.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from smig_tui.core.errors import SmigError

if TYPE_CHECKING:
    from smig_tui.core.native import NativeOutput


class ContinueRefused(SmigError):
    """The client cannot be started here. The migration itself is written, so front ends say why and
    show the command to run later, and exit 0."""

    def __init__(self, reason: str, command: str) -> None:
        super().__init__(f"{reason}; continue with: {command}")
        self.reason = reason
        self.command = command


@dataclass(frozen=True, slots=True)
class Launch:
    """A client ready to start on a migrated session."""

    client: str
    """Its name as users write it: `Claude Code`."""
    program: str
    """The executable found for `argv[0]`."""
    argv: tuple[str, ...]
    cwd: str | None
    command: str
    """The line shown to the user (`NativeOutput.resume_command`): what is started, word for word."""


def bin_env(program: str) -> str:
    """The variable that names a client's executable when it is not on PATH: `SMIG_OPENCODE_BIN`."""
    return "SMIG_" + re.sub(r"[^A-Z0-9]+", "_", program.upper()) + "_BIN"


def find_client(program: str, env: Mapping[str, str] | None = None) -> str | None:
    """The executable of a client: the file `SMIG_<PROGRAM>_BIN` names, else `program` on PATH."""
    env = os.environ if env is None else env
    named = env.get(bin_env(program))
    if named:
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    return shutil.which(program, path=env.get("PATH"))


def prepare(output: NativeOutput, client: str, env: Mapping[str, str] | None = None) -> Launch:
    """Check that `client` can start on `output` here; ContinueRefused (with the command) when not."""
    env = os.environ if env is None else env
    command = output.resume_command
    if not output.argv:
        raise ContinueRefused(f"smig does not know how to start {client}", command)
    if output.cwd is not None and not os.path.isdir(output.cwd):
        raise ContinueRefused(
            f"{client} was not started: the session's folder {output.cwd} does not exist here", command
        )
    program = output.argv[0]
    found = find_client(program, env)
    if found is None:
        variable = bin_env(program)
        where = (
            f"{variable} names {env[variable]}, which is not an executable file"
            if env.get(variable)
            else f"`{program}` is not on PATH; {variable} can name it"
        )
        raise ContinueRefused(f"{client} is not installed here ({where})", command)
    return Launch(client, found, output.argv, output.cwd, command)


def start(launch: Launch) -> NoReturn:
    """Replace this process with the client, in the session's folder; ContinueRefused if exec fails."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    try:
        if launch.cwd is not None:
            os.chdir(launch.cwd)
        os.execv(launch.program, launch.argv)
    except OSError as error:
        raise ContinueRefused(
            f"{launch.client} could not be started ({error.strerror or error})", launch.command
        ) from error

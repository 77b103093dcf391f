"""Provides the one rule for files a user names (`--out`, the TUI's export path): where smig may write.

A user-chosen path is checked before a byte is rendered to it, the same way for the CLI, the TUI and
anything else that writes one: its folder must exist (smig never creates folders the user did not
ask for), the target must be a regular file or not exist (`--force` replaces only a regular file,
never a FIFO, device, socket or folder), it is never one of the sessions being read (compared by
device and inode, so another spelling or a hard link is caught too), and never a file in any
registered agent's folder (`agent_folders`: a new agent is covered by its registry entry), where
smig writes only native sessions and memory files of its own.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from smig_tui.adapters.agents.profile import AgentProfile, Env
from smig_tui.adapters.fs import describe_kind
from smig_tui.adapters.paths import Paths
from smig_tui.core.errors import Hint, SmigError, WriteRefusedError


class OutputPathError(SmigError):
    """A user-chosen output path cannot be used as it is (missing folder, name too long)."""


def agent_folders(agents: Iterable[AgentProfile], paths: Paths, env: Env = None) -> dict[str, Path]:
    """The folder of each agent smig knows (the registry's), by the agent's name: its home, or for an
    agent whose home is a file (OpenCode's database) the folder holding it when that folder is the
    agent's own (named after it), else just the file."""
    folders: dict[str, Path] = {}
    for entry in agents:
        home = entry.home(env)
        if home is None:
            continue
        if home.is_dir() or not home.suffix:
            folders[entry.name] = home
        else:
            folders[entry.name] = home.parent if entry.id in home.parent.name.lower() else home
    return folders


def check_output_path(
    out: Path | str,
    paths: Paths,
    *,
    force: bool = False,
    sources: Iterable[str] = (),
    agents: Mapping[str, Path] | None = None,
) -> Path:
    """Return the absolute file to write for `out`, or raise a one-sentence error saying why not.

    `agents` names the agents' folders (`agent_folders`; every registered agent's by default). A
    symbolic link is followed, so the file it names is what gets written (and checked); the link
    itself is left in place.
    """
    target = Path(os.path.abspath(os.path.expanduser(str(out))))
    if agents is None:
        from smig_tui.adapters.agents.registry import AGENTS

        agents = agent_folders(AGENTS, paths)
    try:
        return _checked(target, agents, force, sources)
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            raise OutputPathError(
                f"The output path is too long for the file system ({len(str(target)):,} characters)."
            ) from None
        raise OutputPathError(f"Cannot use {target} as the output file: {error.strerror or error}.") from None


def _checked(target: Path, agents: Mapping[str, Path], force: bool, sources: Iterable[str]) -> Path:
    """The checks of `check_output_path`, in the order a user would fix them."""
    if str(target).endswith(os.sep) or os.path.isdir(target):
        raise WriteRefusedError(f"{target} is a folder; name a file inside it, e.g. {target / 'handoff.md'}.")
    real = Path(os.path.realpath(target))
    folder = real.parent
    if not folder.exists():
        raise OutputPathError(f"The folder {target.parent} does not exist; create it first or choose another path.")
    if not folder.is_dir():
        raise OutputPathError(f"{target.parent} is not a folder.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise WriteRefusedError(f"Cannot write to the folder {folder}: permission denied.")
    for name, home in agents.items():
        if _is_within(real, home):
            raise WriteRefusedError(
                f"Refusing to write {target}: it is inside {home}, {name}'s folder, where smig writes only "
                "native sessions and memory files; choose a path outside the agents' folders."
            )
    try:
        info = os.stat(real)
    except FileNotFoundError:
        if os.path.islink(target):
            raise WriteRefusedError(f"Refusing to write {target}: it is a symbolic link to nothing.") from None
        return real
    if not stat.S_ISREG(info.st_mode):
        raise WriteRefusedError(
            f"Refusing to write {target}: it is {describe_kind(info.st_mode)}; smig writes only regular files."
        )
    if any(_same_file(info, source) for source in sources):
        raise WriteRefusedError(f"Refusing to write {target}: it is the session being read, which smig never modifies.")
    if not force:
        raise WriteRefusedError(f"Refusing to overwrite existing file {target}.", hint=Hint.REPLACE)
    return real


def _is_within(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or below it, comparing real paths (symlinked homes included)."""
    root = os.path.realpath(os.path.expanduser(str(folder)))
    return os.path.commonpath([str(path), root]) == root


def _same_file(info: os.stat_result, other: str) -> bool:
    """Whether `other` names the same file as `info` (device and inode), quietly False if it is gone."""
    try:
        theirs = os.stat(other)
    except OSError:
        return False
    return (theirs.st_dev, theirs.st_ino) == (info.st_dev, info.st_ino)

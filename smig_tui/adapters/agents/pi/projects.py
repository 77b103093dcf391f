"""Provides the session folders a project's own settings give Pi, found in the project folders smig knows.

Pi takes `sessionDir` from the project's `.pi/settings.json` over the global `settings.json`, a relative
one from the folder it runs in (`home.flat_sessions`), so sessions of a project whose settings name a
folder, or of any project under a relative global setting, are in a folder no home names. smig looks
for those settings in the folders it knows without a walk (`known_folders`): where any agent's
sessions ran, the folders smig wrote a Pi session for (`REMEMBERED`), and the current folder and
its parents; one `stat` per folder with no settings. `PI_CODING_AGENT_SESSION_DIR` wins over any
setting, so when it is set there is nothing to look for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.adapters.agents import known_folders
from smig_tui.adapters.agents.pi.home import (
    PROJECT_SETTINGS,
    SESSIONS_SETTING,
    SESSIONS_VARIABLE,
    agent_folder,
    expanded,
    session_folders,
)
from smig_tui.adapters.agents.profile import Env, environment, user_home
from smig_tui.adapters.agents.settings_files import read_json
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo

if TYPE_CHECKING:
    from smig_tui.core.ports import WarningSink, Watched

REMEMBERED = "pi-folders.json"
"""The folders smig wrote a Pi session for whose sessions go to a folder of the project's own."""


def project_session_folders(
    folders: Iterable[str], env: Env, warn: WarningSink, shared: tuple[Path, ...] | None = None
) -> list[Path]:
    """The session folder each of `folders` gives Pi through settings, where it is not one of `shared`
    (the folders every project's listing reads: `home.session_folders`); a settings file that cannot be
    read is one warning. A folder without settings costs one `stat` (strings, not `Path`s: a warm
    listing asks every known folder)."""
    if environment(env).get(SESSIONS_VARIABLE):
        return []  # the variable names every project's folder
    relative = read_json(agent_folder(env) / "settings.json").get(SESSIONS_SETTING)
    relative = (
        relative if isinstance(relative, str) and relative and not expanded(relative, env).is_absolute() else None
    )
    homes = session_folders(env) if shared is None else shared
    found: dict[Path, None] = {}
    for folder in dict.fromkeys(folders):
        given = _project_setting(folder, warn)
        value = given if given is not None else relative
        if not value:
            continue
        target = expanded(value, env)
        target = target if target.is_absolute() else Path(folder) / target
        if not any(target == home or home in target.parents for home in homes):
            found[target] = None
    return list(found)


def _project_setting(folder: str, warn: WarningSink) -> str | None:
    """`sessionDir` of the folder's `.pi/settings.json`: None when it has none (or no such file)."""
    path = os.path.join(folder, *PROJECT_SETTINGS)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        warn(ReadWarning(path, None, f"skipped Pi's project settings: cannot read them ({error})"))
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        warn(ReadWarning(path, None, "skipped Pi's project settings: they are not JSON"))
        return None
    value = data.get(SESSIONS_SETTING) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def known_project_folders(cache_dir: Path, data_dir: Path, env: Env) -> Iterator[str]:
    """The folders smig knows sessions ran in or wrote for, then the current folder and its parents."""
    yield from sorted(known_folders.ran_in(cache_dir))
    for folder in known_folders.remembered(data_dir, REMEMBERED):
        if os.path.isabs(folder):
            yield folder
    for here in known_folders.here_to(user_home(env)):
        yield str(here)


def remember(data_dir: Path, folder: str) -> None:
    """Record a folder smig wrote a Pi session for into a session folder of the project's own."""
    known_folders.remember(data_dir, REMEMBERED, folder, "the list of Pi folders")


def listed_folders(
    env: Env, cache_dir: Path, data_dir: Path, warn: WarningSink
) -> tuple[list[str], tuple[Path, ...], list[Path]]:
    """(the known project folders, the home's session folders, the session folders the projects' settings
    add): what one listing reads, worked out the same way for the listing and for `watched`."""
    known = list(dict.fromkeys(known_project_folders(cache_dir, data_dir, env)))
    shared = session_folders(env)
    return known, shared, project_session_folders(known, env, warn, shared)


def watched(env: Env, cache_dir: Path, data_dir: Path) -> list[Watched]:
    """What a listing reads: the home's session folders, the global settings, each known folder's
    project settings (absent ones too: one that appears changes the listing) and the session folders
    they name. The known folders come from the other agents' listings, so this is asked after theirs."""
    from smig_tui.core.ports import Watched

    known, shared, named = listed_folders(env, cache_dir, data_dir, _unsaid)
    places = [Watched(str(folder), tree=True) for folder in shared]
    places.append(Watched(str(agent_folder(env) / "settings.json")))
    if not environment(env).get(SESSIONS_VARIABLE):
        places += [Watched(os.path.join(folder, *PROJECT_SETTINGS)) for folder in known]
    return places + [Watched(str(folder), tree=True) for folder in named]


def _unsaid(_warning: ReadWarning) -> None:
    """A settings file's warning while naming what a listing reads: the listing itself gives it."""


class KnownProjectsSource:
    """Pi's sessions in its home folders and in the session folders the known projects' settings name:
    which folders is worked out at each listing, then `source.PiSource` reads them."""

    def __init__(self, env: Env, cache_dir: Path, data_dir: Path, listing_cache: Path | None) -> None:
        self._env = env
        self._cache_dir = cache_dir
        self._data_dir = data_dir
        self._listing_cache = listing_cache

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return Agent("pi")

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session of the home folders and of the projects' own folders, newest first."""
        from smig_tui.adapters.agents.pi.source import PiSource

        _known, shared, named = listed_folders(self._env, self._cache_dir, self._data_dir, warn)
        yield from PiSource([*shared, *named], listing_cache=self._listing_cache).discover(warn)

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full (its path says where it is)."""
        from smig_tui.adapters.agents.pi.source import PiSource

        return PiSource(session_folders(self._env), listing_cache=None).load(info, warn)

"""Aider (PyPI `aider-chat`, checked with 0.86.2): its chat histories read, and written for it to restore.

Aider keeps no sessions of its own, only a Markdown chat history per project folder
(docs/formats/aider.md); `folders.py` says where smig looks for them, `history.py` how they read
(`history_file.py` reads a file so a block at a time, leaving a big one's long texts in it).
In memory sync (`memory.py`) its memory is the files its global `.aider.conf.yml` reads (`read:`), and
the other agents' memory reaches it as one more file that config reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, environment, lazy, lazy_value, user_home
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched

HISTORY_VARIABLE = "AIDER_CHAT_HISTORY_FILE"
"""Aider's own variable for its chat history file (`--chat-history-file`): an absolute path is one more
file to read, a relative one another name to look for in each folder."""
HISTORY_FLOOR = 1_024
HISTORY_CEILING = 8_192


def usable(window: int, history_limit: int | None) -> int:
    """What a conversation can fill before Aider summarises it: its history limit
    (`--max-chat-history-tokens`, by default `window / 16` held between 1,024 and 8,192 tokens);
    past it, Aider has its weak model summarise the older turns before the first request."""
    limit = history_limit or min(max(window // 16, HISTORY_FLOOR), HISTORY_CEILING)
    return min(window, limit)


def _home(env: Env) -> Path:
    """Aider's own per-user folder (`~/.aider`: caches, analytics); its histories are in project folders."""
    return user_home(env) / ".aider"


def _places(paths: Paths, env: Env) -> tuple[list[Path], list[Path]]:
    """The folders to look in for histories, and the history files named outright (config, variable)."""
    from pathlib import Path

    from smig_tui.adapters.agents.aider import folders as places
    from smig_tui.adapters.config_file import load_config
    from smig_tui.core.errors import ConfigError

    try:
        config = load_config(paths.config_file)
    except ConfigError:
        config = {}  # `smig doctor` and the other readers of the config say what is wrong with it
    extra = places.configured(config, env)
    named = environment(env).get(HISTORY_VARIABLE, "").strip()
    if named and Path(named).is_absolute():
        extra.append(Path(named))
    folders = places.candidate_folders(paths.cache_dir, paths.data_dir, extra, env)
    files = [path for path in extra if path.is_file()]
    if named and not Path(named).is_absolute():
        files += [folder / named for folder in folders if (folder / named).is_file()]
    return folders, files


def _source(paths: Paths, env: Env) -> SessionSource:
    from functools import partial

    from smig_tui.adapters.agents.aider.source import AiderSource

    return AiderSource(partial(_places, paths, env), listing_cache=PROFILE.listing_cache(paths))


def _watched(paths: Paths, env: Env) -> list[Watched]:
    """A listing reads the history files in the folders it looks in (one listing of each folder's own
    entries: only the names Aider and smig give histories count) and the files named outright. Those
    folders come from the other agents' listings, so this is asked after theirs (it is the last agent)."""
    from smig_tui.adapters.agents.aider.folders import HISTORY_PREFIX
    from smig_tui.core.ports import Watched

    folders, files = _places(paths, env)
    return [*(Watched(str(folder), names=HISTORY_PREFIX) for folder in folders), *(Watched(str(f)) for f in files)]


def _writer(paths: Paths, _env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.aider.writer import AiderWriter

    return AiderWriter(paths.data_dir)


def _no_folder(_env: Env) -> None:
    """No one folder holds Aider's histories (they are in the project folders)."""
    return None


PROFILE = AgentProfile(
    AgentRules("aider", "Aider", usable=usable, choice_rank=9, memory=lazy_value(f"{__name__}.memory:RULES")),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    program="aider",
    home_variables=(HISTORY_VARIABLE,),
    sessions_folder=_no_folder,
    # `aider --no-git --message "hello there"` (openai/gpt-4.1, `diff` edit format) in an empty folder,
    # against tests/e2e/fake_model_server.py, counted by o200k_base (tests/fixtures/real/aider/overhead.json,
    # 2026-12-05). A git repository adds its repo map (up to 4,096 tokens for gpt-4.1), files in the chat
    # their contents: neither is known before the user adds them.
    overhead=Overhead(
        2_281,
        "Aider 0.86.2",
        (
            ("system prompt and reminder (diff edit format)", 1_916),
            ("tool definitions (none: edits are text)", 0),
            ("injected context (example conversation, no-files notice)", 365),
        ),
    ),
    client_words=("aider",),
)

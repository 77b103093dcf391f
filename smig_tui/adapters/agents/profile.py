"""Provides `AgentProfile`: everything smig knows about one agent, exported by that agent's package.

An agent is a plugin: its package exports one profile, registered in the `smig.agents` entry-point
group (`registry.py` collects them), and every part of smig (the core's rules, the readers and
writers, the source tree, the commit dialog, the CLI choices, the MCP schemas) loops over the
profiles. Adding an agent is one package; nothing else in smig names it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.core.agent_rules import AgentRules, WindowAdjust
from smig_tui.core.models import Agent

if TYPE_CHECKING:
    from smig_tui.adapters.memory_files import MemoryContext
    from smig_tui.adapters.paths import Paths
    from smig_tui.core.mcp_config import McpConfig
    from smig_tui.core.memory_model import AgentMemory
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched

Env = Mapping[str, str] | None
"""The environment an agent's settings come from (None: this process's)."""


def environment(env: Env) -> Mapping[str, str]:
    """`env`, or this process's environment when it is None."""
    return os.environ if env is None else env


def user_home(env: Env) -> Path:
    """The user's home folder as `env` gives it (`HOME`), else this process's."""
    return Path(environment(env).get("HOME") or Path.home())


def _no_settings(_env: Env) -> WindowAdjust | None:
    return None


class Lazy:
    """A function, class or value of an agent's own modules, named `module:attribute` and imported the
    first time it is used: a profile names its reader, writer and memory code so, and listing the agents
    (or `smig --help`) imports none of it. Calling it calls what it names; `value` gives a constant."""

    __slots__ = ("_found", "target")

    def __init__(self, target: str) -> None:
        module, colon, attribute = target.partition(":")
        if not (module and colon and attribute):
            raise ValueError(f"{target!r} does not name module:attribute")
        self.target = target
        self._found: tuple[Any] | None = None

    def resolve(self) -> Any:
        """What `target` names, imported now if it was not yet."""
        if self._found is None:
            module, _, attribute = self.target.partition(":")
            self._found = (getattr(import_module(module), attribute),)
        return self._found[0]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"lazy({self.target!r})"


def lazy(target: str) -> Lazy:
    """The function or class `module:attribute`, imported on its first call (`lazy(f"{__name__}.memory:read")`)."""
    return Lazy(target)


def lazy_value(target: str) -> Callable[[], Any]:
    """The constant `module:attribute`, imported when first asked for (`AgentRules.memory`)."""
    return Lazy(target).resolve


@dataclass(frozen=True, slots=True)
class Overhead:
    """What the agent's real client adds to every request (system prompt, tools, injected context)."""

    tokens: int
    """In o200k tokens, as measured."""
    client: str
    """`Claude Code 2.1.332`: the client and version it was measured with."""
    parts: tuple[tuple[str, int], ...] = ()
    """What the figure is made of (system prompt, tool definitions, injected context), as measured."""
    for_folder: Callable[[str], tuple[str, int]] | None = None
    """What the client adds on top for the project folder it runs in: (the text it shows of the folder,
    to count; tokens besides); None when the figure does not depend on the folder."""


class RowsUnreadable(Exception):
    """An agent's database cannot be read just now; the message is one sentence for the user."""


@dataclass(frozen=True, slots=True)
class SessionRefs:
    """Sessions kept as rows of a database rather than as files: their `<database>#<id>` references."""

    split: Callable[[str], tuple[str, str] | None]
    """A reference's (database, session id), or None when the path is not one."""
    join: Callable[[Path, str], str]
    """The reference of one session of a database."""
    snapshot: Callable[[Path, str, Path], None]
    """Write one session's rows as a database file of its own (what the archive keeps) at the path given,
    an empty file of smig's; raises `RowsUnreadable`."""
    fingerprint: Callable[[Path, str], tuple[str, int, float]]
    """sha256, size and time of one session's rows, as a commit records its source."""
    status: Callable[[Path, str, str, int], str]
    """How one session's rows compare with a recorded fingerprint (`source_check` words)."""


@dataclass(frozen=True, slots=True)
class RowRef:
    """A session kept as database rows, resolved: whose it is, which database, which session."""

    refs: SessionRefs
    database: Path
    session_id: str


@dataclass(frozen=True, slots=True)
class AgentProfile:
    """One agent: its rules for the core, its defaults, its homes, and factories for its reader and writer."""

    rules: AgentRules
    """What the pure core applies: names, window and compaction rules, providers, memory rules."""
    hand_to: str
    """The agent (id) its sessions go to unless the user picks another."""
    default_target: str
    """A model of another agent, to measure a session against before the user chooses one."""
    shown_when_empty: bool
    """Whether the source tree shows its node with no sessions (the others appear once they have some)."""
    home: Callable[[Env], Path | None]
    """Where its sessions are read from: a folder or a database file; None when unknown."""
    source: Callable[[Paths, Env], SessionSource | None]
    """Its reader (None when its home is unknown)."""
    writer: Callable[[Paths, Env], NativeWriter | None] | None
    """Its writer for `--to <agent>` (which gives None when its home is unknown); None for a read-only
    agent, whose rules then say why (`AgentRules.read_only`)."""
    watched: Callable[[Paths, Env], list[Watched]] | None = None
    """The folders and files its reader's listing reads: nothing outside them changes what it lists. A
    search whose index is fresh compares their names, sizes and times with those of its last listing and
    then neither builds nor imports the reader. None: every search lists the agent. An agent that names
    them has a reader whenever smig runs (`source` never gives None)."""
    home_variables: tuple[str, ...] = ()
    """The environment variables that move its home, named when no session is found."""
    sessions_folder: Callable[[Env], Path | None] | None = None
    """Where its session files live, named when no session is found (None: its home)."""
    window_settings: Callable[[Env], WindowAdjust | None] = _no_settings
    """Reads the user's own configuration of the agent into how it changes the agent's windows."""
    overhead: Overhead | None = None
    """What its client adds to every request, measured; config `[agents.<id>] overhead` overrides it."""
    refs: SessionRefs | None = None
    """For an agent whose sessions are database rows: how their references read and are pinned."""
    restore_refused: str = ""
    """Why an archived session of this agent cannot be written back ('' when it can)."""
    memory: Callable[[MemoryContext], AgentMemory] | None = None
    """Reads its memory and the files memory sync may write for it (None: it takes no part)."""
    resume_argv: Callable[[str], tuple[str, ...]] | None = None
    """Its client's command line that continues one of its sessions, by id (run in the session's folder):
    what the writer records for `--continue` and the printed resume command."""
    program: str | None = None
    """Its client's executable, as `--continue` starts it (`claude`); None when it has no client to start."""
    import_command: str = ""
    """The agent's own command that takes in the file its writer lays out (an import document), if any."""
    client_words: tuple[str, ...] = ()
    """Words of the name its client gives itself to an MCP server (`clientInfo`), lower case: how smig
    knows which agent is asking (empty: its id, as `claude-code` and `codex-mcp-client` carry it)."""
    mcp: McpConfig | None = None
    """Where and how its client keeps MCP servers, for `smig mcp --install <agent>` and `--check`
    (None: smig cannot set its client up)."""

    @property
    def id(self) -> str:
        """The agent's id as written on the command line and in records: `codex`, `claude`, …"""
        return self.rules.id

    @property
    def agent(self) -> Agent:
        """The agent's id (as `SessionInfo.agent` carries it)."""
        return Agent(self.rules.id)

    @property
    def name(self) -> str:
        """As its users write it: `Claude Code`, `Gemini CLI`."""
        return self.rules.name

    def is_client(self, client_name: str) -> bool:
        """Whether an MCP client calling itself `client_name` is this agent's client."""
        name = client_name.lower()
        return any(word in name for word in self.client_words or (self.id,))

    def holds(self, ref: str, env: Env) -> bool:
        """Whether `<database>#<id>` names a session of this agent's own database (its home as `env` sets it)."""
        split = self.refs.split(ref) if self.refs is not None else None
        if split is None:
            return False
        home = self.home(env)
        return home is not None and os.path.abspath(split[0]) == os.path.abspath(home)

    def listing_cache(self, paths: Paths) -> Path:
        """Where its reader keeps what it learnt of each session file, so listing is fast next time."""
        return paths.cache_dir / f"listing-{self.id}.json"

    def where_sessions(self, env: Env) -> Path | None:
        """The folder (or database) a user is pointed at when no session is found."""
        if self.sessions_folder is not None:
            return self.sessions_folder(env)
        return self.home(env)

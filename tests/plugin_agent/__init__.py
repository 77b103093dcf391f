"""A fifth agent, "Wren", as a third-party package would add it: one profile, registered through `smig.agents`.

Nothing in smig names Wren. Its home is `$WREN_HOME` (default `~/.wren`); sessions are `.wren` text files
under `sessions/` (`plugin_agent.wren_format`); its memory is one global `notes.md`, and smig's bundle for
it sits beside it (`plugin_agent.wren_memory`). `tests/test_fifth_agent.py` installs it and drives
every front end.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, environment, lazy, lazy_value, user_home
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource

HOME_VARIABLE = "WREN_HOME"


def wren_home(env: Env = None) -> Path:
    """Wren's folder: `$WREN_HOME`, default `~/.wren`."""
    override = environment(env).get(HOME_VARIABLE)
    return Path(override) if override else user_home(env) / ".wren"


def _source(paths: Paths, env: Env) -> SessionSource:
    from plugin_agent.wren_format import WrenSource

    return WrenSource(wren_home(env))


def _writer(_paths: Paths, env: Env) -> NativeWriter:
    from plugin_agent.wren_format import WrenWriter

    return WrenWriter(wren_home(env))


def _usable(window: int, _auto_compact: int | None) -> int:
    return window * 80 // 100  # Wren compacts at 80% of the window


PROFILE = AgentProfile(
    AgentRules("wren", "Wren", usable=_usable, memory=lazy_value(f"{__name__}.wren_memory:RULES")),
    hand_to="claude",
    default_target="gpt-5.5",
    shown_when_empty=False,
    home=wren_home,
    source=_source,
    writer=_writer,
    home_variables=(HOME_VARIABLE,),
    overhead=Overhead(1_234, "Wren 0.1"),
    memory=lazy(f"{__name__}.wren_memory:read"),
    resume_argv=lazy(f"{__name__}.wren_format:resume_argv"),
    client_words=("wren-cli",),
)

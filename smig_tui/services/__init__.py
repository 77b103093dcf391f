"""The services: what the CLI, the TUI and the MCP server call, one module per feature.

`build_services()` (in `root`) is the composition root. The front ends import from this package only,
never from the adapters (tests/test_layers.py holds it); the names below are that whole surface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.gc_pause import freeze_for_exit as freeze_for_exit  # a CLI process's last command
from smig_tui.adapters.gc_pause import no_cyclic_gc as no_cyclic_gc  # the CLI's start-up makes no garbage
from smig_tui.plugins import agent_choices as agent_choices
from smig_tui.plugins import agent_profiles as agent_profiles
from smig_tui.plugins import profile_of as profile_of
from smig_tui.services import json_shapes as json_shapes  # the one JSON shape of each object: --json and MCP
from smig_tui.services.archive import session_archive as session_archive
from smig_tui.services.archive import with_archive as with_archive
from smig_tui.services.frontend import config_file_path as config_file_path
from smig_tui.services.frontend import current_branch as current_branch
from smig_tui.services.frontend import describe_failure as describe_failure
from smig_tui.services.frontend import file_kind as file_kind
from smig_tui.services.frontend import local_summarizer_url as local_summarizer_url
from smig_tui.services.frontend import no_sessions_sentence as no_sessions_sentence
from smig_tui.services.frontend import reading_progress as reading_progress
from smig_tui.services.frontend import replace_file as replace_file
from smig_tui.services.frontend import write_private as write_private
from smig_tui.services.models import table_date as table_date
from smig_tui.services.plan import migrated_messages as migrated_messages
from smig_tui.services.root import Services as Services
from smig_tui.services.root import build_services as build_services
from smig_tui.services.search import search_filters as search_filters

if TYPE_CHECKING:
    from smig_tui.adapters import client_launch as client_launch  # "continue now": the front ends start clients with it
    from smig_tui.adapters import clipboard as clipboard  # the TUI copies through it
    from smig_tui.adapters.agents.profile import AgentProfile as AgentProfile
    from smig_tui.adapters.archive import ArchiveRun as ArchiveRun
    from smig_tui.adapters.memory_store import ApplyResult as ApplyResult
    from smig_tui.adapters.search_index import SearchHit as SearchHit
    from smig_tui.core.decide import PARTIAL_NOTE as PARTIAL_NOTE  # what a plan with guessed counts says
    from smig_tui.services.doctor import AgentReport as AgentReport
    from smig_tui.services.doctor import Diagnosis as Diagnosis
    from smig_tui.services.doctor import diagnose as diagnose

_ON_FIRST_USE = {
    "AgentReport": "smig_tui.services.doctor",
    "Diagnosis": "smig_tui.services.doctor",
    "diagnose": "smig_tui.services.doctor",
    "PARTIAL_NOTE": "smig_tui.core.decide",
}
"""Names whose module is imported when one is first asked for, not by every command: `smig doctor`'s,
and the plan's note (the core's decisions)."""
_MODULES_ON_FIRST_USE = {"client_launch", "clipboard"}
"""Adapters the front ends use for "continue now" and copying: with `subprocess` behind them, about
5 ms of every start (`smig search` needs neither)."""


def __getattr__(name: str) -> object:
    import importlib

    if name in _ON_FIRST_USE:
        return getattr(importlib.import_module(_ON_FIRST_USE[name]), name)
    if name in _MODULES_ON_FIRST_USE:
        return importlib.import_module(f"smig_tui.adapters.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

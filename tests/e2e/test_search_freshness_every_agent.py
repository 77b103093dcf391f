"""The search index's freshness check for every agent (issue 35): each profile names what its listing reads,
so a session the agent's client wrote after the index was built is found by the next search, and a home
that did not change is not listed again (its reader is not even built).

Not an e2e test: it runs no client; each driver puts the session its real client wrote (a recorded
fixture) into the temp homes, as the real-client matrix does.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from drivers import all_drivers

from smig_tui.adapters.agents.profile import AgentProfile, Env
from smig_tui.adapters.agents.registry import BUILT_IN
from smig_tui.adapters.paths import Paths
from smig_tui.plugins import agent_profiles
from smig_tui.services import build_services

FOLDER_LOOKER = "aider"
"""The agent whose listing looks in the folders the others' sessions ran in: a new session elsewhere
may give it a folder to look in, so it may be listed with the agent whose home changed."""


UNWATCHED = {"pi": "its reader now also lists the sessions of the projects smig knows (KnownProjectsSource)"}
"""Agents that name no watched files yet (listed by every search), and why."""


class Listed(AssertionError):
    """A reader was built: its agent was about to be listed."""


def _refusing(profile: AgentProfile) -> AgentProfile:
    """The profile with a reader that may not be built (what a search on an unchanged home must not do)."""

    def refuse(_paths: Paths, _env: Env) -> None:
        raise Listed(f"{profile.id} was listed although nothing it reads changed")

    return replace(profile, source=refuse)


def _guarded(*allowed: str) -> list[AgentProfile]:
    """Every agent, those not `allowed` with a reader that fails the test when it is built."""
    allowed = (*allowed, *UNWATCHED)
    return [profile if profile.id in allowed else _refusing(profile) for profile in agent_profiles()]


def _a_word_of(session_id: str) -> str:
    """A word of the session's own conversation (as the index splits words), to search for."""
    services = build_services()
    info = services.find_session(session_id)
    for message in services.load_session(info).messages:
        words = [word for word in re.findall(r"[A-Za-z]{6,}", message.text) if not word.isupper()]
        if words and message.role.value in ("user", "assistant"):
            return words[0]
    raise AssertionError(f"no word to search for in {session_id}")


def test_every_built_in_agent_names_what_its_listing_reads() -> None:
    assert sorted(p.id for p in agent_profiles() if p.id in BUILT_IN and p.watched is None) == sorted(UNWATCHED)


@pytest.mark.parametrize("agent", sorted(all_drivers()))
def test_a_session_written_after_indexing_is_found_and_unchanged_homes_are_not_listed(
    agent: str, isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = all_drivers()[agent]
    for key, value in driver.smig_env(isolated_homes).items():
        monkeypatch.setenv(key, value)
    build_services().refresh_search_index()  # the index of the empty homes
    assert build_services(agents=_guarded()).search("anything") == []  # nothing changed: no reader built

    session_id = driver.install_source(isolated_homes, tmp_path / "project", tmp_path)
    word = _a_word_of(session_id)
    hits = build_services(agents=_guarded(agent, FOLDER_LOOKER)).search(word, limit=100)
    assert session_id in {hit.session_id for hit in hits}, f"{agent}: {word!r} not found in the new session"

    again = build_services(agents=_guarded()).search(word, limit=100)  # every home as the last search left it
    assert {hit.session_id for hit in again} == {hit.session_id for hit in hits}

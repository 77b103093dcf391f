"""`smig plan PATH` and friends resolve a session file without listing every agent's home.

Codex, Claude Code and Gemini CLI give a file's listing entry (`DirectLister`) from a walk of names and
the few files that decide it, for a path or an id (tests/gemini/test_gemini_direct_lookup.py); the other
agents list only their own home.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from smig_tui.core.errors import SmigError
from smig_tui.core.models import Agent
from smig_tui.services import build_services

FIXTURES = Path(__file__).parent / "fixtures" / "real"
CLAUDE = FIXTURES / "claude" / "projects" / "-tmp-smig-real-claude-work-tools"
CODEX = FIXTURES / "codex" / "fork_lineage" / "codex_home" / "sessions"


@pytest.fixture
def both_homes(isolated_homes: dict[str, Path]) -> dict[str, Path]:
    shutil.copytree(CLAUDE, isolated_homes["claude"] / "projects" / CLAUDE.name)
    shutil.copytree(CODEX, isolated_homes["codex"] / "sessions")
    return isolated_homes


def _listed_agents(services, monkeypatch: pytest.MonkeyPatch) -> list[Agent]:
    """Record which agents' readers are asked to list sessions."""
    asked: list[Agent] = []
    for source in services.sources:
        original = source.discover

        def discover(warn, original=original, agent=source.agent):  # type: ignore[no-untyped-def]
            asked.append(agent)
            return original(warn)

        monkeypatch.setattr(source, "discover", discover)
    return asked


def test_a_claude_path_lists_only_claude(both_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = next((both_homes["claude"] / "projects").rglob("*.jsonl"))
    services = build_services()
    asked = _listed_agents(services, monkeypatch)
    info = services.find_session(str(path))
    assert info.agent == Agent("claude") and info.path == str(path)
    assert asked == []


def test_a_codex_path_lists_only_codex(both_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = next((both_homes["codex"] / "sessions").rglob("rollout-*.jsonl"))
    services = build_services()
    asked = _listed_agents(services, monkeypatch)
    assert services.find_session(str(path)).agent == Agent("codex")
    assert asked == []


def test_a_path_through_a_symlink_resolves_into_its_home(both_homes: dict[str, Path], tmp_path: Path) -> None:
    """A path through a symlinked folder resolves into a home: it is found the same."""
    link = tmp_path / "elsewhere"
    link.symlink_to(both_homes["claude"] / "projects" / CLAUDE.name)
    path = next(link.glob("*.jsonl"))
    info = build_services().find_session(str(path))
    assert info.agent == Agent("claude")


def _homes_of(root: Path) -> list[tuple[Path, Path]]:
    """(Codex home, Claude config dir) pairs: a generated corpus and every real fixture home."""
    from smig_devtools.corpus import KB, generate

    generate(
        root / "codex",
        root / "claude",
        sessions=120,
        total_bytes=6000 * KB,
        seed=3,
        compressed_share=0.2,
        fork_share=0.2,
    )
    pairs = [(root / "codex", root / "claude")]
    pairs += [(home, root / "none") for home in sorted((FIXTURES / "codex").glob("*/codex_home"))]
    pairs.append((root / "none", FIXTURES / "claude"))
    return pairs


def test_every_file_resolves_to_its_listing_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A path gives exactly the entry the full listing has for that file: title, forks, sub-agents."""
    direct = 0
    for codex, claude in _homes_of(tmp_path / "corpus"):
        monkeypatch.setenv("CODEX_HOME", str(codex))
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
        monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / f"smig-{direct}"))
        listed = {info.path: info for info in build_services().iter_sessions(include_subagents=True)}
        for path, expected in listed.items():
            services = build_services()
            asked = _listed_agents(services, monkeypatch)
            assert services.find_session(path) == expected, path
            direct += not asked
    assert direct > 100  # nearly every file was resolved without a listing


def test_an_older_file_of_a_thread_is_found_as_its_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread of several files lists as its newest; naming an older file falls back to the listing."""
    home = FIXTURES / "codex" / "revert_segments" / "codex_home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "smig"))
    files = sorted(home.rglob("rollout-*.jsonl"))
    listed = {info.path for info in build_services().iter_sessions(include_subagents=True)}
    older = [path for path in files if str(path) not in listed]
    assert older, "the fixture has a thread of several files"
    services = build_services()
    asked = _listed_agents(services, monkeypatch)
    with pytest.raises(SmigError):
        services.find_session(str(older[0]))
    assert asked  # it listed the home to find out


def _by_listing(listed: list, ref: str):  # type: ignore[no-untyped-def]
    """What `find_session` answered before: the first exact id, else the one session a prefix names."""
    matches = [info for info in listed if info.id.startswith(ref)]
    exact = [info for info in matches if info.id == ref]
    if exact:
        return exact[0]
    return matches[0] if len({info.id for info in matches}) == 1 else None


@pytest.mark.parametrize("at_most", [16, 1])
def test_every_id_and_prefix_resolves_as_the_listing_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_most: int
) -> None:
    """An id or a unique prefix gives the listing's entry; an ambiguous prefix is refused the same,
    whether the names answer it or (past `NAMED_AT_MOST` files) the listing does."""
    from smig_tui.adapters.agents.claude import source as claude_source
    from smig_tui.adapters.agents.codex import source as codex_source

    monkeypatch.setattr(claude_source, "NAMED_AT_MOST", at_most)
    monkeypatch.setattr(codex_source, "NAMED_AT_MOST", at_most)
    direct = ambiguous = 0
    for number, (codex, claude) in enumerate(_homes_of(tmp_path / "corpus")):
        monkeypatch.setenv("CODEX_HOME", str(codex))
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
        monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / f"smig-{number}"))
        listed = list(build_services().iter_sessions(include_subagents=True))
        refs = {info.id for info in listed} | {info.id[:n] for info in listed for n in (2, 8)}
        for ref in sorted(refs):
            services = build_services()
            asked = _listed_agents(services, monkeypatch)
            expected = _by_listing(listed, ref)
            if expected is None:
                with pytest.raises(SmigError, match="several sessions"):
                    services.find_session(ref)
                ambiguous += 1
            else:
                assert services.find_session(ref) == expected, ref
            direct += not {Agent("codex"), Agent("claude")} & set(asked)
    assert direct > 200 and ambiguous > 5


def test_an_id_nobody_has_lists_each_home_once(both_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """No name matches: the readers that answered by name list their homes (a misnamed file is still
    found), the others were listed already and are not listed again."""
    services = build_services()
    asked = _listed_agents(services, monkeypatch)
    with pytest.raises(SmigError, match="No session matches"):
        services.find_session("ffffffff-no-such-session")
    assert sorted(asked) == sorted({source.agent for source in services.sources})


def test_a_misnamed_rollout_is_still_found_by_its_id(both_homes: dict[str, Path]) -> None:
    """A rollout renamed by hand, so its name holds another id: the names miss it, the listing finds it."""
    listed = [i for i in build_services().iter_sessions(agent=Agent("codex"), include_subagents=True)]
    info = listed[0]
    path = Path(info.path)
    path.rename(path.with_name(path.name.replace(info.id, "00000000-0000-7000-8000-000000000000")))
    found = build_services().find_session(info.id)
    assert found.id == info.id and found.path != info.path and Path(found.path).is_file()

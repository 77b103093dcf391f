"""`smig plan PATH` or `smig plan ID` of a Gemini CLI session describes the files that may be it, not the
whole home: the same entry the listing gives, or the same refusal for an ambiguous prefix."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from smig_devtools.corpus import SessionEntry
from smig_devtools.gemini_corpus import generate_gemini
from smig_tui.adapters.agents.gemini import source as gemini_source
from smig_tui.core.errors import SmigError
from smig_tui.core.models import Agent, SessionInfo
from smig_tui.services import Services, build_services

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini" / "home" / ".gemini"
RECORDED_ID = "91ffce34-43fe-493b-adc5-17413feeec43"


@pytest.fixture
def gemini_home(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """40 generated sessions, the recorded one, a sub-agent of it (its own folder, its own name) and one
    session kept as the old single document."""
    root = isolated_homes["home"] / "gemini"
    entries = [
        SessionEntry("codex", "main", f"t{i}", f"/p{i}.jsonl", f"/home/u/r{i % 4}", f"Task {i}") for i in range(40)
    ]
    generate_gemini(root, entries)
    home = root / ".gemini"
    shutil.copytree(FIXTURE / "tmp" / "osprey-app", home / "tmp" / "osprey-app")
    [recorded] = (home / "tmp" / "osprey-app" / "chats").glob("session-*.jsonl")
    child = home / "tmp" / "osprey-app" / "chats" / RECORDED_ID / "helper.jsonl"
    child.parent.mkdir()
    child.write_text(recorded.read_text(encoding="utf-8").replace(RECORDED_ID, str(uuid.UUID(int=7))), encoding="utf-8")
    lines = sorted((home / "tmp").rglob("session-*.jsonl"))[0]
    records = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    document = {**records[0], "messages": [record for record in records[1:] if "id" in record]}
    lines.with_suffix(".json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    lines.unlink()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(root))
    return home


def _described(services: Services, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record the Gemini CLI files the reader describes (reads), and fail on any agent's full listing."""
    described: list[Path] = []
    original = gemini_source.GeminiSource.describe

    def describe(self, path, *args, **kwargs):  # type: ignore[no-untyped-def]
        described.append(path)
        return original(self, path, *args, **kwargs)

    monkeypatch.setattr(gemini_source.GeminiSource, "describe", describe)
    for source in services.sources:
        if source.agent == Agent("gemini"):
            monkeypatch.setattr(source, "discover", lambda warn: pytest.fail("listed the whole home"))
    return described


def _listing() -> list[SessionInfo]:
    return list(build_services().iter_sessions(agent=Agent("gemini"), include_subagents=True))


def test_a_path_describes_that_file_alone_and_gives_the_listings_entry(
    gemini_home: Path, isolated_homes: dict[str, Path]
) -> None:
    listed = _listing()
    assert len(listed) == 42 and any(info.is_subagent for info in listed)
    assert any(info.path.endswith(".json") for info in listed)
    for info in listed:
        shutil.rmtree(isolated_homes["smig"])  # no listing cache: the file is read
        services = build_services()
        with pytest.MonkeyPatch.context() as patch:
            described = _described(services, patch)
            assert services.find_session(info.path) == info
        assert described == [Path(info.path)]


@pytest.mark.parametrize("at_most", [16, 1])
def test_every_id_and_prefix_resolves_as_the_listing_does(gemini_home: Path, at_most: int) -> None:
    """An id or a unique prefix gives the listing's entry, describing only the files named for it (and the
    sub-agents'); an ambiguous prefix is refused the same, whether the names or the listing answer it."""
    listed = _listing()
    refs = {info.id for info in listed} | {info.id[:n] for info in listed for n in (1, 2, 8)}
    direct = ambiguous = 0
    for ref in sorted(refs):
        named = [info for info in listed if info.id.startswith(ref)]
        candidates = [info for info in listed if info.is_subagent or info.id[:8].startswith(ref[:8])]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(gemini_source, "NAMED_AT_MOST", at_most)
            services = build_services()
            described = _described(services, patch) if len(candidates) <= at_most else None
            if len({info.id for info in named}) > 1:
                with pytest.raises(SmigError, match="several sessions"):
                    services.find_session(ref)
                ambiguous += 1
            else:
                assert services.find_session(ref) == named[0], ref
        if described is not None:  # answered by the names: no listing (it would have failed), those files only
            assert {Path(info.path) for info in candidates} >= set(described)
            direct += 1
    assert ambiguous > 3 and (direct > 40 if at_most == 16 else direct < 10)  # at 1, the listing answers nearly all


def test_a_misnamed_session_is_still_found_by_its_id(gemini_home: Path) -> None:
    """A session file renamed by hand, so its name holds another id: the names miss it, the listing finds it."""
    info = next(info for info in _listing() if info.path.endswith(".jsonl") and not info.is_subagent)
    path = Path(info.path)
    path.rename(path.with_name(path.name.replace(info.id[:8], "00000000")))
    found = build_services().find_session(info.id)
    assert found.id == info.id and found.path != info.path and Path(found.path).is_file()

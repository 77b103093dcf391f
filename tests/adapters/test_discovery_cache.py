"""Tests for the listing cache: hits only while a file is unchanged, never fatal, never stale."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from smig_tui.adapters.storage.discovery_cache import DiscoveryCache, listed
from smig_tui.core.models import Agent, SessionInfo


def make_file(tmp_path: Path, name: str = "s.jsonl", text: str = '{"a":1}\n') -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


class Builder:
    """Counts how often discovery really had to read a file."""

    def __init__(self, info: SessionInfo | None) -> None:
        self.info, self.calls = info, 0

    def __call__(self) -> SessionInfo | None:
        self.calls += 1
        return self.info


def info_for(path: str) -> SessionInfo:
    return SessionInfo(
        id="019e1625-789d",
        agent=Agent("codex"),
        path=path,
        cwd="/home/u/p",
        title="Fix the parser",
        size=8,
        mtime=1.5,
        is_subagent=True,
        parent_id="p-1",
        context_tokens=1234,
    )


def test_a_second_pass_reads_nothing_and_returns_the_same_info(tmp_path: Path) -> None:
    path = make_file(tmp_path)
    build = Builder(info_for(path))
    first = DiscoveryCache(tmp_path / "cache.json")
    assert first.lookup(path, build) == build.info
    first.save()
    again = DiscoveryCache(tmp_path / "cache.json")
    assert again.lookup(path, build) == build.info
    assert build.calls == 1


def test_a_grown_or_touched_file_is_read_again(tmp_path: Path) -> None:
    path = make_file(tmp_path)
    build = Builder(info_for(path))
    cache = DiscoveryCache(tmp_path / "cache.json")
    cache.lookup(path, build)
    cache.save()
    with open(path, "a") as handle:
        handle.write('{"b":2}\n')
    DiscoveryCache(tmp_path / "cache.json").lookup(path, build)
    assert build.calls == 2
    cache = DiscoveryCache(tmp_path / "cache.json")
    cache.lookup(path, build)
    cache.save()
    os.utime(path, ns=(1, 1))
    build.info = replace(build.info, title="Renamed")
    assert DiscoveryCache(tmp_path / "cache.json").lookup(path, build).title == "Renamed"
    assert build.calls == 4


def test_files_that_cannot_be_listed_are_never_cached(tmp_path: Path) -> None:
    path = make_file(tmp_path)
    build = Builder(None)
    for _ in range(2):
        cache = DiscoveryCache(tmp_path / "cache.json")
        assert cache.lookup(path, build) is None
        cache.save()
    assert build.calls == 2


def test_damaged_or_older_caches_are_ignored(tmp_path: Path) -> None:
    path = make_file(tmp_path)
    build = Builder(info_for(path))
    store = tmp_path / "cache.json"
    for content in (
        "{not json",
        json.dumps({"v": "0:old", "files": {}}),
        json.dumps([1, 2]),
        json.dumps({"v": "x", "files": {path: {"key": [1, 2], "info": {"id": 3}}}}),
    ):
        store.write_text(content)
        assert DiscoveryCache(store).lookup(path, build) == build.info
    assert build.calls == 4


def test_entries_that_no_longer_fit_the_model_are_rebuilt(tmp_path: Path) -> None:
    path = make_file(tmp_path)
    build = Builder(info_for(path))
    cache = DiscoveryCache(tmp_path / "cache.json")
    cache.lookup(path, build)
    cache.save()
    data = json.loads((tmp_path / "cache.json").read_text())
    data["files"][path]["info"]["renamed_field"] = data["files"][path]["info"].pop("title")
    (tmp_path / "cache.json").write_text(json.dumps(data))
    assert DiscoveryCache(tmp_path / "cache.json").lookup(path, build) == build.info
    assert build.calls == 2


def test_saving_drops_files_that_are_gone(tmp_path: Path) -> None:
    kept, gone = make_file(tmp_path, "a.jsonl"), make_file(tmp_path, "b.jsonl")
    cache = DiscoveryCache(tmp_path / "cache.json")
    for path in (kept, gone):
        cache.lookup(path, Builder(info_for(path)))
    cache.save()
    os.unlink(gone)
    cache = DiscoveryCache(tmp_path / "cache.json")
    cache.lookup(kept, Builder(None))
    cache.save()
    assert list(json.loads((tmp_path / "cache.json").read_text())["files"]) == [kept]


def test_a_pass_stopped_early_adds_what_it_built_and_a_whole_one_drops_what_is_gone(tmp_path: Path) -> None:
    """A lookup by path stops at the file it wanted, a lookup by id lists a few files: what either built is
    kept beside every other entry, so the next lookup reads nothing; only a whole pass drops the files
    that are gone."""
    a, b, c = (make_file(tmp_path, name) for name in ("a.jsonl", "b.jsonl", "c.jsonl"))
    cache = tmp_path / "cache.json"
    builders = {path: Builder(info_for(path)) for path in (a, b, c)}

    def describe(path: Path) -> SessionInfo | None:
        return builders[str(path)]()

    assert [info.path for info in listed([Path(c)], describe, cache)] == [c]  # an earlier pass: c alone
    found = listed([Path(a), Path(b)], describe, cache)
    assert next(found).path == a
    found.close()  # stopped at the file it wanted: b never read
    assert (builders[a].calls, builders[b].calls) == (1, 0)
    assert sorted(json.loads(cache.read_text())["files"]) == [a, c]
    assert [info.path for info in listed([Path(b)], describe, cache, every=False)] == [b]  # a lookup among a few
    assert sorted(json.loads(cache.read_text())["files"]) == [a, b, c]
    os.unlink(c)
    assert [info.path for info in listed([Path(a), Path(b)], describe, cache)] == [a, b]
    assert (builders[a].calls, builders[b].calls, builders[c].calls) == (1, 1, 1)
    assert sorted(json.loads(cache.read_text())["files"]) == [a, b]


def test_an_unwritable_cache_is_only_a_lost_speed_up(tmp_path: Path) -> None:
    path = make_file(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = DiscoveryCache(blocker / "cache.json")
    assert cache.lookup(path, Builder(info_for(path))) is not None
    cache.save()


def test_a_warm_listing_reads_no_session_file(fake_home, monkeypatch) -> None:
    from smig_tui.adapters.agents.claude import source as claude_code
    from smig_tui.adapters.agents.codex import source as codex
    from smig_tui.services import build_services

    cold = build_services().list_sessions(include_subagents=True)
    assert {info.agent for info in cold} == {Agent("codex"), Agent("claude")}

    def no_reading(*_args: object) -> None:
        raise AssertionError("a warm listing read a session file")

    originals = codex.scan_head, claude_code._peek
    monkeypatch.setattr(codex, "scan_head", no_reading)
    monkeypatch.setattr(claude_code, "_peek", no_reading)
    assert build_services().list_sessions(include_subagents=True) == cold

    grown = next(info for info in cold if info.agent == Agent("codex"))
    with open(grown.path, "a") as handle:
        handle.write('{"timestamp":"2026-11-30T10:00:00.000Z","type":"event_msg","payload":{"type":"x"}}\n')
    monkeypatch.setattr(codex, "scan_head", originals[0])
    monkeypatch.setattr(claude_code, "_peek", originals[1])
    again = {info.path: info for info in build_services().list_sessions(include_subagents=True)}
    assert again[grown.path].size > grown.size

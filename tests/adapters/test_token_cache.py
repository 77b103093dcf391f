from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from plan_helpers import WordCounter

from smig_tui.adapters.storage.token_cache import TokenCache
from smig_tui.core.models import Agent, Kind, Message, Role, Session, SessionInfo
from smig_tui.core.tokens import MESSAGE_OVERHEAD


def _session(path: Path) -> Session:
    """One message per line of a plain text file: enough to exercise the cache."""
    lines = path.read_text(encoding="utf-8").splitlines()
    messages = tuple(
        Message(index=i, id=f"L{i + 1}", role=Role.USER, kind=Kind.TEXT, body=line) for i, line in enumerate(lines)
    )
    stat = path.stat()
    info = SessionInfo(id="s", agent=Agent("codex"), path=str(path), size=stat.st_size, mtime=stat.st_mtime)
    return Session(info=info, messages=messages)


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def test_miss_then_hit(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, ["one two", "three four five"])
    cache, counter = TokenCache(tmp_path / "cache"), WordCounter()
    first = cache.counts(_session(source), counter)
    assert first.status == "miss" and first.counted == 2
    assert first.counts == [2 + MESSAGE_OVERHEAD, 3 + MESSAGE_OVERHEAD]
    again = TokenCache(tmp_path / "cache").counts(_session(source), counter)
    assert again.status == "hit" and again.counted == 0 and again.counts == first.counts
    assert counter.calls == [2]


def test_growth_counts_only_new_messages(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, [f"line {i} " + "w " * i for i in range(50)])
    cache, counter = TokenCache(tmp_path / "cache"), WordCounter()
    cache.counts(_session(source), counter)
    with source.open("a", encoding="utf-8") as handle:
        handle.write("appended one\nappended two three\n")
    grown = cache.counts(_session(source), counter)
    assert grown.status == "grown" and grown.counted == 2
    assert counter.calls == [50, 2]  # the spy saw only the new messages
    assert grown.counts[-1] == 3 + MESSAGE_OVERHEAD


def test_rewritten_file_reuses_unchanged_texts(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, ["alpha", "beta", "gamma"])
    cache, counter = TokenCache(tmp_path / "cache"), WordCounter()
    cache.counts(_session(source), counter)
    _write(source, ["changed first line here", "beta", "gamma"])
    changed = cache.counts(_session(source), counter)
    assert changed.status == "changed" and changed.counted == 1


def test_corrupt_cache_is_rebuilt(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, ["a b", "c"])
    folder = tmp_path / "cache"
    TokenCache(folder).counts(_session(source), WordCounter())
    for entry in folder.glob("*.json"):
        if entry.name != "index.json":
            entry.write_text("{not json", encoding="utf-8")
    rebuilt = TokenCache(folder).counts(_session(source), WordCounter())
    assert rebuilt.status == "miss" and rebuilt.counts == [2 + MESSAGE_OVERHEAD, 1 + MESSAGE_OVERHEAD]
    (folder / "index.json").write_text("[]", encoding="utf-8")
    assert TokenCache(folder).cached_stats(_session(source).info, "words") is None


def test_cached_stats_for_listings(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, ["a b", "c"])
    cache = TokenCache(tmp_path / "cache")
    cache.counts(_session(source), WordCounter())
    info = _session(source).info
    assert TokenCache(tmp_path / "cache").cached_stats(info, "words") == (2, 3 + 2 * MESSAGE_OVERHEAD)
    _write(source, ["a b", "c", "d"])
    assert TokenCache(tmp_path / "cache").cached_stats(_session(source).info, "words") is None


def test_estimates_are_not_cached(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, ["a b"])
    counter = WordCounter()
    counter.exact = False  # type: ignore[misc]
    result = TokenCache(tmp_path / "cache").counts(_session(source), counter)
    assert result.status == "uncached" and not (tmp_path / "cache").exists()


def test_source_file_is_never_modified(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, ["a b", "c"])
    before = (source.read_bytes(), os.stat(source).st_mtime_ns)
    TokenCache(tmp_path / "cache").counts(_session(source), WordCounter())
    assert (source.read_bytes(), os.stat(source).st_mtime_ns) == before


def test_real_codex_session_through_services(shared_fixtures, isolated_homes) -> None:
    from smig_tui.services import build_services

    name = "codemie-ai__codemie-code__rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
    day = isolated_homes["codex"] / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    target = day / name.split("__", 2)[2]
    shutil.copy(shared_fixtures / "codex" / name, target)
    services = build_services()
    info = services.find_session("019e1695")
    session = services.load_session(info)
    capacity = services.capacities.lookup("gpt-5")
    counts = services.count_session(session, capacity)
    assert len(counts) == len(session.messages) and sum(counts) > 10_000
    files = list((services.paths.cache_dir / "tokens").glob("*.json"))
    assert any(json.loads(f.read_text())["counts"] == counts for f in files if f.name != "index.json")
    assert services.token_cache.cached_stats(info)[0] == len(session.messages)


@pytest.mark.usefixtures("exact_tokens")
def test_listing_shows_counts_of_sessions_counted_before(fake_home) -> None:
    from smig_tui.services import build_services

    services = build_services()
    before = {info.id: info for info in services.list_sessions()}
    assert all(info.counted_tokens is None for info in before.values())
    info = next(iter(before.values()))
    session = services.load_session(info)
    services.plan(session, "gpt-5", "truncate")
    after = {i.id: i for i in build_services().list_sessions()}
    assert after[info.id].counted_tokens == services.plan(session, "gpt-5").decision.session_tokens
    assert after[info.id].message_count is not None
    assert all(i.counted_tokens is None for k, i in after.items() if k != info.id)


def test_an_entry_orjson_refuses_is_written_by_json_and_read_back(tmp_path) -> None:
    """A session file named with a byte that is not UTF-8 has a lone surrogate in its path, which orjson
    will not write: the entry is written by `json.dumps` instead, and hits the next time."""
    source = tmp_path / "s\udcff.jsonl"
    _write(source, ["one two", "three four five"])
    cache, counter = TokenCache(tmp_path / "cache"), WordCounter()
    first = cache.counts(_session(source), counter)
    assert first.status == "miss"
    [entry] = [p for p in (tmp_path / "cache").glob("*.json") if p.name != "index.json"]
    assert json.loads(entry.read_bytes())["path"] == str(source)
    again = TokenCache(tmp_path / "cache").counts(_session(source), counter)
    assert again.status == "hit" and again.counts == first.counts and counter.calls == [2]


def test_a_cache_file_nested_too_deeply_is_rebuilt_not_a_crash(tmp_path) -> None:
    source = tmp_path / "s.jsonl"
    _write(source, ["one two"])
    cache, counter = TokenCache(tmp_path / "cache"), WordCounter()
    cache.counts(_session(source), counter)
    [entry] = [p for p in (tmp_path / "cache").glob("*.json") if p.name != "index.json"]
    entry.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    again = TokenCache(tmp_path / "cache").counts(_session(source), counter)
    assert again.status == "miss" and again.counts == [2 + MESSAGE_OVERHEAD]

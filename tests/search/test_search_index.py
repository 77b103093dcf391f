"""The search index through the real readers: incremental refresh, CJK and emoji, ranking, damage."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from search_helpers import message_line, tool_lines, write_rollout

from smig_tui.adapters.fs import file_lock
from smig_tui.adapters.search_index import SearchFilters
from smig_tui.core.errors import SmigError
from smig_tui.core.models import Agent, Kind, Message, Role, Session, SessionInfo
from smig_tui.core.ports import SessionSource, WarningSink
from smig_tui.core.search import SearchQueryError
from smig_tui.services import Services, build_services


def hits_for(services: Services, query: str, **filters: str) -> list[tuple[str, str]]:
    return [(hit.session_id, hit.message_id) for hit in services.search(query, SearchFilters(**filters))]


def test_every_agent_source_is_indexed_and_found(fake_home: dict[str, Path]) -> None:
    services = build_services()
    report = services.refresh_search_index()
    listed = {info.path for info in services.iter_sessions(include_subagents=True)}
    assert report.added == len(listed) > 0
    agents = {hit.agent for hit in services.search("verbose", limit=50)}
    assert agents == {"codex", "claude"}
    assert {hit.agent for hit in services.search("verbose", SearchFilters(agent="claude"))} == {"claude"}


def test_unchanged_files_are_not_read_again(fake_home: dict[str, Path]) -> None:
    services = build_services()
    services.refresh_search_index()
    again = services.refresh_search_index()
    assert again.changed == 0 and again.messages == 0


def test_a_session_that_grows_while_indexed_gets_only_its_new_messages(isolated_homes: dict[str, Path]) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "Plan the parser rewrite"), ("assistant", "Sure.")])
    services = build_services()
    first = services.refresh_search_index()
    assert (first.added, first.messages) == (1, 2)
    before = (
        sqlite3.connect(services.search_index.db_path)
        .execute("SELECT id, message_id FROM messages ORDER BY id")
        .fetchall()
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write(message_line("user", "now the tokenizer overhaul"))
        handle.write(message_line("assistant", "Tokenizer overhaul done."))
    grown = services.refresh_search_index()
    assert (grown.grown, grown.reindexed, grown.messages) == (1, 0, 2)
    after = (
        sqlite3.connect(services.search_index.db_path)
        .execute("SELECT id, message_id FROM messages ORDER BY id")
        .fetchall()
    )
    assert after[:2] == before  # the old rows were left alone
    assert {hit.message_id for hit in services.search("tokenizer overhaul")} == {after[2][1], after[3][1]}
    assert len(services.search("parser")) == 1


def test_a_rewritten_session_is_indexed_again_and_a_removed_one_leaves(isolated_homes: dict[str, Path]) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "alpha topic"), ("assistant", "alpha reply")])
    services = build_services()
    services.refresh_search_index()
    write_rollout(isolated_homes["codex"], [("user", "beta topic")])  # same path, shorter: a rewrite
    report = services.refresh_search_index()
    assert report.reindexed == 1
    assert services.search("alpha") == [] and len(services.search("beta")) == 1
    path.unlink()
    assert services.refresh_search_index().removed == 1
    assert services.search("beta") == []


def test_cjk_and_emoji_are_found(isolated_homes: dict[str, Path]) -> None:
    write_rollout(
        isolated_homes["codex"],
        [
            ("user", "我们需要把数据库迁移到新的服务器"),
            ("assistant", "データベースの移行を始めます 🚀 shipped"),
            ("user", "한국어 검색도 됩니다"),
        ],
    )
    services = build_services()
    assert [h.snippet[a:b] for h in services.search("数据库迁移") for a, b in h.spans] == ["数据库迁移"]
    assert len(services.search("データベース")) == 1
    assert len(services.search("迁移")) == 1  # two characters: shorter than a trigram, found by a scan
    assert len(services.search("검색도")) == 1
    rocket = services.search("🚀")
    assert len(rocket) == 1 and rocket[0].snippet[rocket[0].spans[0][0] : rocket[0].spans[0][1]] == "🚀"
    assert len(services.search("🚀 shipped")) == 1 and services.search("🚀 nothing") == []


def test_tool_output_ranks_below_conversation_even_when_it_matches_better(isolated_homes: dict[str, Path]) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "why does the flaky widget test fail?")])
    with path.open("a", encoding="utf-8") as handle:
        handle.write(tool_lines("pytest", "flaky widget flaky widget flaky widget FAILED", "call_1"))
    services = build_services()
    kinds = [hit.kind for hit in services.search("flaky widget")]
    assert kinds == ["text", "tool_result"]


def test_phrase_prefix_role_since_and_cwd_filters(isolated_homes: dict[str, Path]) -> None:
    write_rollout(
        isolated_homes["codex"],
        [("user", "the quick brown fox"), ("assistant", "brown quick fox")],
        cwd="/work/a",
        day="2026-11-01",
    )
    write_rollout(
        isolated_homes["codex"],
        [("user", "a quick brown dog")],
        session_id="01a30000-0000-7000-8000-00000000b002",
        cwd="/work/b",
        day="2026-11-29",
    )
    services = build_services()
    assert len(hits_for(services, '"quick brown"')) == 2
    assert len(hits_for(services, "qui*")) == 3
    assert len(hits_for(services, "quick", role="assistant")) == 1
    assert len(hits_for(services, "quick", since="2026-11-15T00:00:00")) == 1
    assert len(hits_for(services, "quick", cwd="/work/a")) == 2
    assert hits_for(services, "quick", cwd="/work") and not hits_for(services, "quick", cwd="/wor")


def test_secrets_never_reach_the_index_or_a_snippet(isolated_homes: dict[str, Path]) -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    write_rollout(isolated_homes["codex"], [("user", f"deploy with OPENAI_API_KEY={key} please")])
    services = build_services()
    hits = services.search("deploy")
    assert hits and key not in hits[0].snippet and "[REDACTED:" in hits[0].snippet
    assert key.encode() not in services.search_index.db_path.read_bytes()


@pytest.mark.parametrize("damage", ["garbage", "truncated-pages"])
def test_a_damaged_index_is_rebuilt_with_a_notice(isolated_homes: dict[str, Path], damage: str) -> None:
    write_rollout(isolated_homes["codex"], [("user", "remember the lighthouse"), ("assistant", "lighthouse noted")])
    services = build_services()
    assert len(services.search("lighthouse")) == 2
    services.search_index.close()
    db = services.search_index.db_path
    Path(str(db) + "-wal").unlink(missing_ok=True)
    data = db.read_bytes()
    if damage == "garbage":
        db.write_bytes(b"this is not a database at all" * 200)
    else:
        db.write_bytes(data[:100] + b"\xff" * (len(data) - 100))
    notices: list[str] = []
    fresh = build_services()
    assert len(fresh.search("lighthouse", notice=notices.append)) == 2
    assert any("damaged" in notice and "rebuilding" in notice for notice in notices)


def test_an_index_that_cannot_be_opened_is_one_sentence(isolated_homes: dict[str, Path]) -> None:
    services = build_services()
    folder = services.search_index.folder
    folder.mkdir(parents=True)
    services.search_index.db_path.mkdir()  # a folder where the file should be
    with pytest.raises(SmigError, match="search index"):
        services.search("anything")


def test_a_malformed_query_never_touches_the_index(isolated_homes: dict[str, Path]) -> None:
    services = build_services()
    with pytest.raises(SearchQueryError):
        services.search('"open')
    assert not services.search_index.db_path.exists()


def test_phrases_match_words_in_order_across_punctuation_and_accents(isolated_homes: dict[str, Path]) -> None:
    write_rollout(
        isolated_homes["codex"],
        [("user", "a UNIT, test of the Résumé_parser"), ("assistant", "a test unit of the resume parser")],
    )
    services = build_services()
    assert [hit.role for hit in services.search('"unit test"')] == ["user"]
    assert len(services.search('"resume pars"*')) == 2
    assert [hit.role for hit in services.search('"unit test" "résumé pars"*')] == ["user"]


class GrowingSource:
    """A real reader whose file gets two more lines while it is being indexed (as a live agent writes)."""

    def __init__(self, inner: SessionSource, path: Path) -> None:
        self.inner, self.path, self.grown = inner, path, False

    @property
    def agent(self) -> Agent:
        return self.inner.agent

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        return self.inner.discover(warn)

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        if not self.grown:
            self.grown = True
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(message_line("user", "written while indexing: osprey"))
                handle.write(message_line("assistant", "osprey noted"))
        return self.inner.load(info, warn)


def test_a_session_that_grows_during_indexing_is_indexed_once_and_completely(
    isolated_homes: dict[str, Path],
) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "first words"), ("assistant", "first reply")])
    base = build_services()
    services = Services(paths=base.paths, sources=[GrowingSource(base.sources[0], path)])
    services.refresh_search_index()
    assert len(services.search("osprey")) == 2  # read in full, though discovery saw the shorter file
    with path.open("a", encoding="utf-8") as handle:
        handle.write(message_line("user", "and later: osprey again"))
    report = services.refresh_search_index()
    assert (report.grown, report.messages) == (1, 1)
    assert len(services.search("osprey")) == 3 and len(services.search("first")) == 2


def test_another_smig_indexing_is_not_waited_for(isolated_homes: dict[str, Path]) -> None:
    write_rollout(isolated_homes["codex"], [("user", "heron")])
    services = build_services()
    notices: list[str] = []
    with file_lock(services.search_index.folder / "index.lock"):
        assert services.search("heron", notice=notices.append) == []
    assert notices == ["Another smig is updating the search index; searching it as it is."]
    assert len(services.search("heron")) == 1


class SharedFileSource:
    """An agent that keeps several sessions in one file (as a database-backed agent would)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def agent(self) -> Agent:
        return Agent("codex")

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        stat = self.path.stat()
        for session_id in ("shared-one", "shared-two"):
            yield SessionInfo(session_id, Agent("codex"), str(self.path), size=stat.st_size, mtime=stat.st_mtime)

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        text = f"{info.id} talks about the {'pelican' if info.id.endswith('one') else 'cormorant'}"
        return Session(info, (Message(0, "m0", Role.USER, Kind.TEXT, text),))


def test_sessions_sharing_one_file_are_each_indexed(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    shared = tmp_path / "store.db"
    shared.write_text("x", encoding="utf-8")
    base = build_services()
    services = Services(paths=base.paths, sources=[SharedFileSource(shared)])
    assert services.refresh_search_index().added == 2
    assert [hit.session_id for hit in services.search("pelican")] == ["shared-one"]
    assert [hit.session_id for hit in services.search("cormorant")] == ["shared-two"]


def test_an_excerpt_shows_more_of_the_hit_message_redacted_and_marked(isolated_homes: dict[str, Path]) -> None:
    key = "sk-ant-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3"
    text = "intro words " * 40 + f"the albatross landed; key {key} " + "tail words " * 200
    write_rollout(isolated_homes["codex"], [("user", text)])
    services = build_services()
    [hit] = services.search("albatross")
    excerpt = services.search_excerpt(hit, "albatross")
    assert len(excerpt.text) > len(hit.snippet) > 0
    assert [excerpt.text[a:b] for a, b in excerpt.spans] == ["albatross"]
    assert key not in excerpt.text and "[REDACTED:anthropic-key]" in excerpt.text


def test_an_index_of_another_schema_version_is_rebuilt_quietly(isolated_homes: dict[str, Path]) -> None:
    write_rollout(isolated_homes["codex"], [("user", "gannet")])
    services = build_services()
    assert len(services.search("gannet")) == 1
    services.search_index.close()
    conn = sqlite3.connect(services.search_index.db_path)
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'version'")
    conn.commit()
    conn.close()
    notices: list[str] = []
    assert len(build_services().search("gannet", notice=notices.append)) == 1
    assert notices == []

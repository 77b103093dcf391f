"""The token cache of sessions kept as a database's rows (OpenCode, Kilo Code, Crush): `DATABASE#ID`
paths, which no file stands for, keyed by their messages' text length and their last update."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import Builder, EveryTextCounter, services_with, words

from smig_tui.core.models import Agent, Plan, Session, SessionInfo, Strategy

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _rows_session(path: str, turns: int, updated: float = 1_800_000_000.0) -> Session:
    builder = Builder()
    for turn in range(turns):
        builder.user(f"question {turn} " + words(40))
        builder.assistant(f"answer {turn} " + words(40))
    info = SessionInfo(id=path.rpartition("#")[2], agent=Agent("opencode"), path=path, mtime=updated)
    return Session(info=info, messages=tuple(builder.messages))


def _plan(tmp_path: Path, session: Session) -> tuple[list[str], Plan]:
    counter = EveryTextCounter()
    services = services_with(tmp_path, counter, {"small-test": 3_000})
    plan = services.plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    return counter.texts, plan


def test_a_database_session_is_counted_once_across_processes(tmp_path: Path) -> None:
    session = _rows_session(f"{tmp_path}/opencode.db#ses_0001", 200)
    first, planned = _plan(tmp_path, session)
    assert first  # the tail and the plan's note
    again, replanned = _plan(tmp_path, session)
    assert again == []  # every count from the cache: no tokenizer needed
    assert replanned == planned


def test_a_database_session_that_grew_counts_only_its_new_messages(tmp_path: Path) -> None:
    session = _rows_session(f"{tmp_path}/opencode.db#ses_0002", 200)
    _plan(tmp_path, session)
    builder = Builder()
    builder.messages = list(session.messages)
    newest = builder.user("one more question " + words(30))
    grown = Session(info=replace(session.info, mtime=session.info.mtime + 60), messages=tuple(builder.messages))
    counted, plan = _plan(tmp_path, grown)
    texts = {message.text for message in session.messages}
    assert newest.text in "".join(counted)
    assert not [text for text in counted if text in texts]  # nothing counted before is counted again
    assert plan.kept[-1].message.id == newest.id


def test_a_message_rewritten_at_another_length_is_counted_again(tmp_path: Path) -> None:
    session = _rows_session(f"{tmp_path}/opencode.db#ses_0003", 200)
    _plan(tmp_path, session)
    last = session.messages[-1]
    rewritten = replace(last, body=last.text + " and a longer ending")
    edited = Session(info=session.info, messages=(*session.messages[:-1], rewritten))  # same update time
    counted, plan = _plan(tmp_path, edited)
    assert rewritten.text in "".join(counted)
    assert plan.kept[-1].tokens > 0


def test_a_path_that_is_neither_a_file_nor_a_database_session_is_never_cached(tmp_path: Path) -> None:
    session = _rows_session(f"{tmp_path}/gone.jsonl", 200)
    first, _ = _plan(tmp_path, session)
    again, _ = _plan(tmp_path, session)
    assert first and again  # counted each time, as before


def test_the_real_opencode_reader_hits_the_cache_on_the_next_plan(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorded OpenCode session (compacted), read by the real reader and planned with the real
    tokenizer in two processes' worth of Services: the second finds every count it needs cached."""
    from smig_tui.services import build_services

    database = isolated_homes["home"] / "opencode.db"
    with sqlite3.connect(database) as connection:
        connection.executescript((FIXTURES / "real" / "opencode" / "compacted.sql").read_text(encoding="utf-8"))
    connection.close()
    monkeypatch.setenv("OPENCODE_DB", str(database))
    services = build_services()
    [info] = [info for info in services.list_sessions() if info.agent == "opencode"][:1]
    capacity = services.capacities.lookup("gpt-5")
    counter = services.counter_for(capacity)
    if not counter.exact:
        pytest.skip("tiktoken's files are not at hand")
    session = services.load_session(info)
    counts = services.count_session(session, capacity)
    later = build_services()
    again = later.load_session(later.find_session(info.id))
    known = later.token_cache.known(again, later.counter_for(capacity))
    assert known.status == "hit" and known.counts == counts

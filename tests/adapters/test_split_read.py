"""Reading a huge session with two processes gives the very Session one pass gives.

The worker (a real subprocess here) reads the tail of real Codex CLI 0.171.0 rollouts while the
reader takes the head; the split threshold is lowered so that small fixtures are split. The replay
is also checked at every line boundary of a rollout with a compaction, in-process, so a call in
the head answered in the tail, a compaction or a damaged line on either side all come out the same.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from smig_tui.adapters import split_read, stored_text
from smig_tui.adapters.agents.claude import load as claude_load
from smig_tui.adapters.agents.claude import split as claude_split
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex import split as codex_split
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.load import RolloutLoader
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.jsonl import iter_lines
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "codex"
CLAUDE_REAL = Path(__file__).parent.parent / "fixtures" / "real" / "claude" / "projects"
COMPACTED = ("auto_compaction", "01a23b78-7adb-74e3-8126-e86b52049d09")
GRANDCHILD = ("fork_lineage", "01a23b78-db78-7dd2-bcf7-a002f58cba32")
PLAIN = ("compressed_and_plain", "01a23b78-167b-7f32-b718-2bab157d4425")


def _install(scenario: str, codex_home: Path) -> None:
    """Copy a scenario's CODEX_HOME; of a rollout kept both plain and compressed, the plain one."""
    shutil.copytree(REAL / scenario / "codex_home", codex_home, dirs_exist_ok=True)
    for packed in codex_home.rglob("*.jsonl.zst"):
        if packed.with_suffix("").is_file():
            packed.unlink()


def _load(thread: str, monkeypatch: pytest.MonkeyPatch, *, one_process: bool) -> Session:
    """Load a thread through the Codex reader, in one process or split wherever it is worth it."""
    if one_process:
        monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "1")
    else:
        monkeypatch.delenv(split_read.ONE_PROCESS_ENV, raising=False)
    source = CodexSource(codex_home())
    [info] = [i for i in source.discover(lambda _: None) if i.id == thread]
    warnings: list[ReadWarning] = []
    session = source.load(info, warnings.append)
    assert list(session.warnings) == warnings
    return _comparable(session)


def _comparable(session: Session) -> Session:
    """The session with packed texts (a compressed parent's, each load packing its own blocks) read out."""
    messages = tuple(
        replace(m, body=f"packed:{m.text}") if isinstance(m.body, stored_text.PackedText) else m
        for m in session.messages
    )
    return replace(session, messages=messages)


class _Spy(split_read.Aside):
    """The real worker, noting whether it delivered (so a test cannot pass by falling back)."""

    delivered = 0

    def parts(self) -> Iterator[Any]:
        yield from super().parts()
        if self.finished:
            _Spy.delivered += 1


@pytest.mark.parametrize("held_whole", [True, False], ids=["texts-held", "texts-left-on-disk"])
@pytest.mark.parametrize("scenario", [COMPACTED, GRANDCHILD, PLAIN], ids=lambda s: s[0])
def test_a_rollout_read_by_two_processes_equals_one_pass(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, scenario: tuple[str, str], held_whole: bool
) -> None:
    name, thread = scenario
    _install(name, isolated_homes["codex"])
    if not held_whole:
        monkeypatch.setattr(stored_text, "FILE_BYTES", 1)  # long texts become LineTexts, sent as heads
    monkeypatch.setattr(split_read, "SPLIT_BYTES", 0)
    monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "0")  # split, whatever CPUs this process may use
    monkeypatch.setattr(codex_split, "Aside", _Spy)
    _Spy.delivered = 0
    one = _load(thread, monkeypatch, one_process=True)
    assert _Spy.delivered == 0
    two = _load(thread, monkeypatch, one_process=False)
    assert _Spy.delivered == 1
    assert two == one
    assert len(one.messages) > 5
    if not held_whole and scenario != COMPACTED:  # (the compaction keeps only short texts)
        assert any(isinstance(m.body, stored_text.LineText) for m in two.messages)


@pytest.mark.parametrize("held_whole", [True, False], ids=["texts-held", "texts-left-on-disk"])
def test_transcripts_read_by_two_processes_equal_one_pass(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, held_whole: bool
) -> None:
    """Every real Claude Code 2.1.332 transcript, sub-agents included, through the real worker."""
    shutil.copytree(CLAUDE_REAL, isolated_homes["claude"] / "projects")
    if not held_whole:
        monkeypatch.setattr(stored_text, "FILE_BYTES", 1)
    monkeypatch.setattr(split_read, "SPLIT_BYTES", 0)
    monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "0")  # split, whatever CPUs this process may use
    monkeypatch.setattr(claude_split, "Aside", _Spy)
    source = ClaudeSource(claude_home())
    infos = list(source.discover(lambda _: None))
    assert len(infos) >= 6
    left_on_disk = 0
    for info in infos:
        monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "1")
        one = source.load(info, lambda _: None)
        monkeypatch.delenv(split_read.ONE_PROCESS_ENV)
        _Spy.delivered = 0
        two = source.load(info, lambda _: None)
        assert _Spy.delivered == 1, info.path
        assert two == one, info.path
        left_on_disk += sum(isinstance(m.body, stored_text.LineText) for m in two.messages)
    assert (left_on_disk > 0) == (not held_whole)


class _InProcess:
    """`Aside` without the process: the worker's function run here, for checking every split point fast."""

    sent: int | None = None
    """How many parts a test lets through before the worker stops (None: all of them)."""

    def __init__(self, function: Callable[..., Iterable[Any]], *args: Any) -> None:
        self.parts_made = list(function(*args))
        self.finished = _InProcess.sent is None

    def parts(self) -> Iterator[Any]:
        return iter(self.parts_made[: _InProcess.sent])

    def close(self) -> None:
        pass


def _read_whole(path: str, split: int | None) -> tuple[Session, list[ReadWarning]]:
    """Read a rollout file with `RolloutLoader`, split at `split` (in-process) or in one pass."""
    from smig_tui.adapters.agents.codex.lineage import Part
    from smig_tui.adapters.agents.codex.scan import scan_head
    from smig_tui.adapters.agents.codex.source import _feed
    from smig_tui.core.models import Agent, SessionInfo

    warnings: list[ReadWarning] = []
    loader = RolloutLoader(path)
    meta = scan_head(path).meta
    loader.adopt_meta(meta)
    if split is None:
        _feed(loader, Part(path, str(meta.get("id"))), "", warnings.append)
    else:
        loader.begin_file(path, "")
        codex_split.feed_split(loader, path, split, warnings.append)
    info = SessionInfo(id=str(meta.get("id")), agent=Agent("codex"), path=path)
    return loader.finish(info, tuple(warnings)), warnings


def _line_starts(path: str) -> list[int]:
    return [offset for _, offset, _, _ in iter_lines(path)][1:]


SHARED = Path(__file__).resolve().parents[1] / "fixtures" / "public"
OWN_CODEX = Path(__file__).parent.parent / "fixtures" / "codex_home"
CODEX_FILES = (
    sorted(REAL.rglob("*.jsonl")) + sorted(OWN_CODEX.rglob("*.jsonl")) + sorted((SHARED / "codex").glob("*.jsonl"))
)
CLAUDE_FILES = [p for p in sorted(CLAUDE_REAL.rglob("*.jsonl")) if p.name != "journal.jsonl"] + sorted(
    (SHARED / "claude").glob("*.jsonl")
)


def _damaged_copy(source: Path, tmp_path: Path, lines_added: list[bytes]) -> Path:
    """A copy of `source` with damage on both sides of its middle: `lines_added` at a third and two thirds."""
    lines = source.read_bytes().split(b"\n")
    for place, added in zip((3, 3 / 2), lines_added, strict=True):
        lines.insert(int(len(lines) / place), added)
    path = tmp_path / source.name
    path.write_bytes(b"\n".join(lines))
    return path


@pytest.mark.parametrize("held_whole", [True, False], ids=["texts-held", "texts-left-on-disk"])
@pytest.mark.parametrize("source", CODEX_FILES, ids=lambda p: p.name[-40:])
def test_every_split_point_of_a_rollout_replays_to_the_same_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_whole: bool, source: Path
) -> None:
    """Split after each line in turn: the session, its warnings and their line numbers never change."""
    path = _damaged_copy(
        source,
        tmp_path,
        [
            b'{"timestamp":"2026-12-03T10:35:00.000Z","type":"response_item","payload":{',
            b'{"timestamp":"2026-12-03T10:35:01.000Z","type":"event_msg","payload":[1]}',
        ],
    )
    if not held_whole:
        monkeypatch.setattr(stored_text, "FILE_BYTES", 1)
    monkeypatch.setattr(codex_split, "Aside", _InProcess)
    expected, expected_warnings = _read_whole(str(path), None)
    assert len(expected_warnings) >= 1
    for split in _line_starts(str(path)):
        session, warnings = _read_whole(str(path), split)
        assert warnings == expected_warnings, split
        assert session == expected, split


def _read_transcript(
    path: Path, split: int | None, monkeypatch: pytest.MonkeyPatch
) -> tuple[Session, list[ReadWarning]]:
    """Read a Claude transcript, split at `split` (with the worker's function run in-process) or not."""
    monkeypatch.setattr(claude_load, "split_offset", lambda _path, _size, _share: split)
    warnings: list[ReadWarning] = []
    info = SessionInfo(id=path.stem, agent=Agent("claude"), path=str(path), is_subagent=path.name.startswith("agent-"))
    return claude_load.load_session(info, warnings.append), warnings


@pytest.mark.source_only  # sets Claude Code's split point, which its compiled reader looks up directly
@pytest.mark.parametrize("held_whole", [True, False], ids=["texts-held", "texts-left-on-disk"])
@pytest.mark.parametrize("source", CLAUDE_FILES, ids=lambda p: p.name[-40:])
def test_every_split_point_of_a_transcript_replays_to_the_same_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_whole: bool, source: Path
) -> None:
    """The same for Claude Code: tree links, progress records, sidechains, compactions, damage."""
    path = _damaged_copy(
        source,
        tmp_path,
        [
            b'{"parentUuid":null,"type":"user","message":{"role":"user","content":"cut',
            b'{"parentUuid":null,"type":"assistant","uuid":"u-shape","message":{"content":[{"type":"text","text":5}]}',
        ],
    )
    if not held_whole:
        monkeypatch.setattr(stored_text, "FILE_BYTES", 1)
    monkeypatch.setattr(claude_split, "Aside", _InProcess)
    expected, expected_warnings = _read_transcript(path, None, monkeypatch)
    assert len(expected_warnings) >= 1 and expected.messages
    for split in _line_starts(str(path)):
        session, warnings = _read_transcript(path, split, monkeypatch)
        assert warnings == expected_warnings, split
        assert session == expected, split


def test_a_worker_that_cannot_start_leaves_the_tail_to_the_reader(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, thread = GRANDCHILD
    _install(name, isolated_homes["codex"])
    one = _load(thread, monkeypatch, one_process=True)
    monkeypatch.setattr(split_read, "SPLIT_BYTES", 0)
    monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "0")  # split, whatever CPUs this process may use
    monkeypatch.setattr(sys, "executable", str(isolated_homes["home"] / "no-such-python"))
    assert _load(thread, monkeypatch, one_process=False) == one


def test_a_worker_that_fails_reports_nothing_and_the_reader_reads_on(tmp_path: Path) -> None:
    aside = split_read.Aside(os.listdir, str(tmp_path / "missing"))  # raises in the worker
    assert list(aside.parts()) == [] and not aside.finished
    aside = split_read.Aside(sorted, [3, 1, 2])
    assert list(aside.parts()) == [1, 2, 3] and aside.finished


def _stops_after(parts: int, then: Exception) -> Iterator[int]:
    yield from range(parts)
    raise then


def test_a_worker_that_stops_midway_delivers_what_it_made() -> None:
    aside = split_read.Aside(_stops_after, 3, RuntimeError("disk gone"))
    assert list(aside.parts()) == [0, 1, 2] and not aside.finished


def test_parts_come_while_the_worker_still_works(tmp_path: Path) -> None:
    """The first part is read before the worker's last one is made (it waits for a file only the reader writes)."""
    gate = tmp_path / "gate"
    aside = split_read.Aside(_waits_for, str(gate))
    parts = aside.parts()
    assert next(parts) == "first"
    gate.write_text("go")
    assert list(parts) == ["second"] and aside.finished


def _waits_for(gate: str) -> Iterator[str]:
    yield "first"
    while not os.path.exists(gate):
        os.sched_yield()
    yield "second"


@pytest.mark.source_only  # sets Claude Code's split point, which its compiled reader looks up directly
@pytest.mark.parametrize("sent", [0, 1, 2])
def test_a_reader_reads_on_from_where_the_worker_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sent: int
) -> None:
    """The worker stops after `sent` parts: the reader reads the rest itself, and the session is the same."""
    source = next(p for p in CODEX_FILES if "compact" in p.name or p.stat().st_size > 20_000)
    path = _damaged_copy(source, tmp_path, [b'{"broken', b'{"timestamp":"2026-12-03T10:35:01.000Z","x":[1]}'])
    monkeypatch.setattr(codex_split, "BATCH", 3)
    monkeypatch.setattr(codex_split, "Aside", _InProcess)
    monkeypatch.setattr(claude_split, "BATCH", 3)
    monkeypatch.setattr(claude_split, "Aside", _InProcess)
    monkeypatch.setattr(_InProcess, "sent", sent)
    expected, expected_warnings = _read_whole(str(path), None)
    split = _line_starts(str(path))[len(_line_starts(str(path))) // 3]
    assert _read_whole(str(path), split) == (expected, expected_warnings)
    transcript = _damaged_copy(CLAUDE_FILES[0], tmp_path, [b'{"cut', b"[1]"])
    whole = _read_transcript(transcript, None, monkeypatch)
    split = _line_starts(str(transcript))[len(_line_starts(str(transcript))) // 3]
    assert _read_transcript(transcript, split, monkeypatch) == whole


def test_the_split_falls_on_a_line_start_and_not_for_small_files_or_with_one_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"".join(b'{"n":%d}\n' % n for n in range(1000)))
    size = path.stat().st_size
    assert split_read.split_offset(str(path), size) is None  # far below SPLIT_BYTES
    monkeypatch.setattr(split_read, "SPLIT_BYTES", 0)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    split = split_read.split_offset(str(path), size)
    assert split is not None and split in _line_starts(str(path))
    assert abs(split - size * (1 - split_read.TAIL_SHARE)) < 20
    head = [raw for _, _, raw, _ in iter_lines(str(path), stop=split)]
    tail = [raw for _, _, raw, _ in iter_lines(str(path), split)]
    assert head + tail == path.read_bytes().splitlines()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    assert split_read.split_offset(str(path), size) is None
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "1")
    assert split_read.split_offset(str(path), size) is None
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "0")
    assert split_read.split_offset(str(path), size) == split


@pytest.mark.parametrize(("cores", "split"), [(1, False), (2, True), (8, True)])
def test_a_second_process_is_used_when_this_one_may_run_on_two_cpus_whatever_the_load(
    monkeypatch: pytest.MonkeyPatch, cores: int, split: bool
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (50.0, 50.0, 50.0))  # others' load plays no part
    assert split_read.second_cpu() is split


def test_a_progress_bar_moves_through_both_halves_to_the_end(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from smig_tui.adapters.jsonl import reading_progress

    name, thread = GRANDCHILD
    _install(name, isolated_homes["codex"])
    monkeypatch.setattr(split_read, "SPLIT_BYTES", 0)
    monkeypatch.setenv(split_read.ONE_PROCESS_ENV, "0")  # split, whatever CPUs this process may use
    monkeypatch.setattr(codex_split, "Aside", _Spy)
    _Spy.delivered = 0
    seen: list[tuple[int, int]] = []
    with reading_progress(lambda done, total: seen.append((done, total))):
        _load(thread, monkeypatch, one_process=False)
    assert _Spy.delivered == 1
    size = seen[-1][1]
    own = [done for done, total in seen if total == size]  # the fork's own file (its parent's comes first)
    assert own == sorted(own) and own[-1] == size
    assert any(0 < done < size for done in own)


def _count(total: int | None, last: int, second: int) -> dict[str, Any]:
    usage = {"input_tokens": last, "output_tokens": 10, "total_tokens": last + 10}
    info: dict[str, Any] = {"last_token_usage": usage, "model_context_window": 258400}
    if total is not None:
        info["total_token_usage"] = {"input_tokens": total, "output_tokens": 10, "total_tokens": total + 10}
    return {
        "timestamp": f"2026-12-03T10:00:{second:02d}.000Z",
        "type": "event_msg",
        "payload": {"type": "token_count", "info": info, "rate_limits": None},
    }


def _said(text: str, role: str, second: int) -> dict[str, Any]:
    part = "input_text" if role == "user" else "output_text"
    return {
        "timestamp": f"2026-12-03T10:00:{second:02d}.000Z",
        "type": "response_item",
        "payload": {"type": "message", "role": role, "content": [{"type": part, "text": text}]},
    }


def test_repeated_token_counts_read_split_anywhere_give_the_same_usage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker leaves out a token count repeating the last one's figures; one without a total
    (applied again by the reader) is kept, and a repeat after a rollback still changes nothing."""
    import json

    meta = {"timestamp": "2026-12-03T10:00:00.000Z", "type": "session_meta", "payload": {"id": "t-1", "cwd": "/w"}}
    records = [
        meta,
        _said("hello", "user", 1),
        _said("first answer", "assistant", 2),
        _count(100, 100, 3),
        _count(100, 100, 4),
        _said("second answer", "assistant", 5),
        _count(100, 100, 6),
        _count(None, 40, 7),
        _said("third answer", "assistant", 8),
        _count(None, 40, 9),
        _said("more", "user", 10),
        _said("fourth answer", "assistant", 11),
        _count(250, 150, 12),
        {
            "timestamp": "2026-12-03T10:00:13.000Z",
            "type": "event_msg",
            "payload": {"type": "thread_rolled_back", "num_turns": 1},
        },
        _count(250, 150, 14),
        _said("after the rollback", "assistant", 15),
        _count(250, 150, 16),
        _count(300, 50, 17),
        _count(300, 50, 18),  # skipped unparsed: only its time counts
    ]
    path = tmp_path / "rollout-2026-12-03T10-00-00-t-1.jsonl"
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    monkeypatch.setattr(codex_split, "Aside", _InProcess)
    expected, _ = _read_whole(str(path), None)
    assert [m.usage.context_tokens if m.usage else None for m in expected.messages] == [None, 110, 50, 50, 60]
    assert expected.info.updated == "2026-12-03T10:00:18.000Z"
    for split in _line_starts(str(path)):
        assert _read_whole(str(path), split)[0] == expected, split

"""smig's one way of using other processes (`adapters/workers.py`): real worker processes answer in
the order asked, a call that fails or a worker that dies is reported so the caller does the work,
and a script that uses them with an unguarded `__main__` runs it once."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from smig_tui.adapters import workers
from smig_tui.adapters.workers import WorkerLost, Workers


def test_calls_are_shared_among_the_workers_and_answered_in_the_order_asked() -> None:
    with Workers(2) as pool:
        calls = [pool.submit(os.getpid) for _ in range(6)]
        answers = [call.result() for call in calls if call is not None]
        sorted_calls = [pool.submit(sorted, [n, 3, 1]) for n in range(6)]
        assert [call.result() for call in sorted_calls if call is not None] == [sorted([n, 3, 1]) for n in range(6)]
    assert len(answers) == 6 and os.getpid() not in answers
    assert len(set(answers)) == 2 and answers[0::2] == [answers[0]] * 3  # in turn, each in its own process


def test_a_worker_runs_each_call_with_the_cyclic_collector_paused() -> None:
    """A call's objects stay until it answers: collections walking them cost the search index's cold build 1.2 s."""
    with Workers(1) as pool:
        calls = [pool.submit(gc.isenabled), pool.submit(sorted, [2, 1]), pool.submit(gc.isenabled)]
        assert [call.result() for call in calls if call is not None] == [False, [1, 2], False]


def test_a_call_that_fails_there_is_lost_and_the_worker_takes_the_next(tmp_path: Path) -> None:
    with Workers(1) as pool:
        failing = pool.submit(os.listdir, str(tmp_path / "missing"))
        after = pool.submit(sorted, [3, 1, 2])
        assert failing is not None and after is not None
        with pytest.raises(WorkerLost):
            failing.result()
        assert after.result() == [1, 2, 3]


def test_a_dead_worker_loses_its_call_and_the_others_take_the_rest() -> None:
    with Workers(2) as pool:
        first, second = (pool.submit(os.getpid) for _ in range(2))
        assert first is not None and second is not None
        dead, survivor = first.result(), second.result()
        os.kill(dead, signal.SIGKILL)
        answers: list[int | None] = []
        for _ in range(4):
            call = pool.submit(os.getpid)
            assert call is not None
            try:
                answers.append(call.result())
            except WorkerLost:
                answers.append(None)
    assert answers == [None, survivor, survivor, survivor]


def test_no_worker_when_none_can_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    with Workers(2) as pool:
        assert pool.submit(os.getpid) is None
    aside = workers.Aside(sorted, [2, 1])
    assert list(aside.parts()) == [] and not aside.finished


def test_a_script_with_an_unguarded_main_runs_it_once(tmp_path: Path) -> None:
    script = tmp_path / "uses_smig.py"
    script.write_text(
        "import os\n"
        "print('main ran', flush=True)\n"
        "from smig_tui.adapters.workers import Workers\n"
        "with Workers(2) as pool:\n"
        "    calls = [pool.submit(os.getpid) for _ in range(2)]\n"
        "    print(sorted({call.result() != os.getpid() for call in calls}))\n",
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    assert done.stdout == "main ran\n[True]\n"


def test_calls_left_unread_are_stopped_not_waited_for() -> None:
    """A caller that stops early (an error, a cancelled export) does not wait for its calls: here the
    first never ends (it waits on nothing) and more, each bigger than a pipe holds, are queued behind it."""
    import select

    pool = Workers(1)
    calls = [pool.submit(select.select, [], [], [])] + [pool.submit(len, "x" * (1 << 20)) for _ in range(4)]
    assert all(call is not None for call in calls)
    pool.close()
    assert pool.submit(os.getpid) is None


def test_the_search_build_s_workers_read_a_huge_session_in_one_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker of the search index's build reads a huge file whole, not with a second process of its own:
    the build's two workers keep the CPUs busy (19.4-21.0 s of their CPU with the split, 16.7-17.8 s without).
    A plain worker, with a split asked for here, splits the same file."""
    from smig_tui.adapters.search_reading import Readers
    from smig_tui.adapters.split_read import ONE_PROCESS_ENV, SPLIT_BYTES, split_offset

    big = tmp_path / "big.jsonl"
    with open(big, "wb") as handle:  # sparse: a line break past the middle, the rest holes
        handle.seek(SPLIT_BYTES // 2 + 10)
        handle.write(b"\n")
        handle.truncate(SPLIT_BYTES)
    monkeypatch.setenv(ONE_PROCESS_ENV, "0")
    with Workers(1) as pool:
        plain = pool.submit(split_offset, str(big), SPLIT_BYTES)
        assert plain is not None and plain.result() == SPLIT_BYTES // 2 + 11
    with Readers(True) as readers:
        assert readers._pool is not None
        call = readers._pool.submit(split_offset, str(big), SPLIT_BYTES)
        assert call is not None and call.result() is None

from __future__ import annotations

import multiprocessing
import os
import stat
from pathlib import Path

import pytest

from smig_tui.adapters.fs import atomic_write, file_lock
from smig_tui.core.errors import LockedError, WriteRefusedError


def test_atomic_write_creates_private_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "f.json"
    atomic_write(target, "hello", mtime=1_700_000_000)
    assert target.read_text() == "hello"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert int(target.stat().st_mtime) == 1_700_000_000
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]  # no temp left behind


def test_no_overwrite_leaves_existing_file_alone(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "f.txt"
    target.write_text("theirs")
    with pytest.raises(WriteRefusedError):
        atomic_write(target, "ours", overwrite=False)
    assert target.read_text() == "theirs"
    assert [p.name for p in folder.iterdir()] == ["f.txt"]


def _crash_mid_write(target: str) -> None:
    import smig_tui.adapters.fs as fs

    def boom(*args: object) -> None:
        os._exit(9)  # the process dies between writing the temp file and the rename

    fs.os.replace = boom  # type: ignore[assignment]
    fs.atomic_write(Path(target), "new contents")


def test_crash_before_rename_keeps_old_contents(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old contents")
    process = multiprocessing.get_context("fork").Process(target=_crash_mid_write, args=(str(target),))
    process.start()
    process.join(600)
    assert process.exitcode == 9
    assert target.read_text() == "old contents"


def _hold_lock(lock: str, ready: multiprocessing.synchronize.Event, release: multiprocessing.synchronize.Event) -> None:
    with file_lock(Path(lock)):
        ready.set()
        release.wait(600)


def test_second_holder_gets_locked_error(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    ready, release = context.Event(), context.Event()
    lock = tmp_path / "store.lock"
    holder = context.Process(target=_hold_lock, args=(str(lock), ready, release))
    holder.start()
    try:
        assert ready.wait(600)  # a hang guard only: the holder sets it once it has the lock
        with pytest.raises(LockedError, match="Another smig instance"), file_lock(lock, what="the store"):
            pass
    finally:
        release.set()
        holder.join(600)
    with file_lock(lock):  # free again once the holder is gone
        pass

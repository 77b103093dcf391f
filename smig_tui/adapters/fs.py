"""Provides safe writes: atomic replace, no-clobber creation, and an inter-process lock.

Every file smig writes goes through here, so a crash mid-write never leaves a half file and two smig
instances never interleave.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from smig_tui.core.encoding import utf8
from smig_tui.core.errors import LockedError, SmigError, WriteRefusedError


class WriteFailedError(SmigError, OSError):
    """The system refused a write (full disk, no permission, name too long); still an OSError for callers
    that treat a failed cache write as harmless, and one sentence for everyone else."""


def write_failed(path: Path | str, error: OSError) -> WriteFailedError:
    """One sentence for an OSError met while writing `path`, keeping its errno."""
    reason = error.strerror or str(error)
    failed = WriteFailedError(f"Cannot write {path}: {reason[:1].lower()}{reason[1:]}.")
    failed.errno = error.errno
    return failed


def atomic_write(
    path: Path,
    data: bytes | str | Iterable[str] | Iterable[bytes],
    *,
    mode: int = 0o600,
    overwrite: bool = True,
    mtime: float | None = None,
    make_parents: bool = True,
) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync, then rename.

    With `overwrite=False` the final step is a hard link, which fails if `path` appeared meanwhile,
    so an existing file is never replaced even under a race. Only a regular file is ever replaced:
    a FIFO, device, folder or symbolic link at `path` is refused. `make_parents=False` is for paths a
    user typed, whose missing folder is a mistake to report, not to create. `data` may be pieces of
    text or bytes, written as they come (a whole-session export, an archived copy, is never one string in
    memory); an error raised while they come leaves nothing at `path`.
    """
    payload = utf8(data) if isinstance(data, str) else data
    try:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        _check_replaceable(path, overwrite)
        _write_via_temp(path, payload, mode, overwrite, mtime)
    except SmigError:
        raise
    except OSError as error:
        raise write_failed(path, error) from error


def _check_replaceable(path: Path, overwrite: bool) -> None:
    """Refuse early when `path` holds something that must not be replaced."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise WriteRefusedError(f"Refusing to write {path}: it is {describe_kind(info.st_mode)}, not a regular file.")
    if not overwrite:
        raise WriteRefusedError(f"Refusing to overwrite existing file {path}.")


def describe_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((word for test, word in kinds if test(mode)), "a special file")


def not_a_session_file(entry: os.DirEntry[str]) -> str | None:
    """Why an entry named like a session (`*.jsonl`) cannot be read as one, or None when it can.

    A FIFO would block a reader forever and a link loop fails every open, so such an entry is
    skipped, and the user is told once why a session they expected is not listed.
    """
    try:
        if entry.is_file():
            return None
        info = os.stat(entry.path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "named like a session but it is a symbolic link loop; skipped"
        if isinstance(error, FileNotFoundError) and os.path.islink(entry.path):
            return "named like a session but it is a symbolic link to nothing; skipped"
        return f"named like a session but cannot be read ({error.strerror or error}); skipped"
    return f"named like a session but it is {describe_kind(info.st_mode)}; skipped"


def _write_via_temp(
    path: Path, payload: bytes | Iterable[str] | Iterable[bytes], mode: int, overwrite: bool, mtime: float | None
) -> None:
    """The temp file, fsync and rename (or link) steps of `atomic_write`."""
    import tempfile  # with shutil, random and the compressors: a few ms of a start that writes nothing

    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(payload, bytes):
                handle.write(payload)
            else:
                for piece in payload:
                    handle.write(piece if isinstance(piece, bytes) else utf8(piece))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        if mtime is not None:
            os.utime(temp_name, (mtime, mtime))
        if overwrite:
            _check_replaceable(path, overwrite)  # again: something may have appeared meanwhile
            os.replace(temp_name, path)
        else:
            try:
                os.link(temp_name, path)
            except FileExistsError as error:
                raise WriteRefusedError(f"Refusing to overwrite existing file {path}.") from error
            os.unlink(temp_name)
        _fsync_dir(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable by syncing its folder (best effort where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 0.0, what: str = "this folder") -> Iterator[None]:
    """Hold an exclusive advisory lock on `path` for the block.

    Waits up to `timeout` seconds, then raises LockedError naming `what`, so a second smig instance
    gets a clear message instead of corrupting shared state.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as error:
                if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise LockedError(
                        f"Another smig instance is working on {what} (lock {path}); try again when it is done."
                    ) from error
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)

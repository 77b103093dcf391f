"""Opens zstd-compressed files as streams: Codex's `.jsonl.zst` rollouts and smig's archive.

Python 3.14 ships `compression.zstd`; older Pythons get the same module from its official backport
(`backports.zstd`), so one name serves both and nothing else in smig imports either directly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import BinaryIO, cast

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

ZstdError = zstd.ZstdError
DAMAGED = (zstd.ZstdError, EOFError)
"""What reading a corrupt or truncated zstd stream raises (EOFError: it ends before its frame does)."""
SUFFIX = ".zst"


def open_zstd_read(path: Path) -> BinaryIO:
    """A binary stream of the decompressed bytes of `path` (all frames, read lazily)."""
    return cast(BinaryIO, zstd.open(path, "rb"))


def is_compressed(path: str | Path) -> bool:
    """Tell from the name whether a file is zstd-compressed (Codex's `rollout-*.jsonl.zst`)."""
    return str(path).endswith(SUFFIX)


def open_binary(path: str | Path) -> BinaryIO:
    """Open a file for reading its (decompressed, when `.zst`) bytes as a stream."""
    if is_compressed(path):
        return open_zstd_read(Path(path))
    return open(path, "rb")


class GeneratorFile:
    """A file a generator reads (`with GeneratorFile(open_binary(path)) as handle`), closed when the
    `with` ends or when the generator is dropped before it: compiled (setup.py), a generator freed
    midway runs no `finally`, so a plain `with` there would leave its file open."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file

    def __enter__(self) -> BinaryIO:
        return self.file

    def __exit__(self, *_: object) -> None:
        self.file.close()

    def __del__(self) -> None:
        self.file.close()


def current_form(path: str) -> str:
    """The path, or its plain or compressed twin when only that exists now.

    Codex rewrites an idle rollout as `.jsonl.zst` and materialises the plain file again to append,
    deleting the other: a migration's source stays the same content under either name.
    """
    if os.path.exists(path):
        return path
    twin = path[: -len(SUFFIX)] if is_compressed(path) else path + SUFFIX
    return twin if os.path.exists(twin) else path


def content_size(path: str | Path) -> int:
    """The decompressed size of a `.zst` file: from its first frame's header when recorded there,
    else a guess of four times the compressed size (Codex rollouts pack about 4-10x)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(18)
            size = os.fstat(handle.fileno()).st_size
        recorded = zstd.get_frame_info(header).decompressed_size
    except (OSError, zstd.ZstdError):
        return 0
    return recorded if isinstance(recorded, int) else 4 * size


class Packer:
    """Packs many small texts, each into its own frame, reusing one compressor (level 1: fast).

    Not shared between threads: each reader makes its own.
    """

    def __init__(self, level: int = 1) -> None:
        self._compressor = zstd.ZstdCompressor(level=level)

    def pack(self, data: bytes) -> bytes:
        """One complete frame holding `data`."""
        return self._compressor.compress(data, zstd.ZstdCompressor.FLUSH_FRAME)


def compress_file(source: Path, target: Path, level: int = 3) -> None:
    """Write `source` compressed into `target` as one zstd frame that records its content size
    (as Codex's compressed rollouts do), a megabyte at a time."""
    compressor = zstd.ZstdCompressor(level=level)
    with open(source, "rb") as plain, open(target, "wb") as packed:
        compressor.set_pledged_input_size(os.fstat(plain.fileno()).st_size)
        while chunk := plain.read(1 << 20):
            packed.write(compressor.compress(chunk))
        packed.write(compressor.flush(zstd.ZstdCompressor.FLUSH_FRAME))


def compress(data: bytes, level: int = 3) -> bytes:
    """One zstd frame holding `data`."""
    return zstd.compress(data, level=level)


def decompress(data: bytes) -> bytes:
    """All frames of `data`, decompressed and joined."""
    return zstd.decompress(data)

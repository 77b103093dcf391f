"""Opens zstd-compressed files as streams: Codex's `.jsonl.zst` rollouts and smig's archive.

Python 3.14 ships `compression.zstd`; older Pythons get the same module from its official backport
(`backports.zstd`), so one name serves both and nothing else in smig imports either directly.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO, cast

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

ZstdError = zstd.ZstdError


def open_zstd_read(path: Path) -> BinaryIO:
    """A binary stream of the decompressed bytes of `path` (all frames, read lazily)."""
    return cast(BinaryIO, zstd.open(path, "rb"))


def compress(data: bytes, level: int = 3) -> bytes:
    """One zstd frame holding `data`."""
    return zstd.compress(data, level=level)


def decompress(data: bytes) -> bytes:
    """All frames of `data`, decompressed and joined."""
    return zstd.decompress(data)

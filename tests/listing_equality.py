"""Checks shared by the tests of the cheap listings (Qwen Code, Pi, Copilot CLI): the listing read from
a file's lines equals the whole read's field by field but the message count, or declines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from smig_devtools.corpus import SessionEntry
from smig_tui.core.models import ReadWarning, SessionInfo
from smig_tui.core.ports import SessionSource

SIZES = (3_000, 70_000, 400_000)
"""Generated sessions: one small, one past a 64 KB head, one of a few hundred lines."""


def same_as_whole(
    path: Path, cheap_expected: bool, from_ends: Callable[[Path], Any], whole: Callable[[Path], Any]
) -> None:
    """The cheap listing (or its refusal) against the whole read, field by field but the count."""
    cheap, read = from_ends(path), whole(path)
    assert (cheap is not None) is cheap_expected, path
    if cheap is not None:
        assert read.message_count is not None and cheap.message_count is None
        assert replace(read, message_count=None) == cheap


def described(
    source: SessionSource, module: ModuleType, path: Path, monkeypatch: pytest.MonkeyPatch, cheap: bool
) -> tuple[SessionInfo | None, list[str]]:
    """A source's listing entry for `path`, read cheaply or (with `listing_from_ends` declining) whole."""
    warnings: list[ReadWarning] = []
    with monkeypatch.context() as patch:
        if not cheap:
            patch.setattr(module, "listing_from_ends", lambda _path: None)
        info = source.describe(path, warnings.append)  # type: ignore[attr-defined]
    return info, [warning.message for warning in warnings]


def same_entry(source: SessionSource, module: ModuleType, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry a source lists for a recorded file is the whole read's but the count, without a warning;
    loading the session gives the count back."""
    cheap, warned = described(source, module, path, monkeypatch, cheap=True)
    whole, whole_warned = described(source, module, path, monkeypatch, cheap=False)
    assert cheap is not None and whole is not None and warned == whole_warned == []
    assert whole.message_count and cheap == replace(whole, message_count=None)
    assert source.load(cheap, lambda _warning: None).info == whole


def generated_entries(work: Path) -> list[SessionEntry]:
    """Sessions of the benchmark's generators, of `SIZES`, in two project folders."""
    return [
        SessionEntry("claude", "main", f"s{n}", "", str(work / f"p{n % 2}"), prompt=f"task {n}", size=size)
        for n, size in enumerate(SIZES)
    ]

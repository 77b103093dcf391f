"""Provides the full-screen TUI; `SmigApp` is imported lazily so importing the package loads no Textual."""

from __future__ import annotations

from typing import Any

__all__ = ["SmigApp"]


def __getattr__(name: str) -> Any:
    if name == "SmigApp":
        from smig_tui.tui.app import SmigApp

        return SmigApp
    raise AttributeError(name)

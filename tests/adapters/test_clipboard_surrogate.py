"""A lone UTF-16 surrogate (half a pair, kept by Python from a session's JSON) reaches every clipboard
way as its escape, never as a UnicodeEncodeError (issue 33)."""

from __future__ import annotations

import base64
from pathlib import Path

from smig_tui.adapters import clipboard

TEXT = "before \ud800 after"


def _catching_tool(tmp_path: Path) -> dict[str, str]:
    """A `pbcopy` on PATH that keeps what it was given in a file (no display needed)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "pbcopy"
    tool.write_text(f"#!/bin/sh\ncat > {tmp_path / 'copied'}\n")
    tool.chmod(0o755)
    return {"PATH": str(bin_dir), "HOME": str(tmp_path)}


def test_a_system_tool_gets_a_lone_surrogate_escaped(tmp_path: Path) -> None:
    env = _catching_tool(tmp_path)
    assert clipboard.copy_to_clipboard(TEXT, use_terminal=False, env=env) == "pbcopy"
    assert (tmp_path / "copied").read_bytes() == b"before \\ud800 after"
    assert clipboard.copy_with_tool(TEXT, env) == "pbcopy"
    assert (tmp_path / "copied").read_bytes() == b"before \\ud800 after"


def test_osc52_carries_a_lone_surrogate_escaped(tmp_path: Path) -> None:
    tty = tmp_path / "tty"
    assert clipboard.copy_to_clipboard(TEXT, tty_path=str(tty), env={"PATH": str(tmp_path)}) == "osc52"
    payload = tty.read_text(encoding="ascii").split(";")[-1].rstrip("\x07").split("\x1b")[0]
    assert base64.b64decode(payload) == b"before \\ud800 after"

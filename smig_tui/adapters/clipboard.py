"""Provides copying text to the clipboard: OSC 52 on a terminal, else a system tool on PATH.

OSC 52 asks the terminal itself to set the clipboard, so it works over SSH. Inside tmux or GNU
screen the sequence is wrapped in their passthrough escape, or the multiplexer would swallow it
(tmux's default `set-clipboard external` ignores a bare one from an application). Nothing comes
back to say the terminal honoured it, so callers must word the result as "sent", never "copied".
A system tool (`wl-copy`, `xclip`, `xsel`, `pbcopy`, `clip.exe`) does report success.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from collections.abc import Mapping

from smig_tui.core.encoding import utf8
from smig_tui.core.errors import SmigError

SYSTEM_TOOLS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("wl-copy", ()),
    ("xclip", ("-selection", "clipboard")),
    ("xsel", ("--clipboard", "--input")),
    ("pbcopy", ()),
    ("clip.exe", ()),
)
TTY_PATH = "/dev/tty"
"""Where the OSC 52 sequence is written: the controlling terminal, whatever stdout is piped to."""
OSC52_LIMIT = 100_000
"""Bytes of base64 most terminals accept in one OSC 52 sequence; past it a system tool is tried."""


class ClipboardError(SmigError):
    """No way to reach a clipboard was found."""


def osc52_sequence(text: str) -> str:
    """The escape sequence that asks the terminal to put `text` on the clipboard."""
    encoded = base64.b64encode(utf8(text)).decode("ascii")
    return f"\x1b]52;c;{encoded}\x07"


def for_multiplexer(sequence: str, env: Mapping[str, str]) -> str:
    """Wrap an escape sequence so tmux or GNU screen pass it through to the outer terminal."""
    if env.get("TMUX"):
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    if env.get("STY") or env.get("TERM", "").startswith("screen"):
        return "\x1bP" + sequence + "\x1b\\"
    return sequence


def multiplexer(env: Mapping[str, str]) -> str | None:
    """`tmux` or `screen` when running inside one, else None."""
    if env.get("TMUX"):
        return "tmux"
    if env.get("STY") or env.get("TERM", "").startswith("screen"):
        return "screen"
    return None


def usable_tools(env: Mapping[str, str]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(name, path, args) of the system clipboard tools on PATH that can reach a clipboard here.

    `wl-copy` needs a Wayland session and `xclip`/`xsel` an X display; without one they fail or hang.
    """
    search_path = env.get("PATH", os.defpath)
    found = []
    for name, args in SYSTEM_TOOLS:
        if name == "wl-copy" and not env.get("WAYLAND_DISPLAY"):
            continue
        if name in {"xclip", "xsel"} and not env.get("DISPLAY"):
            continue
        tool = shutil.which(name, path=search_path)
        if tool:
            found.append((name, tool, args))
    return found


def copy_with_tool(text: str, env: Mapping[str, str], timeout: float = 5.0) -> str | None:
    """Copy with the first system tool that succeeds; its name, or None when none could."""
    for name, tool, args in usable_tools(env):
        try:
            subprocess.run([tool, *args], input=text.encode("utf-8"), check=True, timeout=timeout, capture_output=True)
        except (OSError, subprocess.SubprocessError):
            continue
        return name
    return None


def copy_to_clipboard(
    text: str,
    *,
    tty_path: str | None = None,
    use_terminal: bool = True,
    env: Mapping[str, str] | None = None,
    timeout: float = 5.0,
) -> str:
    """Copy `text` and return how (`osc52`, or the tool's name); ClipboardError when nothing works."""
    sequence = osc52_sequence(text)
    tty_path = tty_path or TTY_PATH
    if use_terminal and len(sequence) <= OSC52_LIMIT:
        try:
            with open(tty_path, "w", encoding="ascii") as tty:
                tty.write(sequence)
                tty.flush()
            return "osc52"
        except OSError:
            pass  # no controlling terminal: fall back to a system tool
    search_path = (env or os.environ).get("PATH", os.defpath)
    for name, args in SYSTEM_TOOLS:
        tool = shutil.which(name, path=search_path)
        if not tool:
            continue
        try:
            subprocess.run([tool, *args], input=text.encode("utf-8"), check=True, timeout=timeout, capture_output=True)
        except (OSError, subprocess.SubprocessError):
            continue
        return name
    raise ClipboardError(
        "No clipboard available: not on a terminal and none of wl-copy, xclip, xsel, pbcopy, "
        "clip.exe is on PATH; use --out FILE instead."
    )

"""Provides copying text to the clipboard: tmux's own clipboard in tmux, OSC 52 on a terminal, else a system tool.

OSC 52 asks the terminal itself to set the clipboard, so it works over SSH. Inside tmux an
application's OSC 52 is taken only with `set-clipboard on` (tmux then keeps it as a paste buffer and
forwards it to the outer terminal); with the default `external` it is dropped, and the passthrough
escape around it is dropped too unless `allow-passthrough` is on (off by default since tmux 3.3). So
in tmux smig first hands the text to tmux itself, `tmux load-buffer -w -` (tmux 3.2 and later: a
paste buffer, and the outer terminal's clipboard as tmux sends it), then sends what tmux's settings
let through, and otherwise names the setting to change. GNU screen gets its passthrough escape.
Nothing comes back to say a terminal honoured OSC 52, so callers word that result as "sent".
A system tool (`wl-copy`, `xclip`, `xsel`, `pbcopy`, `clip.exe`) does report success.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from smig_tui.core.encoding import utf8
from smig_tui.core.errors import Hint, SmigError

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
TMUX_TIMEOUT = 5.0
"""Seconds a tmux command may take (it answers in milliseconds; this only bounds a hung server)."""
TMUX_BUFFER = "tmux"
"""How `copy_with_tool` names a copy made through `tmux load-buffer -w`."""


class ClipboardError(SmigError):
    """No way to reach a clipboard was found."""


def osc52_sequence(text: str) -> str:
    """The escape sequence that asks the terminal to put `text` on the clipboard."""
    encoded = base64.b64encode(utf8(text)).decode("ascii")
    return f"\x1b]52;c;{encoded}\x07"


def multiplexer(env: Mapping[str, str]) -> str | None:
    """`tmux` or `screen` when running inside one, else None."""
    if env.get("TMUX"):
        return "tmux"
    if env.get("STY") or env.get("TERM", "").startswith("screen"):
        return "screen"
    return None


@dataclass(frozen=True, slots=True)
class TmuxClipboard:
    """What the tmux server smig runs under does with an application's clipboard escape."""

    set_clipboard: str
    """`on`, `external` or `off` (`tmux show -gv set-clipboard`)."""
    passthrough: str
    """`on`, `all` or `off` (`allow-passthrough`, tmux 3.3 and later; `off` when tmux has no such option)."""

    @property
    def osc52(self) -> bool:
        """A plain OSC 52 from an application reaches tmux's buffer (and the outer terminal)."""
        return self.set_clipboard == "on"

    @property
    def wrapped(self) -> bool:
        """A passthrough-wrapped OSC 52 reaches the outer terminal."""
        return self.passthrough in ("on", "all")

    def advice(self) -> str:
        """The one tmux setting that makes OSC 52 from smig work, as a sentence."""
        return (
            f"tmux has set-clipboard {self.set_clipboard} and allow-passthrough {self.passthrough}, so it drops "
            "the clipboard escape: run `tmux set -g set-clipboard on` (and add it to ~/.tmux.conf)"
        )


def _tmux(args: list[str], env: Mapping[str, str], data: bytes | None = None) -> str | None:
    """Run `tmux ARGS` against the server smig runs under; its output, or None when it failed."""
    tool = shutil.which("tmux", path=env.get("PATH", os.defpath))
    if tool is None:
        return None
    try:
        done = subprocess.run(
            [tool, *args],
            input=data,
            capture_output=True,
            timeout=TMUX_TIMEOUT,
            env=dict(env),
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace").strip()


def tmux_clipboard(env: Mapping[str, str]) -> TmuxClipboard | None:
    """The clipboard settings of the tmux server smig runs under; None outside tmux or when it cannot be asked."""
    if not env.get("TMUX"):
        return None
    setting = _tmux(["show", "-gv", "set-clipboard"], env)
    if setting is None:
        return None
    passthrough = _tmux(["show", "-gv", "allow-passthrough"], env)  # no such option before tmux 3.3
    return TmuxClipboard(setting or "external", passthrough or "off")


def copy_in_tmux(text: str, env: Mapping[str, str]) -> bool:
    """Hand `text` to tmux: a paste buffer, and the outer terminal's clipboard (`load-buffer -w`, tmux 3.2+)."""
    if not env.get("TMUX"):
        return False
    return _tmux(["load-buffer", "-w", "-"], env, utf8(text)) is not None


def for_multiplexer(sequence: str, env: Mapping[str, str], tmux: TmuxClipboard | None = None) -> str:
    """The escape sequence as the multiplexer smig runs in lets it through to the clipboard.

    In tmux: plain when `set-clipboard on` takes it, wrapped in the passthrough escape when
    `allow-passthrough` lets that through (or when tmux cannot be asked); in GNU screen, wrapped.
    """
    if env.get("TMUX"):
        settings = tmux if tmux is not None else tmux_clipboard(env)
        if settings is not None and settings.osc52:
            return sequence
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    if env.get("STY") or env.get("TERM", "").startswith("screen"):
        return "\x1bP" + sequence + "\x1b\\"
    return sequence


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
    """Copy with tmux (inside tmux) or the first system tool that succeeds; its name, or None when none could."""
    if copy_in_tmux(text, env):
        return TMUX_BUFFER
    for name, tool, args in usable_tools(env):
        try:
            subprocess.run([tool, *args], input=utf8(text), check=True, timeout=timeout, capture_output=True)
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
    """Copy `text` and return how (`tmux`, `osc52`, or a tool's name); ClipboardError when nothing works.

    In tmux: tmux's own buffer first, then OSC 52 if tmux lets it through, then a system tool; when
    nothing can, the error names the tmux setting to change.
    """
    env = os.environ if env is None else env
    sequence = osc52_sequence(text)
    tmux = tmux_clipboard(env)
    if tmux is not None and copy_in_tmux(text, env):
        return TMUX_BUFFER
    blocked = tmux is not None and not (tmux.osc52 or tmux.wrapped)
    if use_terminal and not blocked and len(sequence) <= OSC52_LIMIT:
        try:
            with open(tty_path or TTY_PATH, "w", encoding="ascii") as tty:
                tty.write(for_multiplexer(sequence, env, tmux))
                tty.flush()
            return "osc52"
        except OSError:
            pass  # no controlling terminal: fall back to a system tool
    search_path = env.get("PATH", os.defpath)
    for name, args in SYSTEM_TOOLS:
        tool = shutil.which(name, path=search_path)
        if not tool:
            continue
        try:
            subprocess.run([tool, *args], input=utf8(text), check=True, timeout=timeout, capture_output=True)
        except (OSError, subprocess.SubprocessError):
            continue
        return name
    if blocked and tmux is not None:
        raise ClipboardError(f"Nothing reached the clipboard: {tmux.advice()}.", hint=Hint.TO_A_FILE)
    raise ClipboardError(
        "No clipboard available: not on a terminal and none of wl-copy, xclip, xsel, pbcopy, clip.exe is on PATH.",
        hint=Hint.TO_A_FILE,
    )


def describe_route(env: Mapping[str, str], on_terminal: bool) -> str:
    """How a copy would travel here, for `smig doctor`: asks tmux, copies nothing."""
    tmux = tmux_clipboard(env)
    tools = ", ".join(name for name, _, _ in usable_tools(env))
    if tmux is not None:
        if tmux.osc52:
            how = "tmux load-buffer -w (tmux 3.2+), else OSC 52, which set-clipboard on takes"
        elif tmux.wrapped:
            how = "tmux load-buffer -w (tmux 3.2+), else OSC 52 through allow-passthrough"
        else:
            how = f"tmux load-buffer -w (tmux 3.2+); on an older tmux, nothing: {tmux.advice()}"
        return how + (f"; system tools: {tools}" if tools else "")
    if env.get("TMUX"):
        return "inside tmux, but tmux cannot be asked (is it on PATH?)" + (f"; system tools: {tools}" if tools else "")
    how = "OSC 52 to the terminal" if on_terminal else "no terminal for OSC 52"
    via = multiplexer(env)
    how += f" (through {via}'s passthrough)" if via and on_terminal else ""
    return how + (f"; then system tools: {tools}" if tools else "; no system clipboard tool found")

"""Copying inside a real tmux (issue 29): each test starts its own tmux server on a private socket (`-L`),
copies through smig's clipboard adapter, and reads what arrived with `tmux show-buffer`.

tmux takes an application's OSC 52 only with `set-clipboard on`; with the default `external` a plain
one is dropped, and so is the passthrough-wrapped one smig used to send unless `allow-passthrough` is
on (off by default since tmux 3.3). `tmux load-buffer -w -` works whatever those settings say.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from smig_tui.adapters import clipboard

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (Debian: apt-get install tmux)")
HANG_GUARD = 600
"""Seconds before a tmux command is taken as hung (each answers in milliseconds)."""
TEXT = "smig → clipboard: ünïcode, `code`, and a second line\nend"


class Server:
    """A tmux server of its own, which the test kills at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.name = f"smig-test-{uuid.uuid4().hex[:12]}"
        self.env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(tmp_path),
            "SHELL": "/bin/sh",
            "TERM": "xterm-256color",
            "PYTHONPATH": str(Path(__file__).parents[2]),
        }
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "80", "-y", "24")
        socket = self.tmux("display-message", "-p", "#{socket_path},#{pid},0").strip()
        self.inside = {**self.env, "TMUX": socket}
        """The environment of a program running in one of this server's panes."""

    def tmux(self, *args: str, data: bytes | None = None) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-L", self.name, *args],
            input=data,
            env=self.env,
            capture_output=True,
            timeout=HANG_GUARD,
            check=True,
        )
        return done.stdout.decode("utf-8")

    def buffer(self) -> str | None:
        """The newest paste buffer, or None when tmux has none."""
        try:
            return self.tmux("show-buffer")
        except subprocess.CalledProcessError:
            return None

    def run_in_pane(self, script: Path) -> None:
        """Run a Python script in a new window (a real pane whose output tmux parses), and wait for it."""
        errors = script.with_suffix(".err")
        self.tmux("new-window", "-d", f"{sys.executable} {script} 2>{errors}; tmux wait-for -S smig-done")
        self.tmux("wait-for", "smig-done")
        assert errors.read_text(encoding="utf-8") == ""

    def kill(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.name, "kill-server"], env=self.env, capture_output=True, check=False)
        Path(self.inside["TMUX"].split(",")[0]).unlink(missing_ok=True)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(tmp_path)
    try:
        yield started
    finally:
        started.kill()


@pytest.fixture
def tmux_before_3_2(tmp_path: Path, server: Server) -> dict[str, str]:
    """The environment inside `server`, but with a `tmux` whose `load-buffer` has no `-w` (tmux 3.1 and older)."""
    bin_dir = tmp_path / "old-tmux"
    bin_dir.mkdir()
    wrapper = bin_dir / "tmux"
    wrapper.write_text(
        f'#!/bin/sh\nfor arg; do [ "$arg" = load-buffer ] && {{ echo "unknown flag -w" >&2; exit 1; }}; done\nexec {TMUX} "$@"\n'
    )
    wrapper.chmod(0o755)
    return {**server.inside, "PATH": str(bin_dir)}


def test_a_copy_in_tmux_lands_in_its_buffer_with_the_default_settings(server: Server, tmp_path: Path) -> None:
    assert server.tmux("show", "-gv", "set-clipboard").strip() == "external"  # tmux's default
    tty = tmp_path / "tty"
    assert clipboard.copy_to_clipboard(TEXT, env=server.inside, tty_path=str(tty)) == "tmux"
    assert server.buffer() == TEXT
    assert not tty.exists()  # no escape sequence was needed
    assert clipboard.copy_with_tool("second", server.inside) == "tmux" and server.buffer() == "second"  # the TUI's way


def test_with_set_clipboard_on_a_plain_osc52_reaches_tmux_and_the_wrapped_one_did_not(
    server: Server, tmp_path: Path
) -> None:
    script = tmp_path / "send_osc52.py"
    script.write_text(
        "import os\nfrom smig_tui.adapters import clipboard\n"
        f"text = {TEXT!r}\n"
        "with open('/dev/tty', 'w') as tty:\n"
        "    tty.write(clipboard.for_multiplexer(clipboard.osc52_sequence(text), os.environ))\n",
        encoding="utf-8",
    )
    old = tmp_path / "send_wrapped.py"  # what smig sent before: always the passthrough escape
    old.write_text(
        "from smig_tui.adapters import clipboard\n"
        "seq = clipboard.osc52_sequence('wrapped')\n"
        "with open('/dev/tty', 'w') as tty:\n"
        "    tty.write('\\x1bPtmux;' + seq.replace('\\x1b', '\\x1b\\x1b') + '\\x1b\\\\')\n",
        encoding="utf-8",
    )
    server.tmux("set", "-g", "set-clipboard", "on")
    server.run_in_pane(old)
    assert server.buffer() is None  # allow-passthrough is off: tmux dropped it
    server.run_in_pane(script)
    assert server.buffer() == TEXT


def test_an_older_tmux_gets_osc52_as_its_settings_let_it_through(
    server: Server, tmux_before_3_2: dict[str, str], tmp_path: Path
) -> None:
    tty = tmp_path / "tty"
    server.tmux("set", "-g", "set-clipboard", "on")
    assert clipboard.copy_to_clipboard(TEXT, env=tmux_before_3_2, tty_path=str(tty)) == "osc52"
    assert tty.read_text(encoding="ascii") == clipboard.osc52_sequence(TEXT)  # plain: tmux takes it
    server.tmux("set", "-g", "set-clipboard", "external")
    server.tmux("set", "-g", "allow-passthrough", "on")
    assert clipboard.copy_to_clipboard(TEXT, env=tmux_before_3_2, tty_path=str(tty)) == "osc52"
    assert tty.read_text(encoding="ascii").startswith("\x1bPtmux;\x1b\x1b]52;c;")  # through the passthrough


def test_when_nothing_can_reach_the_clipboard_the_tmux_option_is_named(
    server: Server, tmux_before_3_2: dict[str, str], tmp_path: Path
) -> None:
    tty = tmp_path / "tty"
    with pytest.raises(clipboard.ClipboardError, match=r"set-clipboard external .*`tmux set -g set-clipboard on`"):
        clipboard.copy_to_clipboard(TEXT, env=tmux_before_3_2, tty_path=str(tty))
    assert not tty.exists() and server.buffer() is None
    assert "tmux set -g set-clipboard on" in clipboard.describe_route(tmux_before_3_2, on_terminal=True)
    assert clipboard.describe_route(server.inside, on_terminal=True).startswith("tmux load-buffer -w")

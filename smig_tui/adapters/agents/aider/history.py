"""Provides Aider's chat-history Markdown read as Aider reads it back, and written so it reads back as meant.

Aider 0.86.2 (`--restore-chat-history`, `aider.utils.split_chat_history_markdown`) splits the file
with `str.splitlines(keepends=True)` after opening it as UTF-8 text with universal newlines: a line
starting `# ` is skipped, a `> ` line is its own notice (dropped), a `#### ` line is the user's (its
first five characters cut off), any other line the model's; consecutive lines of one role make one
message and a message of whitespace only is dropped. Before it reads, Aider appends its own header
(`\\n# aider chat started at …\\n\\n`) and a notice to the file, so the blank lines of that header end
the last reply: `restore` reads the text the same way, so `smig show` is the list the client sends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smig_tui.core.models import StoredText

HEADER = "# aider chat started at "
"""Each run of the client starts with this line (then `YYYY-MM-DD HH:MM:SS`, local time)."""
APPENDED = "\n# aider chat started at 2000-01-01 00:00:00\n\n> notice\n"
"""What the client writes to the file before it restores it (the time is skipped, the notice dropped)."""
SMIG_TITLE = "> smig: "
"""The notice line a file smig wrote names its title with (a notice: never sent to the model)."""
SMIG_LINEAGE = "> smig-lineage: "
"""The notice line that records where a written history came from (`Lineage.as_json`)."""
MODEL = re.compile(r"^> Main model: (\S+)")
VERSION = re.compile(r"^> Aider v(\S+?)\s*$")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Restored:
    """One message Aider restores: its role (`user` or `assistant`), its text, the line it starts on.

    The text is where it lies in the file when a big history's reader left it there (`history_file`)."""

    role: str
    text: str | StoredText
    line: int

    @property
    def whole(self) -> str:
        """The text itself, read back when it was left in the file."""
        text = self.text
        return text if isinstance(text, str) else text.read()


@dataclass
class History:
    """What a chat-history file says: the conversation the client restores, and what it noted about itself."""

    messages: list[Restored] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    """The time each run of the client started (`YYYY-MM-DD HH:MM:SS`, local time), in order."""
    model: str | None = None
    """The main model the last run named."""
    version: str | None = None
    """The Aider version the last run named."""
    title: str | None = None
    """The title smig gave a history it wrote (`> smig: `, among the notices before the first message),
    if any: a listing then finds it in the file's head."""
    not_text: bool = False
    """The file is not UTF-8: Aider cannot restore it (smig reads it with replacement characters)."""


def decode(data: bytes) -> tuple[str, bool]:
    """The file's text as Aider opens it (UTF-8, universal newlines), and whether it was not UTF-8."""
    try:
        text, damaged = data.decode("utf-8"), False
    except UnicodeDecodeError:
        text, damaged = data.decode("utf-8", "replace"), True
    return text.replace("\r\n", "\n").replace("\r", "\n"), damaged


def restore(text: str, not_text: bool = False) -> History:
    """Read a chat history as `--restore-chat-history` does, with the header the client appends first."""
    out = History(not_text=not_text)
    role: str | None = None
    lines: list[str] = []
    start = 0

    def flush() -> None:
        nonlocal role, lines
        if role is not None and "".join(lines).strip():
            out.messages.append(Restored(role, "".join(lines), start))
        role, lines = None, []

    whole = (text + APPENDED).splitlines(keepends=True)
    end = len(text.splitlines()) if text else 0
    # Only a line starting with `#` or `>` can be anything but the model's: the lines between two such
    # lines are taken as one run, not one by one (a history is mostly replies: code and prose).
    marked = [index for index, line in enumerate(whole) if line[0] in "#>"]
    after = 0
    for index in [*marked, len(whole)]:
        if index > after:
            if role != "assistant":
                flush()
                role, start = "assistant", after + 1
            lines.extend(whole[after:index])
        if index == len(whole):
            break
        after, number, line = index + 1, index + 1, whole[index]
        if line.startswith("# "):
            if number <= end and line.startswith(HEADER):
                out.runs.append(line[len(HEADER) :].strip())
            continue  # skipped, without ending the message it is in
        if line.startswith("> "):
            flush()
            if number <= end:
                learn_notice(out, line)
            continue
        kind, content = ("user", line[5:]) if line.startswith("#### ") else ("assistant", line)
        if kind != role:
            flush()
            role, start = kind, number
        lines.append(content)
    flush()
    return out


def learn_notice(out: History, line: str) -> None:
    """Learn what a notice line says about the run (its model, its version, smig's title)."""
    if line.startswith(SMIG_TITLE):
        if not out.messages:  # smig writes it before the first prompt; a later one is no title of smig's
            out.title = line[len(SMIG_TITLE) :].strip() or out.title
    elif (model := MODEL.match(line)) is not None:
        out.model = model.group(1)
    elif (version := VERSION.match(line)) is not None:
        out.version = version.group(1)


def started(run: str) -> datetime | None:
    """A run's start as an aware time (the header gives local time, as the client's clock had it)."""
    try:
        return datetime.strptime(run, "%Y-%m-%d %H:%M:%S").astimezone()
    except ValueError:
        return None


# --- writing ---------------------------------------------------------------------------------------


def clean(text: str) -> str:
    """Text Aider can read back: a lone surrogate (no UTF-8 for it) becomes U+FFFD, and line ends are
    `\\n` (Aider opens the file with universal newlines, so a `\\r` would become one anyway)."""
    return _SURROGATE.sub("\ufffd", text).replace("\r\n", "\n").replace("\r", "\n")


def user_block(text: str) -> str:
    """A prompt as Aider logs one: each line after `#### `, ending in two spaces (a Markdown line break)."""
    lines = clean(text).splitlines() or [""]
    return "\n" + "".join(f"#### {line}  \n" for line in lines)


def reply_block(text: str) -> str:
    """A reply as Aider logs one, each line that would read as markup (`#`, `>`, `####`) indented by a
    space: the model then gets the line, where Aider would drop it or take it for a prompt."""
    lines = clean(text).strip("\n").splitlines(keepends=True)
    body = "".join(f" {line}" if line.startswith(("# ", "> ", "#### ")) else line for line in lines)
    return "\n" + body + ("" if body.endswith("\n") else "\n") + "\n"


def notice(prefix: str, text: str) -> str:
    """One notice line (never sent to the model), on one line."""
    return prefix + " ".join(clean(text).split()) + "  \n"


def header(moment: datetime) -> str:
    """The header of a run, in the local time of `moment`, as Aider writes it."""
    return f"\n{HEADER}{moment.astimezone().strftime('%Y-%m-%d %H:%M:%S')}\n\n"

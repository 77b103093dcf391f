"""Provides what the benchmark's generated agent homes share: reuse of a home made alike, refusal of a
folder the generators did not make, and the random text their tool outputs are cut from.

Each generator (`qwen_corpus`, `copilot_corpus`, `pi_corpus`, `crush_corpus`, `aider_corpus`) writes
one session per `SessionEntry`, of the entry's size, in the folder named by the entry's `cwd`, so a
home made from the corpus's Claude sessions holds what they hold, in another agent's format.
"""

from __future__ import annotations

import json
import random
import shutil
import uuid
from pathlib import Path
from typing import Any

MARKER = "corpus.json"
"""The file a generator leaves in the folder it owns, with what it was made from."""
MIN_SIZE = 2_000
TURN_MAX = 12_000
"""The longest tool output of one turn: a big session is many turns, as users' are."""


def reusable(home: Path, wanted: dict[str, Any]) -> bool:
    """True when `home` holds what a generator made from `wanted` (reuse it as it is); else an empty
    `home` to write in, after removing what a generator made there before (anything else is refused)."""
    marker = home / MARKER
    if same(home, wanted):
        return True
    if home.exists():
        if not marker.is_file():
            raise ValueError(f"{home} exists and was not made by the corpus generator; refusing to replace it.")
        made = json.loads(marker.read_text(encoding="utf-8")).get("outside", [])
        for path in made:  # what it wrote in project folders (those folders are not its own)
            Path(path).unlink(missing_ok=True)
        shutil.rmtree(home)
    home.mkdir(parents=True)
    return False


def mark(home: Path, wanted: dict[str, Any], outside: list[Path] | None = None) -> None:
    """Record that `home` was made from `wanted`, with the files written outside it (in project folders)."""
    record = {**wanted, "outside": [str(path) for path in outside]} if outside is not None else wanted
    (home / MARKER).write_text(json.dumps(record), encoding="utf-8")


def same(home: Path, wanted: dict[str, Any]) -> bool:
    """Whether `home`'s marker says it was made from `wanted` (files written outside aside)."""
    marker = home / MARKER
    if not marker.is_file():
        return False
    record = json.loads(marker.read_text(encoding="utf-8"))
    record.pop("outside", None)
    return bool(record == wanted)


class Text:
    """Random text to cut tool outputs from (drawing every character of a big session takes minutes)."""

    def __init__(self, rng: random.Random, line: int = 18) -> None:
        """`line`: the mean length of a line (18 inside JSON strings, as the Gemini home's; Markdown
        that a reader splits into lines holds code and prose, about 40)."""
        self.rng = rng
        letters = "abcdefghij klmnop"
        self._noise = "".join("\n" if rng.random() < 1 / line else rng.choice(letters) for _ in range(1 << 18))

    def cut(self, length: int) -> str:
        """A random slice of `length` characters."""
        length = min(length, len(self._noise) - 1)
        start = self.rng.randrange(len(self._noise) - length)
        return self._noise[start : start + length]

    def uuid4(self) -> str:
        """A random (seeded) UUID version 4."""
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def turn_length(self, size: int, written: int) -> int:
        """How much tool output the next turn holds to bring a session of `written` bytes towards `size`."""
        return min(TURN_MAX, max(200, (size - written) // 2))

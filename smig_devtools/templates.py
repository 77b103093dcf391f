"""Provides pre-rendered JSONL turn templates for the synthetic corpus, and their fast filling.

A turn (prompt, reasoning, tool calls with large outputs, answer, usage events) is built once as
JSON; what must differ every time it is repeated (timestamps, uuids, call ids, chunk ids, token
figures) is a `@@SLOT@@` marker. Filling a template is a slice assignment and a join, so big files are written at
disk speed while every record stays unique and the uuid chain stays a real chain.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from smig_devtools import corpus_text as text

_SLOT = re.compile(r"@@([A-Z]+)(\d*)@@")
_RAW_SLOT = re.compile(r'"@@(N[A-Z]+)(\d*)@@"')
"""Slots named `N…` stand for JSON numbers or null, so their quotes are dropped."""

Record = dict[str, Any]


def slot(name: str, number: int | None = None) -> str:
    """Return the marker for a slot (`slot("U", 2)` → `@@U2@@`)."""
    return f"@@{name}{'' if number is None else number}@@"


@dataclass(frozen=True, slots=True)
class Template:
    """A run of JSONL lines split at its slots once, so that filling is a slice assignment and a join."""

    parts: tuple[str, ...]
    """Text segments at even indexes; the odd ones are where slot values go."""
    order: tuple[str, ...]
    """The key of each slot occurrence, in text order (timestamps numbered `T0`, `T1`…)."""
    keys: tuple[tuple[str, str, int], ...]
    """Each distinct slot except uuids and timestamps once: (key, name, number)."""
    uuids: tuple[tuple[str, int], ...]
    """Each distinct `U<n>` slot: (key, n)."""
    times: tuple[tuple[str, int], ...]
    """Each timestamp slot with the milliseconds since the one before it."""
    size: int
    """Bytes of the text without its slots (close to the filled size)."""
    lines: int
    last_uuid: int = -1
    """Which `U<n>` becomes the parent of the next template's first record (-1: unchanged)."""

    @classmethod
    def build(cls, records: Sequence[Record], last_uuid: int = -1) -> Template:
        """Render records to compact JSON lines and split them at their slots."""
        rendered = "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)
        pieces = _SLOT.split(_RAW_SLOT.sub(r"@@\1\2@@", rendered))
        segments = pieces[0::3]
        keys: dict[str, tuple[str, str, int]] = {}
        order = []
        for index, (name, number) in enumerate(zip(pieces[1::3], pieces[2::3], strict=True)):
            key = f"T{index}" if name == "T" else name + number
            keys.setdefault(key, (key, name, int(number or 0)))
            order.append(key)
        parts = [""] * (2 * len(segments) - 1)
        parts[0::2] = segments
        size = sum(len(segment.encode()) for segment in segments)
        others = tuple(k for k in keys.values() if k[1] not in ("T", "U"))
        uuids = tuple((k[0], k[2]) for k in keys.values() if k[1] == "U")
        # Deterministic, irregular gaps of 0.05-3 s between records.
        times = tuple((k[0], 50 + (i * 7919 + size) % 2950) for i, k in enumerate(keys.values()) if k[1] == "T")
        return cls(tuple(parts), tuple(order), others, uuids, times, size, rendered.count("\n"), last_uuid)


_CLOCK = [f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}." for second in range(86400)]
"""`hh:mm:ss.` for every second of a day: formatting timestamps is the generator's hottest path."""


@dataclass
class Filler:
    """Fills templates for one file, keeping its clock, uuid chain and token totals moving."""

    rng: random.Random
    clock: float
    consts: dict[str, str]
    """Per-file values: `CWD`, `MODEL`, `SID`, … ."""
    tag: str
    """Per-file hex (20 digits) that makes ids unique across files."""
    prev: str = "null"
    """JSON for the parent uuid of the next chain record."""
    rep: int = 0
    context: int = 9000
    total: int = 0
    _handlers: dict[str, Callable[[int], str]] = field(default_factory=dict)
    _day: int = -1
    _day_text: str = ""
    _ids: str = ""
    _uuid: str = ""

    def __post_init__(self) -> None:
        self._handlers = {
            "NPREV": lambda _: self.prev,
            "C": lambda n: f"call_{self._ids}{n:02x}",
            "M": lambda n: f"msg_01{self._ids}{n:02x}",
            "R": lambda n: f"req_011{self._ids}{n:02x}",
            "TU": lambda n: f"toolu_01{self._ids}{n:02x}",
            "K": lambda n: f"{(self.rep * 31 + n) & 0xFFFFFF:06x}",
            "TURN": lambda _: f"{self.tag}-turn-{self.rep}",
            "NCTX": lambda _: str(self.context),
            "NTOT": lambda _: str(self.total),
        }
        for name, value in self.consts.items():
            self._handlers[name] = _constant(value)

    def uuid(self, n: int) -> str:
        """Return the uuid of record `n` of the current repeat."""
        return f"{self._uuid}{n:03x}-{self.tag[8:20]}"

    def _times(self, template: Template, values: dict[str, str]) -> None:
        """Advance the clock through the template's timestamps and format them."""
        millis = int(self.clock * 1000) + self.rng.randrange(1, 5000)
        for key, step in template.times:
            millis += step
            whole, ms = divmod(millis, 1000)
            day, second = divmod(whole, 86400)
            if day != self._day:
                self._day, self._day_text = (
                    day,
                    time.strftime("%Y-%m-%dT", time.gmtime(day * 86400)),
                )
            values[key] = f"{self._day_text}{_CLOCK[second]}{ms:03d}Z"
        self.clock = millis / 1000

    def fill(self, template: Template) -> str:
        """Return the template's text with every slot filled for a new repeat."""
        self.rep = rep = self.rep + 1
        self._ids = f"{self.tag[:12]}{rep:07x}"
        self._uuid = prefix = f"{self.tag[:8]}-{(rep >> 12) & 0xFFFF:04x}-4{rep & 0xFFF:03x}-8"
        self.context = min(250_000, self.context + self.rng.randint(200, 4000))
        self.total += self.context
        tail = self.tag[8:20]
        values = {key: f"{prefix}{number:03x}-{tail}" for key, number in template.uuids}
        self._times(template, values)
        handlers = self._handlers
        for key, name, number in template.keys:
            values[key] = handlers[name](number)
        if template.last_uuid >= 0:
            self.prev = f'"{self.uuid(template.last_uuid)}"'
        out = list(template.parts)
        out[1::2] = [values[key] for key in template.order]
        return "".join(out)


def _constant(value: str) -> Callable[[int], str]:
    """Return a slot handler that always gives `value`."""

    def handler(_: int) -> str:
        return value

    return handler


def tool_output(rng: random.Random) -> str:
    """Return a tool output whose size has a long tail (a few lines to ~150 KB)."""
    lines = int(min(3000, max(2, rng.lognormvariate(3.2, 1.4))))
    return text.shell_output(rng, lines, "@@CWD@@" if rng.random() < 0.2 else "")


def command(rng: random.Random) -> str:
    """Return a shell command an agent would run."""
    return rng.choice(
        (
            f"rg -n '{text.ident(rng)}' {text.path(rng)}",
            f"sed -n '1,{rng.randint(40, 400)}p' {text.path(rng)}",
            f"pytest -q tests/{text.path(rng)}",
            f"git log --oneline -n {rng.randint(5, 60)}",
            f"ls -la {text.path(rng).rsplit('/', 1)[0]}",
            f"cat {text.path(rng)}",
        )
    )

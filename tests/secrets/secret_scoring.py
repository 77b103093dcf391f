"""How the secrets suites score a path: one planted secret (`Item`), every kind of both corpora,
the detector switched off to see what reaches a path, and the share of that which must be gone."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, cached_property

import pytest
from field_kinds import field_secrets
from secret_corpus import Planted, secrets

import smig_tui.core.redact as detector

POSITIONS = ("user", "tool-call", "tool-output", "assistant")
MIN_CAUGHT = 0.98
KINDS = 150
"""At least this many kinds of secret reach every full path."""


@dataclass(frozen=True)
class Item:
    """One planted secret: which agent's session, where in it, and the secret itself."""

    agent: str
    position: str
    planted: Planted

    @cached_property
    def _needles(self) -> tuple[str, ...]:
        """Each fragment as written and JSON-escaped, each form once: most fragments escape to themselves,
        and `shows_in` scanned a path's whole text twice for them (5 of the secrets suite's 29 s of CPU)."""
        return tuple(dict.fromkeys(form for fragment in self.planted.secrets for form in _forms(fragment)))

    def shows_in(self, text: str) -> bool:
        """Whether any fragment of the secret is in `text`, as written or JSON-escaped."""
        return any(needle in text for needle in self._needles)


def _forms(fragment: str) -> tuple[str, str]:
    """A fragment as written and as JSON escapes it inside a string."""
    return fragment, json.dumps(fragment)[1:-1]


def every_kind(seed: int) -> list[Planted]:
    """One secret of every kind of both corpora (a new list each call; the secrets are frozen)."""
    return list(_every_kind(seed))


@cache
def _every_kind(seed: int) -> tuple[Planted, ...]:
    """Drawn once per seed and process: the suite plants the same seeds in every test's homes."""
    return (*secrets(seed), *field_secrets(seed))


@contextmanager
def detector_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Switch every rule of the detector off: whatever a path shows now is what reaches it."""
    with monkeypatch.context() as patch:
        patch.setattr(detector, "_PATTERNS", ())
        patch.setattr(detector, "_NAME_NEEDLES", ())
        patch.setattr(detector, "_WORD_CORES", ())  # the automaton finds name cores itself
        yield


def score(
    name: str,
    items: list[Item],
    run: Callable[[], str],
    monkeypatch: pytest.MonkeyPatch,
    min_reaching: int = KINDS * len(POSITIONS),
) -> None:
    """Run a path without and with redaction; at least 98% of the secrets that reach it must be gone."""
    with detector_off(monkeypatch):
        raw = run()
    reaching = [item for item in items if item.shows_in(raw)]
    assert len(reaching) >= min_reaching, f"{name}: only {len(reaching)} planted secrets reach this path"
    assert len({item.planted.kind for item in reaching}) >= KINDS or min_reaching < KINDS
    out = run()
    leaked = [item for item in reaching if item.shows_in(out)]
    caught = 1 - len(leaked) / len(reaching)
    print(
        f"secrets suite: {name}: {len(reaching) - len(leaked)} of {len(reaching)} caught ({caught:.1%})"
        + "".join(f"; missed {item.position} {item.planted.kind}" for item in leaked)
    )
    assert caught >= MIN_CAUGHT, f"{name}: leaked {[(i.position, i.planted.kind) for i in leaked]}"


def every_page(call: Callable[[int], dict]) -> str:
    """Every page of a paged MCP reply as one text; paged text is joined as it was cut, so a secret
    split across two pages would still show."""
    offset: int | None = 0
    replies, text = [], []
    while offset is not None:
        page = call(offset)
        for key in ("content", "text"):
            if isinstance(page.get(key), str):
                text.append(page.pop(key))
        replies.append(json.dumps(page, ensure_ascii=False))
        offset = page["next_offset"]
    return "\n".join(replies) + "\n" + "".join(text)

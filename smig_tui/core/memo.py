"""Provides the in-memory caches of `Services`: explicit, bounded, and safe for the TUI's concurrent workers.

A value is computed outside the lock (counting a session can take seconds, and another worker should
not wait for it); when two workers compute the same one, the first stored wins, so both see one value.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
O = TypeVar("O")  # noqa: E741 - the object an identity memo is keyed by


class Memo(Generic[K, V]):
    """Values by a hashable key, the `size` most recently used kept (all of them when `size` is None)."""

    def __init__(self, size: int | None = None) -> None:
        self._size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value for `key`, made by `make()` the first time."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        with self._lock:
            value = self._values.setdefault(key, value)
            self._values.move_to_end(key)
            while self._size is not None and len(self._values) > self._size:
                self._values.popitem(last=False)
        return value

    def put(self, key: K, value: V) -> None:
        """Set the value for `key` (a test's counter, a value known another way)."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)

    def items(self) -> list[tuple[K, V]]:
        """The keys and values held now, least recently used first."""
        with self._lock:
            return list(self._values.items())

    def discard(self, key: K) -> None:
        """Forget `key`'s value, if one is held."""
        with self._lock:
            self._values.pop(key, None)


class IdentityMemo(Generic[O, V]):
    """Values computed from one object (a session, its messages), for the `size` objects most recently used.

    Keyed by the object itself, not its content: two readings of a file are separate sessions, and an
    MCP chat has no file to key by. Each entry holds its object, so no other object can take its `id`
    while the value is kept. An object that nothing but this memo holds any more can never be asked
    about again, so its entries are dropped at the next `get` (or `drop_released`): bounded only by its
    count of entries, a memo kept every session read and let go until newer ones pushed it out (three
    500 MB sessions read and planned in turn, each dropped by its caller, held 607 MB), in the TUI and
    the MCP server, which live on.
    """

    def __init__(self, size: int) -> None:
        self._entries: Memo[tuple[int, Hashable], tuple[O, V]] = Memo(size)

    def get(self, owner: O, make: Callable[[], V], tag: Hashable = None) -> V:
        """The value for `owner` (and `tag`, e.g. the encoding it was counted with), made the first time."""
        value = self._entries.get((id(owner), tag), lambda: (owner, make()))[1]
        self.drop_released()
        return value

    def drop_released(self) -> None:
        """Drop the entries of objects held by nothing but them."""
        entries = self._entries.items()
        held = Counter(id(entry[0]) for _, entry in entries)
        for key, (owner, _) in entries:
            # The references counted: one per entry of `owner`, `owner` here, getrefcount's argument.
            if sys.getrefcount(owner) <= held[id(owner)] + 2:
                self._entries.discard(key)

    def __len__(self) -> int:
        return len(self._entries)

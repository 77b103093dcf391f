"""Provides `on_first_use`: a regular expression compiled the first time it is used, not at import.

The secret detector holds about two hundred expressions, and compiling them cost about 25 ms of CPU
in every process that imported it: a sixth of a whole `smig search` whose index is fresh, which then
redacts a few snippets that need a handful of them. Each expression stays as written where it is
declared; only its compilation waits.
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")


class _CompiledOnUse:
    """Stands for `re.compile(pattern, flags)`: the first attribute asked for compiles it, and its
    methods then sit on this object, so later calls cost what a compiled pattern's cost."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # only for what is not set yet: once per object
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.flags, self.groups, self.groupindex = compiled.flags, compiled.groups, compiled.groupindex
        return getattr(compiled, name)

    def __reduce__(self) -> tuple[Any, ...]:
        return on_first_use, (self.pattern, self._flags)

    def __repr__(self) -> str:
        return f"on_first_use({self.pattern!r})"


def on_first_use(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done when the pattern is first used."""
    return cast("re.Pattern[str]", _CompiledOnUse(pattern, flags))

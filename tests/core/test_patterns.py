"""`on_first_use`: a pattern compiled when first used behaves as the compiled pattern does."""

from __future__ import annotations

import pickle
import re

from smig_tui.core.patterns import on_first_use


def test_it_answers_as_re_compile_does() -> None:
    lazy, eager = on_first_use(r"(?P<word>b\w+)", re.IGNORECASE), re.compile(r"(?P<word>b\w+)", re.IGNORECASE)
    text = "a Bird, a bee and a boat"
    assert lazy.pattern == eager.pattern
    assert [m.group("word") for m in lazy.finditer(text)] == [m.group("word") for m in eager.finditer(text)]
    assert lazy.sub("x", text) == eager.sub("x", text)
    assert lazy.search(text).span() == eager.search(text).span()  # type: ignore[union-attr]
    assert (lazy.flags, lazy.groups, dict(lazy.groupindex)) == (eager.flags, eager.groups, dict(eager.groupindex))
    assert pickle.loads(pickle.dumps(lazy)).findall(text) == eager.findall(text)


def test_its_source_is_read_without_compiling() -> None:
    broken = on_first_use("(unclosed")
    assert broken.pattern == "(unclosed"  # only a use compiles it (and then says what is wrong)
    try:
        broken.search("x")
    except re.error:
        return
    raise AssertionError("a broken pattern compiled")

"""The caches of `Services`: bounded, keyed by the object they describe, one value under concurrent workers."""

from __future__ import annotations

import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

from smig_tui.core.memo import IdentityMemo, Memo


def test_concurrent_workers_all_get_the_one_value_stored_first() -> None:
    memo: Memo[str, object] = Memo()
    start = threading.Barrier(8)
    made: list[object] = []

    def make() -> object:
        value = object()
        made.append(value)
        return value

    def worker() -> object:
        start.wait()  # every worker asks at once
        return memo.get("o200k_base", make)

    with ThreadPoolExecutor(8) as pool:
        seen = list(pool.map(lambda _: worker(), range(8)))
    assert len({id(value) for value in seen}) == 1 and seen[0] is made[0]
    assert memo.get("o200k_base", make) is seen[0] and len(memo) == 1


def test_a_bounded_memo_forgets_the_least_recently_used() -> None:
    memo: Memo[int, int] = Memo(2)
    calls: list[int] = []

    def square(n: int) -> int:
        calls.append(n)
        return n * n

    for n in (1, 2, 1, 3):  # 1 is used again, so 2 is the one forgotten when 3 comes
        memo.get(n, lambda n=n: square(n))
    memo.get(1, lambda: square(1))
    memo.get(2, lambda: square(2))
    assert calls == [1, 2, 3, 2]


def test_an_identity_memo_tells_equal_objects_apart_and_keys_by_tag() -> None:
    memo: IdentityMemo[list[str], str] = IdentityMemo(4)
    first, second = ["same"], ["same"]
    assert memo.get(first, lambda: "first") == "first"
    assert memo.get(second, lambda: "second") == "second"  # equal content, another reading
    assert memo.get(first, lambda: "again") == "first"
    assert memo.get(first, lambda: "cl100k", tag="cl100k_base") == "cl100k"
    assert len(memo) == 3


def test_an_identity_memo_holds_its_objects_only_while_they_are_among_the_newest() -> None:
    memo: IdentityMemo[list[int], int] = IdentityMemo(2)
    owners = [[n] for n in range(3)]
    for n, owner in enumerate(owners):
        memo.get(owner, lambda n=n: n)
    assert memo.get(owners[0], lambda: -1) == -1  # evicted, so made again
    assert memo.get(owners[2], lambda: -1) == 2


class Owner:
    """An object the memo describes, which a weak reference can watch."""


def test_an_identity_memo_drops_what_only_it_still_holds() -> None:
    """It is keyed by the object itself: one nobody else holds can never be asked about again."""
    memo: IdentityMemo[Owner, str] = IdentityMemo(8)
    kept, let_go = Owner(), Owner()
    memo.get(kept, lambda: "kept")
    memo.get(let_go, lambda: "let go")
    memo.get(let_go, lambda: "counted", tag="cl100k_base")
    watch = weakref.ref(let_go)
    del let_go
    assert watch() is not None  # the memo still holds it ...
    assert memo.get(kept, lambda: "again") == "kept"  # ... until its next use
    assert watch() is None and len(memo) == 1
    other = Owner()
    memo.get(other, lambda: "other")
    memo.drop_released()  # or when asked to, with nothing new
    assert len(memo) == 2
    del other
    memo.drop_released()
    assert len(memo) == 1 and memo.get(kept, lambda: "again") == "kept"

"""Provides token counting: each message counted once per encoding (on disk and in memory), newest first."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from smig_tui.core.memo import IdentityMemo, Memo
from smig_tui.services.base import ServicesBase

if TYPE_CHECKING:
    from smig_tui.adapters.storage.token_cache import Known
    from smig_tui.core.calibration import Growth
    from smig_tui.core.models import Message, ModelCapacity, Session
    from smig_tui.core.ports import TokenCounter
    from smig_tui.core.text_classes import CountMix


@dataclass
class _Counted:
    """What counting one session's messages for one encoding has learnt so far (see `count_newest`)."""

    known: Known
    """The exact counts, from the token cache and counted since; None where a message is still a guess."""
    guesses: list[int] | None = None
    """Each message's length guess, made once the first time one is needed."""
    version: int = 0
    """Bumped each time guesses become counts, so the views below are made again."""
    views: dict[float, tuple[int, list[int], frozenset[int]]] = field(default_factory=dict)
    """Per calibration factor: the `version` it was made at, the calibrated counts (guesses where
    not counted) and the indices still guessed. A target switch plans several times on the same
    counts; merging 150,000 of them each time cost more than the plan."""
    guessed_ids: tuple[int, frozenset[str]] | None = None
    """The ids of the messages still guessed, and the `version` they were taken at."""
    growth: tuple[int, Growth] | None = None
    """The session's logged prompt growth against these counts, and the `version` it was measured at."""
    mix: tuple[int, CountMix] | None = None
    """How these counts fall in text classes (for a target measured per class), and the `version`."""
    parts: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Huge messages counted only in part (`core.tokens.count_at_least`): the part's count, and the
    guess it gives of the whole (the part's count scaled to the whole length), in place of the length guess."""


@dataclass
class Counting(ServicesBase):
    """Counts a session's messages as a target model's tokenizer does, exact where a plan needs it."""

    counters: Memo[str, TokenCounter] = field(default_factory=Memo, init=False, repr=False, compare=False)
    """Each encoding's counter, loaded once per process."""
    _counted: IdentityMemo[tuple[Message, ...], _Counted] = field(
        default_factory=lambda: IdentityMemo(8), init=False, repr=False, compare=False
    )
    """Counts of the sessions in use, by their messages and the encoding."""
    _measured: Memo[tuple[str, str | bytes], int] = field(
        default_factory=lambda: Memo(100_000), init=False, repr=False, compare=False
    )
    """Tokens of synthetic texts (placeholders, shortened outputs), by encoding and text (a long one by
    its digest: a huge session's shortened outputs would otherwise be held twice)."""

    def counter_for(self, capacity: ModelCapacity) -> TokenCounter:
        """The counter for a model's encoding, loaded once per process (an estimate offline); for a
        family measured per class of text, that encoding's count scaled per class."""
        base = self.counters.get(capacity.encoding, lambda: self.make_counter(capacity.encoding))
        if not capacity.class_calibration or not base.exact:
            return base
        from smig_tui.adapters.tokenizers.class_counter import ClassCounter

        scales = {name: factor / capacity.calibration for name, factor, _ in capacity.class_calibration}
        key = f"{capacity.encoding}|{capacity.tokenizer}|{sorted(scales.items())}"
        return self.counters.get(key, lambda: ClassCounter(base, capacity.tokenizer or "custom", scales))

    def make_counter(self, encoding: str) -> TokenCounter:
        """A new counter for `encoding`, its ranks kept ready in smig's cache for the next process."""
        from smig_tui.adapters.tokenizers.tiktoken_counter import SavedLoader, make_counter

        return make_counter(encoding, SavedLoader(self.paths.cache_dir / "tokenizers"))

    def count_session(self, session: Session, capacity: ModelCapacity) -> list[int]:
        """Each message's tokens as `capacity` counts them, all exact (cached on disk and in memory)."""
        return self.count_newest(session, capacity)[0]

    def count_newest(
        self,
        session: Session,
        capacity: ModelCapacity,
        need: float = float("inf"),
        indices: Iterable[int] = (),
        skip: Container[int] = (),
    ) -> tuple[list[int], frozenset[int]]:
        """Counts exact from the newest message back until the migratable tail passes `need`, plus `indices`.

        Older messages keep a length guess (`core.tokens.estimate`); returns the calibrated counts and
        the indices still guessed. Exact counts are cached on disk, guesses never are.
        """
        _, counts, guessed = self._counted_view(session, capacity, need, indices, skip)
        return list(counts), guessed

    def _counted_view(
        self,
        session: Session,
        capacity: ModelCapacity,
        need: float,
        indices: Iterable[int] = (),
        skip: Container[int] = (),
    ) -> tuple[int, list[int], frozenset[int]]:
        """`count_newest`'s counting, returning the shared view (never to be changed) and its version."""
        from smig_tui.core.tokens import calibrate, count_at_least, count_messages, count_newest, estimates

        counter = self.counter_for(capacity)
        state = self._counted_state(session, counter)
        messages, known = session.messages, state.known
        counts: list[int | None] = known.counts

        def count(batch: list[int]) -> list[int]:
            return count_messages([messages[i] for i in batch], counter)

        def at_least(index: int, limit: float) -> tuple[int, int | None]:
            return count_at_least(messages[index], counter, limit)

        parts = dict(state.parts)
        counted = count_newest(messages, counts, need, count, skip, capacity.calibration, at_least, state.parts)
        if state.parts != parts:
            state.version += 1
        extra = [i for i in dict.fromkeys(indices) if counts[i] is None]
        for i, n in zip(extra, count(extra) if extra else [], strict=True):
            counts[i] = n
        if counted or extra:
            self.token_cache.remember(session, counter, known)
            state.version += 1
        factor, version = capacity.calibration, state.version
        view = state.views.get(factor)
        if view is None or view[0] != version:
            guessed = frozenset(i for i, n in enumerate(counts) if n is None)
            if guessed and state.guesses is None:
                state.guesses = estimates(messages)
            guesses = state.guesses or []
            for index, (_, part_guess) in state.parts.items():
                guesses[index] = part_guess
            merged: list[int] = [guesses[i] if n is None else n for i, n in enumerate(counts)]
            view = version, calibrate(merged, factor), guessed
            state.views[factor] = view
        return view

    def _counted_state(self, session: Session, counter: TokenCounter) -> _Counted:
        """What counting `session` with `counter` has learnt so far (the token cache's counts at first)."""
        return self._counted.get(
            session.messages, lambda: _Counted(self.token_cache.known(session, counter)), tag=counter.name
        )

    def count_mix(self, session: Session, capacity: ModelCapacity) -> CountMix | None:
        """How `session`'s tokens fall in text classes for `capacity` and the ± that mix gives, for a
        target measured per class (None otherwise: its single ± holds). Counts nothing new."""
        if not capacity.class_calibration:
            return None
        from smig_tui.core.text_classes import count_mix

        version, counts, _ = self._counted_view(session, capacity, need=-1)
        state = self._counted_state(session, self.counter_for(capacity))
        if state.mix is None or state.mix[0] != version:
            errors = {name: error for name, _, error in capacity.class_calibration}
            state.mix = version, count_mix(session.messages, counts, errors, capacity.calibration_error)
        return state.mix[1]

    def guessed_ids(self, session: Session, capacity: ModelCapacity) -> frozenset[str]:
        """Ids of the messages whose tokens are still a length guess for `capacity` (nothing new is counted)."""
        state = self._counted_state(session, self.counter_for(capacity))
        version = state.version
        if state.guessed_ids is None or state.guessed_ids[0] != version:
            _, _, guessed = self._counted_view(session, capacity, need=-1)
            messages = session.messages
            state.guessed_ids = version, frozenset(messages[i].id for i in guessed)
        return state.guessed_ids[1]

    def counted_messages(self, session: Session, capacity: ModelCapacity) -> int:
        """How many of the session's messages `capacity`'s tokenizer has counted so far (the rest are guesses).

        Counts only replace guesses, so a plan begun when this was lower was made on older counts.
        """
        counter = self.counter_for(capacity)
        state = self._counted_state(session, counter)
        counts = state.known.counts
        return len(counts) - counts.count(None)

    MEASURED_KEY_CHARS = 256
    """Texts longer than this are remembered by their digest in `_measured`."""

    def measure_for(self, capacity: ModelCapacity) -> Callable[[str], int]:
        """Count a synthetic message (placeholder, shortened output) for `capacity`, memoised."""
        from smig_tui.core.tokens import calibrate_one

        counter = self.counter_for(capacity)

        def measure(text: str) -> int:
            # A long text (a shortened tool output's head and tail) is remembered by its digest, not kept.
            key = (
                text
                if len(text) <= self.MEASURED_KEY_CHARS
                else hashlib.blake2b(text.encode(), digest_size=16).digest()
            )
            tokens = self._measured.get((counter.name, key), lambda: self._count_measured(counter, text))
            return calibrate_one(tokens, capacity.calibration)

        return measure

    def _count_measured(self, counter: TokenCounter, text: str) -> int:
        """A synthetic message's tokens; an exact count an earlier plan made (and saved) is read from the disk."""
        from smig_tui.core.tokens import MESSAGE_OVERHEAD

        if not counter.exact:  # estimates are never kept
            return counter.count(text) + MESSAGE_OVERHEAD
        tokens = self.measured_counts.get(counter.name, text)
        if tokens is None:
            tokens = counter.count(text)
            self.measured_counts.put(counter.name, text, tokens)
        return tokens + MESSAGE_OVERHEAD

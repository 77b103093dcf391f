"""Provides migration plans: pure functions over per-message token counts, cheap to recompute.

Rules every plan follows (and the tests hold it to):

- Never migrated, in any plan: harness-injected context (`Message.injected`: AGENTS.md, environment
  blocks, permission notes; the target agent injects its own), opaque reasoning (encrypted, and no
  other provider accepts it), and tool calls or results whose partner is missing (a dangling call
  at the end of an interrupted session, or a result whose call was compacted away): target APIs
  reject a call without its result.
- Messages move in units: a tool call with its result(s), the blocks of one Claude record (`id#n`),
  and reasoning with the message it led to. A plan keeps or drops a unit whole.
- Truncation keeps a contiguous newest tail and puts a placeholder note first, counted in the
  budget. Pinned messages (and, with `pin_first_user`, the first message a person typed) are kept
  whatever their age and are charged before anything else.
- `tokens_after <= decision.budget` whenever that is possible; when even the pins do not fit, the
  plan says so in `notes` instead of failing.

Counts are the target's (already calibrated); `measure(text)` counts a synthetic message (the
placeholder, a shortened tool output) the same way. Callers memoise it, so re-planning for another
target costs O(n) and no tokenizer work for the session itself.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate
from operator import mul

from smig_tui.core.models import (
    Decision,
    Kind,
    Message,
    Plan,
    PlanItems,
    Role,
    Session,
    Strategy,
    fates,
)
from smig_tui.core.plan_structure import NOT_MIGRATED, Structure, analyse, is_typed_prompt, never_migrated
from smig_tui.core.redact import LINE_MARGIN, cut_outside_secrets, redacted_line
from smig_tui.core.strategies import needs_summary
from smig_tui.core.tokens import MESSAGE_OVERHEAD

Measure = Callable[[str], int]
"""Tokens of a message with this text, as the target counts it (framing included)."""

PREVIEW_CHARS = 200
PLACEHOLDER_ID = "smig-placeholder"
SUMMARY_ID = "smig-summary"
KEEP_RECENT_TOOLS = 8
"""tools-first never shortens or drops the newest this many tool exchanges."""
SHORTEN_MIN_TOKENS = 300
"""Tool outputs smaller than this are left alone by tools-first."""
HEAD_LINES = 20
TAIL_LINES = 10
EDGE_CHARS = 1_500
"""Most characters kept at each end of a shortened output (long lines stay bounded)."""
DEFAULT_SUMMARY_BUDGET = 6_000

R_FITS, R_NEWEST, R_PINNED, R_FIRST_USER = "fits", "newest", "pinned", "first user message"
R_OVER = "over budget"
R_SHORTENED, R_OLD_TOOL, R_SUMMARISED = "tool output shortened", "old tool pair dropped", "summarised"
R_NEWEST_PROMPT = "newest prompt"
LEFT_OUT_REASONS = frozenset({R_OVER, R_OLD_TOOL, R_SUMMARISED})
"""Why a conversation message is left out; never-migrated harness context is not counted as left out."""
PROMPT_ELISION = "[… {chars:,} characters / {tokens:,} tokens elided by smig …]"


@dataclass
class _State:
    """Working arrays for one plan: per-message tokens, texts, fates and units."""

    messages: Sequence[Message]
    tokens: list[int]
    unit: list[int]
    skip: dict[int, str]
    """Never-migrated messages and why."""
    pinned: dict[int, str]
    texts: dict[int, str]
    originals: dict[int, int]
    shape: Structure
    outputs: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    """Shortened tool outputs as (head, marker, tail): the text is joined only for those kept."""

    def eligible(self, i: int) -> bool:
        """Tell whether message `i` can be migrated at all."""
        return i not in self.skip


def prepare(
    session: Session,
    counts: Sequence[int],
    pins: frozenset[str] = frozenset(),
    pin_first_user: bool = False,
    structure: Structure | None = None,
) -> _State:
    """Set up a plan's working state: the session's structure, its counts and its pins."""
    messages = session.messages
    if len(counts) != len(messages):
        raise ValueError(f"{len(counts)} counts for {len(messages)} messages")
    shape = structure or analyse(session)
    state = _State(messages, list(counts), shape.unit, shape.skip, {}, {}, {}, shape)
    wanted = {i: R_PINNED for i, m in enumerate(messages) if m.id in pins} if pins else {}
    if pin_first_user and shape.first_user is not None:
        wanted.setdefault(shape.first_user, R_FIRST_USER)
    for i, why in wanted.items():
        for j in shape.members[shape.unit[i]]:
            if j not in shape.skip:
                state.pinned.setdefault(j, why)
    return state


def placeholder_text(omitted: int, tokens: int, preview: str, what: str = "earlier messages") -> str:
    """Return the note that stands in for dropped messages."""
    began = f" The conversation began with: «{preview}»" if preview else ""
    return f"[smig: {omitted} {what} omitted ({tokens:,} tokens).{began}]"


def preview_of(message: Message | None, limit: int = PREVIEW_CHARS) -> str:
    """Return a one-line preview of a message, about `limit` characters."""
    if message is None:
        return ""
    # Redacted before cutting (`LINE_MARGIN` past what is shown), so the cut never leaves half a secret.
    return redacted_line(message.head(limit + LINE_MARGIN), limit) or ""


def _total(state: _State) -> int:
    """Sum the current tokens of the eligible messages."""
    return _sum_but(state.tokens, state.skip)


def _sum_but(counts: Sequence[int], skip: Collection[int]) -> int:
    """Sum `counts` except at the indices in `skip` (the whole sum first: most messages are eligible)."""
    return sum(counts) - sum(map(counts.__getitem__, skip))


def _truncate(
    state: _State, budget: int, measure: Measure, dropped: set[int], what: str = "earlier messages"
) -> tuple[int, str | None, int]:
    """Pick the smallest valid cut that fits; return (cut, placeholder, placeholder tokens).

    `dropped` already holds messages removed by earlier steps; they count as omitted. One pass
    over prefix sums, and `measure` is called once for a bound and once per candidate cut that
    the bound lets through (almost always one).
    """
    n = len(state.messages)
    pinned, tokens, originals = state.pinned, state.tokens, state.originals
    live = _live(state, dropped)
    live_tokens = list(map(mul, tokens, live))
    suffix = list(accumulate(reversed(live_tokens), initial=0))[::-1]
    before_count = list(accumulate(live, initial=0))
    live_originals = [originals.get(i, t) if live[i] else 0 for i, t in enumerate(tokens)] if originals else live_tokens
    before_tokens = list(accumulate(live_originals, initial=0))
    pins = sum(tokens[i] for i in pinned)
    gone = _dropped_tokens(state, dropped)
    pick = _PreviewPicker(state, live, dropped)
    bound = measure(placeholder_text(before_count[n] + len(dropped), before_tokens[n] + gone, pick(n), what))
    valid = state.shape.valid
    start = 0
    while start <= n and before_count[start] + len(dropped) == 0:  # cuts that omit nothing need no note
        if valid[start] and suffix[start] + pins <= budget:
            return start, None, 0
        start += 1
    if start > n:
        return n, None, 0
    if min(live_tokens, default=0) >= 0:  # counts are never negative: the tail only shrinks as the cut moves
        start = _first_within(suffix, budget - pins - bound, start, n)
    for k in range(start, n + 1):
        if not valid[k] or (suffix[k] + pins + bound > budget and k < n):
            continue
        text = placeholder_text(before_count[k] + len(dropped), before_tokens[k] + gone, pick(k), what)
        cost = measure(text)
        if suffix[k] + pins + cost <= budget or k == n:
            return k, text, cost
    return n, None, 0


def _live(state: _State, dropped: set[int]) -> bytearray:
    """1 for each message a cut may still omit (not skipped, pinned or dropped), else 0: marked from
    those few sets rather than asking three of them about every message."""
    live = bytearray(b"\x01") * len(state.messages)
    for taken in (state.skip, state.pinned, dropped):
        for i in taken:
            live[i] = 0
    return live


def _first_within(suffix: list[int], limit: int, start: int, n: int) -> int:
    """The first cut from `start` whose kept tail is at most `limit` (at most `n`), by bisection of
    the shrinking tail: the cuts before it cannot fit even with the note at its bound."""
    return min(n, start + bisect_left(range(start, n + 1), True, key=lambda k: suffix[k] <= limit))


class _PreviewPicker:
    """Chooses what the placeholder quotes: the earliest omitted prose, else the earliest omitted message."""

    def __init__(self, state: _State, live: bytearray, dropped: set[int]) -> None:
        messages = state.messages

        def omittable() -> Iterator[int]:
            return (i for i, alive in enumerate(live) if alive or i in dropped)

        # Only the first of each is quoted: the scans stop there instead of listing every message.
        first_text = next((i for i in omittable() if messages[i].kind is Kind.TEXT), None)
        dropped_text = min((i for i in dropped if messages[i].kind is Kind.TEXT), default=None)
        self._messages = messages
        self._dropped = dropped
        choices = (first_text, dropped_text, next(omittable(), None), min(dropped, default=None))
        self._order = [i for i in choices if i is not None]

    def __call__(self, cut: int) -> str:
        """Return the preview for a plan that omits live messages before `cut` plus the dropped ones."""
        for index in self._order:
            if index < cut or index in self._dropped:
                return preview_of(self._messages[index])
        return ""


def left_out(plan: Plan) -> tuple[int, int]:
    """Count the conversation messages a plan leaves out and their tokens (before any shortening).

    The one figure notes, placeholders, `smig plan`, the TUI and MCP all give: harness context
    (AGENTS.md, environment blocks, `/compact` wrappers), opaque reasoning and orphaned tool halves
    are never migrated by any plan, so they are not "left out" of this one.
    """
    if isinstance(plan.items, PlanItems):
        return plan.items.tally(LEFT_OUT_REASONS)
    tokens = [n for kept, reason, n in fates(plan.items) if not kept and reason in LEFT_OUT_REASONS]
    return len(tokens), sum(tokens)


class _AllBut:
    """Every reason but some: what `PlanItems.tally` counts when it is asked for all the others."""

    __slots__ = ("excluded",)

    def __init__(self, excluded: frozenset[str]) -> None:
        self.excluded = excluded

    def __contains__(self, reason: object) -> bool:
        return reason not in self.excluded


def omitted(plan: Plan) -> tuple[int, int]:
    """Count the messages a plan drops that some plan could migrate (every dropped one but those
    `NOT_MIGRATED`), and their tokens as their items show them: the omission note's figures.

    From the columns when the items are `PlanItems`: a 500 MB session's plan drops 138,000
    messages, and building an item for each to read its reason cost a third of a second."""
    if isinstance(plan.items, PlanItems):
        return plan.items.tally(_AllBut(NOT_MIGRATED))
    tokens = [n for kept, reason, n in fates(plan.items) if not kept and reason not in NOT_MIGRATED]
    return len(tokens), sum(tokens)


def _dropped_tokens(state: _State, dropped: set[int]) -> int:
    """Sum the original tokens of dropped messages."""
    tokens, originals = state.tokens, state.originals
    return sum(originals.get(i, tokens[i]) for i in dropped) if originals else sum(tokens[i] for i in dropped)


def _items(
    state: _State,
    keep_from: int,
    dropped: set[int],
    dropped_reason: dict[int, str],
    fits_reason: str,
    over_reason: str = R_OVER,
) -> PlanItems:
    """The plan's items once every fate is known: columns, each item built when it is read.

    A shortened text is kept only where its message is: a dropped one shows its original tokens.
    """
    skip, pinned = state.skip, state.pinned
    shortened: dict[int, tuple[str, int]] = {}
    for i in (*state.texts, *state.outputs):
        kept = i not in skip and (i in pinned or (i >= keep_from and i not in dropped))
        text = "" if not kept else state.texts[i] if i in state.texts else _joined(*state.outputs[i])
        shortened[i] = (text, state.originals[i])
    return PlanItems(
        state.messages,
        state.tokens,
        keep_from,
        fits_reason,
        over_reason,
        skip,
        pinned,
        {i: dropped_reason.get(i, over_reason) for i in dropped},
        shortened,
        R_SHORTENED,
    )


def _notes(decision: Decision, after: int, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """Return the standard notes: over budget, estimate."""
    notes = list(extra)
    if after > decision.budget:
        notes.append(
            f"Still {after - decision.budget:,} tokens over the {decision.budget:,}-token budget: "
            "the pinned messages (or the note itself) do not fit; unpin some or pick a larger model."
        )
    if not decision.exact:
        notes.append("Token counts are estimates.")
    return tuple(notes)


def plan_as_is(session: Session, counts: Sequence[int], decision: Decision, structure: Structure | None = None) -> Plan:
    """Migrate everything that can be migrated, unchanged."""
    state = prepare(session, counts, structure=structure)
    items = _items(state, 0, set(), {}, R_FITS)
    before = _total(state)
    return Plan(
        Strategy.AS_IS, decision, items, tokens_before=before, tokens_after=before, notes=_notes(decision, before)
    )


def plan_truncation(
    session: Session,
    counts: Sequence[int],
    decision: Decision,
    measure: Measure,
    pins: frozenset[str] = frozenset(),
    pin_first_user: bool = False,
    structure: Structure | None = None,
) -> Plan:
    """Keep whole units from the newest backwards within the budget, a placeholder note first."""
    state = prepare(session, counts, pins, pin_first_user, structure)
    cut, note, cost = _truncate(state, decision.budget, measure, set())
    if _keep_newest_prompt(state, cut, decision.budget, measure, set()):
        cut, note, cost = _truncate(state, decision.budget, measure, set())
    items = _items(state, cut, set(), {}, R_NEWEST)
    after = cost + _kept_tokens(items)
    return Plan(
        Strategy.TRUNCATE,
        decision,
        items,
        placeholder=note,
        tokens_before=_total(state),
        tokens_after=after,
        notes=_notes(decision, after, _nothing_kept(items)),
    )


def _newest_prompt(state: _State) -> int | None:
    """The index of the newest message a person typed that can be migrated, if any."""
    for i in range(len(state.messages) - 1, -1, -1):
        message = state.messages[i]
        if i not in state.skip and is_typed_prompt(message) and message.text_length:
            return i
    return None


def _keep_newest_prompt(state: _State, cut: int, budget: int, measure: Measure, dropped: set[int]) -> bool:
    """Pin the newest typed prompt when a cut would lose it, shortened to fit when it alone is too big.

    A handoff without the last thing the person asked is useless, so the prompt stays whatever the
    budget; when it does not fit next to the other pins and the placeholder, its head and tail are
    kept around a counted elision marker. Returns True when the state changed (re-plan).
    """
    newest = _newest_prompt(state)
    if newest is None or newest >= cut or newest in state.pinned or newest in dropped:
        return False
    for j in state.shape.members[state.shape.unit[newest]]:
        if j not in state.skip:
            state.pinned.setdefault(j, R_NEWEST_PROMPT)
    n = len(state.messages)
    live = _live(state, dropped)
    gone = sum(live) + len(dropped)
    tokens = sum(map(mul, state.tokens, live)) + _dropped_tokens(state, dropped)
    preview = _PreviewPicker(state, live, dropped)(n)
    note = measure(placeholder_text(gone, tokens, preview)) + MARKER_SLACK if gone else 0
    others = sum(state.tokens[i] for i in state.pinned if i != newest)
    room = budget - others - note
    if state.tokens[newest] > room:
        shortened = shorten_prompt(state.messages[newest].text, state.tokens[newest], room, measure)
        if shortened is not None:
            state.texts[newest], new_tokens = shortened
            state.originals[newest] = state.tokens[newest]
            state.tokens[newest] = new_tokens
    return True


def shorten_prompt(text: str, tokens: int, room: int, measure: Measure) -> tuple[str, int] | None:
    """Keep as much of the head and tail of `text` as fits `room` tokens, around a counted marker.

    Binary search on the characters kept at each end; None when not even the marker fits. Neither
    cut passes through a secret (`cut_outside_secrets`): the text is redacted after it is shortened.
    """

    def build(keep: int) -> str:
        if not keep:
            return PROMPT_ELISION.format(chars=len(text), tokens=tokens)
        head = text[: cut_outside_secrets(text, keep, head=True)]
        tail = text[cut_outside_secrets(text, len(text) - keep, head=False) :]
        marker = PROMPT_ELISION.format(
            chars=len(text) - len(head) - len(tail), tokens=max(0, tokens - measure(head + tail))
        )
        return "\n".join(part for part in (head, marker, tail) if part)

    low, high, best = 0, max(0, (len(text) - 1) // 2), None
    while low <= high:
        middle = (low + high) // 2
        short = build(middle)
        cost = measure(short)
        if cost <= room:
            best, low = (short, cost), middle + 1
        else:
            high = middle - 1
    return best


def _kept_tokens(items: PlanItems) -> int:
    """Sum the tokens of the kept items, as their items show them."""
    return sum(items.fate(i)[2] for i in items.kept_indices())


def _nothing_kept(items: PlanItems) -> list[str]:
    """Explain a truncation that could keep no message at all, and what to try instead."""
    if any(items.fate(i)[1] in (R_NEWEST, R_NEWEST_PROMPT, R_SHORTENED) for i in items.kept_indices()):
        return []
    newest = next((i for i in range(len(items) - 1, -1, -1) if items.fate(i)[1] == R_OVER), None)
    if newest is None:
        return []
    return [
        f"The newest message alone ({items.fate(newest)[2]:,} tokens, with its tool call or result) "
        "does not fit: try the tools-first strategy, a summary, or a larger model."
    ]


MARKER_SLACK = 2
"""Tokens added to a shortened output's cost for the two joins around the marker, which a BPE
tokenizer may count one token differently each: the estimate never falls below the real count."""


def output_edges(text: str) -> tuple[str, str, int] | None:
    """Split a long output into the head and tail kept and the number of lines between them."""
    lines = text.split("\n")
    head = "\n".join(lines[:HEAD_LINES])[:EDGE_CHARS]
    tail = "\n".join(lines[-TAIL_LINES:])[-EDGE_CHARS:] if len(lines) > HEAD_LINES else ""
    if len(head) + len(tail) >= len(text) * 0.8:
        if len(text) * 0.8 <= 2 * EDGE_CHARS:
            return None
        head, tail = text[:EDGE_CHARS], text[-EDGE_CHARS:]
    # Shortened text is redacted later: neither cut may pass through a secret.
    head = text[: cut_outside_secrets(text, len(head), head=True)]
    tail = text[cut_outside_secrets(text, len(text) - len(tail), head=False) :] if tail else ""
    kept_lines = head.count("\n") + tail.count("\n") + 2
    return head, tail, max(0, len(lines) - kept_lines)


def shorten_output(
    text: str, tokens: int, measure: Measure, edges: tuple[str, str, int] | None = None
) -> tuple[str, int] | None:
    """Keep the head and tail of a long tool output with a marker between; None if not worth it.

    The cost is the kept text plus the marker, measured apart (both memoisable across targets),
    plus `MARKER_SLACK`.
    """
    parts = edges or output_edges(text)
    return None if parts is None else shortened_edges(parts, tokens, measure)


def shortened_edges(edges: tuple[str, str, int], tokens: int, measure: Measure) -> tuple[str, int] | None:
    """`shorten_output` once the edges are known: no need for the whole text (a stored text stays on disk)."""
    marked = _marker_and_cost(edges, tokens, measure)
    return None if marked is None else (_joined(edges[0], marked[0], edges[1]), marked[1])


def _marker_and_cost(edges: tuple[str, str, int], tokens: int, measure: Measure) -> tuple[str, int] | None:
    """The elision marker of a shortened output and its cost, without building the shortened text."""
    head, tail, elided_lines = edges
    kept = measure(head + "\n" + tail)
    marker = f"[… {elided_lines:,} lines / {max(0, tokens - kept):,} tokens elided by smig …]"
    cost = kept + measure(marker) - MESSAGE_OVERHEAD + MARKER_SLACK
    return (marker, cost) if cost < tokens else None


def _joined(head: str, marker: str, tail: str) -> str:
    """A shortened output's text: its head, the marker, its tail."""
    return f"{head}\n{marker}\n{tail}" if tail else f"{head}\n{marker}"


def _tool_units(state: _State) -> list[list[int]]:
    """Return units made only of tool traffic (and reasoning), oldest first (computed once)."""
    if not state.shape.tool_units:
        state.shape.tool_units.extend(_find_tool_units(state))
    return state.shape.tool_units


def _find_tool_units(state: _State) -> list[list[int]]:
    """Find the units made only of tool traffic (and reasoning), oldest first."""
    members = state.shape.members
    tool_kinds = (Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.REASONING)
    units = [
        idx
        for idx in members.values()
        if any(state.messages[i].kind is Kind.TOOL_RESULT for i in idx)
        and all(state.messages[i].kind in tool_kinds for i in idx)
        and all(state.eligible(i) for i in idx if state.messages[i].kind is not Kind.REASONING)
    ]
    units.sort(key=lambda idx: idx[-1])
    return units


def plan_tools_first(
    session: Session,
    counts: Sequence[int],
    decision: Decision,
    measure: Measure,
    pins: frozenset[str] = frozenset(),
    pin_first_user: bool = False,
    keep_recent: int = KEEP_RECENT_TOOLS,
    structure: Structure | None = None,
) -> Plan:
    """Shorten old tool outputs, then drop old tool exchanges, then truncate only if still over."""
    state = prepare(session, counts, pins, pin_first_user, structure)
    before = _total(state)
    budget = decision.budget
    recent_from = -keep_recent if keep_recent > 0 else None
    units = _tool_units(state)[:recent_from]
    old = [u for u in units if not any(i in state.pinned for i in u)] if state.pinned else units
    # When the drop step removes every old exchange whatever they shrink to, shortening them is wasted
    # work (reading each output back and counting its ends): a dropped output shows its original tokens.
    doomed = _all_dropped_anyway(state, old, before, budget)
    dropped: set[int] = set(doomed or ())
    reasons: dict[int, str] = dict.fromkeys(dropped, R_OLD_TOOL)
    if doomed is None:
        total = _shorten_until(state, old, before, budget, measure)
        if total > budget:
            _drop_tool_units(state, old, total, budget, measure, dropped, reasons)
    cut, note, cost = _truncate(state, budget, measure, dropped)
    if _keep_newest_prompt(state, cut, budget, measure, dropped):
        cut, note, cost = _truncate(state, budget, measure, dropped)
    items = _items(state, cut, dropped, reasons, R_NEWEST)
    after = cost + _kept_tokens(items)
    return Plan(
        Strategy.TOOLS_FIRST,
        decision,
        items,
        placeholder=note,
        tokens_before=before,
        tokens_after=after,
        notes=_notes(decision, after),
    )


SHORTENED_FLOOR = MARKER_SLACK - MESSAGE_OVERHEAD
"""The fewest tokens a shortened output can cost (`_marker_and_cost` with both measures at 0)."""


def _all_dropped_anyway(state: _State, units: list[list[int]], total: int, budget: int) -> list[int] | None:
    """The messages `_drop_tool_units` drops when the rest of the session stays over the budget with
    every output in `units` at its smallest: `_shorten_until` never fits and every unit goes (the
    note costs at least nothing), so what each output would be shortened to changes no fate and no
    figure. None when some unit may stay."""
    skip, tokens, messages = state.skip, state.tokens, state.messages
    members = [i for unit in units for i in unit if i not in skip]
    shortenable = sum(1 for i in members if tokens[i] >= SHORTEN_MIN_TOKENS and messages[i].kind is Kind.TOOL_RESULT)
    floor = total - sum(tokens[i] for i in members) + min(0, SHORTENED_FLOOR) * shortenable
    return members if floor > budget else None


def _shorten_until(state: _State, units: list[list[int]], total: int, budget: int, measure: Measure) -> int:
    """Shorten tool outputs in `units`, oldest first, until the total fits; return the new total."""
    for unit in units:
        for i in unit:
            if total <= budget:
                return total
            message = state.messages[i]
            if message.kind is not Kind.TOOL_RESULT or state.tokens[i] < SHORTEN_MIN_TOKENS:
                continue
            edges = state.shape.edges
            if i not in edges:
                edges[i] = output_edges(message.text)
            parts = edges[i]
            marked = None if parts is None else _marker_and_cost(parts, state.tokens[i], measure)
            if parts is None or marked is None:
                continue
            state.outputs[i] = (parts[0], marked[0], parts[1])
            new_tokens = marked[1]
            state.originals[i] = state.tokens[i]
            total -= state.tokens[i] - new_tokens
            state.tokens[i] = new_tokens
    return total


def _drop_tool_units(
    state: _State,
    units: list[list[int]],
    total: int,
    budget: int,
    measure: Measure,
    dropped: set[int],
    reasons: dict[int, str],
) -> None:
    """Drop whole old tool exchanges, oldest first, until the total and a note fit."""
    note_cost = measure(placeholder_text(len(state.messages), total, "x" * PREVIEW_CHARS))
    for unit in units:
        if total + note_cost <= budget:
            break
        for i in unit:
            if state.eligible(i):
                dropped.add(i)
                reasons[i] = R_OLD_TOOL
                total -= state.tokens[i]


def plan_summary_tail(
    session: Session,
    counts: Sequence[int],
    decision: Decision,
    measure: Measure,
    summary: str | None = None,
    summary_budget: int | None = None,
    pins: frozenset[str] = frozenset(),
    pin_first_user: bool = False,
    structure: Structure | None = None,
) -> Plan:
    """Reserve room for a summary of the dropped head and keep the newest tail verbatim.

    The cut is chosen for `summary_budget`, not for the summary's real length, so the head a
    summarizer was shown is exactly the head this plan drops. Without `summary` the plan is a
    preview with the summary pending.
    """
    state = prepare(session, counts, pins, pin_first_user, structure)
    reserve = _summary_budget(decision, summary_budget, sum(state.tokens[i] for i in state.pinned))
    flat_cost = lambda _text: reserve  # noqa: E731 - the summary stands where the note would
    cut, note, _ = _truncate(state, decision.budget, flat_cost, set())
    notes: list[str] = []
    summary_text, cost = None, 0
    if note is not None:
        omitted = [i for i in range(cut) if state.eligible(i) and i not in state.pinned]
        summary_text = summary_note(len(omitted), _dropped_tokens(state, set(omitted)), summary)
        cost = measure(summary_text) if summary is not None else reserve
        if summary is None:
            notes.append("The summary is not written yet; its budget is reserved.")
        elif cost > reserve:
            notes.append(f"The summary is {cost - reserve:,} tokens over its {reserve:,}-token budget.")
    items = _items(state, cut, set(), {}, R_NEWEST, over_reason=R_SUMMARISED)
    after = cost + _kept_tokens(items)
    return Plan(
        Strategy.SUMMARY_TAIL,
        decision,
        items,
        placeholder=summary_text,
        summary=summary,
        summary_budget=reserve,
        tokens_before=_total(state),
        tokens_after=after,
        notes=_notes(decision, after, notes),
    )


def _summary_budget(decision: Decision, summary_budget: int | None, pinned: int = 0) -> int:
    """Return the tokens reserved for a summary: as asked (default a quarter of the budget, at most
    `DEFAULT_SUMMARY_BUDGET`), bounded by the room the pins leave."""
    default = min(DEFAULT_SUMMARY_BUDGET, decision.budget // 4)
    wanted = default if summary_budget is None else summary_budget
    return max(0, min(wanted, decision.budget - pinned))


def summary_note(omitted: int, tokens: int, summary: str | None) -> str:
    """Return the first message of a summary plan: a header line, then the summary."""
    head = f"[smig: summary of {omitted} earlier messages ({tokens:,} tokens)]"
    if summary is None:
        return f"{head}\n\n(summary pending)"
    return f"{head}\n\n{summary.strip()}"


def plan_summary(
    session: Session,
    counts: Sequence[int],
    decision: Decision,
    measure: Measure,
    summary: str | None = None,
    summary_budget: int | None = None,
    structure: Structure | None = None,
) -> Plan:
    """Replace the whole conversation with a summary; only the reply reserve is kept free."""
    state = prepare(session, counts, structure=structure)
    reserve = max(0, min(decision.budget, summary_budget or decision.budget))
    omitted = [i for i in range(len(counts)) if state.eligible(i)]
    text = summary_note(len(omitted), _dropped_tokens(state, set(omitted)), summary)
    cost = measure(text) if summary is not None else min(reserve, DEFAULT_SUMMARY_BUDGET)
    items = PlanItems(session.messages, state.tokens, len(counts), R_SUMMARISED, R_SUMMARISED, state.skip)
    notes = [] if summary is not None else ["The summary is not written yet."]
    return Plan(
        Strategy.SUMMARY,
        decision,
        items,
        placeholder=text,
        summary=summary,
        summary_budget=reserve,
        tokens_before=_total(state),
        tokens_after=cost,
        notes=_notes(decision, cost, notes),
    )


def result_messages(plan: Plan) -> tuple[Message, ...]:
    """Return the migrated conversation: the note or summary first, then kept messages in order.

    Messages are renumbered (`index`) for their new position; ids stay the source ids.
    """
    out: list[Message] = []
    first = _first_message(plan)
    if first is not None:
        out.append(first)
    for item in plan.kept:
        message = item.message if item.text is None else replace(item.message, body=item.text)
        out.append(replace(message, index=len(out)))
    return tuple(out)


def _first_message(plan: Plan) -> Message | None:
    """Return the synthetic first message of a plan (the note, or the summary), if it has one."""
    if plan.placeholder is None:
        return None
    summarised = needs_summary(plan.strategy)
    return Message(
        index=0,
        id=SUMMARY_ID if summarised else PLACEHOLDER_ID,
        role=Role.USER,
        kind=Kind.SUMMARY,
        body=plan.placeholder,
    )


def migratable_tokens(session: Session, counts: Sequence[int], structure: Structure | None = None) -> int:
    """Return the session's size as migrated: everything except what no plan migrates."""
    skip = structure.skip if structure is not None else never_migrated(session.messages)
    return _sum_but(counts, skip)


def make_plan(
    session: Session,
    counts: Sequence[int],
    decision: Decision,
    strategy: Strategy,
    measure: Measure,
    pins: frozenset[str] = frozenset(),
    pin_first_user: bool = False,
    summary: str | None = None,
    summary_budget: int | None = None,
    structure: Structure | None = None,
) -> Plan:
    """Build the plan for `strategy`; a session that fits migrates as it is unless a summary is asked for."""
    return _make_plan(
        session, counts, decision, strategy, measure, pins, pin_first_user, summary, summary_budget, structure
    )


def _make_plan(
    session: Session,
    counts: Sequence[int],
    decision: Decision,
    strategy: Strategy,
    measure: Measure,
    pins: frozenset[str],
    pin_first_user: bool,
    summary: str | None,
    summary_budget: int | None,
    structure: Structure | None,
) -> Plan:
    """`make_plan`, with the collector paused."""
    shape = structure or analyse(session)
    if strategy is Strategy.AS_IS or (decision.fits and strategy is not Strategy.SUMMARY):
        return plan_as_is(session, counts, decision, shape)
    if strategy is Strategy.TRUNCATE:
        return plan_truncation(session, counts, decision, measure, pins, pin_first_user, shape)
    if strategy is Strategy.TOOLS_FIRST:
        return plan_tools_first(session, counts, decision, measure, pins, pin_first_user, structure=shape)
    if strategy is Strategy.SUMMARY_TAIL:
        return plan_summary_tail(
            session, counts, decision, measure, summary, summary_budget, pins, pin_first_user, shape
        )
    return plan_summary(session, counts, decision, measure, summary, summary_budget, shape)

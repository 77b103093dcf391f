# smig: compiled with mypyc where it can (setup.py)
"""Provides the uuid/parentUuid tree of a Claude Code transcript and its active conversation path.

Claude Code appends records; each points at its parent, so rewinds and retries leave branches. The
active conversation is the chain walked back from the newest conversation record. Parallel tool
calls are the exception to "one chain": each result hangs off its own `tool_use` record, so results
that sit on a side branch of the path are pulled back in.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter

from smig_tui.adapters.agents.claude.blocks import Converted


@dataclass(frozen=True, slots=True)
class PreservedSegment:
    """What a 2.1.3xx compaction kept verbatim: the records from `head` to `tail`, which the model
    receives right after the summary record `anchor`, although the file holds them before it."""

    head: str
    tail: str
    anchor: str


@dataclass(slots=True)
class Node:
    """One record that takes part in the tree."""

    uuid: str
    parent: str | None
    line: int
    logical_parent: str | None = None
    """Set on `compact_boundary` records: the last record before the compaction."""
    sidechain: bool = False
    boundary: bool = False
    preserved: PreservedSegment | None = None
    """Set on a `compact_boundary` that kept some messages verbatim."""
    floating: bool = False
    """A record with no uuid of its own (older queued prompts): placed by file position instead."""
    payload: Converted | None = None
    """The converted messages of a `user`/`assistant` record; None for link-only records."""


_LINE = attrgetter("line")


@dataclass(slots=True)
class Tree:
    """All nodes of one file, in file order, plus the lines that could not be parsed."""

    nodes: dict[str, Node] = field(default_factory=dict)
    order: list[Node] = field(default_factory=list)
    damaged: list[int] = field(default_factory=list)
    """Line numbers of unparseable lines, ascending; the chain may have lost a link there."""
    floating: int = 0
    """How many nodes have no uuid of their own (see `Node.floating`)."""
    converted: int = 0
    """How many nodes carry messages."""

    def add(self, node: Node) -> None:
        """Record a node (a repeated uuid keeps its newest record)."""
        parent = self.nodes.get(node.parent) if node.parent is not None else None
        if parent is not None:
            node.parent = parent.uuid  # one string for both ends of the link: a huge file has 250,000
        self.nodes[node.uuid] = node
        self.order.append(node)
        if node.floating:
            self.floating += 1
        if node.payload is not None:
            self.converted += 1

    def active_path(self, own_chain_is_sidechain: bool = False) -> list[Node]:
        """Return the nodes on the active conversation path, in file order.

        `own_chain_is_sidechain` is for sub-agent files, where every record is a sidechain.
        """
        leaf = next(
            (
                node
                for node in reversed(self.order)
                if node.payload is not None and not node.floating and (own_chain_is_sidechain or not node.sidechain)
            ),
            None,
        )
        if leaf is None:
            return []
        path, carried = self._walk(leaf, own_chain_is_sidechain)
        if carried < self.converted:  # some messages are off the path (uuid-less records always are)
            on_path = {id(node) for node in path}  # only then: 140,000 ids, a tenth of the tree's work
            self._recover_parallel(path, on_path, own_chain_is_sidechain)
            self._place_floating(path, on_path, own_chain_is_sidechain)
        path.sort(key=_LINE)
        return path

    def _place_floating(self, path: list[Node], on_path: set[int], allow_sidechain: bool) -> None:
        """Add uuid-less records that come after the start of the path, where they were written."""
        if not path or not self.floating:
            return
        first = min(node.line for node in path)
        for node in self.order:
            if not node.floating or id(node) in on_path or node.line <= first:
                continue
            if allow_sidechain or not node.sidechain:
                path.append(node)
                on_path.add(id(node))

    def _walk(self, leaf: Node, allow_sidechain: bool) -> tuple[list[Node], int]:
        """Follow parents (and logical parents across compactions) from `leaf` to the root; return the
        nodes met and how many of them carry messages.

        A walk longer than the tree has nodes went round a loop of links: it is walked again,
        stopping where it first comes back to a node.
        """
        path: list[Node] = []
        carried = 0
        nodes, limit, damaged = self.nodes, len(self.order), self.damaged
        node: Node | None = leaf
        while node is not None:
            if allow_sidechain or not node.sidechain:
                path.append(node)
                if node.payload is not None:
                    carried += 1
            target = node.parent or node.logical_parent
            found = nodes.get(target) if target else None
            if found is None and target and damaged:
                found = self._bridge(node)
            node = found
            limit -= 1
            if limit < 0:
                path = self._walk_once(leaf, allow_sidechain)
                return path, sum(node.payload is not None for node in path)
        return path, carried

    def _walk_once(self, leaf: Node, allow_sidechain: bool) -> list[Node]:
        """`_walk` for a chain with a loop: each node is visited once."""
        path: list[Node] = []
        seen: set[int] = set()
        node: Node | None = leaf
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            if allow_sidechain or not node.sidechain:
                path.append(node)
            target = node.parent or node.logical_parent
            found = self.nodes.get(target) if target else None
            if found is None and target and self.damaged:
                found = self._bridge(node)
            node = found
        return path

    def _bridge(self, node: Node) -> Node | None:
        """Guess the parent lost on a damaged line: the last node before the nearest damage."""
        position = bisect.bisect_left(self.damaged, node.line)
        if position == 0:
            return None
        damaged_line = self.damaged[position - 1]
        before = [candidate for candidate in self.order if candidate.line < damaged_line]
        return before[-1] if before else None

    def _recover_parallel(self, path: list[Node], on_path: set[int], allow_sidechain: bool) -> None:
        """Add side-branch records that belong to responses already on the path."""
        groups = {node.payload.group for node in path if node.payload and node.payload.group}
        open_calls: set[str] = set()
        for node in path:
            if node.payload is not None:
                open_calls.update(node.payload.calls)
        for node in path:
            if node.payload is not None:
                open_calls.difference_update(node.payload.answered)
        uuids = {node.uuid for node in path}
        for node in self.order:
            payload = node.payload
            if payload is None or id(node) in on_path or node.parent not in uuids:
                continue
            if node.sidechain and not allow_sidechain:
                continue
            results = bool(payload.answered) and all(call in open_calls for call in payload.answered)
            sibling_call = payload.group is not None and payload.group in groups
            if not results and not sibling_call:
                continue
            open_calls.difference_update(payload.answered)
            open_calls.update(payload.calls)
            path.append(node)
            on_path.add(id(node))
            uuids.add(node.uuid)


def in_model_order(path: list[Node], misplaced: Callable[[Node], None]) -> list[Node]:
    """Put each compaction's preserved messages right after its summary, as the model receives them.

    Claude Code 2.1.3xx keeps the newest messages of a compacted conversation (`preservedSegment`)
    and re-anchors them after the summary; the file keeps them where they were written, before
    the boundary. A segment whose ends are not on the path is left where it is, and its boundary
    is passed to `misplaced`.
    """
    for boundary in [node for node in path if node.preserved is not None]:
        segment = boundary.preserved
        assert segment is not None
        where = {node.uuid: index for index, node in enumerate(path)}
        head, tail, anchor = where.get(segment.head), where.get(segment.tail), where.get(segment.anchor)
        if head is None or tail is None or anchor is None or not head <= tail < anchor:
            misplaced(boundary)
            continue
        moved = path[head : tail + 1]
        rest = path[:head] + path[tail + 1 :]
        after = anchor - len(moved) + 1
        path = rest[:after] + moved + rest[after:]
    return path

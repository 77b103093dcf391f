"""Provides the tree of Codex threads and Claude projects, grouped by working directory."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from smig_tui.core.models import Agent, SessionInfo
from smig_tui.services import agent_profiles, profile_of

TITLE_WIDTH = 40
"""Characters of a title kept in the tree (the tree cuts it to its width); the session pane shows it whole."""
OPEN_FOLDERS = 3
"""Folders per agent shown open after a rebuild (besides the current one and those the user opened)."""


def agent_label(agent: Agent) -> str:
    """The agent's name as its users write it (its id for an agent the registry does not name)."""
    entry = profile_of(agent)
    return entry.name if entry else agent.value


@dataclass(frozen=True, slots=True)
class Group:
    """A working directory (or Claude project) holding sessions."""

    agent: Agent
    key: str
    here: bool


def _haystack(info: SessionInfo) -> str:
    return " ".join(part for part in (info.title, info.cwd, info.project, info.id, info.model) if part).lower()


def matches(info: SessionInfo, terms: list[str]) -> bool:
    """Tell whether every filter term occurs in the session's title, cwd, id or model."""
    haystack = _haystack(info)
    return all(term in haystack for term in terms)


def is_here(path: str | None, here: str | None, broad: frozenset[str] = frozenset()) -> bool:
    """Tell whether `path` is the current directory or inside it.

    From a `broad` folder (the root, the home folder) only that very folder counts, or every
    session would be "here".
    """
    if not path or not here:
        return False
    if path == here:
        return True
    return here not in broad and path.startswith(here.rstrip(os.sep) + os.sep)


def session_label(info: SessionInfo) -> Text:
    """One line per session: date, title, message count."""
    label = Text()
    label.append((info.updated or info.created or "")[:10] or "—" * 10, style="dim")
    label.append("  ")
    title = " ".join((info.title or info.id).split())
    label.append(title if len(title) <= TITLE_WIDTH else title[: TITLE_WIDTH - 1] + "…")
    if info.is_subagent:
        label.append("  sub", style="italic dim")
    elif info.parent_id:
        label.append(f"  fork of {info.parent_id[:8]}", style="italic dim")
    if info.message_count is not None:
        label.append(f"  {info.message_count} msgs", style="dim")
    return label


class SourceTree(Tree[SessionInfo | None]):
    """Sessions from every agent, filtered, current directory first, sub-agents optional."""

    def __init__(self, *, here: str | None = None, id: str | None = None) -> None:
        super().__init__("Sources", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._here = os.path.realpath(here) if here else None
        self._broad = frozenset({os.sep, os.path.realpath(os.path.expanduser("~"))})
        self._sessions: list[SessionInfo] = []
        self._terms: list[str] = []
        self.show_subagents = False
        """Sub-agent, review and exec sessions are listed only when this is on."""
        self._agent_nodes: dict[Agent, TreeNode[SessionInfo | None]] = {}
        self._group_nodes: dict[Group, tuple[TreeNode[SessionInfo | None], list[SessionInfo]]] = {}
        self._unfilled: dict[int, Group] = {}
        """Folder nodes (by node id) whose leaves are not added yet: a closed folder costs one line."""
        self._haystacks: dict[str, str] = {}
        """Lower-cased searchable text per session path, so a keystroke does not rebuild it."""
        self._visible: tuple[tuple[object, ...], list[SessionInfo]] | None = None
        """The sessions shown, and the (count, words, toggle) they were worked out for."""
        self._labels: dict[str, tuple[SessionInfo, Text]] = {}
        """Each session's line, made once per listing of it: a rebuild (every filter change) adds
        hundreds of leaves."""

    @property
    def sessions(self) -> list[SessionInfo]:
        """Every session received so far, filters not applied."""
        return self._sessions

    def visible_sessions(self) -> list[SessionInfo]:
        """The sessions the filter and the sub-agent toggle let through (worked out once per change)."""
        key = (len(self._sessions), tuple(self._terms), self.show_subagents)
        if self._visible is None or self._visible[0] != key:
            self._visible = (key, self._matching())
        return self._visible[1]

    def _matching(self) -> list[SessionInfo]:
        """One pass per filter word over the sessions the previous word let through."""
        shown = (
            list(self._sessions) if self.show_subagents else [info for info in self._sessions if not info.is_subagent]
        )
        for term in self._terms:
            shown = [info for info in shown if term in self._haystack_of(info)]
        return shown

    def _haystack_of(self, info: SessionInfo) -> str:
        haystack = self._haystacks.get(info.path)
        if haystack is None:
            haystack = self._haystacks[info.path] = _haystack(info)
        return haystack

    def _shows(self, info: SessionInfo) -> bool:
        if info.is_subagent and not self.show_subagents:
            return False
        haystack = self._haystack_of(info) if self._terms else ""
        return all(term in haystack for term in self._terms)

    def add_sessions(self, infos: Iterable[SessionInfo]) -> None:
        """Append a batch as it streams in from discovery, without redrawing what is there.

        Folders appear in arrival order while streaming; `rebuild()` at the end sorts them.
        """
        batch = list(infos)
        self._sessions.extend(batch)
        if not self._agent_nodes or any(info.agent not in self._agent_nodes for info in batch if self._shows(info)):
            self.rebuild()  # the first batch, or the first session of an agent not shown yet
            return
        touched: dict[Group, list[SessionInfo]] = {}
        for info in batch:
            if self._shows(info):
                touched.setdefault(self._group_of(info), []).append(info)
        for group, infos in touched.items():
            self._append(group, infos)
        for agent in {group.agent for group in touched}:
            total = sum(len(found) for g, (_, found) in self._group_nodes.items() if g.agent is agent)
            self._agent_nodes[agent].set_label(f"{agent_label(agent)} ({total})")

    def process_label(self, label: str | Text) -> Text:
        """Take a one-line Text as it is: Tree's own copies and splits every label it is given."""
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    def get_label_width(self, node: TreeNode[SessionInfo | None]) -> int:
        """A line's width from its label's length: Tree's own renders every line's label to measure
        the tree, each time a filter rebuilds it."""
        icon = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else ""
        label = node.label
        return cell_len(icon) + (label.cell_len if isinstance(label, Text) else cell_len(label))

    def _leaf_label(self, info: SessionInfo) -> Text:
        known = self._labels.get(info.path)
        if known is None or known[0] is not info:  # a reload lists the session anew
            known = self._labels[info.path] = (info, session_label(info))
        return known[1]

    def _append(self, group: Group, infos: list[SessionInfo]) -> None:
        """Add leaves under a folder, creating the folder node if needed, and fix its count."""
        if group not in self._group_nodes:
            # Folders that arrive while streaming start closed: every open leaf costs a redraw.
            node = self._agent_nodes[group.agent].add("", expand=group.here)
            self._group_nodes[group] = (node, [])
            if not group.here:
                self._unfilled[node.id] = group
        node, items = self._group_nodes[group]
        items.extend(infos)
        if node.id not in self._unfilled:
            for info in infos:
                node.add_leaf(self._leaf_label(info), data=info)
        node.set_label(f"{'● ' if group.here else ''}{group.key} ({len(items)})")

    def _group_of(self, info: SessionInfo) -> Group:
        key = info.cwd or info.project or "(unknown folder)"
        return Group(info.agent, key, is_here(info.cwd, self._here, self._broad))

    @property
    def filter_text(self) -> str:
        """The filter's words, as applied."""
        return " ".join(self._terms)

    def first_session_node(self) -> TreeNode[SessionInfo | None] | None:
        """The first session listed (the filter applied), opening its folder if needed."""
        for agent_node in self.root.children:
            for folder in agent_node.children:
                if not folder.is_expanded:
                    folder.expand()  # fills it (see on_tree_node_expanded) before we look inside
                    group = self._unfilled.pop(folder.id, None)
                    if group is not None:
                        self._fill(folder, self._group_nodes[group][1])
                if folder.children:
                    return folder.children[0]
        return None

    def set_filter(self, text: str) -> None:
        """Show only sessions matching every word of `text` (nothing to do if the words are the same)."""
        terms = text.lower().split()
        if terms != self._terms:
            self._terms = terms
            self.rebuild()

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[SessionInfo | None]) -> None:
        """Add a folder's leaves the first time it opens."""
        group = self._unfilled.pop(event.node.id, None)
        if group is not None:
            self._fill(event.node, self._group_nodes[group][1])

    def _fill(self, node: TreeNode[SessionInfo | None], items: list[SessionInfo]) -> None:
        for info in items:
            node.add_leaf(self._leaf_label(info), data=info)

    def toggle_subagents(self) -> bool:
        """Show or hide sub-agent sessions; returns the new state."""
        self.show_subagents = not self.show_subagents
        self.rebuild()
        return self.show_subagents

    def rebuild(self) -> None:
        """Redraw the tree, keeping the highlighted session where it still shows."""
        current = self.cursor_node.data if self.cursor_node is not None else None
        opened = {group for group, (node, _) in self._group_nodes.items() if node.is_expanded}
        self.clear()
        self._agent_nodes.clear()
        self._group_nodes.clear()
        self._unfilled.clear()
        self._visible = None  # the sessions may have been replaced (a reload) as well as added
        grouped = self._grouped(self.visible_sessions())
        target: TreeNode[SessionInfo | None] | None = None
        first: TreeNode[SessionInfo | None] | None = None
        for entry in agent_profiles():  # every agent smig reads, in the registry's order
            agent = entry.agent
            groups = grouped.get(agent, {})
            count = sum(len(items) for items in groups.values())
            if not count and not entry.shown_when_empty:
                continue  # an agent added later shows once it has sessions here
            agent_node = self.root.add(f"{entry.name} ({count})", expand=True)
            self._agent_nodes[agent] = agent_node
            for position, (group, items) in enumerate(self._ordered(groups)):
                marker = "● " if group.here else ""
                expand = group.here or group in opened or position < OPEN_FOLDERS
                node = agent_node.add(f"{marker}{group.key} ({len(items)})", expand=expand)
                self._group_nodes[group] = (node, list(items))
                if not expand:
                    self._unfilled[node.id] = group
                    continue
                for info in items:
                    leaf = node.add_leaf(self._leaf_label(info), data=info)
                    if current is not None and info.path == current.path:
                        target = leaf
                    first = first or leaf
        # With nothing highlighted yet, start on the newest session so Enter opens it at once.
        chosen = target or (first if current is None else None)
        if chosen is not None:
            # New nodes get their line numbers on the next render, so move once they have them.
            self.call_after_refresh(self.move_to, chosen)

    def move_to(self, node: TreeNode[SessionInfo | None]) -> None:
        """Put the cursor on a node, once it has a line."""
        _ = self.last_line  # builds the lines of nodes added since the last render
        if node.line >= 0:
            self.move_cursor(node)

    def _grouped(self, infos: list[SessionInfo]) -> dict[Agent, dict[Group, list[SessionInfo]]]:
        """Group sessions per agent by working directory."""
        grouped: dict[Agent, dict[Group, list[SessionInfo]]] = {}
        for info in infos:
            group = self._group_of(info)
            grouped.setdefault(info.agent, {}).setdefault(group, []).append(info)
        return grouped

    @staticmethod
    def _ordered(groups: dict[Group, list[SessionInfo]]) -> list[tuple[Group, list[SessionInfo]]]:
        """Current directory first, then the most recently active folders, sessions newest first."""
        for items in groups.values():
            items.sort(key=lambda info: info.updated or "", reverse=True)
        return sorted(
            groups.items(),
            key=lambda pair: (not pair[0].here, _negated(pair[1][0].updated or "")),
        )


def _negated(stamp: str) -> tuple[int, ...]:
    """Sort key that orders ISO timestamps newest first inside an ascending sort."""
    return tuple(-ord(char) for char in stamp)

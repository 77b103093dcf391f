"""Provides the tree of every agent's sessions (Codex, Claude Code, Gemini CLI, OpenCode), grouped by folder."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from smig_tui.core.handoff import is_migrated_title
from smig_tui.core.models import Agent, SessionInfo
from smig_tui.core.words import size_cells
from smig_tui.services import agent_profiles, profile_of

TITLE_WIDTH = 60
"""Characters of a title kept in the tree (the tree cuts it to its width); the session pane shows it whole."""
OPEN_FOLDERS = 3
"""Folders per agent shown open after a rebuild (besides the current one and those the user opened)."""
FOLDER_INDENT = 4
"""Cells before a folder's label: one guide and the open/closed icon."""
AGE_WIDTH = 8
SIZE_WIDTH = 5


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


def age_text(stamp: str | None, now: float) -> str:
    """How long ago an ISO 8601 time was, in a few cells: `now`, `17m ago`, `3h ago`, `5d ago`, `2y ago`."""
    if not stamp:
        return "—"
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return "—"
    seconds = max(0.0, now - then)
    for unit, length in (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= length:
            return f"{int(seconds // length)}{unit} ago"
    return "now"


def session_label(info: SessionInfo, now: float) -> Text:
    """One line per session: how long ago it was active and its size (never cut), then its title."""
    label = Text()
    label.append(f"{age_text(info.updated or info.created, now):>{AGE_WIDTH}} ", style="dim")
    label.append(f"{size_cells(info.size):>{SIZE_WIDTH}}  ", style="dim")
    title = " ".join((info.title or info.id).split())
    label.append(title if len(title) <= TITLE_WIDTH else title[: TITLE_WIDTH - 1] + "…")
    if info.is_subagent:
        label.append("  sub", style="italic dim")
    elif info.parent_id:
        label.append(f"  fork of {info.parent_id[:8]}", style="italic dim")
    return label


def shown_folder(path: str) -> str:
    """A folder as people write it: the home folder as `~`."""
    home = os.path.expanduser("~")
    if home not in ("", os.sep) and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def elided(path: str, room: int) -> str:
    """The path whole when it fits in `room` cells, else its last parts after `…` (cut at a separator)."""
    if cell_len(path) <= room:
        return path
    tail = path
    while os.sep in tail[1:] and cell_len("…" + tail) > room:
        tail = tail[tail.index(os.sep, 1) :]
    return "…" + tail if cell_len("…" + tail) <= room else "…" + tail[-max(1, room - 1) :]


def is_original(info: SessionInfo) -> bool:
    """Whether a session is the agent's own, not a copy smig migrated into it."""
    return not is_migrated_title(info.title)


class SourceTree(Tree[SessionInfo | None]):
    """Sessions from every agent, filtered, current directory first, sub-agents optional."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_line", "First", show=False, id="tree.first"),
        Binding("end", "last_line", "Last", show=False, id="tree.last"),
        Binding("space", "peek", "Peek", show=False, id="tree.peek"),
    ]

    @dataclass
    class PeekRequested(Message):
        """Space on a session: look at it without opening it."""

        info: SessionInfo

    clock: Callable[[], float] = staticmethod(time.time)
    """Now, for the sessions' ages (tests stop it)."""

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
        self.here_only = False
        """Only sessions of the folder smig was started in (or below it) are listed."""
        self.branch_only: str | None = None
        """When set, only sessions of that folder last on this git branch are listed."""
        self._folders: dict[int, Group] = {}
        """Each folder node's group (by node id), so its label can fit the tree's width when drawn."""
        self._agent_nodes: dict[Agent, TreeNode[SessionInfo | None]] = {}
        self._group_nodes: dict[Group, tuple[TreeNode[SessionInfo | None], list[SessionInfo]]] = {}
        self._unfilled: dict[int, Group] = {}
        """Folder nodes (by node id) whose leaves are not added yet: a closed folder costs one line."""
        self._haystacks: dict[str, str] = {}
        """Lower-cased searchable text per session path, so a keystroke does not rebuild it."""
        self._visible: tuple[tuple[object, ...], list[SessionInfo]] | None = None
        """The sessions shown, and the (count, words, toggle) they were worked out for."""
        self._labels: dict[str, tuple[SessionInfo, str, Text]] = {}
        """Each session's line (with the age it was made with), made once per listing of it and
        age: a rebuild (every filter change) adds hundreds of leaves."""

    @property
    def sessions(self) -> list[SessionInfo]:
        """Every session received so far, filters not applied."""
        return self._sessions

    def visible_sessions(self) -> list[SessionInfo]:
        """The sessions the filter and the sub-agent toggle let through (worked out once per change)."""
        key = (len(self._sessions), tuple(self._terms), self.show_subagents, self.here_only, self.branch_only)
        if self._visible is None or self._visible[0] != key:
            self._visible = (key, self._matching())
        return self._visible[1]

    def _matching(self) -> list[SessionInfo]:
        """One pass per filter word over the sessions the previous word let through."""
        shown = (
            list(self._sessions) if self.show_subagents else [info for info in self._sessions if not info.is_subagent]
        )
        if self.here_only or self.branch_only:
            shown = [info for info in shown if is_here(info.cwd, self._here, self._broad)]
        if self.branch_only:
            shown = [info for info in shown if info.git_branch == self.branch_only]
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
        if (self.here_only or self.branch_only) and not is_here(info.cwd, self._here, self._broad):
            return False
        if self.branch_only and info.git_branch != self.branch_only:
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
            total = sum(len(found) for g, (_, found) in self._group_nodes.items() if g.agent == agent)
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
        now = self.clock()
        age = age_text(info.updated or info.created, now)
        known = self._labels.get(info.path)
        if known is None or known[0] is not info or known[1] != age:  # a reload lists it anew; ages move on
            known = self._labels[info.path] = (info, age, session_label(info, now))
        return known[2]

    def render_label(self, node: TreeNode[SessionInfo | None], base_style: Style, style: Style) -> Text:
        """Draw a folder's path to fit the tree: whole when it fits, else its last parts after `…`."""
        drawn = super().render_label(node, base_style, style)
        group = self._folders.get(node.id)
        if group is None:
            return drawn
        full = node.label.plain if isinstance(node.label, Text) else str(node.label)
        marker, path, suffix = ("● " if group.here else ""), shown_folder(group.key), full[full.rfind(" (") :]
        room = self.scrollable_content_region.width - FOLDER_INDENT - cell_len(marker + suffix)
        short = elided(path, max(8, room))
        if short == path:
            return drawn
        label = Text(f"{marker}{short}{suffix}")
        label.stylize(style)
        return Text.assemble(drawn[: len(drawn) - len(full)], label)

    def _folder_label(self, group: Group, count: int) -> str:
        return f"{'● ' if group.here else ''}{shown_folder(group.key)} ({count})"

    def _append(self, group: Group, infos: list[SessionInfo]) -> None:
        """Add leaves under a folder, creating the folder node if needed, and fix its count."""
        if group not in self._group_nodes:
            # Folders that arrive while streaming start closed: every open leaf costs a redraw.
            node = self._agent_nodes[group.agent].add("", expand=group.here)
            self._group_nodes[group] = (node, [])
            self._folders[node.id] = group
            if not group.here:
                self._unfilled[node.id] = group
        node, items = self._group_nodes[group]
        items.extend(infos)
        if node.id not in self._unfilled:
            for info in infos:
                node.add_leaf(self._leaf_label(info), data=info)
        node.set_label(self._folder_label(group, len(items)))

    def _group_of(self, info: SessionInfo) -> Group:
        key = info.cwd or info.project or "(unknown folder)"
        return Group(info.agent, key, is_here(info.cwd, self._here, self._broad))

    @property
    def filter_text(self) -> str:
        """The filter's words, as applied."""
        return " ".join(self._terms)

    def _open_folder(self, folder: TreeNode[SessionInfo | None]) -> None:
        """Open a folder node, adding its leaves if they were left out while it was closed."""
        if not folder.is_expanded:
            folder.expand()
        group = self._unfilled.pop(folder.id, None)
        if group is not None:
            self._fill(folder, self._group_nodes[group][1])

    def _leaves(self) -> Iterator[TreeNode[SessionInfo | None]]:
        """Every session node in the order listed, opening folders only as they are reached."""
        for agent_node in self.root.children:
            for folder in agent_node.children:
                if folder.id in self._unfilled or not folder.is_expanded:
                    self._open_folder(folder)
                yield from folder.children

    def first_session_node(self) -> TreeNode[SessionInfo | None] | None:
        """The first session listed (the filter applied), opening its folder if needed."""
        return next(self._leaves(), None)

    def best_match(self) -> TreeNode[SessionInfo | None] | None:
        """The session Enter in the filter should open: the first original listed, not smig's own
        migrated copy of it (a copy only when nothing else matches)."""
        first = None
        for leaf in self._leaves():
            first = first or leaf
            if leaf.data is not None and is_original(leaf.data):
                return leaf
        return first

    def _sibling_folder(
        self, folder: TreeNode[SessionInfo | None], forward: bool
    ) -> TreeNode[SessionInfo | None] | None:
        """The folder listed after (or before) `folder`, across agents."""
        folders = [node for agent_node in self.root.children for node in agent_node.children]
        index = next((i for i, node in enumerate(folders) if node is folder), -1) + (1 if forward else -1)
        return folders[index] if 0 <= index < len(folders) else None

    def step(self, delta: int) -> SessionInfo | None:
        """Move the cursor to the next (or previous) session, opening folders on the way; returns it."""
        node = self.cursor_node
        if node is None or node.parent is None:
            target = self.first_session_node()
        elif node.data is None:  # on an agent's or a folder's line: the first session under it
            folders = [node] if node.id in self._folders else list(node.children)
            target = next((leaf for folder in folders for leaf in self._children_of(folder)), None)
        else:
            target = self._neighbour(node, delta > 0)
        if target is None:
            return None
        self.move_to(target)
        return target.data

    def _neighbour(self, leaf: TreeNode[SessionInfo | None], forward: bool) -> TreeNode[SessionInfo | None] | None:
        """The session listed after (or before) `leaf`, in the next folder that has one if need be."""
        folder = leaf.parent
        if folder is None:
            return None
        siblings = list(folder.children)
        index = siblings.index(leaf) + (1 if forward else -1)
        if 0 <= index < len(siblings):
            return siblings[index]
        while (folder := self._sibling_folder(folder, forward)) is not None:
            children = self._children_of(folder)
            if children:
                return children[0] if forward else children[-1]
        return None

    def _children_of(self, folder: TreeNode[SessionInfo | None]) -> list[TreeNode[SessionInfo | None]]:
        self._open_folder(folder)
        return list(folder.children)

    def action_peek(self) -> None:
        """Space: peek at a session; on a folder or an agent, open or close it as a tree does."""
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.PeekRequested(node.data))
        else:
            self.action_toggle_node()

    def action_first_line(self) -> None:
        """Home: the first line of the list."""
        if self.last_line >= 0:
            self.cursor_line = 0
            self.scroll_home(animate=False)

    def action_last_line(self) -> None:
        """End: the last line of the list."""
        if self.last_line >= 0:
            self.cursor_line = self.last_line
            self.scroll_end(animate=False)

    def set_filter(self, text: str) -> bool:
        """Show only sessions matching every word of `text`, the best match highlighted (as a picker
        that filters while you type does); returns whether the words changed."""
        terms = text.lower().split()
        if terms == self._terms:
            return False
        self._terms = terms
        self.rebuild(best=bool(terms))
        return True

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

    def toggle_here(self) -> bool:
        """List only the sessions of the folder smig was started in, or every folder's; returns the new state."""
        self.here_only = not self.here_only
        self.rebuild()
        return self.here_only

    def show_branch(self, branch: str | None) -> None:
        """List only this folder's sessions last on `branch` (None: drop that scope)."""
        self.branch_only = branch
        self.rebuild()

    def rebuild(self, best: bool = False) -> None:
        """Redraw the tree, keeping the highlighted session where it still shows (`best`: moving to
        the best match instead)."""
        current = self.cursor_node.data if self.cursor_node is not None else None
        opened = {group for group, (node, _) in self._group_nodes.items() if node.is_expanded}
        self.clear()
        self._agent_nodes.clear()
        self._group_nodes.clear()
        self._unfilled.clear()
        self._folders.clear()
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
                expand = group.here or group in opened or position < OPEN_FOLDERS
                node = agent_node.add(self._folder_label(group, len(items)), expand=expand)
                self._group_nodes[group] = (node, list(items))
                self._folders[node.id] = group
                if not expand:
                    self._unfilled[node.id] = group
                    continue
                for info in items:
                    leaf = node.add_leaf(self._leaf_label(info), data=info)
                    if current is not None and info.path == current.path:
                        target = leaf
                    first = first or leaf
        # With nothing highlighted yet, start on the newest session so Enter opens it at once.
        chosen = self.best_match() if best else target or (first if current is None else None)
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

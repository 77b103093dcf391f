"""Provides the search feature: the full-text index of every session (issue 20)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from smig_tui.core.errors import SmigError
from smig_tui.core.ports import WarningSink
from smig_tui.services.base import ServicesBase
from smig_tui.services.base import ignore as _ignore

if TYPE_CHECKING:
    from smig_tui.adapters.search_index import Notice, Progress, RefreshReport, SearchFilters, SearchHit, SearchIndex
    from smig_tui.core.search import Snippet


class Search(ServicesBase):
    """Searches every session's messages, refreshing the index first; a damaged index is rebuilt."""

    @cached_property
    def search_index(self) -> SearchIndex:
        """The full-text index of every session, in smig's cache folder."""
        from smig_tui.adapters.search_index import SearchIndex

        return SearchIndex(self.paths.cache_dir / "search")

    def refresh_search_index(
        self, warn: WarningSink = _ignore, progress: Progress | None = None, notice: Notice | None = None
    ) -> RefreshReport:
        """Index what is new or changed in every source's sessions (any agent a source reads)."""
        return self.search_index.refresh(self.sources, warn, progress, notice)

    def search(
        self,
        query: str,
        filters: SearchFilters | None = None,
        limit: int = 20,
        offset: int = 0,
        warn: WarningSink = _ignore,
        progress: Progress | None = None,
        notice: Notice | None = None,
        refresh: bool = True,
    ) -> list[SearchHit]:
        """Search every session's messages (refreshing the index first); a damaged index is rebuilt."""
        import sqlite3

        from smig_tui.adapters.search_index import IndexDamagedError, SearchFilters
        from smig_tui.core.search import parse_query

        parsed = parse_query(query)
        agents = [source.agent.value for source in self.sources]
        if filters and filters.agent and filters.agent not in agents:
            from smig_tui.core.search import SearchQueryError

            raise SearchQueryError(f"Unknown agent {filters.agent!r}; smig reads {', '.join(agents)}.")
        try:
            if refresh:
                self.refresh_search_index(warn, progress, notice)
            try:
                return self.search_index.search(parsed, filters or SearchFilters(), limit, offset, notice)
            except IndexDamagedError:
                self.refresh_search_index(warn, progress, notice)
                return self.search_index.search(parsed, filters or SearchFilters(), limit, offset, notice)
        except (sqlite3.Error, IndexDamagedError) as error:
            reason = str(error).rstrip(".")
            raise SmigError(f"The search index at {self.search_index.db_path} cannot be used: {reason}.") from None

    def search_excerpt(self, hit: SearchHit, query: str, width: int = 1200) -> Snippet:
        """More of a hit's message around the match (for a message view), redacted and marked."""
        from smig_tui.core.search import parse_query

        return self.search_index.excerpt(hit, parse_query(query), width)


def search_filters(**fields: Any) -> SearchFilters:
    """The filters of a search (agent, cwd, since, role), checked by the index."""
    from smig_tui.adapters.search_query import SearchFilters

    return SearchFilters(**fields)

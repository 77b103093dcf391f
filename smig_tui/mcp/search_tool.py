"""Provides `search_sessions` for the MCP server: the full-text index's hits as JSON-ready dicts."""

from __future__ import annotations

import os
from typing import Any

from smig_tui.mcp.paging import InvalidArgumentError
from smig_tui.mcp.words import for_tools
from smig_tui.services import Services, json_shapes

MAX_QUERY_CHARS = 500


def search_hits(
    services: Services, query: str, agent: str | None, cwd: str | None, since: str | None, role: str | None, limit: int
) -> list[dict[str, Any]]:
    """The best `limit` hits, each in the one shape `smig search --json` gives (`json_shapes.search_hit_json`)."""
    from smig_tui.core.search import SearchQueryError, parse_since
    from smig_tui.services import search_filters

    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgumentError(f"search_sessions: query must be at most {MAX_QUERY_CHARS} characters.")
    try:
        filters = search_filters(
            agent=agent or None,
            cwd=os.path.expanduser(cwd) if cwd else None,
            role=role,
            since=parse_since(since) if since else None,
        )
        hits = services.search(query, filters, limit=limit)
    except SearchQueryError as error:
        raise InvalidArgumentError(f"search_sessions: {for_tools(error)}") from None
    return [json_shapes.search_hit_json(hit) for hit in hits]

"""The archive's interface: where finished matches outlive the coordination
store. ``sql.SqlArchive`` implements it on SQLite and on PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from services.archive.records import (
    ArchivedMatch,
    ArchiveSize,
    Cursor,
    MatchFilter,
    RatingChange,
    Tally,
)


@dataclass(frozen=True)
class MatchSpan:
    """How many matches ended in a range of time, and the first and last end
    times among them (None when there are none)."""

    matches: int
    oldest_ms: int | None
    newest_ms: int | None


class Archive(Protocol):
    """Every write is idempotent: a match (by its id) or a rating change (by
    its match and player) written again changes nothing, so an outbox
    entry delivered twice is archived once. Lists are the latest first
    (by end time, then id, descending) and page by ``Cursor``."""

    async def start(self) -> None:
        """Connects; a schema older than this code's is an error that says
        to run ``meeple archive migrate`` (SQLite files are migrated here)."""
        ...

    async def close(self) -> None: ...

    async def write(self, matches: list[ArchivedMatch], changes: list[RatingChange]) -> None:
        """Stores matches and rating changes in one transaction; those
        stored already are left as they are."""
        ...

    async def match(self, match_id: str) -> ArchivedMatch | None: ...

    async def matches(
        self, where: MatchFilter, after: Cursor | None, limit: int
    ) -> list[ArchivedMatch]:
        """Up to ``limit`` of the player's matches that ``where`` keeps, after
        ``after`` (None: from the latest)."""
        ...

    async def tally(self, where: MatchFilter) -> Tally:
        """The player's outcomes over every match ``where`` keeps."""
        ...

    async def rating_history(
        self, player_id: str, game: str, after: Cursor | None, limit: int
    ) -> list[RatingChange]:
        """The player's rating changes in ``game``, the latest first (by
        ``rated_ms``, then match id)."""
        ...

    async def prune(self, before_ms: int) -> int:
        """Deletes the matches that ended before ``before_ms``, with their
        seats and rating changes; how many matches it deleted."""
        ...

    async def span(self, before_ms: int | None = None) -> MatchSpan:
        """The matches that ended before ``before_ms`` (None: every match):
        what ``prune(before_ms)`` would delete."""
        ...

    async def size(self) -> ArchiveSize: ...

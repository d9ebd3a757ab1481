"""The archive's outbox: what the archive is still to receive, written by
the same atomic step that made it (a match's finishing change; a rated
match's rating update), so that a crash between that step and the archive
write loses nothing. Any process drains it (``services.archive.writer``);
an entry stays until it is acknowledged, and one taken by a process that
went quiet comes back after the visibility timeout, so every entry is
archived at least once, and the archive's idempotent writes make that
exactly once.

Entries are written only while the outbox is enabled: every archiver
enables it for a while, again and again (``enable_outbox``), and then
every process of the store writes them, whatever its own settings; where
no archive was ever configured, none pile up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from services.coordination.matchmaking import PlayerRating

if TYPE_CHECKING:  # base imports this module for its Store
    from services.coordination.base import MatchData


@dataclass(frozen=True)
class RatingUpdate:
    """A rated match's rating update in one game: each player's rating
    before (None: a new player, never rated) and after."""

    game: str
    match_id: str
    before: tuple[PlayerRating | None, ...]
    after: tuple[PlayerRating, ...]


@dataclass(frozen=True)
class OutboxEntry:
    """One entry: a finished match's record as its finishing change stored
    it, or a rating update; ``queued_ms`` is when it was written (epoch ms),
    for the write-lag metric."""

    receipt: str
    queued_ms: int
    match: MatchData | None = None
    ratings: RatingUpdate | None = None


class OutboxStore(Protocol):
    async def enable_outbox(self, seconds: float) -> None:
        """Makes the steps that finish a match or apply ratings write their
        entries for the next ``seconds`` (an archiver renews it while it
        runs), in every process of the store."""
        ...

    async def pull_outbox(self, limit: int) -> list[OutboxEntry]:
        """Entries no other taker holds (new ones, and those taken longer
        ago than the visibility timeout and not acknowledged), up to
        ``limit`` from each of the store's outbox streams (Redis has one a
        shard and one a game, memory one), without waiting; each is this
        taker's until it acknowledges it."""
        ...

    async def ack_outbox(self, receipts: list[str]) -> None:
        """Drops archived entries."""
        ...

    async def outbox_size(self) -> int:
        """Entries not yet acknowledged (held ones included)."""
        ...

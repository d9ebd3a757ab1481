"""What the matchmaker keeps in the coordination store: tickets in queues,
a lease per queue, and ratings.

A ticket moves QUEUED -> (claimed by a pass) -> ASSIGNED, or to EXPIRED or
CANCELLED. A pass holds its queue's lease, whose fencing token grows with
each new holder; it claims a table's tickets atomically (only QUEUED,
unclaimed tickets, and only while its lease stands), creates the match, then
assigns them atomically (only if each is still claimed by its token). So a
ticket cancelled while a pass forms its table is never assigned, and the
claims of a crashed pass are released by the next holder.

Each ticket names the client address that created it (``client``), and the
store counts each address's open (queued) tickets, across queues and
replicas, so that CreateTicket refuses one over the cap atomically.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol


class TicketExists(ValueError):
    """A ticket of that id is stored already (a retry, or a reused request id)."""


class TooManyTickets(RuntimeError):
    """The ticket's client has as many open tickets as it may."""


class PlayerQueued(RuntimeError):
    """A player of the ticket has a queued ticket in its queue already."""

    def __init__(self, player_id: str) -> None:
        super().__init__(f"player {player_id!r} has a queued ticket in this queue")
        self.player_id = player_id


class Status(enum.IntEnum):
    """A ticket's state (the values of meeple.v1.TicketStatus)."""

    QUEUED = 1
    ASSIGNED = 2
    EXPIRED = 3
    CANCELLED = 4


@dataclass
class TicketRecord:
    """A party's ticket. ``claim`` is the fencing token of the pass that
    claimed it (0: none); ``version`` grows with every change, for watchers.
    ``seen_ms`` is its creation until an open WatchTicket beats: a watch's
    heartbeat is always later than the creation, so ``watched`` tells them
    apart. ``client`` is who created it (the identity, or the address
    without one; "": none known), which its open-ticket cap and the matches
    it is seated in are charged to. ``names`` are the players' display
    names (empty without identities)."""

    ticket_id: str
    queue: str
    token_hash: str
    game: str  # the game's name
    config: bytes  # a serialized GameConfig (no first seat, no player count)
    seat_counts: list[int]
    player_ids: list[str]
    allow_bots: bool
    rating: float
    created_ms: int
    expires_ms: int
    seen_ms: int  # the last heartbeat
    status: Status = Status.QUEUED
    claim: int = 0
    assignment: bytes = b""  # a serialized Assignment, once assigned
    version: int = 0
    client: str = ""
    names: list[str] = field(default_factory=list)

    @property
    def party(self) -> int:
        return len(self.player_ids)

    @property
    def watched(self) -> bool:
        """Whether a WatchTicket has beaten for it (ever)."""
        return self.seen_ms > self.created_ms


@dataclass
class PlayerRating:
    """One player's openskill rating in one game."""

    player_id: str
    mu: float
    sigma: float
    matches: int = 0
    version: int = 0  # grows with every update, for compare-and-set
    display_name: str = ""  # the player's name in its latest rated match

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


class Applied(enum.Enum):
    APPLIED = "applied"
    ALREADY = "already"  # this match was rated before
    CONFLICT = "conflict"  # a player's rating changed meanwhile: read and retry


@dataclass(frozen=True)
class ResultJob:
    """A rated match finished at ``version`` of its record: rate it."""

    receipt: str
    match_id: str
    version: int


@dataclass
class Claim:
    """The outcome of claiming a table's tickets."""

    ok: bool
    refused: list[str] = field(default_factory=list)  # tickets no longer free


class MatchmakingStore(Protocol):
    """Tickets, leases and ratings (see the module's docstring)."""

    async def create_ticket(self, ticket: TicketRecord, open_limit: int = 0) -> None:
        """Stores a new ticket, queued; TicketExists if its id is taken;
        TooManyTickets if its client has ``open_limit`` open tickets already
        (0: no cap; a ticket without a client is never capped); PlayerQueued
        if one of its players has a queued ticket in its queue."""
        ...

    async def open_tickets(self, client: str) -> int:
        """How many of ``client``'s tickets are open (queued): counted from
        their creation until they end, or at the latest until their max_wait
        passes (a count whose end was lost with its process heals then)."""
        ...

    async def shared_secret(self, name: str, candidate: bytes) -> bytes:
        """The secret ``name`` its users share (ticket tokens, the guest
        signing key): the first ``candidate`` any of them offered, kept from
        then on."""
        ...

    async def load_ticket(self, ticket_id: str) -> TicketRecord | None: ...

    async def wait_ticket(self, ticket: TicketRecord, timeout: float) -> TicketRecord | None:
        """``ticket`` once it changed past its version (its status, claim,
        assignment and version as stored), or as it was after ``timeout``
        seconds; None if it is gone."""
        ...

    async def heartbeat(self, ticket_id: str, now_ms: int) -> bool:
        """Marks the ticket seen at ``now_ms`` (a watch's heartbeat); False
        if it is gone (a store that lost its data)."""
        ...

    async def cancel_ticket(self, ticket_id: str) -> TicketRecord | None:
        """Cancels a queued (or claimed) ticket; the ticket as it is after."""
        ...

    async def queues(self) -> list[str]:
        """The queues that have queued tickets."""
        ...

    async def queued(self, queue: str) -> list[TicketRecord]:
        """The queue's queued tickets (claimed ones included), oldest first."""
        ...

    async def acquire_lease(self, queue: str, holder: str, seconds: float) -> int | None:
        """The fencing token of ``holder``'s lease on ``queue`` (taken or
        renewed for ``seconds``), or None while another holds it."""
        ...

    async def claim(self, queue: str, fence: int, ticket_ids: list[str]) -> Claim:
        """Claims every ticket (each queued and unclaimed) while the lease's
        token is still ``fence``; all or none."""
        ...

    async def claim_tables(self, queue: str, fence: int, tables: list[list[str]]) -> list[Claim]:
        """``claim`` of each table at once (one step for a whole pass): each
        table all or none, in order (a ticket named by an earlier table is
        refused to a later one); every table refused while the lease's token
        is not ``fence``."""
        ...

    async def release(self, queue: str, fence: int, ticket_ids: list[str]) -> None:
        """Unclaims the tickets that ``fence`` (or an older token) claimed."""
        ...

    async def assign(self, queue: str, fence: int, assignments: dict[str, bytes]) -> bool:
        """Assigns every ticket still claimed by ``fence``; all or none. The
        same assignment again, once done, is True (a retry whose first
        answer was lost)."""
        ...

    async def assign_tables(
        self, queue: str, fence: int, tables: list[dict[str, bytes]]
    ) -> list[bool]:
        """``assign`` of each table at once (one step for a whole pass):
        whether each was assigned, each table all or none."""
        ...

    async def expire(self, queue: str, ticket_ids: list[str]) -> None:
        """Expires the tickets that are queued and unclaimed."""
        ...

    async def ratings(self, game: str, player_ids: list[str]) -> dict[str, PlayerRating]:
        """Stored ratings (players without one are absent)."""
        ...

    async def apply_ratings(
        self, game: str, match_id: str, before: dict[str, int], after: list[PlayerRating]
    ) -> Applied:
        """Stores ``after`` once per match: unless the match was rated
        already, or a player's version is no longer ``before[player]``
        (0: no rating yet). Stored with it, in the same step: the archive's
        outbox entry of the update (``coordination.outbox``; a store made
        with ``outbox=True``)."""
        ...

    async def leaderboard(self, game: str, offset: int, limit: int) -> list[PlayerRating]: ...

    async def pull_result(self, timeout: float) -> ResultJob | None:
        """A finished rated match to rate (delivered again if not acknowledged)."""
        ...

    async def ack_result(self, receipt: str) -> None: ...

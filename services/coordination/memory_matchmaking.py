"""The matchmaking half of the in-memory store: tickets, leases, ratings and
the queue of finished rated matches (see ``coordination.matchmaking``).
MemoryCoordination mixes it in, so one object holds all of a process's
shared state; no method awaits between reading and writing."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import time
from collections import deque
from collections.abc import Callable

from services.coordination.matchmaking import (
    Applied,
    Claim,
    PlayerQueued,
    PlayerRating,
    ResultJob,
    Status,
    TicketExists,
    TicketRecord,
    TooManyTickets,
)
from services.coordination.outbox import RatingUpdate

TERMINAL_TICKET_SECONDS = 600.0  # an ended ticket stays readable this long


class MemoryMatchmaking:
    # Writes an outbox entry (``MemoryOutbox``, mixed in beside this).
    _queue_outbox: Callable[..., None]

    def __init__(self) -> None:
        self._tickets: dict[str, TicketRecord] = {}
        self._open: dict[str, set[str]] = {}  # client -> its queued tickets' ids
        self._queued_by: dict[tuple[str, str], str] = {}  # (queue, player) -> its queued ticket
        self._secrets: dict[str, bytes] = {}
        self._ticket_changed: dict[str, asyncio.Event] = {}
        self._ended: deque[tuple[float, str]] = deque()  # (drop time, ticket id)
        self._leases: dict[str, tuple[str, int, float]] = {}  # queue -> holder, fence, until
        self._fences: dict[str, int] = {}
        self._ratings: dict[str, dict[str, PlayerRating]] = {}
        self._rated: set[tuple[str, str]] = set()
        self._results: deque[tuple[str, int]] = deque()
        self._results_held: dict[str, tuple[str, int, float]] = {}
        self._result_ids = itertools.count(1)
        self.result_visibility_timeout = 60.0

    # --- tickets -----------------------------------------------------------------

    def _ticket_did_change(self, ticket: TicketRecord) -> None:
        ticket.version += 1
        if ticket.status is not Status.QUEUED:
            self._ended.append((time.monotonic() + TERMINAL_TICKET_SECONDS, ticket.ticket_id))
            for player in ticket.player_ids:
                if self._queued_by.get((ticket.queue, player)) == ticket.ticket_id:
                    del self._queued_by[ticket.queue, player]
            held = self._open.get(ticket.client)
            if held is not None:
                held.discard(ticket.ticket_id)
                if not held:
                    del self._open[ticket.client]
        event = self._ticket_changed.pop(ticket.ticket_id, None)
        if event is not None:
            event.set()

    def _forget_ended(self) -> None:
        now = time.monotonic()
        while self._ended and self._ended[0][0] <= now:
            _, ticket_id = self._ended.popleft()
            ticket = self._tickets.get(ticket_id)
            if ticket is not None and ticket.status is not Status.QUEUED:
                del self._tickets[ticket_id]

    async def create_ticket(self, ticket: TicketRecord, open_limit: int = 0) -> None:
        self._forget_ended()
        if ticket.ticket_id in self._tickets:
            raise TicketExists(f"ticket {ticket.ticket_id} exists already")
        held = self._open.get(ticket.client, set())
        if ticket.client and open_limit and len(held) >= open_limit:  # first, as on Redis
            raise TooManyTickets(f"{ticket.client} has {len(held)} open tickets")
        for player in ticket.player_ids:
            if (ticket.queue, player) in self._queued_by:
                raise PlayerQueued(player)
        if ticket.client:
            self._open.setdefault(ticket.client, set()).add(ticket.ticket_id)
        for player in ticket.player_ids:
            self._queued_by[ticket.queue, player] = ticket.ticket_id
        self._tickets[ticket.ticket_id] = copy.deepcopy(ticket)

    async def open_tickets(self, client: str) -> int:
        return len(self._open.get(client, ()))

    async def shared_secret(self, name: str, candidate: bytes) -> bytes:
        return self._secrets.setdefault(name, candidate)

    async def load_ticket(self, ticket_id: str) -> TicketRecord | None:
        ticket = self._tickets.get(ticket_id)
        return copy.deepcopy(ticket) if ticket is not None else None

    async def wait_ticket(self, ticket: TicketRecord, timeout: float) -> TicketRecord | None:
        stored = self._tickets.get(ticket.ticket_id)
        if stored is not None and stored.version <= ticket.version:
            event = self._ticket_changed.setdefault(ticket.ticket_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), timeout)
        return await self.load_ticket(ticket.ticket_id)

    async def heartbeat(self, ticket_id: str, now_ms: int) -> bool:
        ticket = self._tickets.get(ticket_id)
        if ticket is not None:
            ticket.seen_ms = max(ticket.seen_ms, now_ms)
        return ticket is not None

    async def cancel_ticket(self, ticket_id: str) -> TicketRecord | None:
        ticket = self._tickets.get(ticket_id)
        if ticket is not None and ticket.status is Status.QUEUED:
            ticket.status = Status.CANCELLED
            ticket.claim = 0
            self._ticket_did_change(ticket)
        return await self.load_ticket(ticket_id)

    async def queues(self) -> list[str]:
        self._forget_ended()
        return sorted({t.queue for t in self._tickets.values() if t.status is Status.QUEUED})

    async def queued(self, queue: str) -> list[TicketRecord]:
        tickets = [
            t for t in self._tickets.values() if t.queue == queue and t.status is Status.QUEUED
        ]
        return [copy.deepcopy(t) for t in sorted(tickets, key=lambda t: t.created_ms)]

    # --- leases and claims ----------------------------------------------------------

    async def acquire_lease(self, queue: str, holder: str, seconds: float) -> int | None:
        now = time.monotonic()
        lease = self._leases.get(queue)
        if lease is not None and lease[2] > now and lease[0] != holder:
            return None
        if lease is not None and lease[2] > now:
            fence = lease[1]
        else:
            fence = self._fences[queue] = self._fences.get(queue, 0) + 1
        self._leases[queue] = (holder, fence, now + seconds)
        return fence

    def _holds(self, queue: str, fence: int) -> bool:
        lease = self._leases.get(queue)
        return lease is not None and lease[1] == fence and lease[2] > time.monotonic()

    async def claim(self, queue: str, fence: int, ticket_ids: list[str]) -> Claim:
        return (await self.claim_tables(queue, fence, [ticket_ids]))[0]

    async def claim_tables(self, queue: str, fence: int, tables: list[list[str]]) -> list[Claim]:
        if not self._holds(queue, fence):
            return [Claim(False, list(ticket_ids)) for ticket_ids in tables]
        return [self._claim_table(fence, ticket_ids) for ticket_ids in tables]

    def _claim_table(self, fence: int, ticket_ids: list[str]) -> Claim:
        refused = [
            ticket_id
            for ticket_id in ticket_ids
            if (ticket := self._tickets.get(ticket_id)) is None
            or ticket.status is not Status.QUEUED
            or ticket.claim
        ]
        if refused:
            return Claim(False, refused)
        for ticket_id in ticket_ids:
            self._tickets[ticket_id].claim = fence
        return Claim(True)

    async def release(self, queue: str, fence: int, ticket_ids: list[str]) -> None:
        for ticket_id in ticket_ids:
            ticket = self._tickets.get(ticket_id)
            if ticket is not None and 0 < ticket.claim <= fence:
                ticket.claim = 0

    async def assign(self, queue: str, fence: int, assignments: dict[str, bytes]) -> bool:
        return (await self.assign_tables(queue, fence, [assignments]))[0]

    async def assign_tables(
        self, queue: str, fence: int, tables: list[dict[str, bytes]]
    ) -> list[bool]:
        return [self._assign_table(fence, assignments) for assignments in tables]

    def _assign_table(self, fence: int, assignments: dict[str, bytes]) -> bool:
        tickets = [self._tickets.get(ticket_id) for ticket_id in assignments]
        if all(
            t is not None and t.status is Status.ASSIGNED and t.assignment == assignments[t_id]
            for t_id, t in zip(assignments, tickets, strict=True)
        ):
            return True  # the same assignment again (a retry): it is done
        if not all(
            t is not None and t.status is Status.QUEUED and t.claim == fence for t in tickets
        ):
            return False
        for ticket_id, assignment in assignments.items():
            ticket = self._tickets[ticket_id]
            ticket.status = Status.ASSIGNED
            ticket.assignment = assignment
            ticket.claim = 0
            self._ticket_did_change(ticket)
        return True

    async def expire(self, queue: str, ticket_ids: list[str]) -> None:
        for ticket_id in ticket_ids:
            ticket = self._tickets.get(ticket_id)
            if ticket is not None and ticket.status is Status.QUEUED and not ticket.claim:
                ticket.status = Status.EXPIRED
                self._ticket_did_change(ticket)

    # --- ratings -------------------------------------------------------------------

    async def ratings(self, game: str, player_ids: list[str]) -> dict[str, PlayerRating]:
        stored = self._ratings.get(game, {})
        return {p: copy.copy(stored[p]) for p in player_ids if p in stored}

    async def apply_ratings(
        self, game: str, match_id: str, before: dict[str, int], after: list[PlayerRating]
    ) -> Applied:
        if (game, match_id) in self._rated:
            return Applied.ALREADY
        stored = self._ratings.setdefault(game, {})
        for player, version in before.items():
            current = stored.get(player)
            if (current.version if current is not None else 0) != version:
                return Applied.CONFLICT
        previous = tuple(copy.copy(stored.get(rating.player_id)) for rating in after)
        for rating in after:
            stored[rating.player_id] = copy.copy(rating)
        self._rated.add((game, match_id))
        self._queue_outbox(ratings=RatingUpdate(game, match_id, previous, tuple(after)))
        return Applied.APPLIED

    async def leaderboard(self, game: str, offset: int, limit: int) -> list[PlayerRating]:
        ranked = sorted(
            self._ratings.get(game, {}).values(), key=lambda r: (-r.ordinal, r.player_id)
        )
        return [copy.copy(r) for r in ranked[offset : offset + limit]]

    # --- finished rated matches ------------------------------------------------------------

    def _queue_result(self, match_id: str, version: int) -> None:
        self._results.append((match_id, version))

    async def pull_result(self, timeout: float) -> ResultJob | None:
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            for receipt, (match_id, version, until) in list(self._results_held.items()):
                if until <= now:
                    del self._results_held[receipt]
                    self._results.append((match_id, version))
            if self._results:
                match_id, version = self._results.popleft()
                receipt = str(next(self._result_ids))
                until = now + self.result_visibility_timeout
                self._results_held[receipt] = (match_id, version, until)
                return ResultJob(receipt, match_id, version)
            if now >= deadline:
                return None
            await asyncio.sleep(min(0.05, deadline - now))

    async def ack_result(self, receipt: str) -> None:
        self._results_held.pop(receipt, None)

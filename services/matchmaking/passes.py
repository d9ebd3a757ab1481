"""A matchmaker's passes: one at a time per queue under its lease, each
expiring what is late or unwatched, pairing what is watched, and seating
each table (its tickets claimed, its match created, its assignments
written) atomically with cancellation."""

from __future__ import annotations

import asyncio
import statistics

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm

from services.coordination import MatchData
from services.coordination.matchmaking import TicketRecord
from services.match_service import logic as matches
from services.matchmaking.logic import (
    BEATS_PER_TIMEOUT,
    LIVE_BEATS,
    Matchmaker,
    game_of_queue,
    match_log,
    table_config,
)
from services.matchmaking.pairing import Table, pair
from services.matchmaking.ratings import bot_level_for
from services.metrics import (
    MM_ASSIGNMENT_SECONDS,
    MM_BOT_FILLS,
    MM_EXPIRED,
    MM_MATCHES,
    MM_TICKETS_WAITING,
)


def count_waiting(maker: Matchmaker, queue: str, waiting: int) -> None:
    """Sets the waiting-tickets gauge of ``queue``'s game: the sum over the
    queues whose passes this replica runs (one label value per game, however
    many options its players choose; a queue leaves the sum when it empties
    or its lease goes to another replica, whose sum then counts it)."""
    if waiting:
        maker.waiting[queue] = waiting
    else:
        maker.waiting.pop(queue, None)
    game = game_of_queue(queue)
    total = sum(n for q, n in maker.waiting.items() if game_of_queue(q) == game)
    MM_TICKETS_WAITING.labels(game).set(total)


def pairable(maker: Matchmaker, ticket: TicketRecord, now_ms: int) -> bool:
    """Whether a pass may seat ``ticket`` now: it is watched (a heartbeat
    within the last LIVE_BEATS periods), and its address has a match left."""
    period_ms = maker.settings.ticket_heartbeat_timeout * 1000 / BEATS_PER_TIMEOUT
    live = ticket.watched and now_ms - ticket.seen_ms < LIVE_BEATS * period_ms
    return live and (not ticket.client or maker.budget.has(ticket.client))


async def run_pass(maker: Matchmaker, queue: str) -> int:
    """One pass over ``queue`` if this replica holds its lease; the tables seated."""
    store, settings = maker.store, maker.settings
    fence = await store.acquire_lease(queue, maker.holder, settings.matchmaker_lease)
    if fence is None:
        if queue in maker.waiting:  # another replica's pass counts it now
            count_waiting(maker, queue, 0)
        return 0
    now = maker.now_ms()
    tickets = await store.queued(queue)
    claimed = [t.ticket_id for t in tickets if t.claim]
    if claimed:  # claims of a pass that ended before assigning (a crash)
        await store.release(queue, fence, claimed)
    heartbeat_ms = round(settings.ticket_heartbeat_timeout * 1000)
    late = [t for t in tickets if t.expires_ms <= now]
    silent = [t for t in tickets if t.expires_ms > now and t.seen_ms + heartbeat_ms <= now]
    if late or silent:
        await store.expire(queue, [t.ticket_id for t in late + silent])
        for reason, ended in (("max_wait", late), ("heartbeat", silent)):
            for ticket in ended:
                MM_EXPIRED.labels(ticket.game, reason).inc()
    gone = {t.ticket_id for t in late + silent}
    waiting = [t for t in tickets if t.ticket_id not in gone]
    count_waiting(maker, queue, len(waiting))
    ready = [t for t in waiting if pairable(maker, t, now)]
    return await seat_tables(maker, queue, fence, pair(ready, now, settings.bot_fill_after))


async def seat_tables(maker: Matchmaker, queue: str, fence: int, tables: list[Table]) -> int:
    """Seats a pass's tables together: charges each match to its table's
    addresses, claims every table's tickets (one call), creates the claimed
    tables' matches (concurrently), assigns them (one call), then marks the
    matches rated; the tables seated. A table
    whose address has no match left, whose ticket went meanwhile, or whose
    lease did, is not seated (nothing assigned, nothing charged, its match
    dropped). A failure to create a match leaves its table unseated and is
    raised once the others are seated."""
    store = maker.store
    charged = []
    for table in tables:
        clients = {ticket.client for ticket in table.tickets if ticket.client}
        if maker.budget.take_all(clients):  # else spent by an earlier table of this pass
            charged.append((table, clients))
    if not charged:
        return 0
    claims = await store.claim_tables(queue, fence, [ids_of(table) for table, _ in charged])
    claimed = []
    for (table, clients), claim in zip(charged, claims, strict=True):
        if claim.ok:
            claimed.append((table, clients))
        else:
            maker.budget.refund(clients)
    if not claimed:
        return 0
    try:
        made = await asyncio.gather(
            *(create_table_match(maker, table) for table, _ in claimed), return_exceptions=True
        )
    except BaseException:  # cancelled
        await unclaim(maker, queue, fence, claimed)
        raise
    errors = [result for result in made if isinstance(result, BaseException)]
    unmade = [pair for pair, r in zip(claimed, made, strict=True) if isinstance(r, BaseException)]
    created = [
        (table, clients, result)
        for (table, clients), result in zip(claimed, made, strict=True)
        if not isinstance(result, BaseException)
    ]
    try:
        assigned = await store.assign_tables(queue, fence, [a for *_, (_, a) in created])
    except BaseException:
        await unclaim(maker, queue, fence, unmade + [(t, c) for t, c, _ in created])
        raise
    seated = [(t, d) for (t, _, (d, _)), ok in zip(created, assigned, strict=True) if ok]
    dropped = [(t, c, d) for (t, c, (d, _)), ok in zip(created, assigned, strict=True) if not ok]
    await unclaim(maker, queue, fence, unmade + [(t, c) for t, c, _ in dropped])
    if dropped:
        await asyncio.gather(*(maker.matches.coordination.delete(d.match_id) for *_, d in dropped))
        for table, _, data in dropped:
            # It was logged as created and started: say why it never ends.
            reason = "its tickets went meanwhile (cancelled, or the lease moved)"
            fields = {"match_id": data.match_id, "game": table.tickets[0].game, "reason": reason}
            match_log.info("match dropped", extra={"fields": fields})
    await asyncio.gather(*(maker.matches.coordination.mark_rated(d.match_id) for _, d in seated))
    now = maker.now_ms()
    for table, _ in seated:
        game = table.tickets[0].game
        MM_MATCHES.labels(game).inc()
        if table.bots:
            MM_BOT_FILLS.labels(game).inc()
        for ticket in table.tickets:
            MM_ASSIGNMENT_SECONDS.labels(game).observe((now - ticket.created_ms) / 1000)
    if errors:
        raise errors[0]
    return len(seated)


def ids_of(table: Table) -> list[str]:
    return [ticket.ticket_id for ticket in table.tickets]


async def unclaim(
    maker: Matchmaker, queue: str, fence: int, tables: list[tuple[Table, set[str]]]
) -> None:
    """Gives back the claims and the charges of tables not seated."""
    for _, clients in tables:
        maker.budget.refund(clients)
    ids = [ticket_id for table, _ in tables for ticket_id in ids_of(table)]
    if ids:
        await maker.store.release(queue, fence, ids)


async def create_table_match(maker: Matchmaker, table: Table) -> tuple[MatchData, dict[str, bytes]]:
    """The table's match, every human seat taken, bots of the level nearest
    the table's rating in the rest; and each ticket's assignment."""
    humans = [(ticket, player) for ticket in table.tickets for player in ticket.player_ids]
    level = bot_level_for(statistics.fmean(ticket.rating for ticket in table.tickets))
    seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN) for _ in humans]
    seats += [ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=level)] * table.bots
    config = table_config(pb.GameConfig.FromString(table.tickets[0].config), table.size)
    clock = ms.TimeControl()
    clock.base.FromMilliseconds(round(maker.settings.clock_base * 1000))
    clock.increment.FromMilliseconds(round(maker.settings.clock_increment * 1000))
    request = ms.CreateMatchRequest(config=config, seats=seats, time_control=clock)
    players = [player for _, player in humans] + [""] * table.bots
    names = [
        ticket.names[index] if index < len(ticket.names) else ""
        for ticket in table.tickets
        for index in range(len(ticket.player_ids))
    ]
    data, tokens = await matches.create_seated_match(maker.matches, request, players, names)
    assignments = {}
    for ticket in table.tickets:
        seated = [
            mm.SeatAssignment(player_id=player, seat=seat, seat_token=tokens[seat])
            for seat, (owner, player) in enumerate(humans)
            if owner is ticket
        ]
        assignment = mm.Assignment(match_id=data.match_id, seats=seated, bot_seats=table.bots)
        assignments[ticket.ticket_id] = assignment.SerializeToString()
    return data, assignments


async def run_passes(maker: Matchmaker) -> int:
    """A pass over every queue that has tickets; the tables seated."""
    seated = 0
    for queue in await maker.store.queues():
        seated += await run_pass(maker, queue)
    return seated

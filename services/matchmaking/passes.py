"""A matchmaker's passes: one at a time per queue under its lease, each
expiring what is late or unwatched, pairing what is watched, and seating
each table (its tickets claimed, its match created, its assignments
written) atomically with cancellation."""

from __future__ import annotations

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
    seated = 0
    ready = [t for t in waiting if pairable(maker, t, now)]
    for table in pair(ready, now, settings.bot_fill_after):
        seated += await seat_table(maker, queue, fence, table)
    return seated


async def seat_table(maker: Matchmaker, queue: str, fence: int, table: Table) -> bool:
    """Charges the match to the table's addresses, claims its tickets,
    creates its match, assigns them; False (nothing assigned, nothing
    charged) if an address has no match left, a ticket went meanwhile or
    the lease did."""
    store = maker.store
    ids = [ticket.ticket_id for ticket in table.tickets]
    clients = {ticket.client for ticket in table.tickets if ticket.client}
    if not maker.budget.take_all(clients):  # spent by an earlier table of this pass
        return False
    if not (await store.claim(queue, fence, ids)).ok:
        maker.budget.refund(clients)
        return False
    try:
        data, assignments = await create_table_match(maker, table)
        if not await store.assign(queue, fence, assignments):
            await store.release(queue, fence, ids)
            await maker.matches.coordination.delete(data.match_id)
            maker.budget.refund(clients)
            # It was logged as created and started: say why it never ends.
            reason = "its tickets went meanwhile (cancelled, or the lease moved)"
            fields = {"match_id": data.match_id, "game": table.tickets[0].game, "reason": reason}
            match_log.info("match dropped", extra={"fields": fields})
            return False
    except BaseException:
        maker.budget.refund(clients)
        await store.release(queue, fence, ids)
        raise
    await maker.matches.coordination.mark_rated(data.match_id)
    game = table.tickets[0].game
    now = maker.now_ms()
    MM_MATCHES.labels(game).inc()
    if table.bots:
        MM_BOT_FILLS.labels(game).inc()
    for ticket in table.tickets:
        MM_ASSIGNMENT_SECONDS.labels(game).observe((now - ticket.created_ms) / 1000)
    return True


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
    data, tokens = await matches.create_seated_match(maker.matches, request, players)
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

"""Seating a user's match, through the public API as clients do: a match of
server bots (CreateMatch), a match of human seats each joined by its own
player (CreateMatch, JoinMatch), or one matchmaking ticket per player
(CreateTicket, WatchTicket to the assignment), whose seats may land in
matches with other users' players."""

from __future__ import annotations

import time

import gevent  # type: ignore[import-untyped]
import grpc
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm

from services.client import TICKET_TOKEN_METADATA
from services.loadtest.identities import Player
from services.loadtest.locust.playing import Client, Table
from services.loadtest.locust.reporting import GRPC, Failure, failure_of
from services.loadtest.players import GAMES, SEATS, UNPACED


def _create(client: Client, game: str, seats: list[ms.SeatConfig], creator: Player) -> Table:
    # Only a match without human seats is paced; a load test plays at full speed.
    request = ms.CreateMatchRequest(config=GAMES[game], seats=seats, bot_pace=UNPACED)
    created = client.reporter.call(
        "CreateMatch",
        client.matches.CreateMatch,
        request,
        metadata=creator.metadata,
        timeout=client.options.rpc_timeout,
    )
    return Table(created.match.match_id, game)


def with_server_bots(client: Client, game: str, creator: Player) -> Table:
    bot = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=client.options.bot_spec)
    return _create(client, game, [bot] * SEATS[game], creator)


def by_joins(client: Client, game: str, players: list[Player]) -> Table:
    """The first player creates a match of human seats; each joins one."""
    table = _create(
        client, game, [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)] * SEATS[game], players[0]
    )
    for seat, player in zip(range(SEATS[game]), players, strict=False):
        join = ms.JoinMatchRequest(match_id=table.match_id, seat=seat)
        joined = client.reporter.call(
            "JoinMatch",
            client.matches.JoinMatch,
            join,
            metadata=player.metadata,
            timeout=client.options.rpc_timeout,
        )
        table.tokens[seat] = joined.seat_token
    return table


def one_ticket(client: Client, game: str, player: Player) -> mm.Assignment:
    """A ticket of one player for a table of the game's seats, watched to
    its assignment (WatchTicket is reported as the time to it)."""
    # With a token the ticket is the caller's; without identities the
    # request names its player.
    named = [] if player.token else [player.player_id]
    request = mm.CreateTicketRequest(
        config=GAMES[game], player_ids=named, seat_counts=[SEATS[game]]
    )
    created = client.reporter.call(
        "CreateTicket",
        client.tickets.CreateTicket,
        request,
        metadata=player.metadata,
        timeout=client.options.rpc_timeout,
    )
    watch = mm.WatchTicketRequest(ticket_id=created.ticket.ticket_id)
    metadata = ((TICKET_TOKEN_METADATA, created.ticket_token),)
    began = time.perf_counter()
    stream = client.tickets.WatchTicket(
        watch, metadata=metadata, timeout=client.options.match_timeout
    )
    failure = Failure("TICKET_EXPIRED", f"ticket {created.ticket.ticket_id} ended unassigned")
    try:
        for event in stream:
            if event.HasField("assigned"):
                client.reporter.report(GRPC, "WatchTicket", time.perf_counter() - began)
                return event.assigned
            if event.HasField("ended"):
                break
    except grpc.RpcError as error:
        failure = failure_of(error)
    finally:
        stream.cancel()
    client.reporter.report(GRPC, "WatchTicket", time.perf_counter() - began, failure=failure)
    raise failure


def by_tickets(
    client: Client, game: str, players: list[Player]
) -> tuple[list[Table], Failure | None]:
    """One ticket per player, all at once: the tables our seats landed at
    (each reported by the holder of its seat 0), and the first failure of a
    ticket if any (the seats assigned are played all the same: other
    players wait for them)."""

    def ticket(player: Player) -> mm.Assignment | Failure:
        try:
            return one_ticket(client, game, player)
        except Failure as failure:
            return failure

    greenlets = [gevent.spawn(ticket, player) for player in players[: SEATS[game]]]
    gevent.joinall(greenlets)
    tables: dict[str, Table] = {}
    failure: Failure | None = None
    for greenlet in greenlets:
        assignment = greenlet.value
        if not isinstance(assignment, mm.Assignment):
            error = greenlet.exception
            failure = failure or assignment or Failure(type(error).__name__, str(error))
            continue
        table = tables.setdefault(assignment.match_id, Table(assignment.match_id, game))
        for seat in assignment.seats:
            table.tokens[seat.seat] = seat.seat_token
    for table in tables.values():
        table.reports = 0 in table.tokens
    return list(tables.values()), failure

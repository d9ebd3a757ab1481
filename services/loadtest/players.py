"""One match of a load test, as real clients would play it, through the
public gRPC API only: server bots play it, or the load test's own bots play
its human seats (seated by CreateMatch and JoinMatch, or by matchmaking
tickets), while spectators watch it. Each match takes players of the run
(``identities``) for the calls that act for one: its creator, and one per
human seat, each with its own token."""

from __future__ import annotations

import asyncio
import time

import grpc
from google.protobuf.duration_pb2 import Duration
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm

from services.loadtest.identities import Player
from services.loadtest.recorder import ASSIGNMENT
from services.loadtest.watching import Client, sit, watch_to_end

TICKET_TOKEN = "meeple-ticket-token"
GAMES = {
    "rolit": pb.GameConfig(kind=pb.GAME_KIND_ROLIT),
    "othello": pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
    "volleyball": pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL),
    "volta": pb.GameConfig(kind=pb.GAME_KIND_VOLTA),
}
SEATS = {"rolit": 4, "othello": 2, "volleyball": 2, "volta": 2}


def players_per_match(game: str, mode: str) -> int:
    """The players one match takes: its creator (server bots), or one per seat."""
    return 1 if mode == "server" else SEATS[game]


class Unassigned(Exception):
    """A ticket ended without a match (it expired)."""


# Bot-only matches as fast as the bots play: a load test measures the
# server, not the pace that lets spectators follow a match.
UNPACED = Duration(seconds=0)


async def play(client: Client, game: str, mode: str) -> None:
    """One match from its creation to its end: ``mode`` is "server" (server
    bots), "client" (our bots in human seats) or "matchmaking" (our bots,
    seated through tickets)."""
    recorder = client.recorder
    recorder.match_started(game)
    try:
        async with client.players.taken(players_per_match(game, mode)) as players:
            if mode == "server":
                bot = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=client.bot_spec)
                request = ms.CreateMatchRequest(
                    config=GAMES[game], seats=[bot] * SEATS[game], bot_pace=UNPACED
                )
                call = client.matches.CreateMatch(request, metadata=players[0].metadata)
                created = await recorder.timed("CreateMatch", call, game)
                await watch_to_end(client, game, created.match.match_id, {})
            elif mode == "client":
                await watch_to_end(client, game, *await seat_by_joins(client, game, players))
            else:
                seated = await seat_by_tickets(client, game, players)
                await asyncio.gather(*(sit(client, game, m, t) for m, t in seated.items()))
    except Unassigned:
        recorder.error("TICKET_EXPIRED", game)
        recorder.match_failed(game)
    except grpc.aio.AioRpcError:
        recorder.match_failed(game)


async def seat_by_joins(
    client: Client, game: str, players: list[Player]
) -> tuple[str, dict[int, str]]:
    """The first player creates a match of human seats; each player joins
    one with its own token."""
    recorder = client.recorder
    seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)] * SEATS[game]
    request = ms.CreateMatchRequest(config=GAMES[game], seats=seats)
    call = client.matches.CreateMatch(request, metadata=players[0].metadata)
    created = await recorder.timed("CreateMatch", call, game)
    match_id = created.match.match_id
    tokens = {}
    for seat, player in zip(range(SEATS[game]), players, strict=True):
        join = ms.JoinMatchRequest(match_id=match_id, seat=seat)
        joining = client.matches.JoinMatch(join, metadata=player.metadata)
        tokens[seat] = (await recorder.timed("JoinMatch", joining, game)).seat_token
    return match_id, tokens


async def seat_by_tickets(
    client: Client, game: str, players: list[Player]
) -> dict[str, dict[int, str]]:
    """One ticket per player (the caller's own), all for tables of exactly
    the game's seats: the seats we hold, by match. Under load our tickets
    may meet other tickets, of this run or another: each seat is played
    wherever it lands."""
    recorder = client.recorder
    size = SEATS[game]

    async def one_ticket(player: Player) -> mm.Assignment:
        # With a token the ticket is the caller's (empty player_ids);
        # without identities the request names its player.
        named = [] if player.token else [player.player_id]
        request = mm.CreateTicketRequest(config=GAMES[game], player_ids=named, seat_counts=[size])
        began = time.perf_counter()
        call = client.tickets.CreateTicket(request, metadata=player.metadata)
        created = await recorder.timed("CreateTicket", call, game)
        watch = mm.WatchTicketRequest(ticket_id=created.ticket.ticket_id)
        metadata = ((TICKET_TOKEN, created.ticket_token),)
        async for event in client.tickets.WatchTicket(watch, metadata=metadata):
            if event.HasField("assigned"):
                recorder.record(ASSIGNMENT, time.perf_counter() - began, game)
                return event.assigned
            if event.HasField("ended"):
                break
        raise Unassigned(created.ticket.ticket_id)

    assignments = await asyncio.gather(*(one_ticket(player) for player in players))
    by_match: dict[str, dict[int, str]] = {}
    for assignment in assignments:
        for seat in assignment.seats:
            by_match.setdefault(assignment.match_id, {})[seat.seat] = seat.seat_token
    return by_match
